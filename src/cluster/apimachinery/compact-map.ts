// Sets and maps of strings with an entry per held pod, held in less memory than V8's own (docs/performance.md §7.7).
// A `Set` or `Map` keeps 20 or 28 bytes a slot in a table of a power of two slots, 1.6 to 3.3 slots per entry
// (32,768 or 65,536 for 20,013 pods: 33 to 92 bytes per pod). These keep their keys (and values) in lists in the
// order added, 8 bytes an entry each, and an open-addressed table of 4-byte places in those lists at most three
// quarters full. They answer as a Set or Map would, in the same order (a key deleted and added again goes last);
// a delete leaves a hole in the lists, closed once holes pass half the entries. The keys are the callers' own
// strings (a pod's name or uid), so the entry holds no string of its own. Each entry's hash is kept beside it
// (4 bytes, outside the heap): a probe compares hashes before strings, and a delete's back-shift and a remake
// never hash a key again (docs/performance.md §7.9).
import { getRandomValues } from 'node:crypto';

/** Per process, so that keys chosen to collide in one run do not collide in another. */
const SEED = getRandomValues(new Uint32Array(1))[0]!;

/** FNV-1a over the key's UTF-16 units, seeded; a signed 32-bit number, as the hashes' Int32Array holds it. */
function hash(key: string): number {
  let h = SEED ^ 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h;
}

/**
 * The table and the lists' order over entries that each name a key: a string that is its own key (CompactSet,
 * CompactMap) or an object that holds its key (KeyedSet).
 */
abstract class CompactTable<E> {
  /** The entries in the order added; undefined where one was deleted. */
  protected list: (E | undefined)[] = [];
  /** Each key's hash, at the key's place in `list` (room for more past its length). */
  private hashes = new Int32Array(8);
  /** Each key's place in `list`, plus one; 0 is an empty slot. */
  private slots = new Int32Array(8);
  private live = 0;

  get size(): number {
    return this.live;
  }

  has(key: string): boolean {
    return this.slotOf(key) >= 0;
  }

  /** The key an entry is held under. */
  protected abstract keyOf(entry: E): string;

  /** The entries in order, a new array (a loop over the list: a generator's steps cost a dependents() of thousands). */
  protected entries(): E[] {
    const out: E[] = [];
    for (const entry of this.list) if (entry !== undefined) out.push(entry);
    return out;
  }

  delete(key: string): boolean {
    let i = this.slotOf(key);
    if (i < 0) return false;
    this.dropAt(this.slots[i]! - 1);
    this.live--;
    // Linear probing's deletion: later keys of the run that probed past this slot move back into it.
    const mask = this.slots.length - 1;
    this.slots[i] = 0;
    for (let j = (i + 1) & mask; this.slots[j] !== 0; j = (j + 1) & mask) {
      const at = this.slots[j]!;
      const home = this.hashes[at - 1]! & mask;
      // The key stays when its home is cyclically within (i, j]; else it moves back to i.
      if (i < j ? home > i && home <= j : home > i || home <= j) continue;
      this.slots[i] = at;
      this.slots[j] = 0;
      i = j;
    }
    // Holes closed past half the entries: the lists hold at most 1.5 places per entry, each entry moved once per
    // half of them deleted.
    if ((this.list.length - this.live) * 2 > Math.max(32, this.live)) this.remake(this.live);
    return true;
  }

  clear(): void {
    this.list = [];
    this.hashes = new Int32Array(8);
    this.slots = new Int32Array(8);
    this.live = 0;
    this.cleared();
  }

  /** The key's place in the list, or -1. */
  protected indexOf(key: string): number {
    const i = this.slotOf(key);
    return i < 0 ? -1 : this.slots[i]! - 1;
  }

  /** The key's place in the list, `entry` added last when it was not there (the key hashed once for both). */
  protected placeOf(key: string, entry: E): number {
    const h = hash(key);
    const i = this.slotOf(key, h);
    if (i >= 0) return this.slots[i]! - 1;
    if ((this.live + 1) * 4 > this.slots.length * 3) this.remake(this.live + 1);
    const at = this.list.length;
    if (at === this.hashes.length) this.hashes = grown(this.hashes, at + (at >> 1));
    this.list.push(entry);
    this.hashes[at] = h;
    this.live++;
    this.slot(at + 1);
    return at;
  }

  /**
   * The key's place in the list once it is last: added when it was not there, moved to the end when it was (a
   * delete and an add, as a Set or Map orders them, with one hash and one probe: the key keeps its slot in the
   * table, which now names its new place, so no probe run moves back).
   */
  protected placeLast(key: string, entry: E): number {
    const h = hash(key);
    const i = this.slotOf(key, h);
    if (i < 0) return this.placeOf(key, entry);
    const from = this.slots[i]! - 1;
    const at = this.list.length;
    if (from === at - 1) return from;
    this.dropAt(from);
    if (at === this.hashes.length) this.hashes = grown(this.hashes, at + (at >> 1));
    this.list.push(entry);
    this.hashes[at] = h;
    this.slots[i] = at + 1;
    if ((this.list.length - this.live) * 2 > Math.max(32, this.live)) this.remake(this.live);
    return this.list.length - 1;
  }

  /** Forgets the entry at a place in the list (a subclass lets go of its value too). */
  protected dropAt(at: number): void {
    this.list[at] = undefined;
  }

  /** The entry at `from` now lives at `to` (to <= from), as the list closes its holes. */
  protected moved(_from: number, _to: number): void {}

  /** The lists now hold `length` entries. */
  protected trimmed(_length: number): void {}

  protected cleared(): void {}

  private slotOf(key: string, h = hash(key)): number {
    const mask = this.slots.length - 1;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const at = this.slots[i]!;
      if (at === 0) return -1;
      if (this.hashes[at - 1] === h && this.keyOf(this.list[at - 1]!) === key) return i;
    }
  }

  /** Puts the list's place `at` (plus one) in the table, at its key's hash. */
  private slot(at: number): void {
    const mask = this.slots.length - 1;
    let i = this.hashes[at - 1]! & mask;
    while (this.slots[i] !== 0) i = (i + 1) & mask;
    this.slots[i] = at;
  }

  /** The lists without their holes (order kept), and a table sized for `room` keys. */
  private remake(room: number): void {
    let size = 8;
    while (room * 4 > size * 3) size *= 2;
    let to = 0;
    for (let from = 0; from < this.list.length; from++) {
      const entry = this.list[from];
      if (entry === undefined) continue;
      if (from !== to) {
        this.list[to] = entry;
        this.hashes[to] = this.hashes[from]!;
        this.moved(from, to);
      }
      to++;
    }
    this.list.length = to;
    // Room for what the table has room for, so that the lists grow with it and shrink when it does.
    if (this.hashes.length > size) this.hashes = grown(this.hashes, size);
    this.trimmed(to);
    this.slots = new Int32Array(size);
    for (let at = 1; at <= to; at++) this.slot(at);
  }
}

/** A copy of `a` with room for `length` numbers (the first `length` of `a` when shorter). */
function grown(a: Int32Array<ArrayBuffer>, length: number): Int32Array<ArrayBuffer> {
  const out = new Int32Array(Math.max(8, length));
  out.set(a.length > out.length ? a.subarray(0, out.length) : a);
  return out;
}

export class CompactSet extends CompactTable<string> {
  add(key: string): this {
    this.placeOf(key, key);
    return this;
  }

  /** The keys in order, a new array. */
  keys(): string[] {
    return this.entries();
  }

  protected keyOf(key: string): string {
    return key;
  }
}

/**
 * Objects that each hold their own key (a pod and its uid): one list of the objects, the key read from the object
 * when its hash matches, where a CompactMap would hold a second list of the keys (docs/performance.md §7.9).
 */
export class KeyedSet<E extends object> extends CompactTable<E> {
  constructor(private readonly key: (entry: E) => string) {
    super();
  }

  get(key: string): E | undefined {
    const at = this.indexOf(key);
    return at < 0 ? undefined : this.list[at];
  }

  /** Holds entry under its key; one there already is replaced, in its place. */
  set(entry: E): this {
    this.list[this.placeOf(this.key(entry), entry)] = entry;
    return this;
  }

  /** Holds entry under its key, last: a `delete()` of its key and then a `set()`, in one hash and one probe. */
  setLast(entry: E): this {
    this.list[this.placeLast(this.key(entry), entry)] = entry;
    return this;
  }

  /** The entries in order, a new array. */
  values(): E[] {
    return this.entries();
  }

  /** Each entry in order, with no array made (visit must not change the set). */
  forEach(visit: (entry: E) => void): void {
    const list = this.list;
    for (let i = 0; i < list.length; i++) {
      const entry = list[i];
      if (entry !== undefined) visit(entry);
    }
  }

  protected keyOf(entry: E): string {
    return this.key(entry);
  }
}

export class CompactMap<V> extends CompactSet {
  /** Each key's value, at the key's place in the list. */
  private vals: (V | undefined)[] = [];

  get(key: string): V | undefined {
    const at = this.indexOf(key);
    return at < 0 ? undefined : this.vals[at];
  }

  /** Sets the value; a key already there keeps its place (as a Map's does). */
  set(key: string, value: V): this {
    this.vals[this.placeOf(key, key)] = value;
    return this;
  }

  /** Sets the value and puts the key last: `delete(key)` and then `set(key, value)` (docs/performance.md §7.9). */
  setLast(key: string, value: V): this {
    this.vals[this.placeLast(key, key)] = value;
    return this;
  }

  /** The values in the keys' order, a new array. */
  values(): V[] {
    const out: V[] = [];
    for (let at = 0; at < this.list.length; at++) if (this.list[at] !== undefined) out.push(this.vals[at]!);
    return out;
  }

  protected override dropAt(at: number): void {
    super.dropAt(at);
    this.vals[at] = undefined;
  }

  protected override moved(from: number, to: number): void {
    this.vals[to] = this.vals[from];
  }

  protected override trimmed(length: number): void {
    this.vals.length = length;
  }

  protected override cleared(): void {
    this.vals = [];
  }
}
