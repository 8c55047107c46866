// clusterOfKey: how the cluster APIs tell, from the change feed, which cluster a committed key belongs to.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clusterId, clusterOfKey, nodeKey, nodesPrefix, poolId } from '../../src/model/cluster-records.js';

const id = clusterId('sub', 'rg', 'c1');

test('model: clusterOfKey finds the cluster of its record, its pools and its nodes', () => {
  assert.deepEqual(clusterOfKey(id), { clusterId: id, node: false });
  assert.deepEqual(clusterOfKey(poolId(id, 'nodepool1')), { clusterId: id, node: false });
  assert.deepEqual(clusterOfKey(`${id}/`), { clusterId: id, node: false });
  assert.deepEqual(clusterOfKey(nodeKey(id, 'aks-nodepool1-12345678-vmss000000')), { clusterId: id.toLowerCase(), node: true });
  assert.deepEqual(clusterOfKey(nodesPrefix(id)), { clusterId: id.toLowerCase(), node: true });
});

test('model: clusterOfKey ignores keys of no cluster', () => {
  assert.equal(clusterOfKey('/subscriptions/sub/resourcegroups/rg'), undefined);
  assert.equal(clusterOfKey('/subscriptions/sub/resourcegroups/rg/providers/Microsoft.Network/virtualNetworks/v'), undefined);
  assert.equal(clusterOfKey('aksemu:nodes'), undefined);
  assert.equal(clusterOfKey(`aksemu:k8s${id.toLowerCase()}/apps/deployments/default/web`), undefined);
});
