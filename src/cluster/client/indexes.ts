// Lookups the controllers make on every reconcile, kept current from the change stream instead of scanning
// every pod: dependents by owner uid (pods, ReplicaSets) and pods by the node they are bound to.
import { type KubeObject, objectKey } from '../apimachinery/object.js';
import type { Pod } from '../apimachinery/types.js';
import type { Change, ObjectStore } from '../apiserver/index.js';
import { PODS, REPLICASETS, type ResourceType, resourceKey } from '../apimachinery/resources.js';
import { podRequests, type Usage } from '../apimachinery/requests.js';
import { KeyedSet } from '../apimachinery/compact-map.js';
import { controllerRef, isActive, isPodReady } from './pod-state.js';

/**
 * One node's pods (an update deletes and re-adds its entry). V8's table keeps a deleted entry's slot until it is
 * full, and then doubles unless half of it is deleted (docs/performance.md §7.3). `holes` counts the deleted slots,
 * and past half the entries the table is made anew: at most 1.5 slots per entry in use, so V8 sizes it at most 3
 * per entry. A node's few dozen pods stay in a `Map`: compact tables remade as each grew cost more
 * (docs/performance.md §7.7).
 */
class Bucket extends Map<string, KubeObject> {
  holes = 0;
}

function add(map: Map<string, Bucket>, key: string, id: string, obj: KubeObject): void {
  let b = map.get(key);
  if (!b) map.set(key, (b = new Bucket()));
  b.set(id, obj);
  if (b.holes > b.size / 2) map.set(key, new Bucket(b));
}

function remove(map: Map<string, Bucket>, key: string, id: string): void {
  const b = map.get(key);
  if (!b?.delete(id)) return;
  b.holes++;
  if (b.size === 0) map.delete(key);
}

// The object's uid: one per object across its versions (the store keeps it), unique across kinds, and a string
// the object holds anyway, where a `resource|namespace/name` key was ~110 bytes more per pod (docs/performance.md §7).
function idOf(obj: KubeObject): string {
  return obj.metadata.uid ?? `${obj.kind}|${objectKey(obj.metadata.namespace, obj.metadata.name)}`;
}

function ownerRefs(obj: KubeObject): readonly { uid?: string }[] {
  return (obj.metadata['ownerReferences'] ?? []) as Array<{ uid?: string }>;
}

export function ownerUids(obj: KubeObject): string[] {
  return ownerRefs(obj)
    .map((r) => r.uid ?? '')
    .filter((u) => u !== '');
}

/** Whether obj names uid among its owners (a loop: this runs for every pod change, and most have one owner). */
function ownedBy(obj: KubeObject, uid: string): boolean {
  for (const r of ownerRefs(obj)) if (r.uid === uid) return true;
  return false;
}

export function nodeOf(pod: KubeObject): string {
  return String((pod as Pod).spec?.nodeName ?? '');
}

/** The kinds indexed, by their store key. */
const TRACKED = new Map<string, ResourceType>([
  [resourceKey(PODS), PODS],
  [resourceKey(REPLICASETS), REPLICASETS],
]);
const PODS_KEY = resourceKey(PODS);
/** The changes an index not built yet keeps (Indexes.changed) at most: past them it is built. */
const CHANGED_HELD = 4096;

function changedKey(resource: string, namespace: string | undefined, name: string): string {
  return `${resource}\0${objectKey(namespace, name)}`;
}

/** A controller's pods that count for it (not deleted, Succeeded or Failed), and how many of them are ready. */
export interface PodTally {
  active: number;
  ready: number;
}

const NO_PODS: Readonly<PodTally> = Object.freeze({ active: 0, ready: 0 });

/** Past this many dependents, an owner's go from a list searched in turn to a compact table. */
const FEW = 16;

/**
 * One owner's dependents in the order they last changed. Most owners have a few (a ReplicaSet of one to three pods):
 * a list of the exact length searched in turn. Past FEW, a KeyedSet: its tables cost a few hundred bytes however
 * few it holds (10,000 owners of two pods each took ~380 bytes per pod in KeyedSets against a `Map`'s ~115, and 59
 * in lists), and ~12 bytes per pod (and ~13 outside the heap) when it holds thousands, against a `Map`'s 39–92
 * (docs/performance.md §7.9).
 */
class Dependents {
  private held: KubeObject[] | KeyedSet<KubeObject> = [];

  get size(): number {
    return Array.isArray(this.held) ? this.held.length : this.held.size;
  }

  /** Holds obj; with `last`, moved last when there (as a delete and a set), else in its place. */
  set(obj: KubeObject, last: boolean): void {
    const held = this.held;
    if (!Array.isArray(held)) {
      if (last) held.setLast(obj);
      else held.set(obj);
      return;
    }
    const at = placeIn(held, idOf(obj));
    if (!last && at >= 0) held[at] = obj;
    else if (at >= 0) {
      for (let i = at + 1; i < held.length; i++) held[i - 1] = held[i]!;
      held[held.length - 1] = obj;
    } else if (held.length < FEW) {
      // A new list of the exact length: a push would give it room for 16 more (V8 grows a list by half and 16).
      this.held = held.concat([obj]);
    } else {
      const keyed = new KeyedSet(idOf);
      for (const o of held) keyed.set(o);
      this.held = keyed.set(obj);
    }
  }

  delete(id: string): boolean {
    const held = this.held;
    if (!Array.isArray(held)) return held.delete(id);
    const at = placeIn(held, id);
    if (at < 0) return false;
    for (let i = at + 1; i < held.length; i++) held[i - 1] = held[i]!;
    held.length--;
    return true;
  }

  /** In order, a new array. */
  values(): KubeObject[] {
    return Array.isArray(this.held) ? this.held.slice() : this.held.values();
  }

  /** Each in order, with no array made (visit must not change what is held). */
  forEach(visit: (obj: KubeObject) => void): void {
    const held = this.held;
    if (Array.isArray(held)) for (let i = 0; i < held.length; i++) visit(held[i]!);
    else held.forEach(visit);
  }
}

function placeIn(objects: readonly KubeObject[], id: string): number {
  for (let i = 0; i < objects.length; i++) if (idOf(objects[i]!) === id) return i;
  return -1;
}

export class Indexes {
  /**
   * Each owner's dependents by uid, in the order they last changed: a list, or a compact table past a few (a `Map`
   * took 46 or 92 bytes per pod, docs/performance.md §7.7, §7.9). A change that keeps its owner moves its entry last
   * in one step.
   */
  private readonly owned = new Map<string, Dependents>();
  private readonly onNode = new Map<string, Bucket>();
  /**
   * usageOn's answers, each dropped when a pod on its node changes: the scheduler asks for every node for each
   * pod it places, and between two placements only the node it bound to changed (summing every node's pods per
   * placement made a 50,000-pod Deployment cost the square of its size).
   */
  private readonly usage = new Map<string, Usage>();
  /**
   * tallyOf's answers, kept from each pod's change: a ReplicaSet's sync for one pod's status change counted its
   * thousands of pods again, and a 50,000-replica Deployment's pods spent most of their start in those counts
   * (docs/performance.md §6.10).
   */
  private readonly tallies = new Map<string, PodTally>();
  /**
   * The store's resourceVersion when the indexes were built from it (build), undefined before: they are built at the
   * first question, not with the runtime (a restart's 65,007 pods were ~0.2 s before serving, and nothing asks until
   * the controllers' first syncs: docs/performance.md §2.25).
   */
  private builtAt: number | undefined;
  /**
   * Until then, the objects changed since the runtime began (`resource` NUL `namespace/name`), each at its last
   * change: the build puts them after the others in that order, as their changes would have (dependents come in the
   * order they last changed).
   */
  private changed = new Map<string, { resource: string; namespace: string | undefined; name: string }>();

  constructor(private readonly objects: ObjectStore) {}

  /** The indexes from the store's objects, once: those not changed since the runtime began in key order, then the rest. */
  private build(): void {
    if (this.builtAt !== undefined) return;
    this.builtAt = this.objects.resourceVersion;
    const changed = this.changed;
    this.changed = new Map();
    const add = (resource: string, obj: KubeObject) => {
      this.insert(resource, obj);
      if (resource === PODS_KEY) this.tally(obj, 1);
    };
    for (const [resource, r] of TRACKED) {
      for (const obj of this.objects.list(r))
        if (changed.size === 0 || !changed.has(changedKey(resource, obj.metadata.namespace, obj.metadata.name))) add(resource, obj);
    }
    for (const { resource, namespace, name } of changed.values()) {
      const obj = this.objects.get(TRACKED.get(resource)!, namespace, name);
      if (obj) add(resource, obj);
    }
  }

  /** Counts pod (by = 1) or stops counting it (by = -1) for its controller, when it is active. */
  private tally(pod: KubeObject, by: 1 | -1): void {
    const uid = controllerRef(pod)?.uid;
    if (!uid || !isActive(pod)) return;
    let t = this.tallies.get(uid);
    if (!t) this.tallies.set(uid, (t = { active: 0, ready: 0 }));
    t.active += by;
    if (isPodReady(pod)) t.ready += by;
    if (t.active === 0) this.tallies.delete(uid);
  }

  private insert(resource: string, obj: KubeObject, previous?: KubeObject): void {
    const id = idOf(obj);
    for (const r of ownerRefs(obj)) {
      if (!r.uid) continue;
      let b = this.owned.get(r.uid);
      if (!b) this.owned.set(r.uid, (b = new Dependents()));
      // Still its owner: the entry moves last, as drop() and a set would have left it.
      b.set(obj, previous !== undefined && ownedBy(previous, r.uid));
    }
    if (resource === resourceKey(PODS) && nodeOf(obj)) {
      add(this.onNode, nodeOf(obj), id, obj);
      this.usage.delete(nodeOf(obj));
    }
  }

  /** Forgets obj, except under the owners `next` (its next version, with the same id) still names. */
  private drop(resource: string, obj: KubeObject, next?: KubeObject): void {
    const id = idOf(obj);
    const kept = next && idOf(next) === id ? next : undefined;
    for (const r of ownerRefs(obj)) {
      if (!r.uid || (kept && ownedBy(kept, r.uid))) continue;
      const b = this.owned.get(r.uid);
      if (b?.delete(id) && b.size === 0) this.owned.delete(r.uid);
    }
    if (resource === resourceKey(PODS) && nodeOf(obj)) {
      remove(this.onNode, nodeOf(obj), id);
      this.usage.delete(nodeOf(obj));
    }
  }

  apply(change: Change): void {
    const r = TRACKED.get(change.resource);
    if (!r) return;
    const { namespace, name } = change.object.metadata;
    if (this.builtAt === undefined) {
      // Kept until the build (most changes at a restart's start come after it): past CHANGED_HELD, built now.
      const key = changedKey(change.resource, namespace, name);
      this.changed.delete(key);
      this.changed.set(key, { resource: change.resource, namespace, name });
      if (this.changed.size > CHANGED_HELD) this.build();
      return;
    }
    if (change.rv <= this.builtAt) {
      // Read by the build, which a listener told before this one made (a nested write): moved last, as told now.
      if (change.type !== 'DELETED' && this.objects.get(r, namespace, name) === change.object) {
        this.drop(change.resource, change.object, change.object);
        this.insert(change.resource, change.object, change.object);
      }
      return;
    }
    const next = change.type === 'DELETED' ? undefined : change.object;
    if (change.previous) this.drop(change.resource, change.previous, next);
    if (next) this.insert(change.resource, next, change.previous);
    if (change.resource !== PODS_KEY) return;
    if (change.previous) this.tally(change.previous, -1);
    if (next) this.tally(next, 1);
  }

  /**
   * The pods whose controller is uid that count for it (not deleted, Succeeded or Failed), and how many of them are
   * ready: what walking eachDependent(uid, 'Pod') for them would find, without the walk.
   */
  tallyOf(uid: string | undefined): Readonly<PodTally> {
    this.build();
    return (uid ? this.tallies.get(uid) : undefined) ?? NO_PODS;
  }

  /** Objects (pods and ReplicaSets) that name uid among their owners. */
  dependents(uid: string | undefined, kind?: 'Pod' | 'ReplicaSet'): KubeObject[] {
    this.build();
    const b = uid ? this.owned.get(uid) : undefined;
    if (!b) return [];
    const all = b.values();
    return kind ? all.filter((o) => o.kind === kind) : all;
  }

  /**
   * Each object of `kind` that names uid among its owners, in dependents()'s order, with no array made: a
   * ReplicaSet's sync reads its thousands of pods for each of their changes, and the arrays it made were most of a
   * burst's garbage (docs/performance.md §7.14). visit must not write objects.
   */
  eachDependent(uid: string | undefined, kind: 'Pod' | 'ReplicaSet', visit: (obj: KubeObject) => void): void {
    this.build();
    const b = uid ? this.owned.get(uid) : undefined;
    b?.forEach((o) => {
      if (o.kind === kind) visit(o);
    });
  }

  podsOn(node: string): KubeObject[] {
    this.build();
    return [...(this.onNode.get(node)?.values() ?? [])];
  }

  /** What the pods bound to the node that still hold their place (not Succeeded or Failed) request of it. */
  usageOn(node: string): Readonly<Usage> {
    this.build();
    const known = this.usage.get(node);
    if (known) return known;
    const used: Usage = { pods: 0, cpu: 0, memory: 0 };
    for (const p of this.onNode.get(node)?.values() ?? []) {
      if (isTerminal(p)) continue;
      const r = podRequests(p);
      used.pods++;
      used.cpu += r.cpu;
      used.memory += r.memory;
    }
    this.usage.set(node, used);
    return used;
  }
}

export function isTerminal(pod: KubeObject): boolean {
  const phase = (pod as Pod).status?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
}
