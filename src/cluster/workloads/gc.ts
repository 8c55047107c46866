// The garbage collector, background propagation only: when an owner is deleted its dependents (by
// ownerReferences uid) are deleted too, pods gracefully. At start-up, dependents whose owner no longer
// exists are collected the same way (deletes that happened while the server was down).
import type { KubeObject } from '../objects/object.js';
import { resourceKey, type Change } from '../objects/store.js';
import { deletePodGracefully, type ControllerContext } from './context.js';
import { DAEMONSETS, DEPLOYMENTS, PODS, REPLICASETS } from './kinds.js';
import { ownerUids } from './indexes.js';

const OWNERS = [DEPLOYMENTS, REPLICASETS, DAEMONSETS];
const OWNER_KINDS = new Set(OWNERS.map((r) => r.kind));

export class GarbageCollector {
  constructor(private readonly ctx: ControllerContext) {}

  observe(change: Change): void {
    if (change.type !== 'DELETED') return;
    if (!OWNERS.some((r) => resourceKey(r) === change.resource) && change.resource !== resourceKey(PODS)) return;
    // Let the deletion finish notifying everyone before its dependents go.
    const uid = change.object.metadata.uid;
    setImmediate(() => this.collect(uid));
  }

  private collect(uid: string | undefined): void {
    for (const dep of this.ctx.index.dependents(uid)) this.remove(dep);
  }

  private remove(dep: KubeObject): void {
    const { objects } = this.ctx;
    if (dep.kind === 'Pod') deletePodGracefully(objects, dep);
    else if (dep.kind === 'ReplicaSet') objects.delete(REPLICASETS, dep.metadata.namespace, dep.metadata.name);
  }

  /** Collects dependents whose owner of a kind we control is gone. */
  resync(): void {
    const { objects } = this.ctx;
    const live = new Set<string>();
    for (const r of OWNERS) for (const o of objects.list(r)) live.add(String(o.metadata.uid));
    for (const r of [REPLICASETS, PODS]) {
      for (const o of objects.list(r)) {
        const refs = (o.metadata['ownerReferences'] ?? []) as Array<{ kind: string; uid: string }>;
        const ours = refs.filter((ref) => OWNER_KINDS.has(ref.kind));
        if (ours.length > 0 && ours.length === ownerUids(o).length && ours.every((ref) => !live.has(ref.uid))) this.remove(o);
      }
    }
  }
}
