// The store's watch history: the recent changes a watch resumes from, held as parallel arrays rather than an object
// per change. A change object is five members (64 bytes) plus its slot; here a change is four slots (32 bytes): its
// object, the version before it, its resource's key (one string per resource) and its weight and type in one number.
// Its revision is not held: every store write makes exactly one revision and one change, so the changes after the
// horizon are of horizon+1, horizon+2, ... in order (a revision made without its change, should a write fail
// half-way, starts the window anew: older watches get 410 Gone and relist).
// since() makes the change objects it returns (docs/performance.md §7.6).
import type { KubeObject } from '../../apimachinery/object.js';
import { type Packed, unpacked } from './packing.js';

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
/** A change's weight and type as one number: weight * TYPE_CODES + the type's index in TYPES. */
const TYPE_CODES = 4;

export class WatchHistory {
  /** The change's object and the version before it, as the bucket held them (packed when their kind is: packing.ts). */
  private readonly objects: (KubeObject | Packed)[] = [];
  private readonly befores: (KubeObject | Packed | undefined)[] = [];
  /** The change's `group/resource`. */
  private readonly resources: string[] = [];
  /** Its weight and type (TYPE_CODES), and the weights' sum. */
  private readonly codes: number[] = [];
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
  ) {}

  get oldest(): number {
    return this.horizon;
  }

  /** Adds change, weighing `weight` bytes; `object` and `previous` are what the bucket holds of its two versions. */
  add(change: Change, weight: number, object: KubeObject | Packed, previous: KubeObject | Packed | undefined): void {
    if (change.rv !== this.horizon + 1 + this.objects.length) this.trim(this.objects.length, this.bytes, change.rv - 1);
    this.objects.push(object);
    this.befores.push(previous);
    this.resources.push(change.resource);
    this.codes.push(weight * TYPE_CODES + TYPES.indexOf(change.type));
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
    // The change at i is of revision horizon+1+i: the first after rv is at rv-horizon (rounded down: a watch may name any number).
    for (let i = Math.floor(rv - this.horizon); i < this.objects.length; i++) {
      if (this.resources[i] !== key) continue;
      const at = this.horizon + 1 + i;
      if (telling?.rv === at) {
        out.push(telling);
        continue;
      }
      const type = TYPES[this.codes[i]! % TYPE_CODES]!;
      const object = unpacked(this.objects[i]!);
      const previous = this.befores[i];
      out.push(previous === undefined ? { rv: at, type, resource: key, object } : { rv: at, type, resource: key, object, previous: unpacked(previous) });
    }
    return out;
  }

  private trim(drop: number, bytes: number, horizon: number): void {
    this.objects.splice(0, drop);
    this.befores.splice(0, drop);
    this.resources.splice(0, drop);
    this.codes.splice(0, drop);
    this.bytes -= bytes;
    this.horizon = horizon;
  }

  private weightAt(i: number): number {
    return Math.floor(this.codes[i]! / TYPE_CODES);
  }
}
