// An agentPools PUT to an existing pool that omits members keeps the pool's values (docs/aks-rules.md §8): the
// spec's AgentPools_Start / AgentPools_Stop examples send only properties.powerState.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bearer, https } from '../e2e/harness.js';
import type { AgentPool } from '@azure/arm-containerservice';
import { restError, withServer, type Env } from '../network/harness.js';
import { aksClient, cluster, POLL } from './harness.js';

/** A kubenet cluster c1 of one node and one more pool of the given properties; the client. */
async function clusterWithPool(env: Env, pool: string, properties: AgentPool) {
  const aks = aksClient(env.server);
  await aks.managedClusters.beginCreateOrUpdateAndWait('rg', 'c1', cluster({ networkPlugin: 'kubenet' }, { count: 1 }), POLL);
  await aks.agentPools.beginCreateOrUpdateAndWait('rg', 'c1', pool, properties, POLL);
  return aks;
}

test('containerservice: a pool PUT carrying only powerState stops and starts the pool and keeps its count, size and labels', () =>
  withServer(async (env) => {
    const aks = await clusterWithPool(env, 'user1', { count: 2, mode: 'User', vmSize: 'Standard_DS3_v2', nodeLabels: { tier: 'web' } });
    const stopped = await aks.agentPools.beginCreateOrUpdateAndWait('rg', 'c1', 'user1', { powerState: { code: 'Stopped' } }, POLL);
    assert.equal(stopped.powerState?.code, 'Stopped');
    const started = await aks.agentPools.beginCreateOrUpdateAndWait('rg', 'c1', 'user1', { powerState: { code: 'Running' } }, POLL);
    assert.equal(started.powerState?.code, 'Running');
    assert.equal(started.count, 2);
    assert.equal(started.vmSize, 'Standard_DS3_v2');
    assert.equal(started.mode, 'User');
    assert.deepEqual(started.nodeLabels, { tier: 'web' });

    // A new pool still needs its count (rule M6).
    const refused = await restError(aks.agentPools.beginCreateOrUpdateAndWait('rg', 'c1', 'user2', { powerState: { code: 'Running' } }, POLL));
    assert.match(String(refused.message), /Required parameter properties\.count is missing/);
  }));

test('containerservice: a pool update that turns the autoscaler off without naming minCount/maxCount clears them', () =>
  withServer(async (env) => {
    const aks = await clusterWithPool(env, 'auto1', { count: 1, mode: 'User', vmSize: 'Standard_DS2_v2', enableAutoScaling: true, minCount: 1, maxCount: 3 });
    const off = await aks.agentPools.beginCreateOrUpdateAndWait('rg', 'c1', 'auto1', { enableAutoScaling: false }, POLL);
    assert.equal(off.enableAutoScaling, false);
    assert.equal(off.minCount, undefined);
    assert.equal(off.maxCount, undefined);
    assert.equal(off.count, 1);
  }));

test('containerservice: a Spot pool reads back the spec defaults spotMaxPrice -1 and scaleSetEvictionPolicy Delete; a Regular pool neither', () =>
  withServer(async (env) => {
    const aks = await clusterWithPool(env, 'spot1', { count: 1, mode: 'User', vmSize: 'Standard_DS2_v2', scaleSetPriority: 'Spot' });
    const spot = await aks.agentPools.get('rg', 'c1', 'spot1');
    assert.equal(spot.scaleSetEvictionPolicy, 'Delete');
    // The SDK's deserializer fills spotMaxPrice -1 itself: read the wire.
    const wire = async (pool: string) => {
      const path = `/subscriptions/${env.sub}/resourceGroups/rg/providers/Microsoft.ContainerService/managedClusters/c1/agentPools/${pool}?api-version=2022-11-01`;
      return ((await https(env.server, 'GET', path, { headers: await bearer(env.server) })).json as { properties: Record<string, unknown> }).properties;
    };
    assert.equal((await wire('spot1'))['spotMaxPrice'], -1);
    const capped = await aks.agentPools.beginCreateOrUpdateAndWait(
      'rg',
      'c1',
      'spot2',
      { count: 1, mode: 'User', vmSize: 'Standard_DS2_v2', scaleSetPriority: 'Spot', scaleSetEvictionPolicy: 'Deallocate', spotMaxPrice: 0.5 },
      POLL,
    );
    assert.equal(capped.spotMaxPrice, 0.5);
    assert.equal(capped.scaleSetEvictionPolicy, 'Deallocate');
    const regular = await wire('nodepool1');
    assert.equal(regular['spotMaxPrice'], undefined);
    assert.equal(regular['scaleSetEvictionPolicy'], undefined);
  }));
