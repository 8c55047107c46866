// Lookups the controllers make on every reconcile, kept current from the change stream instead of scanning
// every pod: dependents by owner uid (pods, ReplicaSets) and pods by the node they are bound to.
import { type KubeObject, objectKey } from '../apimachinery/object.js';
import type { Pod } from '../apimachinery/types.js';
import type { Change, ObjectStore } from '../apiserver/index.js';
import { PODS, REPLICASETS, resourceKey } from '../apimachinery/resources.js';
import { podRequests, type Usage } from '../apimachinery/requests.js';
import { KeyedSet } from '../apimachinery/compact-map.js';

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

const TRACKED = new Set([resourceKey(PODS), resourceKey(REPLICASETS)]);

export class Indexes {
  /**
   * Each owner's dependents by uid, in the order they last changed: a compact table (a `Map` took 46 or 92 bytes
   * per pod, docs/performance.md §7.7, §7.9). A change that keeps its owner moves its entry last in one step.
   */
  private readonly owned = new Map<string, KeyedSet<KubeObject>>();
  private readonly onNode = new Map<string, Bucket>();
  /**
   * usageOn's answers, each dropped when a pod on its node changes: the scheduler asks for every node for each
   * pod it places, and between two placements only the node it bound to changed (summing every node's pods per
   * placement made a 50,000-pod Deployment cost the square of its size).
   */
  private readonly usage = new Map<string, Usage>();

  constructor(objects: ObjectStore) {
    for (const r of [PODS, REPLICASETS]) for (const o of objects.list(r)) this.insert(resourceKey(r), o);
  }

  private insert(resource: string, obj: KubeObject, previous?: KubeObject): void {
    const id = idOf(obj);
    for (const r of ownerRefs(obj)) {
      if (!r.uid) continue;
      let b = this.owned.get(r.uid);
      if (!b) this.owned.set(r.uid, (b = new KeyedSet(idOf)));
      // Still its owner: the entry moves last, as drop() and a set would have left it.
      if (previous && ownedBy(previous, r.uid)) b.setLast(obj);
      else b.set(obj);
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
    if (!TRACKED.has(change.resource)) return;
    const next = change.type === 'DELETED' ? undefined : change.object;
    if (change.previous) this.drop(change.resource, change.previous, next);
    if (next) this.insert(change.resource, next, change.previous);
  }

  /** Objects (pods and ReplicaSets) that name uid among their owners. */
  dependents(uid: string | undefined, kind?: 'Pod' | 'ReplicaSet'): KubeObject[] {
    const b = uid ? this.owned.get(uid) : undefined;
    if (!b) return [];
    const all = b.values();
    return kind ? all.filter((o) => o.kind === kind) : all;
  }

  podsOn(node: string): KubeObject[] {
    return [...(this.onNode.get(node)?.values() ?? [])];
  }

  /** What the pods bound to the node that still hold their place (not Succeeded or Failed) request of it. */
  usageOn(node: string): Readonly<Usage> {
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
