// `aksemu az vm create/show/list/delete` against a real server: the NIC and NSG az makes, the VM, az's
// summary output, and az's client-side checks.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { removeHome, startTestServer, tempHome, type TestServer } from '../e2e/harness.js';
import { azIn, groupWithSubnet } from './helpers.js';

describe('aksemu az vm', () => {
  let server: TestServer;
  let home: string;

  before(async () => {
    home = tempHome();
    server = await startTestServer({ home });
    await groupWithSubnet(home, 'rg');
  });

  after(async () => {
    await server.close();
    removeHome(home);
  });

  it("vm create makes <name>VMNic on the subnet and prints az's summary", async () => {
    const r = await azIn(home, [
      'vm',
      'create',
      '-g',
      'rg',
      '-n',
      'testvm',
      '--vnet-name',
      'vnet1',
      '--subnet',
      'web',
      '--private-ip-address',
      '10.0.1.100',
      '--image',
      'Ubuntu2204',
      '--size',
      'Standard_B1s',
      '--admin-username',
      'azureuser',
      '--generate-ssh-keys',
      '--public-ip-address',
      '',
      '--nsg',
      '',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(Object.keys(r.json).sort(), [
      'fqdns',
      'id',
      'location',
      'macAddress',
      'powerState',
      'privateIpAddress',
      'publicIpAddress',
      'resourceGroup',
      'zones',
    ]);
    assert.equal(r.json.powerState, 'VM running');
    assert.equal(r.json.privateIpAddress, '10.0.1.100');
    assert.equal(r.json.publicIpAddress, '');
    assert.equal(r.json.resourceGroup, 'rg');
    assert.equal(r.json.location, 'eastus');
    assert.match(r.json.id, /\/resourceGroups\/rg\/providers\/Microsoft\.Compute\/virtualMachines\/testvm$/);

    const shown = await azIn(home, ['vm', 'show', '-g', 'rg', '-n', 'testvm', '-d']);
    assert.equal(shown.code, 0, shown.stderr);
    assert.equal(shown.json.privateIps, '10.0.1.100');
    assert.equal(shown.json.powerState, 'VM running');
    assert.equal(shown.json.hardwareProfile.vmSize, 'Standard_B1s');
    assert.equal(shown.json.storageProfile.imageReference.offer, '0001-com-ubuntu-server-jammy');
    assert.equal(shown.json.osProfile.linuxConfiguration.disablePasswordAuthentication, true);
    assert.match(shown.json.osProfile.linuxConfiguration.ssh.publicKeys[0].keyData, /^ssh-rsa /);
    assert.match(shown.json.networkProfile.networkInterfaces[0].id, /\/networkInterfaces\/testvmVMNic$/);
    const subnet = await azIn(home, ['network', 'vnet', 'subnet', 'show', '-g', 'rg', '--vnet-name', 'vnet1', '-n', 'web']);
    const configs = (subnet.json.ipConfigurations ?? []).map((c: { id: string }) => c.id);
    assert.ok(
      configs.some((id: string) => /networkInterfaces\/testvmVMNic\/ipConfigurations\/ipconfigtestvm$/i.test(id)),
      JSON.stringify(configs),
    );
    // --nsg "": no NSG was made.
    const nsgs = await azIn(home, ['network', 'nsg', 'list', '-g', 'rg']);
    assert.deepEqual(nsgs.json, []);
  });

  it('vm create without --nsg makes <name>NSG allowing SSH, as az does; the address is the next free one', async () => {
    const r = await azIn(home, [
      'vm',
      'create',
      '-g',
      'rg',
      '-n',
      'vm2',
      '--vnet-name',
      'vnet1',
      '--subnet',
      'web',
      '--admin-username',
      'azureuser',
      '--generate-ssh-keys',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /public IP/);
    assert.equal(r.json.privateIpAddress, '10.0.1.4');
    const nsg = await azIn(home, ['network', 'nsg', 'show', '-g', 'rg', '-n', 'vm2NSG']);
    assert.equal(nsg.code, 0, nsg.stderr);
    const rule = nsg.json.securityRules[0];
    assert.deepEqual([rule.name, rule.destinationPortRange, rule.access, rule.direction, rule.priority], ['default-allow-ssh', '22', 'Allow', 'Inbound', 1000]);
    assert.match(nsg.json.networkInterfaces[0].id, /vm2VMNic$/);
  });

  it("vm list shows both; -o table prints az's columns", async () => {
    const list = await azIn(home, ['vm', 'list', '-g', 'rg']);
    assert.deepEqual(list.json.map((v: { name: string }) => v.name).sort(), ['testvm', 'vm2']);
    const table = await azIn(home, ['vm', 'list', '-o', 'table']);
    assert.match(table.stdout.split('\n')[0]!, /^Name\s+ResourceGroup\s+Location/);
  });

  it('refuses a disallowed user, an unknown image, a missing subnet and a taken address', async () => {
    const root = await azIn(home, [
      'vm',
      'create',
      '-g',
      'rg',
      '-n',
      'vm3',
      '--vnet-name',
      'vnet1',
      '--subnet',
      'web',
      '--admin-username',
      'root',
      '--generate-ssh-keys',
    ]);
    assert.equal(root.code, 1);
    assert.match(root.stderr, /ERROR: This user name 'root' meets the general requirements, but is specifically disallowed for this image/);
    const image = await azIn(home, [
      'vm',
      'create',
      '-g',
      'rg',
      '-n',
      'vm3',
      '--vnet-name',
      'vnet1',
      '--subnet',
      'web',
      '--admin-username',
      'azureuser',
      '--image',
      'Nope',
    ]);
    assert.equal(image.code, 1);
    assert.match(image.stderr, /Invalid image "Nope"/);
    const subnet = await azIn(home, [
      'vm',
      'create',
      '-g',
      'rg',
      '-n',
      'vm3',
      '--vnet-name',
      'vnet1',
      '--subnet',
      'missing',
      '--admin-username',
      'azureuser',
      '--generate-ssh-keys',
    ]);
    assert.equal(subnet.code, 1);
    assert.match(subnet.stderr, /subnet 'missing'/);
    const taken = await azIn(home, [
      'vm',
      'create',
      '-g',
      'rg',
      '-n',
      'vm3',
      '--vnet-name',
      'vnet1',
      '--subnet',
      'web',
      '--private-ip-address',
      '10.0.1.100',
      '--admin-username',
      'azureuser',
      '--generate-ssh-keys',
      '--nsg',
      '',
    ]);
    assert.equal(taken.code, 1);
    assert.match(taken.stderr, /10\.0\.1\.100/);
  });

  it('vm delete removes the VM and keeps its NIC', async () => {
    const del = await azIn(home, ['vm', 'delete', '-g', 'rg', '-n', 'testvm', '--yes']);
    assert.equal(del.code, 0, del.stderr);
    const show = await azIn(home, ['vm', 'show', '-g', 'rg', '-n', 'testvm']);
    assert.equal(show.code, 3);
    assert.match(show.stderr, /ResourceNotFound/);
    const subnet = await azIn(home, ['network', 'vnet', 'subnet', 'show', '-g', 'rg', '--vnet-name', 'vnet1', '-n', 'web']);
    assert.ok(subnet.json.ipConfigurations.some((c: { id: string }) => /testvmVMNic/.test(c.id)));
    const noConfirm = await azIn(home, ['vm', 'delete', '-g', 'rg', '-n', 'vm2']);
    assert.notEqual(noConfirm.code, 0);
  });
});
