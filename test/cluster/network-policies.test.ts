// Which nodes enforce NetworkPolicy and what they are sent (src/cluster/network-policy/network-policies.ts,
// docs/dataplane.md §13): the managed engines enforce on every node, a BYO CNI cluster only where calico-node or
// cilium-agent runs (not flannel), no engine means the policies are stored and ignored; tables go out only when
// they changed, and an emptied node gets an empty table once.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NodeNetwork } from '../../src/cluster/images/program.js';
import type { KubeObject } from '../../src/cluster/apimachinery/object.js';
import { ObjectStore } from '../../src/cluster/apiserver/storage/store.js';
import { NAMESPACES, NETWORKPOLICIES, NODES, PODS } from '../../src/cluster/apimachinery/resources.js';
import type { ControllerContext } from '../../src/cluster/client/context.js';
import { EventRecorder } from '../../src/cluster/client/events.js';
import { Indexes } from '../../src/cluster/client/indexes.js';
import { enforcement, NetworkPolicies, runsPolicyAgent } from '../../src/cluster/network-policy/network-policies.js';
import type { NodePolicies } from '../../src/dataplane/policies.js';
import type { ClusterRecord } from '../../src/model/cluster-records.js';

const cluster = (network: Record<string, string>): ClusterRecord => ({ id: 'c1', resolved: { network } }) as unknown as ClusterRecord;

function agentPod(name: string, node: string, image: string, extra: { command?: string[]; running?: boolean } = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { namespace: 'kube-system', name },
    spec: { nodeName: node, hostNetwork: true, containers: [{ name: 'agent', image, ...(extra.command ? { command: extra.command } : {}) }] },
    status: {
      phase: 'Running',
      containerStatuses: [{ name: 'agent', state: extra.running === false ? { waiting: { reason: 'CrashLoopBackOff' } } : { running: {} } }],
    },
  } as KubeObject;
}

const CALICO_NODE = agentPod('calico-node-x', 'n1', 'quay.io/calico/node:v3.32.1');
const CILIUM_AGENT = agentPod('cilium-x', 'n0', 'quay.io/cilium/cilium:v1.19.6', { command: ['cilium-agent'] });
const FLANNEL = agentPod('kube-flannel-ds-x', 'n0', 'ghcr.io/flannel-io/flannel:v0.28.9', { command: ['/opt/bin/flanneld'] });

describe('policy engine per node', () => {
  it('the managed engines and the cilium dataplane enforce on every node; kubenet or Azure CNI without one nowhere', () => {
    const managed: Array<Record<string, string>> = [
      { networkPlugin: 'azure', networkPolicy: 'azure' },
      { networkPlugin: 'kubenet', networkPolicy: 'calico' },
      { networkPlugin: 'azure', networkDataplane: 'cilium' },
    ];
    for (const network of managed) {
      assert.equal(
        enforcement(cluster(network), () => []),
        'all',
        JSON.stringify(network),
      );
    }
    assert.deepEqual(
      enforcement(cluster({ networkPlugin: 'kubenet', networkPolicy: 'none' }), () => [CALICO_NODE]),
      new Set(),
    );
    assert.deepEqual(
      enforcement(cluster({ networkPlugin: 'azure' }), () => [CALICO_NODE]),
      new Set(),
    );
  });

  it('BYO CNI: where calico-node or cilium-agent runs, not flannel, not a container that is not running', () => {
    assert.equal(runsPolicyAgent(CALICO_NODE), true);
    assert.equal(runsPolicyAgent(CILIUM_AGENT), true);
    assert.equal(runsPolicyAgent(FLANNEL), false);
    assert.equal(runsPolicyAgent(agentPod('calico-node-y', 'n2', 'quay.io/calico/node:v3.32.1', { running: false })), false);
    assert.equal(
      runsPolicyAgent(agentPod('calico-init', 'n2', 'quay.io/calico/node:v3.32.1', { command: ['calico-node', '-init'] })),
      false,
      'calico-node -init is not Felix',
    );
    assert.deepEqual(
      enforcement(cluster({ networkPlugin: 'none' }), () => [CALICO_NODE, FLANNEL]),
      new Set(['n1']),
    );
  });
});

describe('NetworkPolicies controller', () => {
  function setup(network: Record<string, string>) {
    const objects = new ObjectStore();
    const ctx: ControllerContext = { objects, index: new Indexes(objects), events: new EventRecorder(objects), log: () => undefined };
    const sent: Array<[string, NodePolicies]> = [];
    const net: NodeNetwork = {
      applyOverlay: async () => undefined,
      removeOverlay: async () => undefined,
      applyPolicies: async (node, table) => void sent.push([node, table]),
    };
    const controller = new NetworkPolicies(
      ctx,
      () => net,
      () => cluster(network),
    );
    objects.subscribe((c) => controller.observe(c));
    for (const n of ['n0', 'n1']) objects.put(NODES, { apiVersion: 'v1', kind: 'Node', metadata: { name: n } });
    objects.put(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default', labels: { 'kubernetes.io/metadata.name': 'default' } } });
    for (const [name, node, ip] of [
      ['a', 'n0', '10.244.0.2'],
      ['b', 'n1', '10.244.1.2'],
    ] as const) {
      objects.put(PODS, {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { namespace: 'default', name, labels: { app: 'web' } },
        spec: { nodeName: node },
        status: { phase: 'Running', podIP: ip },
      } as KubeObject);
    }
    const settle = async (): Promise<void> => {
      await new Promise((r) => setTimeout(r, 120));
      await controller.idle();
    };
    return { objects, sent, controller, settle };
  }
  const DENY = {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { namespace: 'default', name: 'deny' },
    spec: { podSelector: {} },
  } as KubeObject;

  it('with an engine: each node gets its table once; an unchanged recompute sends nothing; deleting the policy empties each node once', async () => {
    const { objects, sent, controller, settle } = setup({ networkPlugin: 'azure', networkPolicy: 'azure' });
    controller.resync();
    await settle();
    assert.equal(sent.length, 0, 'no policy, nothing sent');
    objects.put(NETWORKPOLICIES, DENY);
    await settle();
    assert.deepEqual(
      sent.map(([n, t]) => [n, t.ingressIsolated]),
      [
        ['n0', ['10.244.0.2']],
        ['n1', ['10.244.1.2']],
      ],
    );
    controller.resync();
    await settle();
    assert.equal(sent.length, 2);
    objects.delete(NETWORKPOLICIES, 'default', 'deny');
    await settle();
    assert.deepEqual(
      sent.slice(2).map(([n, t]) => [n, t.ingressIsolated.length]),
      [
        ['n0', 0],
        ['n1', 0],
      ],
    );
    controller.close();
  });

  it('without an engine the policy is stored and ignored', async () => {
    const { objects, sent, controller, settle } = setup({ networkPlugin: 'kubenet', networkPolicy: 'none' });
    objects.put(NETWORKPOLICIES, DENY);
    await settle();
    assert.equal(sent.length, 0);
    controller.close();
  });

  it('BYO CNI: the node where calico-node runs enforces; when it stops, that node is emptied', async () => {
    const { objects, sent, controller, settle } = setup({ networkPlugin: 'none' });
    objects.put(NETWORKPOLICIES, DENY);
    await settle();
    assert.equal(sent.length, 0);
    objects.put(PODS, CALICO_NODE);
    await settle();
    assert.deepEqual(
      sent.map(([n, t]) => [n, t.ingressIsolated]),
      [['n1', ['10.244.1.2']]],
    );
    objects.delete(PODS, 'kube-system', 'calico-node-x');
    await settle();
    assert.deepEqual(
      sent.slice(1).map(([n, t]) => [n, t.ingressIsolated]),
      [['n1', []]],
    );
    controller.close();
  });
});
