import {
  admitDeletion,
  catalogOf,
  type Catalog,
  type KindHost,
  type Change,
  deleteObject,
  finalizersOf,
  FOREGROUND_FINALIZER,
  ORPHAN_FINALIZER,
  removeFinalizer,
} from '../apiserver/index.js';
import type { KubeObject } from '../apimachinery/object.js';
import { BURST_REPLICAS } from './burst.js';
import type { Controller, ControllerContext } from '../client/context.js';
import { EVENTS, PODS, REPLICASETS, type ResourceType, resourceKey } from '../apimachinery/resources.js';
import { ownerUids } from '../client/indexes.js';

/** Kinds whose dependents the indexes hold; other kinds' are found by a scan of the owner's namespace. */
const INDEXED = new Set([PODS, REPLICASETS]);

type Ref = { apiVersion?: string; kind?: string; name?: string; uid?: string; blockOwnerDeletion?: boolean };

interface Dependent {
  r: ResourceType;
  obj: KubeObject;
}

function refsOf(obj: KubeObject): Ref[] {
  const refs = obj.metadata['ownerReferences'];
  return Array.isArray(refs) ? (refs as Ref[]) : [];
}

/** The served kinds, one per stored bucket, by bucket and by group and kind; made again when the catalog changes. */
interface Served {
  epoch: number;
  byKey: Map<string, ResourceType>;
  byKind: Map<string, ResourceType>;
}

const groupKind = (group: string, kind: string) => `${group}/${kind}`;

export class GarbageCollector implements Controller {
  private closed = false;
  /** Uids of owners in foreground deletion still waiting for blocking dependents. */
  private readonly waiting = new Set<string>();
  private readonly catalog: Catalog;
  private served: Served | undefined;

  constructor(private readonly ctx: ControllerContext) {
    this.catalog = catalogOf(ctx.objects);
  }

  private kinds(): Served {
    if (this.served?.epoch === this.catalog.epoch) return this.served;
    const byKey = new Map<string, ResourceType>();
    const byKind = new Map<string, ResourceType>();
    for (const r of this.catalog.resources()) {
      if (!byKey.has(resourceKey(r))) byKey.set(resourceKey(r), r);
      if (!byKind.has(groupKind(r.group, r.kind))) byKind.set(groupKind(r.group, r.kind), r);
    }
    return (this.served = { epoch: this.catalog.epoch, byKey, byKind });
  }

  /** The served resource of an owner reference (its kind in its group). */
  private resourceOfRef(ref: Ref): ResourceType | undefined {
    const apiVersion = ref.apiVersion ?? '';
    const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
    return this.kinds().byKind.get(groupKind(group, ref.kind ?? ''));
  }

  observe(change: Change): void {
    const r = this.kinds().byKey.get(change.resource);
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
    for (const d of this.kinds().byKey.values()) {
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
    // As the collector's DELETE through the API: a kind's own deferred deletion holds (a Namespace turns Terminating).
    const behaviour = this.catalog.behaviourOf(dep.r);
    // Admission refuses the collector's DELETE as anyone's (NamespaceLifecycle keeps `default` whatever owns it).
    try {
      admitDeletion(dep.r, now);
    } catch {
      return;
    }
    const defer = behaviour.deferDeletion;
    const host: KindHost = {
      objects: this.ctx.objects,
      serviceNetwork: () => {
        throw new Error('the garbage collector admits no Services');
      },
      kubernetesVersion: () => {
        throw new Error('the garbage collector admits nothing');
      },
      write: (obj) => this.ctx.objects.put(dep.r, obj),
    };
    deleteObject(this.ctx.objects, dep.r, now, { propagationPolicy: policy, ...(defer && dep.r !== PODS ? { defer: (o: KubeObject) => defer(o, host) } : {}) });
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
      const r = this.resourceOfRef(ref);
      const owner = r && ref.name ? this.ctx.objects.get(r, dep.metadata.namespace, ref.name) : undefined;
      if (r && owner && owner.metadata.uid === ref.uid && finalizersOf(owner).includes(FOREGROUND_FINALIZER))
        this.settle(r, owner.metadata.namespace, owner.metadata.name);
    }
  }

  close(): void {
    this.closed = true;
  }

  /** Collects dependents whose owners are all gone (each of a served kind); takes up owners left marked. */
  resync(): void {
    const { objects } = this.ctx;
    const all = [...this.kinds().byKey.values()].filter((r) => r !== EVENTS).map((r) => ({ r, list: objects.list(r) }));
    const live = new Set<string>();
    for (const { list } of all) for (const o of list) live.add(String(o.metadata.uid));
    const orphans: Dependent[] = [];
    for (const { r, list } of all) {
      for (const o of list) {
        const refs = refsOf(o);
        if (refs.length > 0 && refs.every((ref) => this.resourceOfRef(ref) !== undefined && !live.has(String(ref.uid)))) orphans.push({ r, obj: o });
      }
    }
    this.removeAll(orphans);
    for (const { r, list } of all) {
      for (const o of list) {
        const f = finalizersOf(o);
        if (o.metadata.deletionTimestamp && (f.includes(FOREGROUND_FINALIZER) || f.includes(ORPHAN_FINALIZER)))
          this.settle(r, o.metadata.namespace, o.metadata.name);
      }
    }
  }
}
