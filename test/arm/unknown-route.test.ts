// A route the server does not have, under a provider and type it knows, answers ARM's error for what the path
// names (issue 14 item 4): an unknown child type is InvalidResourceType naming the whole type path, an unknown
// action on a known type is the provider's 404 — not InvalidResourceType naming the parent type.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bearer, https } from '../e2e/harness.js';
import { withServer, type Env } from '../network/harness.js';

async function call(env: Env, method: string, path: string) {
  return https(env.server, method, `/subscriptions/${env.sub}/resourceGroups/rg/providers/${path}?api-version=2022-11-01`, {
    headers: { ...(await bearer(env.server)), 'content-type': 'application/json' },
    ...(method === 'GET' ? {} : { body: '{}' }),
  });
}

describe('unknown routes under a known provider', () => {
  test('child types, actions, top-level types', () =>
    withServer(async (env) => {
      const child = await call(env, 'GET', 'Microsoft.ContainerService/managedClusters/c1/widgets');
      assert.equal(child.status, 400);
      assert.deepEqual(child.json, {
        error: {
          code: 'InvalidResourceType',
          message: "The resource type 'managedClusters/widgets' could not be found in the namespace 'Microsoft.ContainerService' for api version '2022-11-01'.",
        },
      });
      const grandchild = await call(env, 'PUT', 'Microsoft.ContainerService/managedClusters/c1/agentPools/p1/gadgets/g');
      assert.equal(
        (grandchild.json as { error: { message: string } }).error.message.startsWith("The resource type 'managedClusters/agentPools/gadgets'"),
        true,
      );

      const action = await call(env, 'POST', 'Microsoft.ContainerService/managedClusters/c1/frobnicate');
      assert.equal(action.status, 404);
      assert.deepEqual(action.json, {
        error: { code: 'NotFound', message: "The action 'frobnicate' is not supported on resource type 'Microsoft.ContainerService/managedClusters'." },
      });
      const poolAction = await call(env, 'POST', 'Microsoft.ContainerService/managedClusters/c1/agentPools/p1/frobnicate');
      assert.equal(poolAction.status, 404);
      assert.match((poolAction.json as { error: { message: string } }).error.message, /managedClusters\/agentPools'/);
      const networkAction = await call(env, 'POST', 'Microsoft.Network/virtualNetworks/v1/frobnicate');
      assert.equal(networkAction.status, 404);

      const top = await call(env, 'GET', 'Microsoft.ContainerService/widgets/w');
      assert.equal(top.status, 400);
      assert.equal((top.json as { error: { code: string } }).error.code, 'InvalidResourceType');
      // A known path with a method it does not take stays ARM's 405.
      const method = await call(env, 'GET', 'Microsoft.ContainerService/managedClusters/c1/stop');
      assert.equal(method.status, 405);
    }));
});
