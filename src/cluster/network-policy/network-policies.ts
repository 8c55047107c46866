// The cluster's policy engine, where it has one (docs/dataplane.md §13): NetworkPolicies, Pods and Namespaces →
// one NodePolicies table per node (policy-compile.ts) → NodeNetwork.applyPolicies. Which nodes enforce:
// - `networkPolicy` azure (Azure NPM), calico or cilium on the cluster record, or `networkDataplane` cilium
//   (Cilium always enforces): every node;
// - network plugin `none` (BYO CNI): a node while a container runs there whose program enforces policy (the
//   catalogue entry's `enforcesNetworkPolicy`: calico-node, cilium-agent; flannel has none);
// - otherwise none: policies are stored and ignored, as on AKS without a policy engine.
// Recomputed after a burst of changes (debounced); a node's table is pushed only when it changed, pushes one at a
// time in order. Without a data plane nothing is computed at all.
import type { ClusterRecord } from '../../model/cluster-records.js';
import type { NodePolicies } from '../../dataplane/policies.js';
import { imageSpecOf, programFor } from '../images/catalogue.js';
import type { NodeNetwork } from '../images/program.js';
import type { KubeObject } from '../apimachinery/object.js';
import type { Change } from '../apiserver/index.js';
import type { Pod } from '../apimachinery/types.js';
import { NAMESPACES, NETWORKPOLICIES, NODES, PODS, resourceKey } from '../apimachinery/resources.js';
import type { Controller, ControllerContext } from '../client/context.js';
import { compilePolicies } from './policy-compile.js';

/** The engines AKS runs for `networkPolicy` (docs/aks-rules.md §1.1). */
const MANAGED_ENGINES = new Set(['azure', 'calico', 'cilium']);
/** A burst of pod and policy changes costs one recomputation. */
const DEBOUNCE_MS = 50;
const WATCHED = new Set([PODS, NAMESPACES, NETWORKPOLICIES].map(resourceKey));

/** Which nodes enforce: all, those named, or none. */
export type Enforcement = 'all' | Set<string>;

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);

/** True while one of the pod's running containers runs a program that enforces NetworkPolicy. */
export function runsPolicyAgent(pod: KubeObject): boolean {
  const p = pod as Pod;
  if (p.status?.phase !== 'Running') return false;
  const running = new Set((p.status.containerStatuses ?? []).filter((s) => s.state?.running).map((s) => s.name));
  for (const c of p.spec?.containers ?? []) {
    if (!running.has(c.name) || typeof c.image !== 'string') continue;
    const spec = imageSpecOf(c.image);
    if (!spec?.enforcesNetworkPolicy) continue;
    const found = programFor(spec, [...strings(c['command']), ...strings(c['args'])], {});
    if (found && spec.enforcesNetworkPolicy.includes(found.program)) return true;
  }
  return false;
}

/** The nodes that enforce NetworkPolicy in this cluster (see the header). */
export function enforcement(cluster: ClusterRecord, pods: () => readonly KubeObject[]): Enforcement {
  const net = cluster.resolved.network;
  if (MANAGED_ENGINES.has(String(net.networkPolicy ?? '').toLowerCase()) || String(net.networkDataplane ?? '').toLowerCase() === 'cilium') return 'all';
  const nodes = new Set<string>();
  if (String(net.networkPlugin).toLowerCase() !== 'none') return nodes;
  for (const p of pods()) {
    const node = (p as Pod).spec?.nodeName;
    if (node && runsPolicyAgent(p)) nodes.add(node);
  }
  return nodes;
}

export class NetworkPolicies implements Controller {
  private timer: NodeJS.Timeout | undefined;
  /** What each node was last sent (JSON), so an unchanged table is not sent again. */
  private readonly pushed = new Map<string, string>();
  private pushing: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly ctx: ControllerContext,
    private readonly network: () => NodeNetwork | undefined,
    private readonly cluster: () => ClusterRecord,
  ) {}

  observe(change: Change): void {
    if (WATCHED.has(change.resource)) this.schedule();
  }

  resync(): void {
    this.schedule();
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Settles once every table computed so far has been sent (tests). */
  idle(): Promise<void> {
    return this.pushing;
  }

  private schedule(): void {
    if (this.closed || this.timer || !this.network()?.applyPolicies) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.recompute();
    }, DEBOUNCE_MS);
    this.timer.unref();
  }

  private recompute(): void {
    const network = this.network();
    if (this.closed || !network?.applyPolicies) return;
    const { objects } = this.ctx;
    const policies = objects.list(NETWORKPOLICIES);
    // Nothing to enforce and nothing to undo: the common case costs no pod listing.
    if (policies.length === 0 && this.pushed.size === 0) return;
    const cluster = this.cluster();
    const pods = objects.list(PODS);
    const enforced = enforcement(cluster, () => pods);
    const tables =
      enforced === 'all' || enforced.size > 0
        ? compilePolicies({ clusterId: cluster.id, policies, pods, namespaces: objects.list(NAMESPACES) })
        : new Map<string, NodePolicies>();
    const empty: NodePolicies = { clusterId: cluster.id, ingressIsolated: [], egressIsolated: [], ingress: [], egress: [] };
    const existing = new Set(objects.list(NODES).map((n) => n.metadata.name));
    for (const node of new Set([...tables.keys(), ...this.pushed.keys()])) {
      // A deleted node's namespace went with it.
      if (!existing.has(node)) {
        this.pushed.delete(node);
        continue;
      }
      const table = (enforced === 'all' || enforced.has(node) ? tables.get(node) : undefined) ?? empty;
      const text = JSON.stringify(table);
      if ((this.pushed.get(node) ?? JSON.stringify(empty)) === text) continue;
      if (table === empty) this.pushed.delete(node);
      else this.pushed.set(node, text);
      this.pushing = this.pushing.then(() =>
        network.applyPolicies!(node, table).catch((e: unknown) => {
          // The next change recomputes and sends it again.
          this.pushed.set(node, 'failed');
          this.ctx.log(`network policy on node ${node}: ${(e as Error).message}`);
        }),
      );
    }
  }
}
