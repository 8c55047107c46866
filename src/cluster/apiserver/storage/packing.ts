// Objects of a kind that is written once and read rarely, held packed. An Event is fourteen members, its metadata and
// its involvedObject, ~440 bytes of heap each (one per pod the scheduler has been through: docs/performance.md §7.4),
// and most of it is the same in every Event its recorder posts: its reason, type, source, action, the structure. A
// packed object is the shape it shares with the objects alike (interned: everything but its own values, frozen) and
// its own values at the shape's holes, in one array; reading it makes the complete object again, a new one each time.
// Which members are an object's own is data per kind (HOLES): a member not named there is part of the shape, so an
// object of any content packs and reads back as it was written, members and their order included.
import { EVENTS, resourceKey } from '../../apimachinery/resources.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { k8sTime, microTime } from '../../apimachinery/time.js';

/** A value of the object's own, held as it is. */
const OWN = 1;

/**
 * A value of the object's own held smaller when it is written as its kind writes it (a resourceVersion, a uid, a
 * time): `encode` gives what is held, or undefined when the value is not of that form (then it is held as it is), and
 * `decode` gives the value again, the same string.
 */
class Coding {
  constructor(
    /** How the shape's text names a hole of this coding. */
    readonly mark: string,
    readonly encode: (v: string) => unknown,
    readonly decode: (held: unknown) => string,
  ) {}
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SECONDS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
const MICROS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}000Z$/;

/** A resourceVersion below 2^30 as a small integer, held in the array (a string of its own is 24 bytes). */
const DIGITS = new Coding(
  '#',
  (v) => (/^[1-9]\d{0,8}$/.test(v) ? Number(v) | 0 : undefined),
  (n) => String(n),
);

/** A uid as its 16 bytes, a string of 16 one-byte characters: 32 bytes of heap instead of 56. */
const UID = new Coding(
  'u',
  (v) => {
    if (!UUID.test(v)) return undefined;
    const hex = v.replaceAll('-', '');
    const bytes: number[] = [];
    for (let i = 0; i < 32; i += 2) bytes.push(Number.parseInt(hex.slice(i, i + 2), 16));
    return String.fromCharCode(...bytes);
  },
  (held) => {
    const s = held as string;
    let hex = '';
    for (let i = 0; i < s.length; i++) hex += s.charCodeAt(i).toString(16).padStart(2, '0');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  },
);

/** A metav1.Time (whole seconds) as seconds since 1970, a small integer until 2038. */
const TIME = new Coding(
  't',
  (v) => {
    const s = Date.parse(v) / 1000;
    // s | 0: the same number as a small integer (a number computed as a float is held in a number object of its own).
    return SECONDS.test(v) && s === (s | 0) && k8sTime(s * 1000) === v ? s | 0 : undefined;
  },
  (s) => k8sTime((s as number) * 1000),
);

/** A MicroTime as the recorders write it (milliseconds, three zeros) as milliseconds since 1970: a number of 16 bytes, not a string of 48. */
const MICRO_TIME = new Coding(
  'm',
  (v) => {
    const ms = Date.parse(v);
    return MICROS.test(v) && Number.isFinite(ms) && microTime(ms) === v ? ms : undefined;
  },
  (ms) => microTime(ms as number),
);

/** Per member: its own value (OWN, or a Coding), or members beneath it that are. */
interface Holes {
  readonly [member: string]: typeof OWN | Coding | Holes;
}

/** The members of an Event that differ from one Event to the next: names, uids, versions, messages, times, counts. */
const EVENT_HOLES: Holes = {
  metadata: { name: OWN, uid: UID, resourceVersion: DIGITS, creationTimestamp: TIME },
  involvedObject: { name: OWN, uid: OWN, resourceVersion: DIGITS },
  message: OWN,
  firstTimestamp: TIME,
  lastTimestamp: TIME,
  count: OWN,
  eventTime: MICRO_TIME,
  series: { count: OWN, lastObservedTime: MICRO_TIME },
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

/** A packed object: its shape (a Frame), then its own values in the order of the shape's holes. */
export type Packed = unknown[];

export function isPacked(held: KubeObject | Packed): held is Packed {
  return Array.isArray(held);
}

function isPlain(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isHoles(h: Holes[string] | undefined): h is Holes {
  return typeof h === 'object' && !(h instanceof Coding);
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
 * The hole a member's value goes in (HOLE, or a Coding that takes it), or undefined when it is shared with the shape:
 * a member named in holes is its object's own when it is a string, number or boolean; a null is the shape's (the
 * scheduler's Events have no first and last timestamps: a hole would hold null in each).
 */
function holeOf(h: Holes[string] | undefined, v: unknown): typeof HOLE | Coding | undefined {
  if (h instanceof Coding && typeof v === 'string' && h.encode(v) !== undefined) return h;
  return (h === OWN || h instanceof Coding) && isScalar(v) ? HOLE : undefined;
}

/** obj's own values (at the holes, in order) into `own`, and the text naming its shape into `text`. */
function walk(obj: Record<string, unknown>, holes: Holes, own: unknown[], text: string[]): void {
  for (const m of Object.keys(obj)) {
    const v = obj[m];
    const h = holes[m];
    text.push(JSON.stringify(m));
    if (h instanceof Coding && typeof v === 'string') {
      const held = h.encode(v);
      if (held !== undefined) {
        own.push(held);
        text.push(h.mark);
        continue;
      }
    }
    if ((h === OWN || h instanceof Coding) && isScalar(v)) {
      own.push(v);
      text.push('?');
    } else if (isHoles(h) && isPlain(v)) {
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
    if (isHoles(h) && isPlain(v)) return frameOf(v, h);
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
      else if (p instanceof Coding) out[members[i]!] = p.decode(packed[at++]);
      else if (p instanceof Frame) out[members[i]!] = build(p);
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
