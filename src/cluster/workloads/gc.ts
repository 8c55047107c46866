// The garbage collector (pkg/controller/garbagecollector), by ownerReferences uid, for the three propagation
// policies: Background — when an owner is gone its dependents are deleted, pods gracefully, a slice per turn of
// the event loop (a deleted ReplicaSet of 50,000 pods must not stall the server); Foreground — an owner marked
// with the foregroundDeletion finalizer has its dependents deleted (in the foreground too) and keeps the
// finalizer until no dependent that blocks it (blockOwnerDeletion) is left; Orphan — an owner marked with the
// orphan finalizer has its reference taken out of its dependents, then the finalizer goes. At start-up,
// dependents whose owner no longer exists are collected (deletes that happened while the server was down) and
// owners left marked are taken up again.
import type { KubeObject } from '../objects/object.js';
import { resourceKey, type Change } from '../objects/store.js';
import { BURST_REPLICAS } from './burst.js';
import type { Controller, ControllerContext } from './context.js';
import { deleteObject, finalizersOf, FOREGROUND_FINALIZER, ORPHAN_FINALIZER, removeFinalizer } from './deletion.js';
import { DAEMONSETS, DEPLOYMENTS, EVENTS, PODS, REPLICASETS, RESOURCES, type ResourceType } from '../resources.js';
import { ownerUids } from './indexes.js';

const OWNERS = [DEPLOYMENTS, REPLICASETS, DAEMONSETS];
const OWNER_KINDS = new Set(OWNERS.map((r) => r.kind));
/** Kinds whose dependents the indexes hold; other kinds' are found by a scan of the owner's namespace. */
const INDEXED = new Set([PODS, REPLICASETS]);
const BY_KEY = new Map(RESOURCES.map((r) => [resourceKey(r), r]));

type Ref = { apiVersion?: string; kind?: string; name?: string; uid?: string; blockOwnerDeletion?: boolean };

interface Dependent {
  r: ResourceType;
  obj: KubeObject;
}

function refsOf(obj: KubeObject): Ref[] {
  const refs = obj.metadata['ownerReferences'];
  return Array.isArray(refs) ? (refs as Ref[]) : [];
}

/** The served resource of an owner reference (its kind in its group). */
function resourceOfRef(ref: Ref): ResourceType | undefined {
  const apiVersion = ref.apiVersion ?? '';
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  return RESOURCES.find((r) => r.kind === ref.kind && r.group === group);
}

export class GarbageCollector implements Controller {
  private closed = false;
  /** Uids of owners in foreground deletion still waiting for blocking dependents. */
  private readonly waiting = new Set<string>();

  constructor(private readonly ctx: ControllerContext) {}

  observe(change: Change): void {
    const r = BY_KEY.get(change.resource);
    if (!r || r === EVENTS) return;
    const obj = change.object;
    if (change.type === 'DELETED') {
      // Let the deletion finish notifying everyone before its dependents go.
      setImmediate(() => this.removeAll(this.dependents(r, obj)));
      this.waiting.delete(String(obj.metadata.uid));
      if (this.waitedFor(obj)) setImmediate(() => this.ownersWaiting(obj));
      return;
    }
    if (!obj.metadata.deletionTimestamp) return;
    const finalizers = finalizersOf(obj);
    if (finalizers.includes(FOREGROUND_FINALIZER) || finalizers.includes(ORPHAN_FINALIZER))
      setImmediate(() => this.settle(r, obj.metadata.namespace, obj.metadata.name));
    // A dependent marked for deletion may be what its foreground owner waits for.
    if (!change.previous?.metadata.deletionTimestamp && this.waitedFor(obj)) setImmediate(() => this.ownersWaiting(obj));
  }

  /** Whether obj is a dependent some owner in foreground deletion waits for (cheap: most changes are not). */
  private waitedFor(obj: KubeObject): boolean {
    return this.waiting.size > 0 && refsOf(obj).some((ref) => this.waiting.has(String(ref.uid)));
  }

  /** The objects that name owner's uid among their owners. */
  private dependents(r: ResourceType, owner: KubeObject): Dependent[] {
    const uid = owner.metadata.uid;
    if (!uid) return [];
    const out: Dependent[] = this.ctx.index.dependents(uid).map((obj) => ({ r: obj.kind === 'Pod' ? PODS : REPLICASETS, obj }));
    if (r === PODS) return out;
    for (const d of RESOURCES) {
      if (INDEXED.has(d) || d === EVENTS || (r.namespaced && !d.namespaced)) continue;
      for (const obj of this.ctx.objects.list(d, r.namespaced ? owner.metadata.namespace : undefined))
        if (ownerUids(obj).includes(uid)) out.push({ r: d, obj });
    }
    return out;
  }

  /** Removes deps a slice per turn (they are read again when their turn comes: they may have changed). */
  private removeAll(deps: Dependent[], from = 0): void {
    if (this.closed) return;
    const end = Math.min(from + BURST_REPLICAS, deps.length);
    for (let i = from; i < end; i++) this.remove(deps[i]!, 'Background');
    if (end < deps.length) setImmediate(() => this.removeAll(deps, end));
  }

  private remove(dep: Dependent, policy: 'Background' | 'Foreground'): void {
    const now = this.ctx.objects.get(dep.r, dep.obj.metadata.namespace, dep.obj.metadata.name);
    if (!now || now.metadata.uid !== dep.obj.metadata.uid || now.metadata.deletionTimestamp) return;
    deleteObject(this.ctx.objects, dep.r, now, { propagationPolicy: policy });
  }

  /** An owner marked with foregroundDeletion or orphan: its dependents dealt with, then its finalizer goes. */
  private settle(r: ResourceType, namespace: string | undefined, name: string): void {
    if (this.closed) return;
    const { objects } = this.ctx;
    const owner = objects.get(r, namespace, name);
    if (!owner?.metadata.deletionTimestamp) return;
    const uid = owner.metadata.uid;
    const deps = this.dependents(r, owner);
    const finalizers = finalizersOf(owner);
    if (finalizers.includes(ORPHAN_FINALIZER)) {
      for (const d of deps) {
        const refs = refsOf(d.obj).filter((ref) => ref.uid !== uid);
        const next = { ...d.obj, metadata: { ...d.obj.metadata, ownerReferences: refs } };
        if (refs.length === 0) delete (next.metadata as Record<string, unknown>)['ownerReferences'];
        objects.put(d.r, next);
      }
      return removeFinalizer(objects, r, owner, ORPHAN_FINALIZER);
    }
    if (!finalizers.includes(FOREGROUND_FINALIZER)) return;
    for (const d of deps) this.remove(d, 'Foreground');
    const blocking = this.dependents(r, owner).filter((d) => refsOf(d.obj).some((ref) => ref.uid === uid && ref.blockOwnerDeletion === true));
    if (blocking.length > 0) return void this.waiting.add(String(uid));
    this.waiting.delete(String(uid));
    removeFinalizer(objects, r, owner, FOREGROUND_FINALIZER);
  }

  /** A dependent went (or was marked): its owners in foreground deletion may now be free to go. */
  private ownersWaiting(dep: KubeObject): void {
    for (const ref of refsOf(dep)) {
      const r = resourceOfRef(ref);
      const owner = r && ref.name ? this.ctx.objects.get(r, dep.metadata.namespace, ref.name) : undefined;
      if (r && owner && owner.metadata.uid === ref.uid && finalizersOf(owner).includes(FOREGROUND_FINALIZER))
        this.settle(r, owner.metadata.namespace, owner.metadata.name);
    }
  }

  close(): void {
    this.closed = true;
  }

  /** Collects dependents whose owner of a kind we control is gone; takes up owners left marked. */
  resync(): void {
    const { objects } = this.ctx;
    const live = new Set<string>();
    for (const r of OWNERS) for (const o of objects.list(r)) live.add(String(o.metadata.uid));
    const orphans: Dependent[] = [];
    for (const r of [REPLICASETS, PODS]) {
      for (const o of objects.list(r)) {
        const refs = (o.metadata['ownerReferences'] ?? []) as Array<{ kind: string; uid: string }>;
        const ours = refs.filter((ref) => OWNER_KINDS.has(ref.kind));
        if (ours.length > 0 && ours.length === ownerUids(o).length && ours.every((ref) => !live.has(ref.uid))) orphans.push({ r, obj: o });
      }
    }
    this.removeAll(orphans);
    for (const r of OWNERS) {
      for (const o of objects.list(r)) {
        const f = finalizersOf(o);
        if (o.metadata.deletionTimestamp && (f.includes(FOREGROUND_FINALIZER) || f.includes(ORPHAN_FINALIZER)))
          this.settle(r, o.metadata.namespace, o.metadata.name);
      }
    }
  }
}
