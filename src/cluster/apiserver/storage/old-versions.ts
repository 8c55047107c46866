// A version before held as what differs from the version after it (docs/performance.md §7.13). Once the change that
// wrote a version has left the watch history, the history's next change of that object is all that keeps it: its
// `previous`, which a watch reads only to know whether the object was selected before and, when it leaves the
// selector, to send it DELETED (watch.ts leftAt). A status write leaves the spec, the labels, the name and most of
// the metadata as they were, so the version before is its own object, its own metadata and its resourceVersion
// around members its successor shares (~184 bytes of a pod). Held here as its shape (interned: the same for every
// pod of a kind written the same way), its resourceVersion as a number, and only the members that differ; restore()
// makes the same object again, its members in the same order and the same values, so its JSON is the same to the byte.
import type { KubeObject } from '../../apimachinery/object.js';

/** A member of the version before: the successor's (the same value), its own (held), or its metadata (a nested shape). */
const SAME = 0;
const OWN = 1;
const NESTED = 2;
/** metadata.resourceVersion, held as a number and written back as the same string. */
const REVISION = 3;

interface Shape {
  readonly keys: readonly string[];
  readonly marks: readonly number[];
  /** The shape of metadata when one of the marks is NESTED. */
  readonly metadata: Shape | undefined;
  /** How many values of its own a version of this shape holds (metadata's included). */
  readonly own: number;
}

/** Past this many values of its own, a version before is kept whole: there would be little to save. */
const MAX_OWN = 6;
/** Shapes come from the members' names, which a client chooses: their table is bounded, and past it a version is kept whole. */
const MAX_SHAPES = 512;

/** A version before as what differs from its successor (three members: 48 bytes). */
export class OldVersion {
  constructor(
    readonly shape: Shape,
    readonly revision: number,
    /** Its own value when it has one (a status write's: the status), an array of them when more. */
    readonly own: unknown,
  ) {}
}

const shapes = new Map<string, Shape>();
let lastShape: Shape | undefined;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;
}

/** Whether text is a resourceVersion that Number() reads and String() writes back the same: digits, no leading zero. */
function isRevision(text: unknown): text is string {
  if (typeof text !== 'string' || text.length === 0 || text.length > 15 || (text.length > 1 && text.charCodeAt(0) === 48)) return false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** What walk() reads of a version before: its members' names and marks, metadata's, and its own values in the order restore() takes them. */
interface Reading {
  keys: string[];
  marks: number[];
  metaKeys: string[];
  metaMarks: number[];
  values: unknown[];
  revision: number;
}

/**
 * Reads before's members against after's (metadata's in place, as restore() builds them). False when before cannot be
 * held this way: a member named `__proto__`, which a plain assignment would not restore.
 */
function walk(before: Record<string, unknown>, after: Record<string, unknown>, top: boolean, r: Reading): boolean {
  const keys = top ? r.keys : r.metaKeys;
  const marks = top ? r.marks : r.metaMarks;
  for (const key in before) {
    if (!Object.hasOwn(before, key) || key === '__proto__') return false;
    const value = before[key];
    const other = after[key];
    keys.push(key);
    if (Object.hasOwn(after, key) && other === value) marks.push(SAME);
    else if (top && key === 'metadata' && isRecord(value) && isRecord(other)) {
      marks.push(NESTED);
      if (!walk(value, other, false, r)) return false;
    } else if (!top && key === 'resourceVersion' && isRevision(value)) {
      marks.push(REVISION);
      r.revision = Number(value);
    } else {
      marks.push(OWN);
      r.values.push(value);
    }
  }
  return true;
}

/**
 * Whether before has this shape against after (its members in the shape's order, each as its mark says), its own
 * values then in values: what walk() would read, without making its arrays (most versions before have the last shape).
 */
function fits(s: Shape, before: Record<string, unknown>, after: Record<string, unknown>, values: unknown[], at: { revision: number }): boolean {
  let i = 0;
  for (const key in before) {
    if (key !== s.keys[i]) return false;
    const value = before[key];
    const other = after[key];
    const mark = s.marks[i++];
    if (mark === SAME) {
      if (other !== value || !Object.hasOwn(after, key)) return false;
    } else if (mark === NESTED) {
      if (!isRecord(value) || !isRecord(other) || !fits(s.metadata!, value, other, values, at)) return false;
    } else if (mark === REVISION) {
      if (!isRevision(value)) return false;
      at.revision = Number(value);
    } else values.push(value);
  }
  return i === s.keys.length;
}

function sameShape(shape: Shape | undefined, keys: readonly string[], marks: readonly number[]): boolean {
  if (shape === undefined || shape.keys.length !== keys.length) return false;
  for (let i = 0; i < keys.length; i++) if (shape.keys[i] !== keys[i] || shape.marks[i] !== marks[i]) return false;
  return true;
}

function signature(keys: readonly string[], marks: readonly number[]): string {
  return JSON.stringify([keys, marks]);
}

/** The interned shape of these members (the last one used first: a burst of writes is one shape). */
function shapeOf(keys: string[], marks: number[], metaKeys: string[], metaMarks: number[], own: number): Shape | undefined {
  const last = lastShape;
  if (last && sameShape(last, keys, marks) && (last.metadata === undefined || sameShape(last.metadata, metaKeys, metaMarks))) return last;
  const key = `${signature(keys, marks)}${signature(metaKeys, metaMarks)}`;
  let shape = shapes.get(key);
  if (!shape) {
    if (shapes.size >= MAX_SHAPES) return undefined;
    const metadata = marks.includes(NESTED) ? { keys: metaKeys, marks: metaMarks, metadata: undefined, own: 0 } : undefined;
    shape = { keys, marks, metadata, own };
    shapes.set(key, shape);
  }
  lastShape = shape;
  return shape;
}

/** before held as what differs from after, or before itself when that would not be smaller. */
export function shrink(before: KubeObject, after: KubeObject): OldVersion | KubeObject {
  const b = before as unknown as Record<string, unknown>;
  const a = after as unknown as Record<string, unknown>;
  if (!isRecord(b) || !isRecord(a)) return before;
  const last = lastShape;
  const quick = { revision: -1 };
  const own: unknown[] = [];
  if (last && fits(last, b, a, own, quick)) return new OldVersion(last, quick.revision, own.length > 1 ? own : own[0]);
  const r: Reading = { keys: [], marks: [], metaKeys: [], metaMarks: [], values: [], revision: -1 };
  if (!walk(b, a, true, r) || r.values.length > MAX_OWN) return before;
  const { values } = r;
  const shape = shapeOf(r.keys, r.marks, r.metaKeys, r.metaMarks, values.length);
  if (!shape) return before;
  return new OldVersion(shape, r.revision, values.length > 1 ? values : values[0]);
}

/** The version before again, complete: a new object with before's members in before's order. */
export function restore(old: OldVersion, after: KubeObject): KubeObject {
  const { shape } = old;
  const values = shape.own > 1 ? (old.own as unknown[]) : [old.own];
  let next = 0;
  const build = (s: Shape, from: Record<string, unknown>): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (let i = 0; i < s.keys.length; i++) {
      const key = s.keys[i]!;
      const mark = s.marks[i];
      if (mark === SAME) out[key] = from[key];
      else if (mark === OWN) out[key] = values[next++];
      else if (mark === REVISION) out[key] = String(old.revision);
      else out[key] = build(s.metadata!, from[key] as Record<string, unknown>);
    }
    return out;
  };
  return build(shape, after as unknown as Record<string, unknown>) as KubeObject;
}
