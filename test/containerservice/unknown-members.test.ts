// Unknown request members on managedClusters and agentPools, as AKS answers them by api-version (issue 30,
// docs/aks-rules.md §1.5): ignored below 2024-01-01 (accepted, not stored, not answered), refused from 2024-01-01 on
// with the RP's UnmarshalError, naming the first one; --strict refuses them at every version, --loose drops them at
// every version. Over HTTPS to a real server, and through @azure/arm-containerservice.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, https, removeHome, startTestServer, tempHome, type TestServer } from '../e2e/harness.js';
import { pathOf, waitForOperation } from '../arm/helpers.js';
import { aksClient, cluster, POLL, rawCluster } from './harness.js';

const UNMARSHAL =
  'UnmarshalEntity encountered error: json: unknown field "storageProfil" Check that the field is in the right location, is spelled correctly, and is supported in the API version. Visit aka.ms/aks/apiversions for more API version information..';

async function put(server: TestServer, path: string, version: string, body: unknown) {
  return https(server, 'PUT', `${path}?api-version=${version}`, {
    headers: { ...(await bearer(server)), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

async function get(server: TestServer, path: string, version: string) {
  return https(server, 'GET', `${path}?api-version=${version}`, { headers: await bearer(server) });
}

/** A create that the server accepted, waited for. */
async function created(server: TestServer, res: { status: number; headers: Record<string, unknown>; json: any }) {
  assert.ok(res.status === 201 || res.status === 200, JSON.stringify(res.json));
  const op = await waitForOperation(server as never, pathOf(res.headers['azure-asyncoperation']));
  assert.equal(op.status, 'Succeeded', JSON.stringify(op));
}

/** Every member name anywhere in a JSON value. */
function names(value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) names(v, out);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      out.add(k);
      names(v, out);
    }
  }
  return out;
}

describe('unknown request members, by api-version (default mode)', () => {
  let home: string;
  let server: TestServer;
  let group: string;
  before(async () => {
    home = tempHome();
    server = await startTestServer({ home, lroDelayMs: 0 });
    group = `/subscriptions/${server.identity.subscriptionId}/resourceGroups/rg`;
    const rg = await https(server, 'PUT', `${group}?api-version=2021-04-01`, {
      headers: { ...(await bearer(server)), 'content-type': 'application/json' },
      body: JSON.stringify({ location: 'eastus' }),
    });
    assert.equal(rg.status, 201, rg.text);
  });
  after(async () => {
    await server.close();
    removeHome(home);
  });

  test('2021-03-01: storageProfile (a 2022-04-01 member) and a misspelt member are accepted, not stored, not answered', async () => {
    const path = `${group}/providers/Microsoft.ContainerService/managedClusters/old2021`;
    const body = rawCluster('old2021', { storageProfile: { diskCSIDriver: { enabled: false } }, addProfile: { managed: true } });
    (body.properties.agentPoolProfiles[0] as Record<string, unknown>)['nodeImageVersionX'] = 'x';
    const res = await put(server, path, '2021-03-01', body);
    await created(server, res);
    for (const member of ['storageProfile', 'addProfile', 'nodeImageVersionX']) assert.ok(!names(res.json).has(member), `the PUT answers ${member}`);
    const got = await get(server, path, '2021-03-01');
    assert.equal(got.status, 200);
    for (const member of ['storageProfile', 'addProfile', 'nodeImageVersionX']) assert.ok(!names(got.json).has(member), `the GET answers ${member}`);
    // Not stored: a version that does define storageProfile reads the cluster with AKS's default (the driver on), not
    // with what the old request carried.
    const later = await get(server, path, '2022-04-01');
    assert.equal(later.json.properties.storageProfile?.diskCSIDriver?.enabled, true, JSON.stringify(later.json.properties.storageProfile));

    // A pool PUT at 2023-11-01 (the last stable before the change) with an unknown member: accepted, ignored.
    const pool = await put(server, `${path}/agentPools/user1`, '2023-11-01', {
      properties: { count: 1, vmSize: 'Standard_DS2_v2', mode: 'User', sshAccez: 'x' },
    });
    await created(server, pool);
    assert.ok(!names((await get(server, `${path}/agentPools/user1`, '2023-11-01')).json).has('sshAccez'));
  });

  test('2024-01-01 and later: 400 UnmarshalError naming the first unknown member, nothing created', async () => {
    for (const version of ['2024-01-01', '2025-10-01']) {
      const path = `${group}/providers/Microsoft.ContainerService/managedClusters/new${version.slice(0, 4)}`;
      const res = await put(server, path, version, rawCluster('new', { storageProfil: {}, addProfile: {} }));
      assert.equal(res.status, 400, res.text);
      assert.deepEqual(res.json, { error: { code: 'UnmarshalError', message: UNMARSHAL } });
      assert.equal((await get(server, path, version)).status, 404);
    }
    // In a pool of the cluster body, and on an agentPools PUT, as the RP answered in #152.
    const path = `${group}/providers/Microsoft.ContainerService/managedClusters/old2021`;
    const body = rawCluster('x', {});
    (body.properties.agentPoolProfiles[0] as Record<string, unknown>)['sshAccess'] = 'LocalUser';
    const inPool = await put(server, `${group}/providers/Microsoft.ContainerService/managedClusters/np`, '2024-02-01', body);
    assert.equal(inPool.status, 400);
    assert.equal(inPool.json.error.code, 'UnmarshalError');
    assert.match(inPool.json.error.message, /^UnmarshalEntity encountered error: json: unknown field "sshAccess" Check that the field/);
    const pool = await put(server, `${path}/agentPools/user2`, '2024-01-01', { properties: { count: 1, vmSize: 'Standard_DS2_v2', bogus: 1 } });
    assert.equal(pool.status, 400);
    assert.equal(pool.json.error.code, 'UnmarshalError');
    assert.match(pool.json.error.message, /unknown field "bogus"/);
    // Read-only members a client sends back from its GET are members of the model, not unknown ones.
    const readBack = await get(server, path, '2025-10-01');
    const again = await put(server, path, '2025-10-01', readBack.json);
    assert.ok(again.status === 200 || again.status === 201, again.text);
    await waitForOperation(server as never, pathOf(again.headers['azure-asyncoperation']));
  });

  test('hostile unknown members (__proto__, constructor) at 2021-03-01 are dropped and pollute nothing; at 2024-01-01 named', async () => {
    const path = `${group}/providers/Microsoft.ContainerService/managedClusters/proto`;
    const raw = JSON.stringify(rawCluster('proto')).replace(
      '"dnsPrefix"',
      '"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"dnsPrefix"',
    );
    const headers = { ...(await bearer(server)), 'content-type': 'application/json' };
    const old = await https(server, 'PUT', `${path}?api-version=2021-03-01`, { headers, body: raw });
    await created(server, old);
    assert.ok(!Object.hasOwn(old.json.properties, '__proto__') && !Object.hasOwn(old.json.properties, 'constructor'), old.text);
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
    const newer = await https(server, 'PUT', `${path}?api-version=2024-01-01`, { headers, body: raw });
    assert.equal(newer.status, 400);
    assert.match(newer.json.error.message, /unknown field "__proto__"/);
  });

  test('other providers keep aksemu’s refusal (no public rule): Microsoft.Network names every unknown member', async () => {
    const res = await put(server, `${group}/providers/Microsoft.Network/virtualNetworks/v1`, '2023-11-01', {
      location: 'eastus',
      properties: { addressSpace: { addressPrefixes: ['10.0.0.0/16'] }, colour: 'red' },
    });
    assert.equal(res.status, 400);
    assert.equal(res.json.error.code, 'InvalidRequestContent');
    assert.match(res.json.error.message, /Could not find member 'colour'/);
  });

  test('@azure/arm-containerservice at its own default version and at 2023-07-01 (members its model fills in that version lacks): both create', async () => {
    for (const [name, version] of [
      ['sdknew', '2025-10-01'],
      ['sdkold', '2023-07-01'],
    ] as const) {
      const client = aksClient(server, version);
      const made = await client.managedClusters.beginCreateOrUpdateAndWait('rg', name, cluster({ networkPlugin: 'kubenet' }), POLL);
      assert.equal(made.provisioningState, 'Succeeded');
      const pool = await client.agentPools.beginCreateOrUpdateAndWait('rg', name, 'user1', { count: 1, vmSize: 'Standard_DS2_v2', mode: 'User' }, POLL);
      assert.equal(pool.provisioningState, 'Succeeded');
    }
  });
});

describe('--strict and --loose', () => {
  for (const mode of ['strict', 'loose'] as const) {
    test(`${mode}: ${mode === 'strict' ? 'refused at 2021-03-01 too, naming every member' : 'dropped at 2025-10-01 too'}`, async () => {
      const home = tempHome();
      const server = await startTestServer({ home, lroDelayMs: 0, [mode]: true });
      try {
        const group = `/subscriptions/${server.identity.subscriptionId}/resourceGroups/rg`;
        await https(server, 'PUT', `${group}?api-version=2021-04-01`, {
          headers: { ...(await bearer(server)), 'content-type': 'application/json' },
          body: JSON.stringify({ location: 'eastus' }),
        });
        const path = `${group}/providers/Microsoft.ContainerService/managedClusters/m`;
        if (mode === 'strict') {
          const res = await put(server, path, '2021-03-01', rawCluster('m', { storageProfile: {}, addProfile: {} }));
          assert.equal(res.status, 400, res.text);
          assert.equal(res.json.error.code, 'InvalidRequestContent');
          assert.deepEqual(
            res.json.error.details.map((d: { target: string }) => d.target),
            ['properties.storageProfile', 'properties.addProfile'],
          );
          // From 2024-01-01 the RP's own refusal, in either mode.
          const newer = await put(server, path, '2024-01-01', rawCluster('m', { storageProfil: {} }));
          assert.deepEqual(newer.json, { error: { code: 'UnmarshalError', message: UNMARSHAL } });
        } else {
          const res = await put(server, path, '2025-10-01', rawCluster('m', { storageProfil: {} }));
          await created(server, res);
          assert.ok(!names(res.json).has('storageProfil'));
        }
      } finally {
        await server.close();
        removeHome(home);
      }
    });
  }
});

describe('no sentence twice (issue 30): several problems are the error and its other details', () => {
  test('az as aksemu az prints a refusal with two problems: each sentence once', async () => {
    const home = tempHome();
    const server = await startTestServer({ home, lroDelayMs: 0 });
    try {
      const { az } = await import('../az/helpers.js');
      assert.equal((await az(home, ['group', 'create', '-l', 'eastus', '-n', 'rg', '-o', 'none'])).code, 0);
      const args = ['aks', 'create', '-g', 'rg', '-n', 'two', '--network-plugin', 'kubenet', '--pod-cidr', '10.0.0.0/8'];
      const r = await az(home, [...args, '--service-cidr', '10.0.0.0/16', '--dns-service-ip', '10.0.0.10', '--generate-ssh-keys']);
      assert.equal(r.code, 1);
      const sentences = r.stderr.match(/The pod CIDR 10\.0\.0\.0\/8 overlaps with the service CIDR 10\.0\.0\.0\/16\./g) ?? [];
      // az prints the error's message twice by design (`(Code) Message`, then `Message:`); no third time from details.
      assert.equal(sentences.length, 2, r.stderr);
      assert.match(r.stderr, /\(NetworkProfileCIDROverlapVNET\) NetworkProfile CIDR 10\.0\.0\.0\/8 overlaps with reserved VNET CIDR/);
    } finally {
      await server.close();
      removeHome(home);
    }
  });
});
