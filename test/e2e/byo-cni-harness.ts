// Shared by the BYO CNI end-to-end tests (test/e2e/byo-cni-*.test.ts, and the flannel, Calico and Cilium
// ones): a real server with the netns data plane on its own $AKSEMU_HOME (DataplaneWorld), a 2-node BYO CNI
// cluster (`--network-plugin none` with a pod CIDR) on one subnet of the VNet of docs/dataplane.md §3.6, the real
// kubectl and helm pointed at it, one pod per node, and the check that matters: pod → pod across nodes
// connects and the far side sees the source pod's own IP (an overlay, no masquerade: docs/dataplane.md §6).
// Closing removes every namespace of this run; the host's links, routes, rules and rulesets must be as before.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { nodeConfDir, nodesDir } from '../../src/cluster/nodefs/paths.js';
import type { ClusterNodeNetwork } from '../../src/dataplane/controller.js';
import { nodeHostId } from '../../src/dataplane/derive.js';
import { NETNS_DIR } from '../../src/dataplane/netns/exec.js';
import type { NetnsNames } from '../../src/dataplane/netns/names.js';
import type { KubectlResult } from '../cluster/harness.js';
import { helm, HELM_SKIP } from '../helm/harness.js';
import { DataplaneWorld, PORT, RG, skipReason } from './dataplane-harness.js';

export { eventually } from './dataplane-harness.js';
export { PORT, RG } from './dataplane-harness.js';

type Obj = any;

/** The cluster's pod CIDR unless a test says otherwise (flannel's default Network; Calico and Cilium are given it). */
export const BYO_POD_CIDR = '10.244.0.0/16';

/** Why a BYO CNI end-to-end test cannot run here, or false; `helm` when the test installs a chart. */
export function byoSkipReason(needs: { helm?: boolean } = {}): string | false {
  return skipReason(true) || (needs.helm ? HELM_SKIP : false);
}

/** One probe between two pods: what the far side saw. */
export interface PodToPod {
  from: string;
  to: string;
  connected: boolean;
  /** The source address the far side saw, or the error when it did not connect. */
  seen: string | undefined;
}

export class ByoCniWorld extends DataplaneWorld {
  clusterName = '';
  clusterId = '';

  /** Server, network and a 2-node BYO CNI cluster with the pod CIDR, its kubeconfig for kubectl and helm. */
  async setUp(options: { name?: string; podCidr?: string; flags?: string[] } = {}): Promise<void> {
    await this.start();
    await this.network();
    this.clusterName = options.name ?? 'byo';
    const created = await this.cluster(this.clusterName, ['--network-plugin', 'none', '--pod-cidr', options.podCidr ?? BYO_POD_CIDR, ...(options.flags ?? [])]);
    this.clusterId = created.id;
    const nodes = await this.nodes();
    assert.equal(nodes.length, 2);
    assert.deepEqual(
      nodes.map((n) => n.spec.podCIDR),
      [undefined, undefined],
      'AKS carves no per-node pod CIDR for BYO CNI nodes',
    );
  }

  helm(args: string[], timeoutMs?: number): Promise<KubectlResult> {
    return helm({ kubeconfig: this.kubeconfig, scratch: this.scratch }, args, timeoutMs);
  }

  async helmOk(args: string[], timeoutMs?: number): Promise<string> {
    const r = await this.helm(args, timeoutMs);
    assert.equal(r.code, 0, `helm ${args.join(' ')}: ${r.stderr}${r.stdout}`);
    return r.stdout;
  }

  /** The nodes' names, in order. */
  async nodeNames(): Promise<string[]> {
    return (await this.nodes()).map((n) => n.metadata.name);
  }

  /** A node's root directory: host path P of the node is join(nodeRoot, P). */
  nodeRoot(node: string): string {
    return join(nodesDir(this.home, RG, this.clusterName), node);
  }

  /** The node's /etc/cni/net.d, where an install puts its conflist. */
  confDir(node: string): string {
    return nodeConfDir(this.home, RG, this.clusterName, node);
  }

  /** What the cluster's CNI agents program their nodes' networks with (ProgramContext.network). */
  nodeNetwork(): ClusterNodeNetwork {
    const network = this.server.dataplane.nodeNetwork(this.clusterId);
    assert.ok(network, 'the netns data plane gives agents a node network');
    return network;
  }

  /** Runs a command inside a node's namespace (to look at its links, routes, FDB), returning stdout. */
  inNode(node: string, argv: string[]): string {
    const names = (this.server.dataplane.dataplane as unknown as { names: NetnsNames }).names;
    const netns = join(NETNS_DIR, names.host(nodeHostId(this.clusterId, node)));
    return execFileSync('nsenter', [`--net=${netns}`, ...argv], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  }

  async waitNodesReady(timeout = '90s'): Promise<void> {
    await this.kubectlOk(['wait', '--for=condition=Ready', 'node', '--all', `--timeout=${timeout}`]);
  }

  /**
   * Pod → pod both ways between pods on different nodes (default: web-0 and web-1 of podsOnEachNode): each
   * source probes the other pod's IP, and the result says what that pod saw as the source.
   */
  async podToPod(pods: Obj[], timeoutMs = 3000): Promise<PodToPod[]> {
    assert.equal(pods.length, 2);
    assert.notEqual(pods[0].spec.nodeName, pods[1].spec.nodeName, 'the two pods run on different nodes');
    const out: PodToPod[] = [];
    for (const [a, b] of [
      [pods[0], pods[1]],
      [pods[1], pods[0]],
    ]) {
      const from = `pod/${a.metadata.namespace}/${a.metadata.name}`;
      const [connected, seen] = await this.seen(from, `${b.status.podIP}:${PORT}`, this.clusterName, timeoutMs);
      out.push({ from, to: `${b.metadata.namespace}/${b.metadata.name} (${b.status.podIP})`, connected, seen });
    }
    return out;
  }

  /** pod → pod across nodes connects both ways and each side sees the other pod's own address. */
  async assertPodToPod(pods: Obj[]): Promise<void> {
    const got = await this.podToPod(pods);
    assert.deepEqual(
      got.map((r) => [r.from, r.connected, r.seen]),
      got.map((r, i) => [r.from, true, pods[i].status.podIP]),
      JSON.stringify(got),
    );
  }
}
