// The garbage collector, background propagation only: when an owner is deleted its dependents (by
// ownerReferences uid) are deleted too, pods gracefully, a slice per turn of the event loop (a deleted
// ReplicaSet of 50,000 pods must not stall the server). At start-up, dependents whose owner no longer
// exists are collected the same way (deletes that happened while the server was down).
import type { KubeObject } from '../objects/object.js';
import { resourceKey, type Change } from '../objects/store.js';
import { BURST_REPLICAS } from './burst.js';
import type { Controller, ControllerContext } from './context.js';
import { deletePodGracefully } from './pod-deletion.js';
import { DAEMONSETS, DEPLOYMENTS, PODS, REPLICASETS } from '../resources.js';
import { ownerUids } from './indexes.js';

const OWNERS = [DEPLOYMENTS, REPLICASETS, DAEMONSETS];
const OWNER_KINDS = new Set(OWNERS.map((r) => r.kind));

export class GarbageCollector implements Controller {
  private closed = false;

  constructor(private readonly ctx: ControllerContext) {}

  observe(change: Change): void {
    if (change.type !== 'DELETED') return;
    if (!OWNERS.some((r) => resourceKey(r) === change.resource) && change.resource !== resourceKey(PODS)) return;
    // Let the deletion finish notifying everyone before its dependents go.
    const uid = change.object.metadata.uid;
    setImmediate(() => this.collect(uid));
  }

  private collect(uid: string | undefined): void {
    this.removeAll(this.ctx.index.dependents(uid));
  }

  /** Removes deps a slice per turn (they are read again when their turn comes: they may have changed). */
  private removeAll(deps: KubeObject[], from = 0): void {
    if (this.closed) return;
    const end = Math.min(from + BURST_REPLICAS, deps.length);
    for (let i = from; i < end; i++) this.remove(deps[i]!);
    if (end < deps.length) setImmediate(() => this.removeAll(deps, end));
  }

  private remove(dep: KubeObject): void {
    const { objects } = this.ctx;
    const r = dep.kind === 'Pod' ? PODS : dep.kind === 'ReplicaSet' ? REPLICASETS : undefined;
    const now = r && objects.get(r, dep.metadata.namespace, dep.metadata.name);
    if (!now || now.metadata.uid !== dep.metadata.uid) return;
    if (r === PODS) deletePodGracefully(objects, now);
    else objects.delete(REPLICASETS, dep.metadata.namespace, dep.metadata.name);
  }

  close(): void {
    this.closed = true;
  }

  /** Collects dependents whose owner of a kind we control is gone. */
  resync(): void {
    const { objects } = this.ctx;
    const live = new Set<string>();
    for (const r of OWNERS) for (const o of objects.list(r)) live.add(String(o.metadata.uid));
    const orphans: KubeObject[] = [];
    for (const r of [REPLICASETS, PODS]) {
      for (const o of objects.list(r)) {
        const refs = (o.metadata['ownerReferences'] ?? []) as Array<{ kind: string; uid: string }>;
        const ours = refs.filter((ref) => OWNER_KINDS.has(ref.kind));
        if (ours.length > 0 && ours.length === ownerUids(o).length && ours.every((ref) => !live.has(ref.uid))) orphans.push(o);
      }
    }
    this.removeAll(orphans);
  }
}
