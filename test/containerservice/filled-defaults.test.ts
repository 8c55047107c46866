// What AKS fills in or keeps that a request leaves to it (issue 29, docs/aks-rules.md §3.7): the cilium
// dataplane's policy, the LTS support plan with the Premium tier it needs, a managed NAT gateway's idle timeout.
// Raw HTTP against a real server, at 2024-02-01 (the first stable version with supportPlan in the data and the
// version of the spec's Premium example).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bearer, https } from '../e2e/harness.js';
import { type Env, groupId, withServer } from '../network/harness.js';
import { rawCluster } from './harness.js';

type Json = Record<string, any>;
const V = '2024-02-01';

async function call(env: Env, method: string, name: string, body?: unknown): Promise<{ status: number; json: Json }> {
  const path = `${groupId(env)}/providers/Microsoft.ContainerService/managedClusters/${name}?api-version=${V}`;
  const headers = { ...(await bearer(env.server)), 'content-type': 'application/json' };
  const res = await https(env.server, method, path, { headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: res.status, json: res.json as Json };
}

async function created(env: Env, name: string, body: unknown): Promise<Json> {
  const put = await call(env, 'PUT', name, body);
  assert.equal(put.status, 201, JSON.stringify(put.json));
  for (let i = 0; i < 500; i++) {
    const got = await call(env, 'GET', name);
    if (got.json.properties?.provisioningState === 'Succeeded') return got.json;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.fail(`${name} did not succeed`);
}

describe('defaults AKS fills in (issue 29)', () => {
  test('networkDataplane cilium without a policy: accepted, the policy set to cilium; another policy refused', () =>
    withServer(async (env) => {
      const cilium = { networkPlugin: 'azure', networkPluginMode: 'overlay', networkDataplane: 'cilium' };
      const got = await created(env, 'cil', rawCluster('cil', { networkProfile: cilium }));
      assert.equal(got.properties.networkProfile.networkDataplane, 'cilium');
      assert.equal(got.properties.networkProfile.networkPolicy, 'cilium');
      const azure = await call(env, 'PUT', 'cil2', rawCluster('cil2', { networkProfile: { ...cilium, networkPolicy: 'azure' } }));
      assert.equal(azure.status, 400);
      assert.equal(azure.json.error.code, 'CiliumDataplaneRequiresNetworkPolicyCilium');
    }));

  test('supportPlan AKSLongTermSupport is kept on the Premium tier and refused on any other', () =>
    withServer(async (env) => {
      const lts = { ...rawCluster('lts', { supportPlan: 'AKSLongTermSupport' }), sku: { name: 'Base', tier: 'Premium' } };
      const got = await created(env, 'lts', lts);
      assert.equal(got.properties.supportPlan, 'AKSLongTermSupport');
      assert.equal(got.sku.tier, 'Premium');
      // Leaving Premium while keeping LTS is refused; the cluster stays as it was.
      const down = await call(env, 'PUT', 'lts', { ...lts, sku: { name: 'Base', tier: 'Standard' } });
      assert.equal(down.status, 400);
      assert.deepEqual(down.json.error, {
        code: 'BadRequest',
        message: 'AKS Long Term Support is only available for Premium tier clusters.',
        target: 'supportPlan',
      });
      assert.equal((await call(env, 'GET', 'lts')).json.sku.tier, 'Premium');
      const free = await call(env, 'PUT', 'free', rawCluster('free', { supportPlan: 'AKSLongTermSupport' }));
      assert.equal(free.status, 400);
      assert.equal(free.json.error.code, 'BadRequest');
      const official = await created(env, 'off', rawCluster('off'));
      assert.equal(official.properties.supportPlan, 'KubernetesOfficial');
    }));

  test('a managed NAT gateway: idleTimeoutInMinutes 4 and one outbound IP unless given', () =>
    withServer(async (env) => {
      const got = await created(env, 'nat', rawCluster('nat', { networkProfile: { networkPlugin: 'kubenet', outboundType: 'managedNATGateway' } }));
      assert.equal(got.properties.networkProfile.natGatewayProfile.idleTimeoutInMinutes, 4);
      assert.deepEqual(got.properties.networkProfile.natGatewayProfile.managedOutboundIPProfile, { count: 1 });
      const given = await created(
        env,
        'nat2',
        rawCluster('nat2', {
          networkProfile: {
            networkPlugin: 'kubenet',
            outboundType: 'managedNATGateway',
            natGatewayProfile: { managedOutboundIPProfile: { count: 2 }, idleTimeoutInMinutes: 10 },
          },
        }),
      );
      assert.equal(given.properties.networkProfile.natGatewayProfile.idleTimeoutInMinutes, 10);
      assert.deepEqual(given.properties.networkProfile.natGatewayProfile.managedOutboundIPProfile, { count: 2 });
    }));
});
