// Equality of plain JSON-shaped values (objects, arrays, strings, numbers, booleans, null, undefined), as
// util.isDeepStrictEqual decides it for them but without its general machinery (prototypes, symbols, Maps, cycles):
// the kubelet compares every restored pod's status with what it would write, thousands of times in a restart.
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return Number.isNaN(a) && Number.isNaN(b);
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b) || Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    if (!Object.hasOwn(b, k) || !jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}

/** A plain object JSON.stringify serializes member by member (no toJSON of its own, no class). */
function isPlainRecord(v: object): v is Record<string, unknown> {
  const proto = Object.getPrototypeOf(v);
  return (proto === Object.prototype || proto === null) && typeof (v as { toJSON?: unknown }).toJSON !== 'function';
}

/** What JSON.stringify leaves out of an object. */
function omitted(v: unknown): boolean {
  return v === undefined || typeof v === 'function' || typeof v === 'symbol';
}

/**
 * Whether JSON.stringify(a) === JSON.stringify(b), without making either text: member order counts, members
 * JSON leaves out (undefined, functions) do not. A stored object's write laid over the version before shares most
 * parts with it (the same references), so this is mostly a walk of what changed (the store's write-if-changed).
 */
export function sameJson(a: unknown, b: unknown, inList = false): boolean {
  if (a === b) return true;
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null) {
    if (Array.isArray(a) && Array.isArray(b)) {
      if (a.length !== b.length) return false;
      for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i], true)) return false;
      return true;
    }
    if (!Array.isArray(a) && !Array.isArray(b) && isPlainRecord(a) && isPlainRecord(b)) {
      const ka = Object.keys(a);
      const kb = Object.keys(b);
      let j = 0;
      for (const k of ka) {
        if (omitted(a[k])) continue;
        while (j < kb.length && omitted(b[kb[j]!])) j++;
        if (j === kb.length || kb[j] !== k || !sameJson(a[k], b[k])) return false;
        j++;
      }
      while (j < kb.length && omitted(b[kb[j]!])) j++;
      return j === kb.length;
    }
  }
  if ((typeof a === 'string' || typeof a === 'boolean') && (typeof b === 'string' || typeof b === 'boolean')) return false;
  if (typeof a === 'number' && typeof b === 'number' && Number.isFinite(a) && Number.isFinite(b)) return false;
  // Anything else (numbers that are not finite, what JSON writes as null in a list, toJSON, classes): as JSON writes it.
  return inList ? JSON.stringify([a]) === JSON.stringify([b]) : JSON.stringify(a) === JSON.stringify(b);
}
