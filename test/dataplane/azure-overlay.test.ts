// Azure CNI Overlay on real namespaces (docs/dataplane.md §5.1): pods on routed veths with addresses of their node's
// /24, no route table; the VNet routes the /24s between the cluster's own nodes (Azure's overlay routing domain),
// pods keep their IP towards each other and leave as the node for the VNet and the internet; a VM cannot reach a
// pod IP; a second overlay cluster in the same VNet with the same pod CIDR is a routing domain of its own.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { NetnsDataplane } from '../../src/dataplane/netns/driver.js';
import type { NodeTopology, NsgRule, SubnetTopology, Topology } from '../../src/dataplane/topology.js';
import { CLUSTER_ID, NODES, nsgRules, pod, rootSnapshot, skipReason, SUBNET_ID, testPrefix, topology, VM, closeAndAssertClean } from './harness.js';
import { fromPod, fromVm, openDataplane } from './harness.js';

const prefix = testPrefix();
const skip = await skipReason(prefix);

const POD_CIDR = '10.244.0.0/16';
const overlay = (i: number): NodeTopology => ({ clusterId: CLUSTER_ID, wiring: 'overlay', podCidr: `10.244.${i}.0/24`, clusterPodCidr: POD_CIDR });
const PODS = [pod(0, 'api-0', '10.244.0.2'), pod(1, 'api-1', '10.244.1.2'), pod(1, 'api-2', '10.244.1.3')];

// A second overlay cluster on the same subnet, with the same pod CIDR (Azure allows reusing it), nodes .6 and .7.
const OTHER_ID = CLUSTER_ID.replace(/managedClusters\/aks$/, 'managedClusters/other');
const OTHER_NODES = [
  { name: 'aks-other-87654321-vmss000000', ip: '10.224.0.6' },
  { name: 'aks-other-87654321-vmss000001', ip: '10.224.0.7' },
];
const otherHostId = (i: number): string => `${OTHER_ID}/nodes/${OTHER_NODES[i]!.name}`;
const OTHER_PODS = [0, 1].map((i) =>
  pod(0, `other-${i}`, `10.244.${i}.2`, { clusterId: OTHER_ID, node: OTHER_NODES[i]!.name, hostId: otherHostId(i), sandboxId: `sandboxother${i}` }),
);

function world(subnet: Partial<SubnetTopology> = {}): Topology {
  const t = topology(overlay, subnet);
  t.vnets[0]!.hosts.push(
    ...OTHER_NODES.map((n, i) => ({
      id: otherHostId(i),
      kind: 'node' as const,
      name: n.name,
      subnetId: SUBNET_ID,
      ip: n.ip,
      node: { clusterId: OTHER_ID, wiring: 'overlay' as const, podCidr: `10.244.${i}.0/24`, clusterPodCidr: POD_CIDR },
    })),
  );
  return t;
}

describe('Azure CNI Overlay data plane', { skip }, () => {
  let dp: NetnsDataplane;
  let root: Record<string, string>;

  before(async () => {
    root = rootSnapshot();
    dp = await openDataplane(prefix);
    await dp.apply(world());
    await Promise.all([...PODS, ...OTHER_PODS].map((p) => dp.attachPod(p)));
  });
  after(async () => {
    await dp?.close({ removeAll: true });
  });

  it('pod → pod on another node, with no route table: the far pod sees the pod IP', async () => {
    const r = await dp.probe(fromPod('api-0', '10.244.1.2'));
    assert.deepEqual([r.connected, r.seenSource, r.error], [true, '10.244.0.2', undefined]);
    const back = await dp.probe(fromPod('api-2', '10.244.0.2'));
    assert.deepEqual([back.connected, back.seenSource], [true, '10.244.1.3']);
  });

  it('pod → pod on the same node keeps the pod IP', async () => {
    const r = await dp.probe(fromPod('api-1', '10.244.1.3'));
    assert.deepEqual([r.connected, r.seenSource], [true, '10.244.1.2']);
  });

  it('pod → VM in the VNet: the VM sees the NODE IP (NAT to the node address)', async () => {
    const r = await dp.probe(fromPod('api-0', VM.ip));
    assert.deepEqual([r.connected, r.seenSource], [true, NODES[0]!.ip]);
  });

  it('pod → internet: the internet host sees the node IP', async () => {
    const r = await dp.probe(fromPod('api-2', '198.51.100.10'));
    assert.deepEqual([r.connected, r.seenSource], [true, NODES[1]!.ip]);
  });

  it('node → pod on another node works through the overlay; the pod sees the node IP', async () => {
    const r = await dp.probe({ from: { kind: 'node', name: NODES[0]!.name, clusterId: CLUSTER_ID }, to: { ip: '10.244.1.2', port: 8080 } });
    assert.deepEqual([r.connected, r.seenSource], [true, NODES[0]!.ip]);
  });

  it('VM → pod IP fails: pod IPs are not routable outside the cluster', async () => {
    const r = await dp.probe(fromVm('10.244.1.2', 1500));
    assert.equal(r.connected, false);
  });

  it('a second overlay cluster reusing the pod CIDR in the same VNet routes within itself', async () => {
    const r = await dp.probe(fromPod('other-0', '10.244.1.2', 3000, OTHER_ID));
    assert.deepEqual([r.connected, r.seenSource], [true, '10.244.0.2']);
    // The same address pair in the first cluster reaches the first cluster's pod, not the other's.
    const mine = await dp.probe(fromPod('api-0', '10.244.1.2'));
    assert.deepEqual([mine.connected, mine.seenSource], [true, '10.244.0.2']);
  });

  it('NSGs apply to pod traffic: the default rules pass it; a rule denying the pod CIDR cuts pod → pod until removed', async () => {
    await dp.apply(world({ nsg: { id: 'nsg', rules: nsgRules() } }));
    const allowed = await dp.probe(fromPod('api-0', '10.244.1.2'));
    assert.deepEqual([allowed.connected, allowed.seenSource], [true, '10.244.0.2']);
    const deny: NsgRule = {
      name: 'deny-pods',
      priority: 100,
      direction: 'Inbound',
      access: 'Deny',
      protocol: 'Tcp',
      sourcePrefixes: [POD_CIDR],
      sourcePorts: ['*'],
      destinationPrefixes: ['*'],
      destinationPorts: ['8080'],
    };
    await dp.apply(world({ nsg: { id: 'nsg', rules: nsgRules([deny]) } }));
    assert.equal((await dp.probe(fromPod('api-0', '10.244.1.2', 1500))).connected, false);
    // pod → VM leaves as the node IP, which the rule does not name.
    const toVm = await dp.probe(fromPod('api-0', VM.ip));
    assert.deepEqual([toVm.connected, toVm.seenSource], [true, NODES[0]!.ip]);
    await dp.apply(world());
    const back = await dp.probe(fromPod('api-0', '10.244.1.2'));
    assert.deepEqual([back.connected, back.seenSource], [true, '10.244.0.2']);
  });

  it('a node that leaves takes its /24 out of the overlay; it comes back with the node', async () => {
    const without = world();
    without.vnets[0]!.hosts = without.vnets[0]!.hosts.filter((h) => h.name !== NODES[1]!.name);
    await dp.apply(without);
    assert.equal((await dp.probe(fromPod('api-0', '10.244.1.2', 1500))).connected, false);
    await dp.apply(world());
    await Promise.all(PODS.filter((p) => p.node === NODES[1]!.name).map((p) => dp.attachPod(p)));
    const r = await dp.probe(fromPod('api-0', '10.244.1.2'));
    assert.deepEqual([r.connected, r.seenSource], [true, '10.244.0.2']);
  });

  it("refuses an address outside the node's /24; a pod attach is idempotent", async () => {
    await assert.rejects(dp.attachPod(pod(0, 'stray', '10.244.1.9')), /10\.244\.1\.9 is not a pod address of node .*'s 10\.244\.0\.0\/24/);
    const again = await dp.attachPod(PODS[0]!);
    assert.equal(again.ip, '10.244.0.2');
  });

  it('removes every namespace it made, and the root namespace is unchanged', async () => {
    await closeAndAssertClean(dp, prefix, root);
  });
});
