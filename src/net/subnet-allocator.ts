// Address allocation inside one Azure subnet, the way Azure hands out private IPs: ascending from the
// first usable address, lowest free first (docs/aks-rules.md §3.6: "the next available unassigned or unreserved IP
// address ... normally the next sequentially available address", so the first node is `.4`).
//
// Azure reserves the first four addresses and the last one of every subnet (AZURE_RESERVED_LOW /
// AZURE_RESERVED_TOTAL), so the managed addresses are network+4 … network+size−2. Slot i of the
// bitmap is the address network + 4 + i.
//
// Size cap: at most 2^24 addresses of a subnet are managed (the OffsetAllocator limit). This only
// matters for IPv6 subnets larger than a /104 (a /64 is the usual IPv6 subnet) and IPv4 subnets
// larger than a /8: for those, only network+4 … network+2^24−1 are handed out or can be claimed,
// `usable` is 2^24 − 4 instead of 2^(bits−prefix) − 5, and the subnet's last address lies outside
// the managed window.
//
// Memory: one bit per address in the bitmap, plus a 32-bit owner index per address kept in pages of
// 4,096 entries that are created on first use (an empty /64 costs 2 MiB of bitmap and no owner
// pages). Owner names live once in a table; each page entry holds table index + 1 (0 = free).
// Table slots are recycled when an owner's last address is released.
import { AZURE_RESERVED_LOW, AZURE_RESERVED_TOTAL, type Cidr, IpAddress } from './ip.js';
import { allocateAlignedBlocks } from './aligned-blocks.js';
import { MAX_OFFSET_ALLOCATOR_SIZE, OffsetAllocator } from './offset-allocator.js';

const PAGE_BITS = 12;
const PAGE_SIZE = 1 << PAGE_BITS;
const PAGE_MASK = PAGE_SIZE - 1;

export class SubnetAllocator {
  readonly subnet: Cidr;
  private readonly slots: OffsetAllocator;
  /** network + AZURE_RESERVED_LOW, the address of slot 0. */
  private readonly base: bigint;
  private readonly pages: (Int32Array | undefined)[];

  // Owner table, indexed by owner index.
  private readonly ownerNames: (string | undefined)[] = [];
  private readonly ownerCount: number[] = [];
  /** Lowest and highest slot an owner holds (maybe stale-wide after releases, never too narrow). */
  private readonly ownerMin: number[] = [];
  private readonly ownerMax: number[] = [];
  private readonly ownerIndex = new Map<string, number>();
  private readonly freeOwnerIndexes: number[] = [];

  constructor(subnet: Cidr) {
    this.subnet = subnet;
    this.base = subnet.network + BigInt(AZURE_RESERVED_LOW);
    const size = subnet.size;
    let slots: number;
    if (size > BigInt(MAX_OFFSET_ALLOCATOR_SIZE)) {
      slots = MAX_OFFSET_ALLOCATOR_SIZE - AZURE_RESERVED_LOW;
    } else {
      slots = Math.max(0, Number(size) - AZURE_RESERVED_TOTAL);
    }
    this.slots = new OffsetAllocator(slots);
    this.pages = new Array<Int32Array | undefined>(Math.ceil(slots / PAGE_SIZE));
  }

  /** Addresses this allocator can hand out: 2^(bits−prefix) − 5, at least 0, capped at 2^24 − 4. */
  get usable(): number {
    return this.slots.size;
  }

  get used(): number {
    return this.slots.used;
  }

  get free(): number {
    return this.slots.free;
  }

  /** The lowest free address, now owned by `owner`; undefined when the subnet is full. */
  allocate(owner: string): IpAddress | undefined {
    const slot = this.slots.allocateNext();
    if (slot < 0) return undefined;
    this.setOwner(slot, this.ownerIndexFor(owner));
    return this.addressOf(slot);
  }

  /** The `n` lowest free addresses for `owner`, or undefined (and nothing taken) if fewer are free. */
  allocateMany(n: number, owner: string): IpAddress[] | undefined {
    if (!Number.isInteger(n) || n < 0) throw new RangeError(`allocateMany needs a non-negative integer count, got ${n}`);
    if (n > this.slots.free) return undefined;
    const out: IpAddress[] = new Array<IpAddress>(n);
    if (n === 0) return out;
    const idx = this.ownerIndexFor(owner);
    for (let i = 0; i < n; i++) {
      const slot = this.slots.allocateNext();
      this.setOwner(slot, idx);
      out[i] = this.addressOf(slot);
    }
    return out;
  }

  /** `count` free aligned blocks of length `prefixLength` for `owner` (aligned-blocks.ts); all or nothing. */
  allocateBlocks(count: number, prefixLength: number, owner: string): Cidr[] | undefined {
    return allocateAlignedBlocks(this, this.subnet, count, prefixLength, owner);
  }

  /** Take a specific address. False when it is taken, one of Azure's reserved five, or outside the subnet. */
  claim(ip: IpAddress, owner: string): boolean {
    const slot = this.slotOf(ip);
    if (slot < 0 || !this.slots.claim(slot)) return false;
    this.setOwner(slot, this.ownerIndexFor(owner));
    return true;
  }

  /** Give one address back. False when it was not allocated. */
  release(ip: IpAddress): boolean {
    const slot = this.slotOf(ip);
    if (slot < 0 || !this.slots.release(slot)) return false;
    this.clearOwner(slot);
    return true;
  }

  /** Give back every address `owner` holds; returns how many. */
  releaseOwner(owner: string): number {
    const idx = this.ownerIndex.get(owner);
    if (idx === undefined) return 0;
    const tag = idx + 1;
    let remaining = this.ownerCount[idx]!;
    const released = remaining;
    const max = this.ownerMax[idx]!;
    for (let slot = this.ownerMin[idx]!; slot <= max && remaining > 0; slot++) {
      const page = this.pages[slot >>> PAGE_BITS];
      if (page === undefined) {
        slot |= PAGE_MASK; // skip the whole page
        continue;
      }
      if (page[slot & PAGE_MASK] === tag) {
        page[slot & PAGE_MASK] = 0;
        this.slots.release(slot);
        remaining--;
      }
    }
    this.ownerCount[idx] = 0;
    this.dropOwner(idx);
    return released;
  }

  /** Who holds `ip`, or undefined when it is free, reserved or outside. */
  ownerOf(ip: IpAddress): string | undefined {
    const slot = this.slotOf(ip);
    if (slot < 0) return undefined;
    const tag = this.pages[slot >>> PAGE_BITS]?.[slot & PAGE_MASK] ?? 0;
    return tag === 0 ? undefined : this.ownerNames[tag - 1];
  }

  /** Every allocated address with its owner, ascending. */
  *entries(): IterableIterator<[IpAddress, string]> {
    for (let p = 0; p < this.pages.length; p++) {
      const page = this.pages[p];
      if (page === undefined) continue;
      for (let i = 0; i < PAGE_SIZE; i++) {
        const tag = page[i]!;
        if (tag !== 0) yield [this.addressOf((p << PAGE_BITS) | i), this.ownerNames[tag - 1]!];
      }
    }
  }

  /** Addresses held by one owner (count, not a scan). */
  countOf(owner: string): number {
    const idx = this.ownerIndex.get(owner);
    return idx === undefined ? 0 : this.ownerCount[idx]!;
  }

  private addressOf(slot: number): IpAddress {
    return new IpAddress(this.subnet.family, this.base + BigInt(slot));
  }

  /** Slot of `ip`, or −1 when it is of the other family, reserved, outside, or beyond the managed window. */
  private slotOf(ip: IpAddress): number {
    if (ip.family !== this.subnet.family) return -1;
    const d = ip.value - this.base;
    if (d < 0n || d >= BigInt(this.slots.size)) return -1;
    return Number(d);
  }

  private ownerIndexFor(owner: string): number {
    const known = this.ownerIndex.get(owner);
    if (known !== undefined) return known;
    const idx = this.freeOwnerIndexes.pop() ?? this.ownerNames.length;
    this.ownerNames[idx] = owner;
    this.ownerCount[idx] = 0;
    this.ownerMin[idx] = Number.MAX_SAFE_INTEGER;
    this.ownerMax[idx] = -1;
    this.ownerIndex.set(owner, idx);
    return idx;
  }

  private setOwner(slot: number, idx: number): void {
    const p = slot >>> PAGE_BITS;
    let page = this.pages[p];
    if (page === undefined) {
      page = new Int32Array(PAGE_SIZE);
      this.pages[p] = page;
    }
    page[slot & PAGE_MASK] = idx + 1;
    this.ownerCount[idx]!++;
    if (slot < this.ownerMin[idx]!) this.ownerMin[idx] = slot;
    if (slot > this.ownerMax[idx]!) this.ownerMax[idx] = slot;
  }

  private clearOwner(slot: number): void {
    const page = this.pages[slot >>> PAGE_BITS]!;
    const idx = page[slot & PAGE_MASK]! - 1;
    page[slot & PAGE_MASK] = 0;
    if (--this.ownerCount[idx]! === 0) this.dropOwner(idx);
  }

  private dropOwner(idx: number): void {
    const name = this.ownerNames[idx]!;
    this.ownerIndex.delete(name);
    this.ownerNames[idx] = undefined;
    this.freeOwnerIndexes.push(idx);
  }
}
