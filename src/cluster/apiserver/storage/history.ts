// The store's watch history: the recent changes a watch resumes from, held as parallel arrays rather than an object
// per change. A change object is five members (64 bytes) plus its slot; here a change is three slots (24 bytes): its
// object, the version before it, and one number for its weight, its resource and its type (the resource as its place
// in a table of the `group/resource` keys written: a string's slot is 8 bytes, as a number's is, so only folding it
// into the number saves its array). Its revision is not held: every store write makes exactly one revision and one
// change, so the changes after the horizon are of horizon+1, horizon+2, ... in order (a revision made without its
// change, should a write fail half-way, starts the window anew: older watches get 410 Gone and relist).
// since() makes the change objects it returns (docs/performance.md §7.6, §7.11). A version before whose own change has
// left the window is held as what differs from its successor (old-versions.ts, docs/performance.md §7.13).
import type { KubeObject } from '../../apimachinery/object.js';
import { OldVersion, restore, shrink } from './old-versions.js';
import { isPacked, type Packed, unpacked } from './packing.js';

export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** A change to a stored object, as the store tells it and a watch replays it. */
export interface Change {
  rv: number;
  type: ChangeType;
  /** `group/resource` */
  resource: string;
  object: KubeObject;
  previous?: KubeObject;
}

const TYPES: readonly ChangeType[] = ['ADDED', 'MODIFIED', 'DELETED'];
const TYPE_CODES = 4;
/**
 * A change's weight, resource and type as one number: (weight * KEY_CODES + the resource's place among the keys written) *
 * TYPE_CODES + the type's index in TYPES. Exact while the weight is below 2^29 (a change weighs its JSON: bodies are a few MB)
 * and fewer than 2^22 resources are written (each a kind served; past that the window starts anew: keyCode).
 */
const KEY_CODES = 2 ** 22;
const MAX_WEIGHT = 2 ** 29 - 1;

export class WatchHistory {
  /** The change's object and the version before it, as the bucket held them (packed when their kind is: packing.ts). */
  private readonly objects: (KubeObject | Packed)[] = [];
  private readonly befores: (KubeObject | Packed | OldVersion | undefined)[] = [];
  /**
   * Pairs of a MODIFIED change's revision and its version before's, while the change that wrote that version is held
   * too (its object is the same one, so holding it whole costs nothing): once that change leaves, trim() shrinks it.
   */
  private pending: number[] = [];
  /** The change's weight, resource and type (KEY_CODES), and the weights' sum. */
  private readonly codes: number[] = [];
  /** The place of each `group/resource` key written (in the order first written). */
  private readonly keyCodes = new Map<string, number>();
  private bytes = 0;
  /**
   * The change the store is telling its listeners of (the last one added, or a nested write's): since() gives that
   * very change, so a watch's line reuses the write's JSON (store.ts jsonOf).
   */
  telling: Change | undefined;

  constructor(
    /** The oldest revision a watch may start from: every change after it is held. */
    private horizon: number,
    private readonly maxChanges: number,
    private readonly maxBytes: number,
    /** How many resources have places before the window starts anew (at most KEY_CODES; fewer in a test). */
    private readonly maxKeys = KEY_CODES,
  ) {}

  get oldest(): number {
    return this.horizon;
  }

  /** Adds change, weighing `weighs` bytes; `object` and `previous` are what the bucket holds of its two versions. */
  add(change: Change, weighs: number, object: KubeObject | Packed, previous: KubeObject | Packed | undefined): void {
    // Whole bytes, below MAX_WEIGHT: a fraction or more would spill into the resource's and type's digits (a change
    // of MAX_WEIGHT is past the bound by bytes already, so it is trimmed as before).
    const weight = Math.min(Math.floor(weighs), MAX_WEIGHT);
    const key = this.keyCode(change.resource, change.rv);
    if (change.rv !== this.horizon + 1 + this.objects.length) this.trim(this.objects.length, this.bytes, change.rv - 1);
    this.objects.push(object);
    this.befores.push(this.before(change, object, previous));
    this.codes.push((weight * KEY_CODES + key) * TYPE_CODES + TYPES.indexOf(change.type));
    this.bytes += weight;
    // Trimmed a tenth at a time: dropping one change per write would shift the whole window on every write.
    const n = this.objects.length;
    if (n > this.maxChanges + this.maxChanges / 10 || this.bytes > this.maxBytes + this.maxBytes / 10) {
      let drop = Math.max(0, n - this.maxChanges);
      let bytes = 0;
      for (let i = 0; i < drop; i++) bytes += this.weightAt(i);
      while (drop < n - 1 && this.bytes - bytes > this.maxBytes) bytes += this.weightAt(drop++);
      this.trim(drop, bytes, this.horizon + drop);
    }
  }

  /** Changes to the resource `key` after rv, or 'gone' when they are no longer all held. */
  since(key: string, rv: number): Change[] | 'gone' {
    if (rv < this.horizon) return 'gone';
    const out: Change[] = [];
    const telling = this.telling;
    const code = this.keyCodes.get(key);
    if (code === undefined) return out;
    // The change at i is of revision horizon+1+i: the first after rv is at rv-horizon (rounded down: a watch may name any number).
    for (let i = Math.floor(rv - this.horizon); i < this.objects.length; i++) {
      const typed = this.codes[i]! % (KEY_CODES * TYPE_CODES);
      if (typed - (typed % TYPE_CODES) !== code * TYPE_CODES) continue;
      const at = this.horizon + 1 + i;
      if (telling?.rv === at) {
        out.push(telling);
        continue;
      }
      const type = TYPES[typed % TYPE_CODES]!;
      const object = unpacked(this.objects[i]!);
      const before = this.befores[i];
      if (before === undefined) out.push({ rv: at, type, resource: key, object });
      else out.push({ rv: at, type, resource: key, object, previous: before instanceof OldVersion ? restore(before, object) : unpacked(before) });
    }
    return out;
  }

  private trim(drop: number, bytes: number, horizon: number): void {
    this.objects.splice(0, drop);
    this.befores.splice(0, drop);
    this.codes.splice(0, drop);
    this.bytes -= bytes;
    this.horizon = horizon;
    const kept: number[] = [];
    const pending = this.pending;
    for (let p = 0; p < pending.length; p += 2) {
      const rv = pending[p]!;
      const before = pending[p + 1]!;
      if (rv <= horizon) continue;
      if (before > horizon) kept.push(rv, before);
      else this.befores[rv - horizon - 1] = shrink(this.befores[rv - horizon - 1] as KubeObject, this.objects[rv - horizon - 1] as KubeObject);
    }
    this.pending = kept;
  }

  /** What to hold of a change's version before: whole while the change that wrote it is held (it is that one's object). */
  private before(change: Change, object: KubeObject | Packed, previous: KubeObject | Packed | undefined): KubeObject | Packed | OldVersion | undefined {
    if (change.type !== 'MODIFIED' || previous === undefined || isPacked(previous) || isPacked(object)) return previous;
    // Its revision tells whether its own change is still held (shrink() holds it only when it reads back the same).
    const rv = Number(previous.metadata?.resourceVersion);
    if (!Number.isFinite(rv)) return previous;
    if (rv <= this.horizon) return shrink(previous, object);
    this.pending.push(change.rv, rv);
    return previous;
  }

  private weightAt(i: number): number {
    return Math.floor(this.codes[i]! / (KEY_CODES * TYPE_CODES));
  }

  /**
   * The resource's place among the keys written, given it when new (every key written is kept: one per kind served).
   * Should the places run out, the window starts anew at the change of revision rv and the places with it.
   */
  private keyCode(key: string, rv: number): number {
    let code = this.keyCodes.get(key);
    if (code !== undefined) return code;
    if (this.keyCodes.size >= this.maxKeys) {
      this.trim(this.objects.length, this.bytes, rv - 1);
      this.keyCodes.clear();
    }
    this.keyCodes.set(key, (code = this.keyCodes.size));
    return code;
  }
}
