// Objects of a kind that is written once and read rarely, held packed. An Event is fourteen members, its metadata and
// its involvedObject, ~440 bytes of heap each (one per pod the scheduler has been through: docs/performance.md §7.4),
// and most of it is the same in every Event its recorder posts: its reason, type, source, action, the structure. A
// packed object is the shape it shares with the objects alike (interned: everything but its own values, frozen) and
// its own values at the shape's holes, in one array; reading it makes the complete object again, a new one each time.
// Which members are an object's own is data per kind (HOLES): a member not named there is part of the shape, so an
// object of any content packs and reads back as it was written, members and their order included.
import { EVENTS, resourceKey } from '../../apimachinery/resources.js';
import type { KubeObject } from '../../apimachinery/object.js';

/** A value of the object's own, held as it is. */
const OWN = 1;
/** A value of the object's own that is a string of decimal digits (a resourceVersion): held as a small integer when it is one. */
const DIGITS = 2;

/** Per member: its own value (OWN, DIGITS), or members beneath it that are. */
interface Holes {
  readonly [member: string]: typeof OWN | typeof DIGITS | Holes;
}

/** The members of an Event that differ from one Event to the next: names, uids, versions, messages, times, counts. */
const EVENT_HOLES: Holes = {
  metadata: { name: OWN, uid: OWN, resourceVersion: DIGITS, creationTimestamp: OWN },
  involvedObject: { name: OWN, uid: OWN, resourceVersion: OWN },
  message: OWN,
  firstTimestamp: OWN,
  lastTimestamp: OWN,
  count: OWN,
  eventTime: OWN,
  series: { count: OWN, lastObservedTime: OWN },
};

/** The kinds held packed, by the store's bucket key. */
const PACKED = new Map<string, Holes>([[resourceKey(EVENTS), EVENT_HOLES]]);

/** How objects of one bucket are packed, or undefined when they are held as they are. */
export function packingOf(bucket: string): Holes | undefined {
  return PACKED.get(bucket);
}

/** An object's members in order: each the value shared by every object of the shape, a frame beneath, or a hole. */
class Frame {
  constructor(
    readonly members: readonly string[],
    readonly parts: readonly unknown[],
  ) {}
}

const HOLE = Object.freeze({ hole: OWN });
const DIGITS_HOLE = Object.freeze({ hole: DIGITS });

/** A packed object: its shape (a Frame), then its own values in the order of the shape's holes. */
export type Packed = unknown[];

export function isPacked(held: KubeObject | Packed): held is Packed {
  return Array.isArray(held);
}

function isPlain(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isScalar(v: unknown): boolean {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
}

function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}

/**
 * The shapes known, by a text that names their members and shared values: the Events of one recorder share a few
 * (the scheduler's two, the kubelet's per node and reason). Bounded: cleared when full (the objects keep theirs).
 */
const SHAPES_MAX = 4096;
const shapes = new Map<string, Frame>();

/**
 * The hole a member's value goes in, or undefined when it is shared with the shape: a member named in holes is its
 * object's own when it is a string, number or boolean (DIGITS only for a string); a null is the shape's (the
 * scheduler's Events have no first and last timestamps: a hole would hold null in each).
 */
function holeOf(h: Holes[string] | undefined, v: unknown): typeof HOLE | typeof DIGITS_HOLE | undefined {
  if (h === DIGITS && typeof v === 'string') return DIGITS_HOLE;
  return (h === OWN || h === DIGITS) && isScalar(v) ? HOLE : undefined;
}

/** obj's own values (at the holes, in order) into `own`, and the text naming its shape into `text`. */
function walk(obj: Record<string, unknown>, holes: Holes, own: unknown[], text: string[]): void {
  for (const m of Object.keys(obj)) {
    const v = obj[m];
    const h = holes[m];
    const hole = holeOf(h, v);
    text.push(JSON.stringify(m));
    if (hole === HOLE) {
      own.push(v);
      text.push('?');
    } else if (hole === DIGITS_HOLE) {
      // A canonical number below 2^30 is held as a small integer in the array (a string of its own is 24 bytes).
      own.push(/^[1-9]\d{0,8}$/.test(v as string) ? Number(v) : v);
      text.push('#');
    } else if (typeof h === 'object' && isPlain(v)) {
      text.push('{');
      walk(v, h, own, text);
      text.push('}');
    } else text.push('=', JSON.stringify(v) ?? 'u');
  }
}

function frameOf(obj: Record<string, unknown>, holes: Holes): Frame {
  const members = Object.keys(obj);
  const parts = members.map((m) => {
    const v = obj[m];
    const h = holes[m];
    const hole = holeOf(h, v);
    if (hole) return hole;
    if (typeof h === 'object' && isPlain(v)) return frameOf(v, h);
    return deepFreeze(v);
  });
  return new Frame(members, parts);
}

/** obj (a stored object the store will not hand out again) packed: its shape, then its own values. */
export function pack(obj: KubeObject, holes: Holes): Packed {
  const own: unknown[] = [];
  const text: string[] = [];
  walk(obj, holes, own, text);
  const key = text.join('');
  let shape = shapes.get(key);
  if (!shape) {
    if (shapes.size >= SHAPES_MAX) shapes.clear();
    shapes.set(key, (shape = frameOf(obj, holes)));
  }
  // Made at its length: a list grown by push keeps room for more.
  const packed: Packed = new Array(own.length + 1);
  packed[0] = shape;
  for (let i = 0; i < own.length; i++) packed[i + 1] = own[i];
  return packed;
}

/** The complete object again: a new one (its shared parts frozen, as a stored object's are). */
export function unpack(packed: Packed): KubeObject {
  let at = 1;
  const build = (frame: Frame): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    const { members, parts } = frame;
    for (let i = 0; i < members.length; i++) {
      const p = parts[i];
      if (p === HOLE) out[members[i]!] = packed[at++];
      else if (p === DIGITS_HOLE) {
        const v = packed[at++];
        out[members[i]!] = typeof v === 'number' ? String(v) : v;
      } else if (p instanceof Frame) out[members[i]!] = build(p);
      else out[members[i]!] = p;
    }
    return out;
  };
  return build(packed[0] as Frame) as KubeObject;
}

/** A stored value as its readers get it: the object, unpacked when packed. */
export function unpacked(held: KubeObject | Packed): KubeObject {
  return isPacked(held) ? unpack(held) : held;
}
