// A small kube-scheduler: binds pending pods (no nodeName, schedulerName default-scheduler) to the
// least-loaded node that passes the filters (placement.ts), or marks them PodScheduled=False/Unschedulable
// with a FailedScheduling event. Unschedulable pods are retried whenever a node changes or a bound pod goes.
import { type KubeObject, objectKey } from '../apimachinery/object.js';
import type { Condition, Node, Pod } from '../apimachinery/types.js';
import type { Change } from '../apiserver/index.js';
import { k8sTime } from '../apimachinery/time.js';
import type { Controller, ControllerContext } from '../client/context.js';
import { NODES, PODS, resourceKey } from '../apimachinery/resources.js';
import { isTerminal } from '../client/indexes.js';
import { failedSchedulingMessage, misfit, pinnedNode, type Misfit } from './placement.js';
import { AFFINITY_NOT_MATCHED, hasRequiredAntiAffinity, podAffinityFilter, type AffinityWorld } from './pod-affinity.js';
import { splitKey, WorkQueue } from '../client/queue.js';
import { turns } from '../apimachinery/turns.js';
import { PodSet } from './pod-set.js';

export function wantsScheduling(pod: KubeObject): boolean {
  const p = pod as Pod;
  if (p.spec?.nodeName || pod.metadata.deletionTimestamp) return false;
  if ((p.spec?.schedulerName ?? 'default-scheduler') !== 'default-scheduler') return false;
  const phase = p.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed';
}

/** Node changes that can change where pods fit (not the kubelet's status heartbeats). */
function placementChanged(change: Change): boolean {
  if (change.type !== 'MODIFIED' || !change.previous) return true;
  const a = change.previous as Node;
  const b = change.object as Node;
  return JSON.stringify([a.spec, a.metadata.labels, a.status?.allocatable]) !== JSON.stringify([b.spec, b.metadata.labels, b.status?.allocatable]);
}

/**
 * Whether a pod's change changed its spec (an Unschedulable pod is tried again only then). A status write's new
 * version holds its version before's spec itself when it is the same (storage/sharing.ts), so most are answered
 * without serializing either: two copies of the spec per status write were a burst's garbage (docs/performance.md §7.15).
 */
function specChanged(change: Change): boolean {
  const before = (change.previous as Pod | undefined)?.spec;
  const now = (change.object as Pod).spec;
  return !change.previous || (before !== now && JSON.stringify(before) !== JSON.stringify(now));
}

export class Scheduler implements Controller {
  private readonly pending = new Set<string>();
  private readonly unschedulable = new PodSet();
  /** Unschedulable pods whose own podAffinity found no match: a newly bound pod may be one. */
  private readonly affinityWaiters = new Set<string>();
  /** Bound pods with required anti-affinity: they keep matching pods out of their topology domain. */
  private readonly antiAffinity = new Map<string, KubeObject>();
  private readonly queue: WorkQueue;
  /** The pods of the current scheduling round, in order, and how far it got. */
  private round: string[] = [];
  private cursor = 0;

  constructor(private readonly ctx: ControllerContext) {
    this.queue = new WorkQueue(
      () => this.run(),
      (_k, e) => ctx.log(`scheduler: ${(e as Error).stack ?? e}`),
    );
  }

  observe(change: Change): void {
    if (change.resource === resourceKey(NODES)) {
      if (placementChanged(change)) this.retryUnschedulable();
      return;
    }
    if (change.resource !== resourceKey(PODS)) return;
    const key = objectKey(change.object.metadata.namespace, change.object.metadata.name);
    const obj = change.object as Pod;
    if (change.type !== 'DELETED' && obj.spec?.nodeName && !isTerminal(change.object) && hasRequiredAntiAffinity(change.object))
      this.antiAffinity.set(key, change.object);
    else this.antiAffinity.delete(key);
    // A newly bound pod can be what another pod's affinity waits for (only those pods are retried: binds are many).
    if (this.affinityWaiters.size > 0 && obj.spec?.nodeName && !(change.previous as Pod | undefined)?.spec?.nodeName && change.type !== 'DELETED') {
      for (const k of this.affinityWaiters) if (this.unschedulable.delete(...splitKey(k))) this.pending.add(k);
      this.affinityWaiters.clear();
      this.queue.add('run');
    }
    const { namespace, name } = change.object.metadata;
    if (change.type === 'DELETED') {
      this.pending.delete(key);
      this.unschedulable.delete(namespace, name);
      if ((change.object as Pod).spec?.nodeName) this.retryUnschedulable();
      return;
    }
    if (!wantsScheduling(change.object)) {
      this.pending.delete(key);
      this.unschedulable.delete(namespace, name);
      return;
    }
    if (!this.unschedulable.has(namespace, name) || specChanged(change)) {
      this.unschedulable.delete(namespace, name);
      this.pending.add(key);
      this.queue.add('run');
    }
  }

  resync(): void {
    for (const pod of this.ctx.objects.list(PODS)) {
      if (wantsScheduling(pod)) this.pending.add(objectKey(pod.metadata.namespace, pod.metadata.name));
    }
    this.queue.add('run');
  }

  private retryUnschedulable(): void {
    if (this.unschedulable.size === 0) return;
    for (const k of this.unschedulable.keys()) this.pending.add(k);
    this.unschedulable.clear();
    this.queue.add('run');
  }

  close(): void {
    this.queue.close();
  }

  /**
   * Schedules pending pods in rounds: a round is what was pending when it started, highest priority then
   * oldest first (the scheduling queue's PrioritySort), worked through for the runtime's slice of each turn of the
   * event loop. Fifty thousand pending pods take many turns, and requests are answered in between.
   */
  private run(): void {
    const { objects } = this.ctx;
    if (this.cursor >= this.round.length) {
      // The round keeps the pending keys themselves: a new key per pod would be one more string held per
      // Unschedulable pod (docs/performance.md §7.1).
      const pods = [...this.pending]
        .map((key) => ({ key, pod: objects.get(PODS, ...splitKey(key)) }))
        .filter((p): p is { key: string; pod: KubeObject } => p.pod !== undefined && wantsScheduling(p.pod));
      this.pending.clear();
      pods.sort(
        ({ pod: a }, { pod: b }) =>
          Number((b as Pod).spec?.priority ?? 0) - Number((a as Pod).spec?.priority ?? 0) ||
          String(a.metadata.creationTimestamp).localeCompare(String(b.metadata.creationTimestamp)),
      );
      this.round = pods.map((p) => p.key);
      this.cursor = 0;
      if (this.round.length === 0) return;
    }
    const nodes = objects.list(NODES);
    const byName = new Map(nodes.map((n) => [n.metadata.name, n]));
    // At least one pod a turn; then as long as the runtime's slice of the turn lasts (apimachinery/turns.ts).
    for (let n = 0; this.cursor < this.round.length && (!turns.spent() || n === 0); n++) {
      const key = this.round[this.cursor++]!;
      const pod = objects.get(PODS, ...splitKey(key));
      if (pod && wantsScheduling(pod)) this.place(pod, key, nodes, byName);
    }
    // A finished round lets go of its keys.
    if (this.cursor >= this.round.length) {
      this.round = [];
      this.cursor = 0;
    }
    if (this.cursor < this.round.length || this.pending.size > 0) this.queue.add('run');
  }

  private place(pod: KubeObject, key: string, nodes: KubeObject[], byName: Map<string, KubeObject>): void {
    const { index } = this.ctx;
    const pinned = pinnedNode((pod as Pod).spec);
    const candidates = pinned !== undefined ? [byName.get(pinned)].filter((n): n is KubeObject => n !== undefined) : nodes;
    const interPod = podAffinityFilter(pod, this.world(byName));
    let best: KubeObject | undefined;
    let bestLoad = Infinity;
    for (const node of candidates) {
      const used = index.usageOn(node.metadata.name);
      const load = used.pods;
      if (load < bestLoad && misfit(pod, node, used) === undefined && interPod(node) === undefined) {
        best = node;
        bestLoad = load;
      }
    }
    if (best) this.bind(pod, best);
    else this.reject(pod, key, nodes, byName);
  }

  private world(byName: Map<string, KubeObject>): AffinityWorld {
    return {
      boundPods: () => this.ctx.objects.list(PODS).filter((p) => (p as Pod).spec?.nodeName && !isTerminal(p) && !p.metadata.deletionTimestamp),
      antiAffinityPods: () => this.antiAffinity.values(),
      node: (name) => byName.get(name),
    };
  }

  private bind(pod: KubeObject, node: KubeObject): void {
    const now = Date.now();
    const status = { ...((pod as Pod).status ?? {}) };
    status.conditions = [
      ...(status.conditions ?? []).filter((c) => c.type !== 'PodScheduled'),
      { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: k8sTime(now) },
    ];
    const bound = this.ctx.objects.put(PODS, { ...pod, spec: { ...(pod as Pod).spec, nodeName: node.metadata.name }, status });
    this.ctx.events.record(
      bound,
      {
        type: 'Normal',
        reason: 'Scheduled',
        message: `Successfully assigned ${pod.metadata.namespace}/${pod.metadata.name} to ${node.metadata.name}`,
        component: 'default-scheduler',
        action: 'Binding',
      },
      now,
    );
  }

  private reject(pod: KubeObject, key: string, nodes: KubeObject[], byName: Map<string, KubeObject>): void {
    const { index, objects, events } = this.ctx;
    const interPod = podAffinityFilter(pod, this.world(byName));
    const misfits: Misfit[] = nodes.map((n) => misfit(pod, n, index.usageOn(n.metadata.name)) ?? interPod(n)).filter((m): m is Misfit => m !== undefined);
    const message = failedSchedulingMessage(nodes.length, misfits);
    const now = Date.now();
    const status = { ...((pod as Pod).status ?? {}) };
    const old = (status.conditions ?? []).find((c) => c.type === 'PodScheduled');
    const cond: Condition = {
      type: 'PodScheduled',
      status: 'False',
      lastProbeTime: null,
      lastTransitionTime: old?.status === 'False' ? old.lastTransitionTime : k8sTime(now),
      reason: 'Unschedulable',
      message,
    };
    status.phase = 'Pending';
    status.conditions = [...(status.conditions ?? []).filter((c) => c.type !== 'PodScheduled'), cond];
    // Marked first: the write below comes straight back through observe(). (The stored pod's own name: pod-set.ts.)
    this.unschedulable.add(pod.metadata.namespace, pod.metadata.name);
    if (misfits.some((m) => m.reasons.includes(AFFINITY_NOT_MATCHED))) this.affinityWaiters.add(key);
    const stored = objects.put(PODS, { ...pod, status }, { onlyIfChanged: true });
    events.record(stored, { type: 'Warning', reason: 'FailedScheduling', message, component: 'default-scheduler', action: 'Scheduling' }, now);
  }
}
