// NetworkPolicy on real namespaces (docs/dataplane.md §13), for each pod wiring: kubenet (cbr0 bridge), Azure
// CNI node subnet and overlay (routed azv veths) and a BYO CNI's cni0 bridge. Policies are compiled from objects as the
// cluster runtime compiles them (policy-compile.ts) and pushed to the driver per node; TCP probes show what
// passes: default deny, an allow rule re-opening on a named port, a namespace selector, an ipBlock with except,
// a port range, egress deny and allow; then the node has no table left and the root namespace is unchanged.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '../../src/cluster/apimachinery/object.js';
import { compilePolicies } from '../../src/cluster/network-policy/policy-compile.js';
import type { PodAttachment } from '../../src/dataplane/dataplane.js';
import { NetnsDataplane } from '../../src/dataplane/netns/driver.js';
import { POLICY_TABLE } from '../../src/dataplane/netns/network-policy.js';
import type { NodePolicies } from '../../src/dataplane/policies.js';
import type { NodeTopology } from '../../src/dataplane/topology.js';
import {
  CLUSTER_ID,
  kubenetRoutes,
  NODES,
  nodeId,
  pod,
  rootSnapshot,
  skipReason,
  testPrefix,
  topology,
  VM,
  writeBridgeConflist,
  closeAndAssertClean,
  assertNoneLeft,
} from './harness.js';

const PLUGINS = '/usr/lib/cni';

/** The scenario's pods: a client and a web pod on node 0, a web pod and a client of another namespace on node 1. */
interface Cast {
  node: (i: number) => NodeTopology;
  routes?: boolean;
  /** Node of each pod (a, b, c, d) and its fixed address (undefined: the CNI's IPAM gives it). */
  pods: Array<[number, string | undefined]>;
  extra?: Partial<PodAttachment>;
}

const NAMES = ['client-a', 'web-b', 'web-c', 'client-d'] as const;
const LABELS = [{ app: 'client' }, { app: 'web' }, { app: 'web' }, { app: 'client' }];
const NAMESPACE_OF = ['default', 'default', 'default', 'other'];
const NAMESPACES: KubeObject[] = [
  { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default', labels: { 'kubernetes.io/metadata.name': 'default' } } },
  { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'other', labels: { 'kubernetes.io/metadata.name': 'other', team: 'x' } } },
];

const policy = (name: string, spec: Record<string, unknown>, namespace = 'default'): KubeObject =>
  ({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { namespace, name }, spec }) as KubeObject;

function scenario(title: string, cast: Cast, extraSkip: string | false = false): void {
  const prefix = testPrefix();
  describe(`NetworkPolicy on ${title}`, { skip: extraSkip }, async () => {
    const skip = await skipReason(prefix);
    let dp: NetnsDataplane;
    let root: Record<string, string>;
    const ip: string[] = [];
    const nodes = [...new Set(cast.pods.map(([n]) => n))];

    const attachments = NAMES.map((name, i) => pod(cast.pods[i]![0], name, cast.pods[i]![1], { namespace: NAMESPACE_OF[i]!, ...cast.extra }));

    /** Compiles the policies against the pods and pushes every node's table, as the cluster runtime does. */
    async function enforce(policies: KubeObject[]): Promise<void> {
      const pods = NAMES.map(
        (name, i) =>
          ({
            apiVersion: 'v1',
            kind: 'Pod',
            metadata: { namespace: NAMESPACE_OF[i], name, labels: LABELS[i] },
            spec: { nodeName: NODES[cast.pods[i]![0]]!.name, containers: [{ name: 'c', ports: [{ name: 'http', containerPort: 8080 }] }] },
            status: { phase: 'Running', podIP: ip[i] },
          }) as KubeObject,
      );
      const tables = compilePolicies({ clusterId: CLUSTER_ID, policies, pods, namespaces: NAMESPACES });
      const empty: NodePolicies = { clusterId: CLUSTER_ID, ingressIsolated: [], egressIsolated: [], ingress: [], egress: [] };
      for (const n of nodes) await dp.applyPolicies(nodeId(n), tables.get(NODES[n]!.name) ?? empty);
    }

    const connects = async (from: number, to: string, port = 8080): Promise<boolean> => {
      const r = await dp.probe({
        from: { kind: 'pod', clusterId: CLUSTER_ID, namespace: NAMESPACE_OF[from]!, name: NAMES[from]! },
        to: { ip: to, port },
        timeoutMs: 1000,
      });
      return r.connected;
    };

    before(async () => {
      if (skip) return;
      root = rootSnapshot();
      dp = new NetnsDataplane({ prefix });
      await dp.gc();
      await dp.apply(topology(cast.node, cast.routes ? { routes: kubenetRoutes() } : {}));
      for (const a of attachments) ip.push((await dp.attachPod(a)).ip);
    });
    after(async () => {
      await dp?.close({ removeAll: true });
    });

    it('without a policy every pod reaches every other', { skip }, async () => {
      assert.deepEqual([await connects(0, ip[1]!), await connects(0, ip[2]!), await connects(3, ip[2]!)], [true, true, true]);
    });

    it('default deny ingress blocks, on the same node and across nodes', { skip }, async () => {
      await enforce([policy('deny', { podSelector: {} })]);
      assert.deepEqual([await connects(0, ip[1]!), await connects(0, ip[2]!), await connects(3, ip[2]!)], [false, false, false]);
    });

    it('an allow rule re-opens for the selected peers on a named port, and only there', { skip }, async () => {
      await enforce([
        policy('deny', { podSelector: {} }),
        policy('web', {
          podSelector: { matchLabels: { app: 'web' } },
          ingress: [{ from: [{ podSelector: { matchLabels: { app: 'client' } } }], ports: [{ port: 'http' }] }],
        }),
      ]);
      assert.deepEqual(
        [await connects(0, ip[1]!), await connects(0, ip[2]!), await connects(0, ip[2]!, 9090), await connects(3, ip[2]!)],
        [true, true, false, false],
        'client-a reaches both web pods on http (8080), not 9090; client-d of another namespace is not selected',
      );
    });

    it('a namespace selector lets the other namespace in', { skip }, async () => {
      await enforce([
        policy('from-team-x', { podSelector: { matchLabels: { app: 'web' } }, ingress: [{ from: [{ namespaceSelector: { matchLabels: { team: 'x' } } }] }] }),
      ]);
      assert.deepEqual([await connects(3, ip[2]!), await connects(0, ip[2]!)], [true, false]);
    });

    it('an ipBlock with except admits the block but not the exception', { skip }, async () => {
      await enforce([
        policy('block', { podSelector: { matchLabels: { app: 'web' } }, ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.0/8', except: [`${ip[0]}/32`] } }] }] }),
      ]);
      assert.deepEqual([await connects(3, ip[2]!), await connects(0, ip[2]!)], [true, false]);
    });

    it('a port range admits its ports only', { skip }, async () => {
      await enforce([policy('range', { podSelector: { matchLabels: { app: 'web' } }, ingress: [{ ports: [{ port: 8000, endPort: 8100 }] }] })]);
      assert.deepEqual([await connects(0, ip[2]!, 8080), await connects(0, ip[2]!, 9090)], [true, false]);
    });

    it('egress deny blocks what the pod sends; an egress allow to an ipBlock re-opens that destination only', { skip }, async () => {
      await enforce([policy('no-egress', { podSelector: { matchLabels: { app: 'client' } }, policyTypes: ['Egress'] })]);
      assert.deepEqual([await connects(0, ip[2]!), await connects(0, VM.ip), await connects(1, ip[2]!)], [false, false, true]);
      await enforce([
        policy('no-egress', { podSelector: { matchLabels: { app: 'client' } }, policyTypes: ['Egress'] }),
        policy('to-vm', {
          podSelector: { matchLabels: { app: 'client' } },
          policyTypes: ['Egress'],
          egress: [{ to: [{ ipBlock: { cidr: `${VM.ip}/32` } }], ports: [{ port: 8080 }] }],
        }),
      ]);
      assert.deepEqual([await connects(0, VM.ip), await connects(0, ip[2]!)], [true, false]);
    });

    it('without policies every node drops its table and everything passes again', { skip }, async () => {
      await enforce([]);
      assert.deepEqual([await connects(0, ip[1]!), await connects(0, ip[2]!), await connects(3, ip[2]!)], [true, true, true]);
      for (const n of nodes) {
        const netns = dp.names.host(nodeId(n));
        const tables = execFileSync('nsenter', [`--net=/run/netns/${netns}`, 'nft', 'list', 'tables'], { encoding: 'utf8' });
        assert.equal(tables.includes(POLICY_TABLE), false, tables);
      }
    });

    it('removes every namespace it made, and the root namespace is unchanged', { skip }, async () => {
      await closeAndAssertClean(dp, prefix, root);
    });
  });
}

scenario('kubenet (cbr0)', {
  node: (i) => ({ clusterId: CLUSTER_ID, wiring: 'bridge', podCidr: `10.244.${i}.0/24`, clusterPodCidr: '10.244.0.0/16' }),
  routes: true,
  pods: [
    [0, '10.244.0.2'],
    [0, '10.244.0.3'],
    [1, '10.244.1.2'],
    [1, '10.244.1.3'],
  ],
});

scenario('Azure CNI node subnet (routed azv veths)', {
  node: (i) => ({ clusterId: CLUSTER_ID, wiring: 'transparent', secondaryIps: Array.from({ length: 30 }, (_, k) => `10.224.0.${10 + 30 * i + k}`) }),
  pods: [
    [0, '10.224.0.10'],
    [0, '10.224.0.11'],
    [1, '10.224.0.40'],
    [1, '10.224.0.41'],
  ],
});

// No route table: the VNet's overlay routing carries the /24s between the nodes (docs/dataplane.md §5.1).
scenario("Azure CNI Overlay (routed azv veths, the node's /24)", {
  node: (i) => ({ clusterId: CLUSTER_ID, wiring: 'overlay', podCidr: `10.244.${i}.0/24`, clusterPodCidr: '10.244.0.0/16' }),
  pods: [
    [0, '10.244.0.2'],
    [0, '10.244.0.3'],
    [1, '10.244.1.2'],
    [1, '10.244.1.3'],
  ],
});

// A BYO CNI's bridge (the reference bridge + host-local plugins on cni0); one node, since the overlay between
// nodes is the CNI's (docs/dataplane.md §6.4).
const byoDir = mkdtempSync(join(tmpdir(), 'aksemu-policy-byo-'));
const confDir = join(byoDir, 'net.d');
writeBridgeConflist(confDir, join(byoDir, 'ipam'));
process.on('exit', () => rmSync(byoDir, { recursive: true, force: true }));
scenario(
  'a BYO CNI (cni0 bridge)',
  {
    node: () => ({ clusterId: CLUSTER_ID, wiring: 'none' }),
    pods: [
      [0, undefined],
      [0, undefined],
      [0, undefined],
      [0, undefined],
    ],
    extra: { cni: { confDir, pluginDirs: [PLUGINS], cacheDir: join(byoDir, 'cache') } },
  },
  existsSync(join(PLUGINS, 'bridge')) ? false : `the CNI plugins are not installed in ${PLUGINS}`,
);

describe('NetworkPolicy on a rebuilt node', async () => {
  const prefix = testPrefix();
  const skip = await skipReason(prefix);
  const kubenet =
    (cidr0: string) =>
    (i: number): NodeTopology => ({ clusterId: CLUSTER_ID, wiring: 'bridge', podCidr: i === 0 ? cidr0 : `10.244.${i}.0/24`, clusterPodCidr: '10.244.0.0/16' });
  const tables = (dp: NetnsDataplane): string =>
    execFileSync('nsenter', [`--net=/run/netns/${dp.names.host(nodeId(0))}`, 'nft', 'list', 'tables'], { encoding: 'utf8' });

  it('a node rebuilt because its shape changed gets its table again; the host is clean after', { skip }, async () => {
    const root = rootSnapshot();
    const dp = new NetnsDataplane({ prefix });
    try {
      await dp.gc();
      await dp.apply(topology(kubenet('10.244.0.0/24')));
      await dp.applyPolicies(nodeId(0), { clusterId: CLUSTER_ID, ingressIsolated: ['10.244.0.2'], egressIsolated: [], ingress: [], egress: [] });
      assert.match(tables(dp), new RegExp(POLICY_TABLE));
      await dp.apply(topology(kubenet('10.244.5.0/24')));
      assert.match(tables(dp), new RegExp(POLICY_TABLE));
    } finally {
      await dp.close({ removeAll: true });
    }
    assertNoneLeft(prefix, root);
  });
});
