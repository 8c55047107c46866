// sku.tier reads back as the request gave it (the spec's ManagedClustersCreate_Premium example), Free when never
// given; a PUT without sku keeps the tier; a tier the spec does not name is refused.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { restError, withServer } from '../network/harness.js';
import { aksClient, cluster, POLL } from './harness.js';

test('containerservice: sku.tier reads back as given, is kept by a PUT without sku, and an unknown tier is refused', () =>
  withServer(async (env) => {
    const aks = aksClient(env.server, '2024-02-01');
    const body = cluster({ networkPlugin: 'kubenet' }, { count: 1 });
    const free = await aks.managedClusters.beginCreateOrUpdateAndWait('rg', 'c0', body, POLL);
    assert.equal(free.sku?.tier, 'Free');
    const premium = await aks.managedClusters.beginCreateOrUpdateAndWait('rg', 'c1', { ...body, sku: { name: 'Base', tier: 'premium' } }, POLL);
    assert.equal(premium.sku?.tier, 'Premium');
    const kept = await aks.managedClusters.beginCreateOrUpdateAndWait('rg', 'c1', body, POLL);
    assert.equal(kept.sku?.tier, 'Premium');
    const err = await restError(aks.managedClusters.beginCreateOrUpdateAndWait('rg', 'c2', { ...body, sku: { name: 'Base', tier: 'Gold' } }, POLL));
    assert.equal(err.statusCode, 400);
    assert.equal(err.code, 'InvalidParameter');
  }));
