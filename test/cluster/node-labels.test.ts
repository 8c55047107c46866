// buildNode (cluster/cloud/nodes.ts) makes a pool's shared labels once per basis, pool and subnet and copies them per
// node with its own hostname, and formats the nodes' times once per second (docs/performance.md §2.20): each Node must
// still be what a build of its own gives, in key order, independent of the others, with the pool's labels last.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildNode, type NodeBasis } from '../../src/cluster/cloud/nodes.js';
import { nodeImageOf } from '../../src/aks/node-images.js';
import type { NodeRecord } from '../../src/model/cluster-records.js';

const SUBNET = (name: string) => `/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet1/subnets/${name}`;

function basis(poolLabels: Array<[string, unknown]> = []): NodeBasis {
  return {
    clusterId: '/subscriptions/s/resourcegroups/rg/providers/microsoft.containerservice/managedclusters/c1',
    subscriptionId: 's',
    nodeResourceGroup: 'MC_rg_c1_eastus',
    digits: '12345678',
    version: '1.30.0',
    img: nodeImageOf('Ubuntu', '1.30.0'),
    modelLabels: { 'kubernetes.azure.com/network-policy': 'none' },
    location: 'eastus',
    kubeletClientId: 'kubelet-id',
    mode: 'user',
    size: 'Standard_DS2_v2',
    poolLabels,
    taints: [],
    routeTable: false,
    resources: { capacity: {}, allocatable: {} } as NodeBasis['resources'],
  };
}

function record(name: string, subnet: string, createdAt: string, pool = 'pool1'): NodeRecord {
  return { name, pool, subnetId: SUBNET(subnet), ip: '10.0.0.4', createdAt, clusterId: 'c1', nicId: 'nic' } as unknown as NodeRecord;
}

const READY = { networkReady: true, since: '2026-01-01T00:00:09.500Z' };

test('node labels: each node of a pool gets the shared labels in key order with its own hostname and subnet', () => {
  const b = basis([['team', 'blue']]);
  const nodes = [
    record('aks-pool1-1-vmss000000', 'a', '2026-01-01T00:00:01.100Z'),
    record('aks-pool1-1-vmss000001', 'a', '2026-01-01T00:00:01.900Z'),
    record('aks-pool1-1-vmss000002', 'b', '2026-01-01T00:00:02.000Z'),
  ].map((r) => buildNode(b, r, READY));
  const labels = nodes.map((n) => n.metadata.labels as Record<string, string>);
  for (const [i, l] of labels.entries()) {
    assert.deepEqual(Object.keys(l), Object.keys(l).sort(), 'in key order');
    assert.equal(l['kubernetes.io/hostname'], nodes[i]!.metadata.name);
    assert.equal(l['team'], 'blue');
    assert.equal(l['agentpool'], 'pool1');
  }
  assert.deepEqual(
    labels.map((l) => l['kubernetes.azure.com/network-subnet']),
    ['a', 'a', 'b'],
  );
  // Independent objects: a change to one node's labels is no other's, nor the next build's.
  labels[0]!['team'] = 'red';
  assert.equal(labels[1]!['team'], 'blue');
  assert.equal((buildNode(b, record('aks-pool1-1-vmss000003', 'a', '2026-01-01T00:00:03Z'), READY).metadata.labels as Record<string, string>)['team'], 'blue');
  // Times in whole seconds, each node's own.
  assert.deepEqual(
    nodes.map((n) => n.metadata.creationTimestamp),
    ['2026-01-01T00:00:01Z', '2026-01-01T00:00:01Z', '2026-01-01T00:00:02Z'],
  );
  const ready = (nodes[2]!.status as { conditions: Array<{ type: string; lastTransitionTime: string }> }).conditions.find((c) => c.type === 'Ready');
  assert.equal(ready?.lastTransitionTime, '2026-01-01T00:00:09Z');
});

test('node labels: a pool label named as the hostname is every node’s, and `__proto__` stays a label', () => {
  const b = basis([
    ['kubernetes.io/hostname', 'fixed'],
    ['__proto__', 'x'],
  ]);
  for (const name of ['n0', 'n1']) {
    const l = buildNode(b, record(name, 'a', '2026-01-01T00:00:00Z'), READY).metadata.labels as Record<string, string>;
    assert.equal(l['kubernetes.io/hostname'], 'fixed', name);
    assert.ok(Object.hasOwn(l, '__proto__'), name);
    assert.equal(Object.getPrototypeOf(l), Object.prototype, name);
    assert.deepEqual(Object.keys(l), Object.keys(l).sort(), name);
  }
  // Another basis (a sync after a pool update) makes its own.
  const other = buildNode(basis(), record('n2', 'a', '2026-01-01T00:00:00Z'), READY).metadata.labels as Record<string, string>;
  assert.equal(other['kubernetes.io/hostname'], 'n2');
  assert.ok(!Object.hasOwn(other, '__proto__'));
});
