// Objects of a kind that is written once and read rarely, held packed. An Event is fourteen members, its metadata and
// its involvedObject, ~440 bytes of heap each (one per pod the scheduler has been through: docs/performance.md §7.4),
// and most of it is the same in every Event its recorder posts: its reason, type, source, action, the structure. A
// packed object is the shape it shares with the objects alike (interned: everything but its own values, frozen) and
// its own values at the shape's holes, in one array; reading it makes the complete object again, a new one each time.
// Which members are an object's own is data per kind (EVENT_HOLES): a member not named there is part of the shape, so
// an object of any content packs and reads back as it was written, members and their order included.
import { sameJson } from '../../apimachinery/json-equal.js';
import { type KubeObject, memberAt } from '../../apimachinery/object.js';
import { EVENTS, resourceKey } from '../../apimachinery/resources.js';

/** A value of the object's own, held as it is. */
const OWN = 1;

/**
 * A value of the object's own held smaller when it is written as its kind writes it (a resourceVersion, a uid, a
 * time): what is held, or undefined when the value is not of that form (it is then held as it is). A value is held
 * coded only when decoding gives the same string again: checked, unless the coding is `exact` (what its encode
 * takes always decodes to itself).
 */
class Coding {
  readonly encode: (v: string) => unknown;
  constructor(
    /** How the shape's text names a hole of this coding. */
    readonly mark: string,
    encode: (v: string) => unknown,
    readonly decode: (held: unknown) => string,
    exact = false,
  ) {
    this.encode = exact
      ? encode
      : (v) => {
          const held = encode(v);
          return held !== undefined && decode(held) === v ? held : undefined;
        };
  }
}

const SECONDS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
const MICROS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}000Z$/;
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
const HEX_CODES = HEX.map((h) => [h.charCodeAt(0), h.charCodeAt(1)] as const);
/** Where the 16 bytes of a uid go among its 36 characters. */
const UID_AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];
const DASH = '-'.charCodeAt(0);
/** Each character code's value as a hex digit (lower case), or -1. */
const NIBBLE = Array.from({ length: 128 }, (_, c) => '0123456789abcdef'.indexOf(String.fromCharCode(c)));

/** A resourceVersion below 2^30 as a small integer, held in the array (a string of its own is 24 bytes). */
const DIGITS = new Coding(
  '#',
  (v) => (/^[1-9]\d{0,8}$/.test(v) ? Number(v) | 0 : undefined),
  (n) => String(n),
  true,
);

/** A uid as its 16 bytes, a string of 16 one-byte characters: 32 bytes of heap instead of 56. */
const UID = new Coding(
  'u',
  (v) => {
    // Lower-case hex digits at their places and dashes at theirs: what decode writes.
    if (v.length !== 36 || v.charCodeAt(8) !== DASH || v.charCodeAt(13) !== DASH || v.charCodeAt(18) !== DASH || v.charCodeAt(23) !== DASH) return undefined;
    const bytes = new Array<number>(16);
    for (let i = 0; i < 16; i++) {
      const a = v.charCodeAt(UID_AT[i]!);
      const b = v.charCodeAt(UID_AT[i]! + 1);
      const hi = a < 128 ? NIBBLE[a]! : -1;
      const lo = b < 128 ? NIBBLE[b]! : -1;
      if (hi < 0 || lo < 0) return undefined;
      bytes[i] = hi * 16 + lo;
    }
    return String.fromCharCode(...bytes);
  },
  (held) => {
    const s = held as string;
    const codes = new Array<number>(36).fill(DASH);
    for (let i = 0; i < 16; i++) {
      const [a, b] = HEX_CODES[s.charCodeAt(i) & 0xff]!;
      codes[UID_AT[i]!] = a;
      codes[UID_AT[i]! + 1] = b;
    }
    return String.fromCharCode(...codes);
  },
  true,
);

const TWO = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'));

/**
 * `YYYY-MM-DDTHH:MM:SS` of a time in seconds since 1970 (years 0 to 9999), as toISOString writes it, computed
 * (days to a civil date: H. Hinnant's days_from_civil inverse); toISOString costs ~1 µs, most of a read. The last one
 * is kept: the Events of a burst are made within a few seconds, and a list reads them in the order made.
 */
let lastSecond = Number.NaN;
let lastSecondText = '';
function secondText(t: number): string {
  if (t === lastSecond) return lastSecondText;
  const days = Math.floor(t / 86400);
  const secs = t - days * 86400;
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const hh = Math.floor(secs / 3600);
  const mm = Math.floor((secs % 3600) / 60);
  lastSecondText = `${TWO[Math.floor(year / 100)]}${TWO[year % 100]}-${TWO[month]}-${TWO[day]}T${TWO[hh]}:${TWO[mm]}:${TWO[secs % 60]}`;
  lastSecond = t;
  return lastSecondText;
}

/** A metav1.Time (whole seconds) as seconds since 1970, a small integer until 2038. */
const TIME = new Coding(
  't',
  (v) => {
    const s = Date.parse(v) / 1000;
    // s | 0: the same number as a small integer (a number computed as a float is held in a number object of its own).
    return SECONDS.test(v) && s === (s | 0) ? s | 0 : undefined;
  },
  (s) => `${secondText(s as number)}Z`,
);

/**
 * Times are held from here (the module's load, whole seconds): a MicroTime within ~24 days of it is a small integer
 * of milliseconds, held in the array's slot itself, where milliseconds since 1970 are a number object of 16 bytes of
 * their own (docs/performance.md §7.10). Packing is in memory only (the write-behind writes the JSON), so the base
 * need not outlive the process.
 */
const MICRO_BASE = Math.floor(Date.now() / 1000) * 1000;

/** A MicroTime as the recorders write it (milliseconds, three zeros) as milliseconds since MICRO_BASE: not a string of 48 bytes. */
const MICRO_TIME = new Coding(
  'm',
  (v) => {
    const ms = Date.parse(v) - MICRO_BASE;
    if (!MICROS.test(v) || !Number.isFinite(ms)) return undefined;
    // ms | 0: the same number as a small integer when it is one of 32 bits (as TIME's seconds); else a number object.
    return ms === (ms | 0) ? ms | 0 : ms;
  },
  (held) => {
    const ms = (held as number) + MICRO_BASE;
    const s = Math.floor(ms / 1000);
    const frac = ms - s * 1000;
    return `${secondText(s)}.${TWO[Math.floor(frac / 10)]}${frac % 10}000Z`;
  },
);

/** Per member: its own value (OWN, or a Coding), or members beneath it that are. */
interface Holes {
  readonly [member: string]: typeof OWN | Coding | Holes;
}

/**
 * The members of an Event that differ from one Event to the next: names, uids, versions, messages, times, counts, and
 * the node a kubelet's Event comes from (its source's host and its reportingInstance: as part of the shape, 5,000
 * nodes would make a shape per node and reason, past what the table of shapes keeps).
 */
const EVENT_HOLES: Holes = {
  metadata: { name: OWN, uid: UID, resourceVersion: DIGITS, creationTimestamp: TIME },
  involvedObject: { name: OWN, uid: OWN, resourceVersion: DIGITS },
  message: OWN,
  source: { host: OWN },
  firstTimestamp: TIME,
  lastTimestamp: TIME,
  count: OWN,
  eventTime: MICRO_TIME,
  series: { count: OWN, lastObservedTime: MICRO_TIME },
  reportingInstance: OWN,
};

/** How one kind packs: its holes, and the shapes used last (most of its objects are of one of a few). */
interface Packing {
  holes: Holes;
  recent: Frame[];
}

/** The kinds held packed, by the store's bucket key. */
const PACKED = new Map<string, Packing>([[resourceKey(EVENTS), { holes: EVENT_HOLES, recent: [] }]]);
/**
 * A kubelet posts an Event of each of a few reasons per pod (Scheduled, Pulling, Pulled, Created, Started, NotEmulated),
 * and a restart restores them in key order (the pod's name and a random suffix): the shapes come in turn, more than
 * four, so a shorter list missed on most Events and each miss wrote the shape's text (docs/performance.md §2.3).
 */
const RECENT = 8;

/** How objects of one bucket are packed, or undefined when they are held as they are. */
export function packingOf(bucket: string): Packing | undefined {
  return PACKED.get(bucket);
}

const HOLE = Object.freeze({ hole: OWN });

/**
 * An object's members in order, each the value shared by every object of the shape (frozen), a frame beneath, or a
 * hole (HOLE, or a Coding). `template` is an object with those members in that order and the shared values in place,
 * which a read copies (one copy of an object of fixed layout) before it fills the holes and frames: `filled`.
 */
class Frame {
  readonly template: Record<string, unknown> = {};
  readonly filled: { member: string; part: typeof HOLE | Coding | Frame }[] = [];
  /** Each filled member's part and where its values start (from the frame's first), and how many values the frame has. */
  readonly places = new Map<string, { at: number; part: typeof HOLE | Coding | Frame }>();
  width = 0;
  /**
   * The shared members whose values are strings (an Event's reason, type, action): an object of another shape most
   * often differs there, which is cheaper to see first than after its metadata's holes are filled and coded.
   */
  readonly sharedStrings: { member: string; value: string }[] = [];
  constructor(
    readonly members: readonly string[],
    readonly parts: readonly unknown[],
  ) {
    members.forEach((m, i) => {
      const p = parts[i];
      const own = p === HOLE || p instanceof Coding || p instanceof Frame;
      this.template[m] = own ? null : p;
      if (!own) {
        if (typeof p === 'string') this.sharedStrings.push({ member: m, value: p });
        return;
      }
      const part = p as typeof HOLE | Coding | Frame;
      this.filled.push({ member: m, part });
      this.places.set(m, { at: this.width, part });
      this.width += p instanceof Frame ? p.width : 1;
    });
  }

  /** False when obj surely is not of this shape: a shared string member differs (fill checks the rest). */
  mayFit(obj: Record<string, unknown>): boolean {
    for (const { member, value } of this.sharedStrings) if (obj[member] !== value) return false;
    return true;
  }
}

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
 * The hole a member's value goes in (HOLE, or a Coding that takes it), or undefined when it is shared with the shape:
 * a member named in holes is its object's own when it is a string, number or boolean; a null is the shape's (the
 * scheduler's Events have no first and last timestamps: a hole would hold null in each).
 */
function holeOf(h: Holes[string] | undefined, v: unknown): typeof HOLE | Coding | undefined {
  if (h instanceof Coding && typeof v === 'string' && h.encode(v) !== undefined) return h;
  return (h === OWN || h instanceof Coding) && isScalar(v) ? HOLE : undefined;
}

/**
 * The shapes known, by a text that names their members and shared values: the Events of one recorder share a few
 * (the scheduler's two, the kubelet's per node and reason). Bounded: cleared when full (the objects keep theirs).
 */
const SHAPES_MAX = 4096;
const shapes = new Map<string, Frame>();

/**
 * The text naming obj's shape: its members, which are holes (and of which coding), and the shared values. False for
 * an object with a member `__proto__` where a read would assign it (it would set the prototype): held as it is.
 */
function textOf(obj: Record<string, unknown>, holes: Holes, text: string[]): boolean {
  for (const m of Object.keys(obj)) {
    if (m === '__proto__') return false;
    const v = obj[m];
    const h = holes[m];
    const hole = holeOf(h, v);
    text.push(JSON.stringify(m));
    if (hole === HOLE) text.push('?');
    else if (hole instanceof Coding) text.push(hole.mark);
    else if (isHoles(h) && isPlain(v)) {
      text.push('{');
      if (!textOf(v, h, text)) return false;
      text.push('}');
    } else text.push('=', JSON.stringify(v) ?? 'u');
  }
  return true;
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

/**
 * obj's own values at frame's holes, in order, into `own`: false when obj is not of frame's shape (members, their
 * order, which are holes, the shared values).
 */
function fill(frame: Frame, obj: Record<string, unknown>, holes: Holes, own: unknown[]): boolean {
  const { members, parts } = frame;
  let i = 0;
  for (const m in obj) {
    if (members[i] !== m || !Object.hasOwn(obj, m)) return false;
    const v = obj[m];
    const p = parts[i++];
    if (p === HOLE) {
      if (holeOf(holes[m], v) !== HOLE) return false;
      own.push(v);
    } else if (p instanceof Coding) {
      const held = typeof v === 'string' ? p.encode(v) : undefined;
      if (held === undefined) return false;
      own.push(held);
    } else if (p instanceof Frame) {
      if (!isPlain(v) || !fill(p, v, holes[m] as Holes, own)) return false;
    } else if (v !== p && !(typeof v === 'object' && v !== null && sameJson(v, p))) return false;
  }
  return i === members.length;
}

/** obj (a stored object the store will not hand out again) packed: its shape, then its own values (undefined: held as it is). */
export function pack(obj: KubeObject, packing: Packing): Packed | undefined {
  const { holes, recent } = packing;
  const own: unknown[] = [];
  const at = recent.findIndex((f) => {
    own.length = 0;
    return f.mayFit(obj) && fill(f, obj, holes, own);
  });
  let shape: Frame | undefined = recent[at];
  // The shape found goes first: the next object is most likely of it.
  if (shape && at > 0) recent.unshift(...recent.splice(at, 1));
  if (!shape) {
    const text: string[] = [];
    if (!textOf(obj, holes, text)) return undefined;
    const key = text.join('');
    shape = shapes.get(key);
    if (!shape) {
      if (shapes.size >= SHAPES_MAX) shapes.clear();
      shapes.set(key, (shape = frameOf(obj, holes)));
    }
    own.length = 0;
    fill(shape, obj, holes, own);
    recent.unshift(shape);
    if (recent.length > RECENT) recent.pop();
  }
  // Made at its length: a list grown by push keeps room for more.
  const packed: Packed = new Array(own.length + 1);
  packed[0] = shape;
  for (let i = 0; i < own.length; i++) packed[i + 1] = own[i];
  return packed;
}

/** frame's object from packed's values from `at` on; returns where the next frame's values start. */
function build(frame: Frame, packed: Packed, at: number, out: Record<string, unknown>): number {
  for (const { member, part } of frame.filled) {
    if (part === HOLE) out[member] = packed[at++];
    else if (part instanceof Coding) out[member] = part.decode(packed[at++]);
    else if (part instanceof Frame) {
      const inner = { ...part.template };
      at = build(part, packed, at, inner);
      out[member] = inner;
    }
  }
  return at;
}

/** The complete object again: a new one (its shared parts frozen, as a stored object's are). */
export function unpack(packed: Packed): KubeObject {
  const frame = packed[0] as Frame;
  const out = { ...frame.template };
  build(frame, packed, 1, out);
  return out as KubeObject;
}

/**
 * One member of a stored value at path, read in place: a packed object is not unpacked (the expiry scan reads one
 * time of every Event: docs/performance.md §7.6). What unpack(held) would have at path.
 */
export function heldMember(held: KubeObject | Packed, path: readonly string[]): unknown {
  if (!isPacked(held)) return memberAt(held, path);
  let frame = held[0] as Frame;
  let base = 1;
  for (let i = 0; i < path.length; i++) {
    const m = path[i]!;
    const place = frame.places.get(m);
    // Not a hole: the shape's own value (or no such member).
    if (place === undefined) return memberAt(frame.template, path, i);
    const { at, part } = place;
    if (part instanceof Frame) {
      frame = part;
      base += at;
    } else {
      const v = part instanceof Coding ? part.decode(held[base + at]) : held[base + at];
      return memberAt(v, path, i + 1);
    }
  }
  // The path names a frame: the object beneath, complete.
  const out = { ...frame.template };
  build(frame, held, base, out);
  return out;
}

/** A stored value as its readers get it: the object, unpacked when packed. */
export function unpacked(held: KubeObject | Packed): KubeObject {
  return isPacked(held) ? unpack(held) : held;
}
