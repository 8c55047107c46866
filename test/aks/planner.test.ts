// Node addresses per plugin: node IPs from .4, kubenet /24s in cidrset order with one UDR per node, Azure CNI
// pre-allocated secondary IPs, BYO CNI nothing but the node IP; all-or-nothing allocation with SubnetIsFull.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { apiVersionProfile } from '../../src/aks/api-versions.js';
import { resolveCluster } from '../../src/aks/defaults.js';
import { nodeName } from '../../src/aks/naming.js';
import { AllocationError, IpPlanner, privateAllocators } from '../../src/aks/planner.js';
import { networkModelOf as strategyFor } from '../../src/aks/network-models/index.js';
import type { NetworkProfile } from '../../src/aks/types.js';
import { byo, spec } from './helpers.js';

function planner(net: NetworkProfile, subnet = '10.240.0.0/24', allocators = privateAllocators(), apiVersion = '2022-06-01') {
  const b = byo(subnet);
  const cluster = resolveCluster(spec({ net, pools: [{ name: 'nodepool1', count: 3, mode: 'System', vnetSubnetID: b.id }] }), apiVersionProfile(apiVersion)!);
  return new IpPlanner(cluster, strategyFor(cluster)!, b.env, '23902496', allocators);
}

describe('IpPlanner', () => {
  test('kubenet: node IPs from .4, /24s in cidrset order, one route per node', () => {
    const p = planner({ networkPlugin: 'kubenet' });
    const nodes = p.addNodes('nodepool1', 3);
    assert.deepEqual(
      nodes.map((n) => n.name),
      [0, 1, 2].map((i) => nodeName('nodepool1', '23902496', i)),
    );
    assert.equal(nodes[0]!.name, 'aks-nodepool1-23902496-vmss000000');
    assert.deepEqual(
      nodes.map((n) => n.ip),
      ['10.240.0.4', '10.240.0.5', '10.240.0.6'],
    );
    assert.deepEqual(
      nodes.map((n) => n.podCidr),
      ['10.244.0.0/24', '10.244.1.0/24', '10.244.2.0/24'],
    );
    assert.deepEqual(p.routes()[1], {
      name: 'aks-nodepool1-23902496-vmss000001',
      addressPrefix: '10.244.1.0/24',
      nextHopType: 'VirtualAppliance',
      nextHopIpAddress: '10.240.0.5',
    });
    // A released /24 is not reused until the scan wraps; instance ids only grow.
    p.removeNode(nodes[1]!.name);
    const [next] = p.addNodes('nodepool1', 1);
    assert.equal(next!.podCidr, '10.244.3.0/24');
    assert.equal(next!.ip, '10.240.0.5');
    assert.equal(next!.name, 'aks-nodepool1-23902496-vmss000003');
    assert.equal(p.routes().length, 3);
  });

  test('instance ids past 9 are base 36', () => {
    const p = planner({ networkPlugin: 'kubenet' });
    const nodes = p.addNodes('nodepool1', 11);
    assert.equal(nodes[10]!.name, 'aks-nodepool1-23902496-vmss00000a');
  });

  test('azure: each node holds its IP plus maxPods secondary IPs; a /24 takes 8 nodes, the 9th is SubnetIsFull', () => {
    const p = planner({ networkPlugin: 'azure' });
    const nodes = p.addNodes('nodepool1', 8);
    assert.equal(nodes[0]!.ip, '10.240.0.4');
    assert.equal(nodes[0]!.secondaryIps!.length, 30);
    assert.equal(nodes[0]!.secondaryIps![0], '10.240.0.5');
    assert.equal(nodes[1]!.ip, '10.240.0.35');
    assert.equal(p.routes().length, 0);
    const all = nodes.flatMap((n) => [n.ip, ...n.secondaryIps!]);
    assert.equal(new Set(all).size, 248);
    assert.throws(
      () => p.addNodes('nodepool1', 1),
      (e: unknown) =>
        e instanceof AllocationError &&
        e.problem.code === 'SubnetIsFull' &&
        e.problem.message === 'Subnet aks with address prefix 10.240.0.0/24 does not have enough capacity for 31 IP addresses.',
    );
    assert.equal(p.list().length, 8, 'a failed add leaves nothing half-allocated');
  });

  test('reimage (a migration to overlay): node subnet nodes keep name and IP, free their secondary IPs and get a /24; kubenet nodes keep theirs', () => {
    const allocators = privateAllocators();
    // networkPluginMode needs an api-version that has it; one subnet, one allocator, as in the provider.
    const make = (net: NetworkProfile) => planner(net, '10.240.0.0/24', allocators, '2024-09-01');
    const before = make({ networkPlugin: 'azure' }).addNodes('nodepool1', 2);
    const after = make({ networkPlugin: 'azure', networkPluginMode: 'overlay', podCidr: '192.168.0.0/23' });
    after.restore(before);
    const reimaged = before.map((n) => after.reimage(n.name)!);
    assert.deepEqual(
      reimaged.map((n) => [n.name, n.ip, n.podCidr, n.secondaryIps]),
      [
        [before[0]!.name, '10.240.0.4', '192.168.0.0/24', undefined],
        [before[1]!.name, '10.240.0.35', '192.168.1.0/24', undefined],
      ],
    );
    // The freed secondary IPs go to the next node; the pod CIDR has no /24 left for it (K2).
    assert.throws(
      () => after.addNodes('nodepool1', 1),
      (e: unknown) => e instanceof AllocationError && e.problem.code === 'InsufficientPodCidr',
    );
    assert.equal(after.reimage(before[0]!.name), undefined, 'a node already as the model wants it is left alone');

    const kubenet = make({ networkPlugin: 'kubenet', podCidr: '10.244.0.0/16' });
    const nodes = kubenet.addNodes('nodepool1', 2);
    const overlay = make({ networkPlugin: 'azure', networkPluginMode: 'overlay', podCidr: '10.244.0.0/16' });
    overlay.restore(nodes);
    assert.equal(overlay.reimage(nodes[0]!.name), undefined, 'the same /24 in the same pod CIDR');
  });

  test('none: no pod CIDR, no pod IPs, no routes (N13)', () => {
    const p = planner({ networkPlugin: 'none', podCidr: '10.10.0.0/16' });
    const nodes = p.addNodes('nodepool1', 3);
    for (const n of nodes) {
      assert.equal(n.podCidr, undefined);
      assert.equal(n.secondaryIps, undefined);
    }
    assert.deepEqual(p.routes(), []);
  });

  test('kubenet pod CIDR exhaustion is InsufficientPodCidr', () => {
    const p = planner({ networkPlugin: 'kubenet', podCidr: '10.244.0.0/23' });
    p.addNodes('nodepool1', 2);
    assert.throws(
      () => p.addNodes('nodepool1', 1),
      (e: unknown) => e instanceof AllocationError && e.problem.code === 'InsufficientPodCidr',
    );
  });

  test('restore claims what exists, so a second planner on a shared subnet never reuses an address', () => {
    const shared = privateAllocators();
    const a = planner({ networkPlugin: 'kubenet' }, '10.240.0.0/24', shared);
    const first = a.addNodes('nodepool1', 2);
    const b = planner({ networkPlugin: 'kubenet' }, '10.240.0.0/24', privateAllocators());
    b.restore(first);
    const [third] = b.addNodes('nodepool1', 1);
    assert.equal(third!.ip, '10.240.0.6');
    assert.equal(third!.podCidr, '10.244.2.0/24');
    assert.equal(third!.name, 'aks-nodepool1-23902496-vmss000002');
  });
});

describe('IpPlanner, dual-stack (docs/aks-rules.md §9.4)', () => {
  const dual = (net: NetworkProfile, subnet: string[] = ['10.240.0.0/24', 'fd00:240::/64'], allocators = privateAllocators()) => {
    const b = byo(subnet, { vnet: ['10.240.0.0/16', 'fd00:240::/48'] });
    const cluster = resolveCluster(
      spec({ net, pools: [{ name: 'nodepool1', count: 3, mode: 'System', vnetSubnetID: b.id }] }),
      apiVersionProfile('2026-04-01')!,
    );
    return new IpPlanner(cluster, strategyFor(cluster)!, b.env, '23902496', allocators);
  };

  test('kubenet: an IPv6 address from ::4 and a /80 per node; a route per node and family, named as cloud-provider-azure names them', () => {
    const p = dual({ networkPlugin: 'kubenet', ipFamilies: ['IPv4', 'IPv6'] });
    const nodes = p.addNodes('nodepool1', 3);
    assert.deepEqual(
      nodes.map((n) => [n.ip, n.ipv6, n.podCidr, n.podCidrIPv6]),
      [
        ['10.240.0.4', 'fd00:240::4', '10.244.0.0/24', 'fd12:3456:789a::/80'],
        ['10.240.0.5', 'fd00:240::5', '10.244.1.0/24', 'fd12:3456:789a:0:1::/80'],
        ['10.240.0.6', 'fd00:240::6', '10.244.2.0/24', 'fd12:3456:789a:0:2::/80'],
      ],
    );
    const routes = p.routes();
    assert.equal(routes.length, 6);
    assert.deepEqual(routes[1], {
      name: 'aks-nodepool1-23902496-vmss000000____fd123456789a80',
      addressPrefix: 'fd12:3456:789a::/80',
      nextHopType: 'VirtualAppliance',
      nextHopIpAddress: 'fd00:240::4',
    });
  });

  test('overlay: IPv6 /80s too, no routes; removing a node frees its IPv6 address and /80', () => {
    const p = dual({ networkPlugin: 'azure', networkPluginMode: 'overlay', ipFamilies: ['IPv4', 'IPv6'] });
    const [first] = p.addNodes('nodepool1', 2);
    assert.equal(first!.ipv6, 'fd00:240::4');
    assert.deepEqual(p.routes(), []);
    assert.ok(p.removeNode(first!.name));
    const [again] = p.addNodes('nodepool1', 1);
    assert.equal(again!.ipv6, 'fd00:240::4', 'the lowest free IPv6 address again');
  });

  test('restore claims IPv6 addresses, so a second planner on the subnet never reuses one', () => {
    const shared = privateAllocators();
    const a = dual({ networkPlugin: 'kubenet', ipFamilies: ['IPv4', 'IPv6'] }, undefined, shared);
    const before = a.addNodes('nodepool1', 2);
    const b = dual({ networkPlugin: 'kubenet', ipFamilies: ['IPv4', 'IPv6'] }, undefined, privateAllocators());
    b.restore(before);
    assert.equal(b.addNodes('nodepool1', 1)[0]!.ipv6, 'fd00:240::6');
  });

  test('a single-stack cluster on a dual-stack subnet takes IPv4 only', () => {
    const p = dual({ networkPlugin: 'kubenet' });
    const [n] = p.addNodes('nodepool1', 1);
    assert.equal(n!.ipv6, undefined);
    assert.equal(n!.podCidrIPv6, undefined);
    assert.equal(p.routes()[0]!.name, n!.name);
  });
});

describe('IpPlanner, Azure CNI with a pod subnet (docs/aks-rules.md §3.8)', () => {
  /** Nodes on 10.240.0.0/24, pods on `podPrefix`, both in one VNet. */
  function podPlanner(podPrefix: string, pool: Record<string, unknown> = {}) {
    const nodes = byo('10.240.0.0/24', { vnet: ['10.240.0.0/16'], others: [{ name: 'pods', prefix: podPrefix }] });
    const podId = nodes.subnet.vnet.subnets[1]!.id;
    const env = {
      ...nodes.env,
      subnets: { ...nodes.env.subnets, [podId.toLowerCase()]: { ...nodes.subnet, id: podId, name: 'pods', addressPrefixes: [podPrefix] } },
    };
    const pools = [{ name: 'nodepool1', count: 3, mode: 'System', vnetSubnetID: nodes.id, podSubnetID: podId, ...pool }];
    const cluster = resolveCluster(spec({ net: { networkPlugin: 'azure' }, pools }), apiVersionProfile('2025-07-01')!);
    return new IpPlanner(cluster, strategyFor(cluster)!, env, '23902496', privateAllocators());
  }

  test('pod subnet, dynamic: one node-subnet address and a batch of 16 pod-subnet addresses per node; a /24 holds 15 nodes', () => {
    const p = podPlanner('10.240.1.0/24');
    const nodes = p.addNodes('nodepool1', 15);
    assert.equal(nodes[0]!.ip, '10.240.0.4');
    assert.equal(nodes[0]!.secondaryIps, undefined);
    assert.equal(nodes[0]!.podSubnetIps!.length, 16);
    assert.deepEqual([nodes[0]!.podSubnetIps![0], nodes[0]!.podSubnetIps!.at(-1)], ['10.240.1.4', '10.240.1.19']);
    assert.equal(nodes[1]!.podSubnetIps![0], '10.240.1.20');
    assert.equal(nodes[0]!.podSubnetBlocks, undefined);
    assert.throws(
      () => p.addNodes('nodepool1', 1),
      (e: unknown) =>
        e instanceof AllocationError &&
        e.problem.rule === 'PS7' &&
        e.problem.target === 'agentPoolProfile.podSubnetID' &&
        e.problem.message === 'Subnet pods with address prefix 10.240.1.0/24 does not have enough capacity for 16 IP addresses.',
    );
    // Removing a node gives its batch back.
    p.removeNode(nodes[14]!.name);
    assert.equal(p.addNodes('nodepool1', 1)[0]!.podSubnetIps![0], nodes[14]!.podSubnetIps![0]);
  });

  test('pod subnet, static block: ⌈maxPods / 16⌉ aligned /28 blocks per node, never the blocks holding reserved addresses', () => {
    const p = podPlanner('10.240.1.0/24', { podIPAllocationMode: 'StaticBlock', maxPods: 30 });
    const nodes = p.addNodes('nodepool1', 7);
    assert.deepEqual(nodes[0]!.podSubnetBlocks, ['10.240.1.16/28', '10.240.1.32/28']);
    assert.equal(nodes[0]!.podSubnetIps!.length, 32);
    assert.equal(nodes[0]!.podSubnetIps![0], '10.240.1.16');
    assert.deepEqual(nodes[6]!.podSubnetBlocks, ['10.240.1.208/28', '10.240.1.224/28']);
    // 14 usable blocks (.0/28 holds .0–.3, .240/28 the broadcast): an 8th node finds none.
    assert.throws(
      () => p.addNodes('nodepool1', 1),
      (e: unknown) => e instanceof AllocationError && e.problem.code === 'SubnetIsFull' && e.problem.rule === 'PS7',
    );
  });

  test('pod subnet, static block: maxPods 110 takes 7 blocks (112 addresses)', () => {
    const [node] = podPlanner('10.240.16.0/20', { podIPAllocationMode: 'StaticBlock' }).addNodes('nodepool1', 1);
    assert.equal(node!.podSubnetBlocks!.length, 7);
    assert.equal(node!.podSubnetIps!.length, 112);
  });
});
