// The old stable api-versions ARM still serves for managedClusters and agentPools (2017-08-31 … 2022-04-01, 2022-05-01,
// 2022-08-01), over raw HTTP as the clients of those years send them: each version accepts and returns only the members
// its own schema has (docs/aks-rules.md §1.4), agentPools is a type from 2019-02-01 on, and the previews AKS retired
// are refused with ARM's NoRegisteredProviderFound listing what is served.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bearer, https } from '../e2e/harness.js';
import { type Env, groupId, withServer } from '../network/harness.js';
import { rawCluster } from './harness.js';

type Json = Record<string, any>;

async function call(env: Env, method: string, path: string, apiVersion: string, body?: unknown): Promise<{ status: number; json: Json }> {
  const headers = { ...(await bearer(env.server)), 'content-type': 'application/json' };
  const res = await https(env.server, method, `${path}?api-version=${apiVersion}`, { headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: res.status, json: res.json as Json };
}

/** GETs `path` until its provisioningState is terminal (a create answers 201 Creating first). */
async function settled(env: Env, path: string, apiVersion: string): Promise<Json> {
  for (let i = 0; i < 500; i++) {
    const got = await call(env, 'GET', path, apiVersion);
    assert.equal(got.status, 200, JSON.stringify(got.json));
    const state = got.json.properties?.provisioningState;
    if (state === 'Succeeded' || state === 'Failed') return got.json;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.fail(`${path} did not settle`);
}

const clusterPath = (env: Env, name: string) => `${groupId(env)}/providers/Microsoft.ContainerService/managedClusters/${name}`;

/** Every member name anywhere under `value` (to show what a version's answer carries). */
function memberNames(value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) memberNames(v, out);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      out.add(k);
      memberNames(v, out);
    }
  }
  return out;
}

// One body per family, as a client of the time would send it (the members that version has).
// `later`: a member a later version added, refused here (docs/aks-rules.md §1.4 gives the first version of each).
const FAMILIES: { version: string; body: Json; lacks: string[]; later: [string, string, unknown] }[] = [
  {
    version: '2017-08-31',
    body: {
      location: 'eastus',
      properties: {
        dnsPrefix: 'old2017',
        kubernetesVersion: '1.32',
        agentPoolProfiles: [{ name: 'agentpool', count: 1, vmSize: 'Standard_DS2_v2', osType: 'Linux' }],
        servicePrincipalProfile: { clientId: '00000000-0000-0000-0000-000000000001', secret: 'not-a-real-secret' },
      },
    },
    lacks: ['networkProfile', 'identity', 'enableRBAC', 'maxPods', 'mode', 'nodeResourceGroup'],
    later: ['pool', 'maxPods', 30],
  },
  {
    version: '2019-02-01',
    body: {
      location: 'eastus',
      properties: {
        dnsPrefix: 'old2019',
        agentPoolProfiles: [{ name: 'agentpool', count: 1, vmSize: 'Standard_DS2_v2', type: 'VirtualMachineScaleSets' }],
        servicePrincipalProfile: { clientId: '00000000-0000-0000-0000-000000000001', secret: 'not-a-real-secret' },
        networkProfile: { networkPlugin: 'kubenet' },
      },
    },
    lacks: ['identity', 'mode', 'powerState', 'outboundType', 'sku'],
    later: ['pool', 'mode', 'System'],
  },
  {
    version: '2021-03-01',
    body: rawCluster('old2021', { networkProfile: { networkPlugin: 'azure' } }),
    lacks: ['natGatewayProfile', 'currentKubernetesVersion', 'networkPluginMode', 'eTag', 'storageProfile'],
    later: ['network', 'natGatewayProfile', { idleTimeoutInMinutes: 4 }],
  },
  {
    version: '2022-04-01',
    body: rawCluster('old2022', {
      networkProfile: { networkPlugin: 'kubenet', natGatewayProfile: { idleTimeoutInMinutes: 10 }, outboundType: 'loadBalancer' },
    }),
    lacks: ['networkPluginMode', 'networkDataplane', 'eTag', 'workloadAutoScalerProfile'],
    later: ['network', 'networkPluginMode', 'overlay'],
  },
];

describe('the old managedClusters api-versions ARM still serves', () => {
  for (const family of FAMILIES) {
    test(`${family.version}: create, get and pool operations, with that version's members only`, () =>
      withServer(async (env) => {
        const v = family.version;
        const path = clusterPath(env, `c${v.replaceAll('-', '')}`);
        const put = await call(env, 'PUT', path, v, family.body);
        assert.ok(put.status === 201 || put.status === 200, JSON.stringify(put.json));
        const got = await settled(env, path, v);
        assert.equal(got.properties.provisioningState, 'Succeeded', JSON.stringify(got.properties));
        assert.equal(got.properties.dnsPrefix, family.body.properties.dnsPrefix);
        const names = memberNames(got);
        for (const member of family.lacks) assert.ok(!names.has(member), `${v} answers ${member}: ${JSON.stringify(got)}`);

        // A member of a later version is ignored in this one, as the RP ignored unknown members before 2024-01-01
        // (docs/aks-rules.md §1.5): accepted, not answered.
        const later = structuredClone(family.body);
        const [where, member, value] = family.later;
        (where === 'pool' ? later.properties.agentPoolProfiles[0] : later.properties.networkProfile)[member] = value;
        const ignored = await call(env, 'PUT', path, v, later);
        assert.equal(ignored.status, 200, JSON.stringify(ignored.json));
        assert.ok(!memberNames(ignored.json).has(member), `${v} answers ${member}`);
        assert.ok(!memberNames(await settled(env, path, v)).has(member));

        const pools = await call(env, 'GET', `${path}/agentPools`, v);
        if (v < '2019-02-01') {
          // agentPools is a resource type from 2019-02-01 on; ARM lists that type's own versions.
          assert.equal(pools.status, 400);
          assert.equal(pools.json.error.code, 'NoRegisteredProviderFound');
          assert.match(
            pools.json.error.message,
            new RegExp(`API version '${v}' for type 'managedClusters/agentPools'\\. The supported api-versions are '2019-02-01, 2019-04-01, `),
          );
          return;
        }
        assert.equal(pools.status, 200);
        assert.equal(pools.json.value.length, 1);
        const pool = `${path}/agentPools/pool2`;
        const addPool = await call(env, 'PUT', pool, v, { properties: { count: 1, vmSize: 'Standard_DS2_v2', type: 'VirtualMachineScaleSets' } });
        assert.ok(addPool.status === 201 || addPool.status === 200, JSON.stringify(addPool.json));
        const added = await settled(env, pool, v);
        assert.equal(added.properties.count, 1);
        for (const member of family.lacks) assert.ok(!memberNames(added).has(member), `${v} pool answers ${member}`);
        const scaled = await call(env, 'PUT', pool, v, { properties: { count: 2, vmSize: 'Standard_DS2_v2', type: 'VirtualMachineScaleSets' } });
        assert.ok(scaled.status === 200 || scaled.status === 201, JSON.stringify(scaled.json));
        assert.equal((await settled(env, pool, v)).properties.count, 2);
        const removed = await call(env, 'DELETE', pool, v);
        assert.ok(removed.status === 202 || removed.status === 200, JSON.stringify(removed.json));
        for (let i = 0; i < 500 && (await call(env, 'GET', pool, v)).status !== 404; i++) await new Promise((r) => setTimeout(r, 20));
        assert.equal((await call(env, 'GET', pool, v)).status, 404);
      }));
  }

  test('a cluster made at 2026-04-01 reads at 2019-02-01 without the members 2019 lacks', () =>
    withServer(async (env) => {
      const path = clusterPath(env, 'newer');
      const body = FAMILIES[2]!.body;
      assert.equal((await call(env, 'PUT', path, '2026-04-01', body)).status, 201);
      await settled(env, path, '2026-04-01');
      const old = await call(env, 'GET', path, '2019-02-01');
      assert.equal(old.status, 200);
      const names = memberNames(old.json);
      for (const member of ['identity', 'mode', 'networkPluginMode', 'powerState', 'outboundType']) assert.ok(!names.has(member), member);
      assert.equal(old.json.properties.networkProfile.networkPlugin, 'azure');
    }));

  test('retired previews are refused with the supported versions in ARM order', () =>
    withServer(async (env) => {
      for (const retired of ['2022-06-02-preview', '2023-03-02-preview', '2024-09-02-preview']) {
        const res = await call(env, 'PUT', clusterPath(env, 'p'), retired, FAMILIES[2]!.body);
        assert.equal(res.status, 400);
        assert.equal(res.json.error.code, 'NoRegisteredProviderFound');
        const message: string = res.json.error.message;
        assert.ok(
          message.startsWith(
            `No registered resource provider found for location 'eastus' and API version '${retired}' for type 'managedClusters'. The supported api-versions are ` +
              "'2017-08-31, 2018-03-31, 2019-02-01, 2019-04-01, 2019-06-01, 2019-08-01, 2019-10-01, 2019-11-01, 2020-01-01, 2020-02-01, 2020-03-01, " +
              '2020-04-01, 2020-06-01, 2020-07-01, 2020-09-01, 2020-11-01, 2020-12-01, 2021-02-01, 2021-03-01, 2021-05-01, 2021-07-01, 2021-08-01, ' +
              '2021-09-01, 2021-10-01, 2022-01-01, 2022-02-01, 2022-03-01, 2022-04-01, 2022-06-01, 2022-07-01, 2022-08-01, 2022-09-01, 2022-11-01, ' +
              '2023-01-01, 2023-02-01, 2023-03-01, 2023-04-01, ',
          ),
          message,
        );
        assert.ok(!message.includes(`${retired},`) && !message.includes(`, ${retired}'`), message);
      }
      // A GET names no location of a body: ARM's text then says 'global'.
      const get = await call(env, 'GET', clusterPath(env, 'p'), '2022-08-03-preview');
      assert.equal(get.json.error.code, 'NoRegisteredProviderFound');
    }));
});
