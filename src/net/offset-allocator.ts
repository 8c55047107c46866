// A bitmap over slots [0, size) that hands out the lowest free slot.
//
// One bit per slot in a Uint32Array; bit b of word w is slot 32·w + b. The padding bits of the last
// word (slots ≥ size) are set once at construction and never counted, so "word is full" is simply
// `word === 0xffffffff` and the scan needs no bounds check per bit.
//
// `hint` is a word index with every word below it full. allocateNext() starts there, skips full
// words 32 slots at a time and takes the lowest zero bit of the first non-full word with
// Math.clz32; release() lowers the hint when it frees a slot below it. Allocating n slots in a
// row therefore costs O(n) in total, and a release followed by an allocation is O(1).

/** Largest bitmap this allocator builds: 2^24 slots (2 MiB of bits). */
export const MAX_OFFSET_ALLOCATOR_SIZE = 1 << 24;

const FULL = 0xffffffff;

/** Index (0–31) of the lowest zero bit of a word that is not full. */
function lowestZeroBit(word: number): number {
  const inv = ~word; // lowest set bit of inv = lowest zero bit of word
  return 31 - Math.clz32(inv & -inv);
}

export class OffsetAllocator {
  private readonly words: Uint32Array;
  private readonly _size: number;
  private _used = 0;
  private hint = 0;

  constructor(size: number) {
    if (!Number.isInteger(size) || size < 0) {
      throw new RangeError(`OffsetAllocator size must be a non-negative integer, got ${size}`);
    }
    if (size > MAX_OFFSET_ALLOCATOR_SIZE) {
      throw new RangeError(`OffsetAllocator size ${size} exceeds the maximum of ${MAX_OFFSET_ALLOCATOR_SIZE} (2^24)`);
    }
    this._size = size;
    const nWords = (size + 31) >>> 5;
    this.words = new Uint32Array(nWords);
    const tail = size & 31;
    if (tail !== 0) this.words[nWords - 1] = (FULL << tail) >>> 0; // padding slots count as taken
  }

  get size(): number {
    return this._size;
  }

  get used(): number {
    return this._used;
  }

  get free(): number {
    return this._size - this._used;
  }

  /** Take the lowest free slot and return it, or −1 when every slot is taken. */
  allocateNext(): number {
    if (this._used === this._size) return -1;
    const words = this.words;
    let w = this.hint;
    while (words[w] === FULL) w++;
    // _used < _size guarantees a non-full word exists at or after the hint.
    const word = words[w]!;
    const bit = lowestZeroBit(word);
    words[w] = (word | (1 << bit)) >>> 0;
    this.hint = w;
    this._used++;
    return (w << 5) | bit;
  }

  /** Mark one slot taken. False when it already was (or is outside [0, size)). */
  claim(offset: number): boolean {
    if (!this.inRange(offset)) return false;
    const w = offset >>> 5;
    const mask = 1 << (offset & 31);
    const word = this.words[w]!;
    if ((word & mask) !== 0) return false;
    this.words[w] = (word | mask) >>> 0;
    this._used++;
    return true;
  }

  /** Free one slot. False when it was not taken (or is outside [0, size)). */
  release(offset: number): boolean {
    if (!this.inRange(offset)) return false;
    const w = offset >>> 5;
    const mask = 1 << (offset & 31);
    const word = this.words[w]!;
    if ((word & mask) === 0) return false;
    this.words[w] = (word & ~mask) >>> 0;
    this._used--;
    if (w < this.hint) this.hint = w;
    return true;
  }

  isUsed(offset: number): boolean {
    if (!this.inRange(offset)) return false;
    return (this.words[offset >>> 5]! & (1 << (offset & 31))) !== 0;
  }

  /** The lowest free slot at or after `from`, or −1; nothing is taken. */
  nextFree(from = 0): number {
    if (from < 0) from = 0;
    if (!Number.isInteger(from) || from >= this._size) return -1;
    const words = this.words;
    let w = from >>> 5;
    if (w < this.hint) {
      w = this.hint;
      from = w << 5;
    }
    // Mask off the bits below `from` in its own word by treating them as taken.
    let word = (words[w]! | ((1 << (from & 31)) - 1)) >>> 0;
    while (word === FULL) {
      w++;
      if (w >= words.length) return -1;
      word = words[w]!;
    }
    return (w << 5) | lowestZeroBit(word);
  }

  /** Taken slots in ascending order. */
  *usedOffsets(): IterableIterator<number> {
    const words = this.words;
    const size = this._size;
    for (let w = 0; w < words.length; w++) {
      let word = words[w]!;
      while (word !== 0) {
        const low = word & -word;
        const offset = (w << 5) | (31 - Math.clz32(low));
        if (offset >= size) return; // padding bits of the last word
        yield offset;
        word = (word ^ low) >>> 0;
      }
    }
  }

  /** Free every slot. */
  clear(): void {
    this.words.fill(0);
    const tail = this._size & 31;
    if (tail !== 0) this.words[this.words.length - 1] = (FULL << tail) >>> 0;
    this._used = 0;
    this.hint = 0;
  }

  private inRange(offset: number): boolean {
    return Number.isInteger(offset) && offset >= 0 && offset < this._size;
  }
}
