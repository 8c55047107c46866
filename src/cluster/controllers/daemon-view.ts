// One DaemonSet's view of the cluster between its syncs: where its template may run, its active pods by node,
// and the status counts those give, kept current from the changes of nodes and pods. A sync then costs what
// changed since the last one (a burst of new nodes, the pods just created or started), not every node and pod
// of the cluster (docs/performance.md §6.7).
import { compareKeys, type KubeObject } from '../apimachinery/object.js';
import type { Pod } from '../apimachinery/types.js';
import { controllerRef, isActive, isPodReady } from '../client/pod-state.js';
import { pinnedNode } from '../scheduler/placement.js';

export interface Fit {
  run: boolean;
  stay: boolean;
}

/** The node a daemon pod is on, or is pinned to ('' for neither). */
export function daemonPodNode(pod: KubeObject): string {
  return (pod as Pod).spec?.nodeName || pinnedNode((pod as Pod).spec) || '';
}

/** What one node name adds to the DaemonSet's status and plan. */
interface Share {
  desired: number;
  current: number;
  ready: number;
  updated: number;
  misscheduled: number;
  /** Pods the full sync would delete here (extras, an older template's, a node the pods may not stay on). */
  doomed: number;
}

const NOTHING: Share = { desired: 0, current: 0, ready: 0, updated: 0, misscheduled: 0, doomed: 0 };

export type Counts = Share;

export class DaemonView {
  private readonly fits = new Map<string, Fit>();
  private readonly pods = new Map<string, Map<string, Pod>>();
  /** Each pod's node as last seen, so that a change can take the pod from where it was. */
  private readonly podNode = new Map<string, string>();
  private readonly shares = new Map<string, Share>();
  /** Eligible nodes without a pod. */
  private readonly needing = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly total: Share = { ...NOTHING };

  constructor(
    readonly uid: string,
    readonly hash: string,
    private readonly fitOf: (node: KubeObject) => Fit,
    nodes: KubeObject[],
    owned: KubeObject[],
  ) {
    for (const node of nodes) this.nodeChanged(node.metadata.name, node);
    for (const p of owned) this.podChanged(p.metadata.uid ?? '', p);
  }

  /** A node's new version (undefined: deleted). */
  nodeChanged(name: string, node: KubeObject | undefined): void {
    if (node) this.fits.set(name, this.fitOf(node));
    else this.fits.delete(name);
    this.dirty.add(name);
  }

  /** A pod's new version (undefined: deleted); only this DaemonSet's active pods are kept. */
  podChanged(uid: string, pod: KubeObject | undefined): void {
    const was = this.podNode.get(uid);
    const node = pod && controllerRef(pod)?.uid === this.uid && isActive(pod) ? daemonPodNode(pod) : undefined;
    if (was !== undefined && was === node) {
      // Most changes are a pod's status on the same node: its entry is replaced in place.
      this.pods.get(node)!.set(uid, pod as Pod);
      this.dirty.add(node);
      return;
    }
    if (was !== undefined) {
      const on = this.pods.get(was)!;
      on.delete(uid);
      if (on.size === 0) this.pods.delete(was);
      this.podNode.delete(uid);
      this.dirty.add(was);
    }
    if (node === undefined) return;
    let on = this.pods.get(node);
    if (!on) this.pods.set(node, (on = new Map()));
    on.set(uid, pod as Pod);
    this.podNode.set(uid, node);
    this.dirty.add(node);
  }

  /** The counts as of every change seen so far. */
  counts(): Readonly<Counts> {
    for (const name of this.dirty) {
      const before = this.shares.get(name) ?? NOTHING;
      const after = this.shareOf(name);
      for (const k of Object.keys(NOTHING) as Array<keyof Share>) this.total[k] += after[k] - before[k];
      if (after === NOTHING) this.shares.delete(name);
      else this.shares.set(name, after);
    }
    this.dirty.clear();
    return this.total;
  }

  /** The eligible nodes without a pod, in the order the full sync lists nodes (etcd key order). */
  needPod(): string[] {
    this.counts();
    return [...this.needing].sort(compareKeys);
  }

  private shareOf(name: string): Share {
    const fit = this.fits.get(name);
    const pods = [...(this.pods.get(name)?.values() ?? [])];
    this.needing.delete(name);
    if (fit?.run) {
      if (pods.length === 0) this.needing.add(name);
      const updated = pods.some((p) => p.metadata.labels?.['controller-revision-hash'] === this.hash);
      return {
        desired: 1,
        current: pods.length > 0 ? 1 : 0,
        ready: pods.some((p) => isPodReady(p)) ? 1 : 0,
        updated: updated ? 1 : 0,
        misscheduled: 0,
        doomed: pods.length - (updated ? 1 : 0),
      };
    }
    if (pods.length === 0) return NOTHING;
    return { ...NOTHING, misscheduled: 1, doomed: fit?.stay ? 0 : pods.length };
  }
}
