// Microsoft.Compute/virtualMachines over raw ARM requests against a real server: long-running PUT and
// DELETE as ARM clients poll them, the strict schema, the Compute RP's validation errors, NIC references,
// and no secret in any response or in the store.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { bearer, https, removeHome, startTestServer, tempHome, type TestServer } from '../e2e/harness.js';
import { groupWithSubnet } from './helpers.js';

const API = 'api-version=2022-11-01';
const NET_API = 'api-version=2022-01-01';
const PASSWORD = 'S3cret-Pa55word-never-returned';

describe('Microsoft.Compute/virtualMachines', () => {
  let server: TestServer;
  let home: string;
  let auth: Record<string, string>;
  let rgPath: string;

  const call = (method: string, path: string, body?: unknown) =>
    https(server, method, path, { headers: { ...auth, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });

  /** Follows Azure-AsyncOperation until the operation ends; returns its status body. */
  async function finish(res: { headers: Record<string, unknown> }): Promise<any> {
    const url = new URL(String(res.headers['azure-asyncoperation']));
    for (;;) {
      const poll = await call('GET', `${url.pathname}${url.search}`);
      assert.equal(poll.status, 200);
      if (poll.json.status !== 'InProgress') return poll.json;
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  async function nic(name: string, ip: string): Promise<string> {
    const subnet = `${rgPath}/providers/Microsoft.Network/virtualNetworks/vnet1/subnets/web`;
    const res = await call('PUT', `${rgPath}/providers/Microsoft.Network/networkInterfaces/${name}?${NET_API}`, {
      location: 'eastus',
      properties: {
        ipConfigurations: [{ name: 'ipconfig1', properties: { subnet: { id: subnet }, privateIPAllocationMethod: 'Static', privateIPAddress: ip } }],
      },
    });
    assert.equal(res.status, 201, res.text);
    await finish(res);
    return res.json.id;
  }

  function vmBody(nicId: string, extra: Record<string, unknown> = {}): any {
    return {
      location: 'eastus',
      properties: {
        hardwareProfile: { vmSize: 'Standard_B1s' },
        storageProfile: { imageReference: { publisher: 'Canonical', offer: '0001-com-ubuntu-server-jammy', sku: '22_04-lts-gen2', version: 'latest' } },
        osProfile: { computerName: 'vm1', adminUsername: 'azureuser', adminPassword: PASSWORD },
        networkProfile: { networkInterfaces: [{ id: nicId }] },
        ...extra,
      },
    };
  }

  before(async () => {
    home = tempHome();
    server = await startTestServer({ home, lroDelayMs: 20 });
    auth = await bearer(server);
    await groupWithSubnet(home, 'rg');
    rgPath = `/subscriptions/${server.identity.subscriptionId}/resourceGroups/rg`;
  });

  after(async () => {
    await server.close();
    removeHome(home);
  });

  it('creates a VM as a long-running operation, returns no password, and keeps none', async () => {
    const nicId = await nic('nic1', '10.0.1.10');
    const put = await call('PUT', `${rgPath}/providers/Microsoft.Compute/virtualMachines/vm1?${API}`, vmBody(nicId));
    assert.equal(put.status, 201, put.text);
    assert.equal(put.json.properties.provisioningState, 'Creating');
    assert.match(String(put.headers['azure-asyncoperation']), /\/providers\/Microsoft\.Compute\/locations\/eastus\/operations\//);
    assert.equal((await finish(put)).status, 'Succeeded');

    const got = await call('GET', `${rgPath}/providers/Microsoft.Compute/virtualMachines/vm1?${API}&$expand=instanceView`);
    assert.equal(got.status, 200);
    assert.equal(got.json.type, 'Microsoft.Compute/virtualMachines');
    assert.equal(got.json.properties.provisioningState, 'Succeeded');
    assert.equal(got.json.properties.hardwareProfile.vmSize, 'Standard_B1s');
    assert.deepEqual(got.json.properties.networkProfile.networkInterfaces, [{ id: nicId }]);
    assert.equal(got.json.properties.storageProfile.osDisk.osType, 'Linux');
    const power = got.json.properties.instanceView.statuses.find((s: { code: string }) => s.code.startsWith('PowerState/'));
    assert.equal(power.displayStatus, 'VM running');
    assert.equal(got.json.properties.osProfile.adminPassword, undefined);
    for (const text of [put.text, got.text]) assert.ok(!text.includes(PASSWORD));
    // Not in the store either (SQLite's file and its WAL), nor in the server's log.
    await new Promise((r) => setTimeout(r, 10));
    for (const file of ['state.db', 'state.db-wal']) {
      let bytes = '';
      try {
        bytes = readFileSync(join(home, file)).toString('latin1');
      } catch {
        continue;
      }
      assert.ok(!bytes.includes(PASSWORD), `${file} holds the password`);
    }
    assert.ok(!server.logLines.join('\n').includes(PASSWORD));

    const view = await call('GET', `${rgPath}/providers/Microsoft.Compute/virtualMachines/vm1/instanceView?${API}`);
    assert.equal(view.json.computerName, 'vm1');

    const inGroup = await call('GET', `${rgPath}/providers/Microsoft.Compute/virtualMachines?${API}`);
    assert.deepEqual(
      inGroup.json.value.map((v: { name: string }) => v.name),
      ['vm1'],
    );
    const inSub = await call('GET', `/subscriptions/${server.identity.subscriptionId}/providers/Microsoft.Compute/virtualMachines?${API}`);
    assert.deepEqual(
      inSub.json.value.map((v: { id: string }) => v.id),
      [got.json.id],
    );
  });

  it('refuses what the Compute RP refuses, with its codes and targets', async () => {
    const nicId = await nic('nic2', '10.0.1.11');
    const path = `${rgPath}/providers/Microsoft.Compute/virtualMachines/bad?${API}`;
    const cases: Array<[string, any, number, string, string | undefined]> = [
      ['no osProfile', { ...vmBody(nicId), properties: { ...vmBody(nicId).properties, osProfile: undefined } }, 400, 'InvalidParameter', 'osProfile'],
      ['no vmSize', { ...vmBody(nicId), properties: { ...vmBody(nicId).properties, hardwareProfile: {} } }, 400, 'InvalidParameter', 'hardwareProfile.vmSize'],
      [
        'root admin',
        vmBody(nicId, { osProfile: { computerName: 'bad', adminUsername: 'root', adminPassword: PASSWORD } }),
        400,
        'InvalidParameter',
        'adminUsername',
      ],
      ['no password, no key', vmBody(nicId, { osProfile: { computerName: 'bad', adminUsername: 'azureuser' } }), 400, 'InvalidParameter', 'adminPassword'],
      [
        'ssh only without keys',
        vmBody(nicId, { osProfile: { computerName: 'bad', adminUsername: 'azureuser', linuxConfiguration: { disablePasswordAuthentication: true } } }),
        400,
        'InvalidParameter',
        'linuxConfiguration.ssh.publicKeys',
      ],
      ['missing NIC', vmBody(`${rgPath}/providers/Microsoft.Network/networkInterfaces/nope`), 400, 'InvalidResourceReference', undefined],
      ['no NICs', vmBody(nicId, { networkProfile: { networkInterfaces: [] } }), 400, 'InvalidParameter', 'networkProfile.networkInterfaces'],
      ['NIC of vm1', vmBody(`${rgPath}/providers/Microsoft.Network/networkInterfaces/nic1`), 409, 'NicInUse', 'networkProfile.networkInterfaces'],
      ['unmodelled member', vmBody(nicId, { diagnosticsProfile: { bootDiagnostics: { enabled: true } } }), 400, 'InvalidRequestContent', undefined],
    ];
    for (const [label, body, status, code, target] of cases) {
      const res = await call('PUT', path, body);
      assert.equal(res.status, status, `${label}: ${res.text}`);
      assert.equal(res.json.error.code, code, label);
      if (target !== undefined) assert.equal(res.json.error.target, target, label);
      assert.ok(!res.text.includes(PASSWORD), label);
    }
    assert.match((await call('PUT', path, vmBody(nicId, { diagnosticsProfile: {} }))).json.error.message, /diagnosticsProfile/);
    assert.equal((await call('GET', path)).status, 404);
  });

  it('keeps computerName fixed on update and the update needs no password', async () => {
    const nicId = await nic('nic3', '10.0.1.12');
    const path = `${rgPath}/providers/Microsoft.Compute/virtualMachines/vm3?${API}`;
    await finish(await call('PUT', path, vmBody(nicId, { osProfile: { computerName: 'vm3', adminUsername: 'azureuser', adminPassword: PASSWORD } })));
    const current = (await call('GET', path)).json;
    const resize = await call('PUT', path, { ...current, properties: { ...current.properties, hardwareProfile: { vmSize: 'Standard_B2s' } } });
    assert.equal(resize.status, 200, resize.text);
    assert.equal(resize.json.properties.provisioningState, 'Updating');
    await finish(resize);
    assert.equal((await call('GET', path)).json.properties.hardwareProfile.vmSize, 'Standard_B2s');
    const rename = await call('PUT', path, {
      ...current,
      properties: { ...current.properties, osProfile: { ...current.properties.osProfile, computerName: 'other' } },
    });
    assert.equal(rename.status, 409);
    assert.equal(rename.json.error.code, 'PropertyChangeNotAllowed');
    assert.equal(rename.json.error.target, 'osProfile.computerName');
  });

  it('deletes a VM as a long-running operation and leaves its NIC', async () => {
    const path = `${rgPath}/providers/Microsoft.Compute/virtualMachines/vm3?${API}`;
    const del = await call('DELETE', path);
    assert.equal(del.status, 202);
    assert.ok(del.headers['location']);
    assert.equal((await finish(del)).status, 'Succeeded');
    assert.equal((await call('GET', path)).status, 404);
    assert.equal((await call('DELETE', path)).status, 204);
    const nicRes = await call('GET', `${rgPath}/providers/Microsoft.Network/networkInterfaces/nic3?${NET_API}`);
    assert.equal(nicRes.status, 200);
    assert.equal(nicRes.json.properties.ipConfigurations[0].properties.privateIPAddress, '10.0.1.12');
  });
});
