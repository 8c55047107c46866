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
