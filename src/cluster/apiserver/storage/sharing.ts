// What stored objects share in memory. Pods stamped from one template (a ReplicaSet's, a DaemonSet's), the versions
// of one object that a status write leaves mostly alike, the events of one recorder: most of what they hold is the
// same, and each held its own copy (issue 32: ~10 KB of heap per held pod). The store lays each new object over a
// neighbour — the version it replaces, or else the object last stored of its kind — and every part equal to the
// neighbour's part at the same place becomes that part itself, frozen (strings likewise become the neighbour's
// string). No table is kept: the neighbour is an object the store holds anyway, so nothing outlives the objects.
//
// Frozen parts are safe to share: a stored object is read-only (ObjectStore.list), a writer copies before it
// changes one (apimachinery/object.ts `clone`, structuredClone: the copy is thawed), and what the API returns is
// serialized, so every client gets complete objects of its own. Only parts below the object's top level are shared;
// the object and its metadata stay its own.
import { decodesHere, memberShape, type Shape } from '../validation/shape.js';

type Json = unknown;

function isPlain(v: Json): v is Record<string, Json> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** a, with every part deep-equal to b's part at the same place replaced by b's (frozen); a itself is changed in place. */
function share(a: Json, b: Json): Json {
  // Equal strings compare equal whatever their instance: take the neighbour's, so the copy can go.
  if (typeof a === 'string') return a === b ? b : a;
  if (a === b) return a;
  // Already a neighbour's part (laid over the first neighbour, then a second): it stays as it is.
  if (typeof a === 'object' && a !== null && Object.isFrozen(a)) return a;
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return a;
  if (Array.isArray(a)) {
    if (!Array.isArray(b)) return a;
    let same = a.length === b.length;
    for (let i = 0; i < a.length; i++) {
      if (i < b.length) a[i] = share(a[i], b[i]);
      if (a[i] !== b[i]) same = false;
    }
    return same ? Object.freeze(b) : a;
  }
  if (!isPlain(b) || !isPlain(a)) return a;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  let same = keysA.length === keysB.length;
  for (let i = 0; i < keysA.length; i++) {
    const k = keysA[i]!;
    if (same && keysB[i] !== k) same = false;
    if (Object.hasOwn(b, k)) a[k] = share(a[k], b[k]);
    if (a[k] !== b[k]) same = false;
  }
  return same ? Object.freeze(b) : a;
}

/**
 * Lays obj (a fresh copy the store is about to keep) over its neighbours in turn: below the top level and the
 * metadata's own members, parts equal to a neighbour's are the neighbour's, frozen. The second neighbour catches what
 * the first does not have alike: a pod's new status laid over its own version before (which had none) and then over
 * the pod last stored, whose status the same controller wrote alike (the scheduler's Unschedulable condition and message).
 */
export function shareParts(obj: Record<string, Json>, ...neighbours: (Record<string, Json> | undefined)[]): void {
  neighbours.forEach((neighbour, i) => {
    if (neighbour && neighbour !== obj && neighbours.indexOf(neighbour) === i) layOver(obj, neighbour);
  });
}

function layOver(obj: Record<string, Json>, neighbour: Record<string, Json>): void {
  for (const k of Object.keys(obj)) {
    if (!Object.hasOwn(neighbour, k)) continue;
    if (k === 'metadata' && isPlain(obj[k]) && isPlain(neighbour[k])) {
      const mine = obj[k] as Record<string, Json>;
      const theirs = neighbour[k] as Record<string, Json>;
      for (const m of Object.keys(mine)) if (Object.hasOwn(theirs, m)) mine[m] = share(mine[m], theirs[m]);
      continue;
    }
    obj[k] = share(obj[k], neighbour[k]);
  }
}

/**
 * A restore's walk (layOverChecked): the share, and the checks of the parts it does not share, each against the shape
 * of its place (validation/shape.ts) and the depth left. A part equal to the neighbour's at the same place is not
 * checked: the neighbour, an object of the same kind restored before, passed there.
 */
class CheckedShare {
  /** A part did not decode, or nested too deep. */
  failed = false;
  /**
   * The last string of the object's own (not its neighbour's) the walk kept: an equal one after it is that string.
   * A pod's own values repeat within it (its conditions' five transition times, its host and pod IPs written twice),
   * and the parse made each its own copy.
   */
  private lastOwn = '';

  share(a: Json, b: Json, s: Shape | undefined, room: number): Json {
    if (typeof a !== 'object' || a === null) {
      if (a === b) return typeof a === 'string' ? b : a;
      if (s !== undefined && !decodesHere(a, s)) this.failed = true;
      if (typeof a !== 'string') return a;
      if (a === this.lastOwn) return this.lastOwn;
      this.lastOwn = a;
      return a;
    }
    // As the depth check: an object with no room left is too deep (MAX_DEPTH, validation/limits.ts).
    if (room === 0) this.failed = true;
    if (s !== undefined && !decodesHere(a, s)) this.failed = true;
    // Refused (the load checks it again, for the apiserver's message), or already a neighbour's part.
    if (this.failed || Object.isFrozen(a)) return a;
    if (Array.isArray(a)) {
      const theirs = Array.isArray(b) ? b : undefined;
      const item = s && memberShape(s, '');
      let same = theirs !== undefined && a.length === theirs.length;
      for (let i = 0; i < a.length; i++) {
        const part = this.share(a[i], theirs !== undefined && i < theirs.length ? theirs[i] : undefined, item, room - 1);
        a[i] = part;
        if (part !== theirs?.[i]) same = false;
      }
      return same ? Object.freeze(theirs) : a;
    }
    const theirs = isPlain(b) ? b : undefined;
    return this.members(a as Record<string, Json>, theirs, s, room - 1, true) && theirs !== undefined ? Object.freeze(theirs) : a;
  }

  /**
   * Lays obj's members over theirs (when given) at `room`; true when every member is theirs, in their order. `whole`:
   * obj may be the neighbour's (false for an object's top level and its metadata, which stay its own).
   */
  members(obj: Record<string, Json>, theirs: Record<string, Json> | undefined, s: Shape | undefined, room: number, whole: boolean): boolean {
    const keys = Object.keys(obj);
    let same = whole && theirs !== undefined;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      const their = theirs !== undefined && Object.hasOwn(theirs, k) ? theirs[k] : undefined;
      const mine = obj[k];
      // A single value equal to the neighbour's needs no check, hence no shape (most of a sibling's leaves).
      const part = mine === their && (typeof mine !== 'object' || mine === null) ? their : this.share(mine, their, s && memberShape(s, k), room);
      // Written even when equal: an equal string compares equal whatever its instance, and the neighbour's is kept.
      obj[k] = part;
      if (part !== their) same = false;
    }
    // Every member is the neighbour's: theirs is the same object when it has no other members, in the same order
    // (their keys read only then: most objects walked differ somewhere).
    return same && sameKeys(keys, Object.keys(theirs!));
  }
}

function sameKeys(a: string[], b: string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Lays a restored object (fresh from its row) over its neighbour, the one restored before it of its kind, as
 * shareParts does, and checks in the same walk what it does not share: each part's JSON type against `shape` (its
 * kind's, validation/shape.ts) and its depth against `maxDepth`, as object.ts storedProblem does whole. False when a
 * part fails: the caller checks it again whole for the apiserver's message. Its metadata's values are not validated.
 */
export function layOverChecked(obj: Record<string, Json>, neighbour: Record<string, Json>, shape: Shape, maxDepth: number): boolean {
  const walk = new CheckedShare();
  const metadata = obj['metadata'];
  const theirs = neighbour['metadata'];
  // The metadata's members are laid over the neighbour's one by one; the metadata itself stays its own.
  if (isPlain(metadata) && isPlain(theirs)) {
    const meta = memberShape(shape, 'metadata');
    walk.members(metadata, theirs, meta, maxDepth - 2, false);
    if (meta !== undefined && !decodesHere(metadata, meta)) walk.failed = true;
  }
  for (const k of Object.keys(obj)) {
    if (k === 'metadata' && isPlain(metadata) && isPlain(theirs)) continue;
    obj[k] = walk.share(obj[k], Object.hasOwn(neighbour, k) ? neighbour[k] : undefined, memberShape(shape, k), maxDepth - 1);
  }
  return !walk.failed;
}
