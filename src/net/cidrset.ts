// Per-node pod CIDRs, carved the way kube-controller-manager's range allocator does it.
//
// A port of kubernetes/kubernetes pkg/controller/nodeipam/ipam/cidrset/cidr_set.go (@0be333dd;
// Apache-2.0), the allocator behind `node.spec.podCIDR` that AKS kubenet relies on (docs/aks-rules.md §3.4):
//
//   - the cluster CIDR is cut into maxCidrs = 2^(nodeMask − clusterMask) blocks; block i is
//     clusterNetwork | (i << (bits − nodeMask)), so 10.244.0.0/16 → 10.244.0.0/24, 10.244.1.0/24, …
//   - allocateNext() scans from nextCandidate, wrapping once, takes the first free block and sets
//     nextCandidate to the block after it. This is round-robin: a released block is not handed out
//     again until the scan has wrapped past the end of the range.
//   - occupy()/release() mark every block a CIDR covers (a CIDR larger than a block covers several;
//     one smaller than a block marks the block it sits in; one that contains the whole cluster CIDR
//     marks all). They change counts only for bits that actually flip, and never move nextCandidate.
//   - NewCIDRSet refuses node masks more than 16 bits longer than the cluster mask for IPv6 only
//     (ErrCIDRSetSubNetTooBig); IPv4 has no such limit upstream (its own test allocates /32s from a
//     /8), and none is added here.
//   - NewCIDRSet does not itself check nodeMask ≥ clusterMask; kube-controller-manager's
//     node_ipam_controller.go refuses that configuration before building the set. That check and
//     its message are folded into the constructor here.
//
// The Go code keeps the bitmap in a big.Int; here it is split into 65,536-block chunks created on
// first write, so an IPv4 set with up to 2^32 blocks only costs memory for the part in use.
import { Cidr } from './ip.js';

export type CidrSetErrorCode =
  /** Go ErrCIDRRangeNoCIDRsRemaining. */
  | 'CIDRRangeNoCIDRsRemaining'
  /** Go ErrCIDRSetSubNetTooBig (IPv6, nodeMask − clusterMask > 16). */
  | 'CIDRSetSubNetTooBig'
  /** node_ipam_controller.go: the cluster mask is longer than the node mask. */
  | 'InvalidClusterCIDRMask'
  /** Ours: the node mask is not an integer in [0, bits]. */
  | 'InvalidNodeCIDRMaskSize'
  /** getBeginningAndEndIndices: the CIDR does not overlap the cluster CIDR. */
  | 'CIDROutOfRange';

export class CidrSetError extends Error {
  constructor(
    readonly code: CidrSetErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'CidrSetError';
  }
}

/** Byte-for-byte the upstream messages. */
export const CIDR_SET_MESSAGES = {
  noCidrsRemaining: 'CIDR allocation failed; there are no remaining CIDRs left to allocate in the accepted range',
  subNetTooBig: 'New CIDR set failed; the node CIDR size is too big',
  invalidClusterCidrMask:
    'Controller: Invalid --cluster-cidr, mask size of cluster CIDR must be less than or equal to --node-cidr-mask-size configured for CIDR family',
} as const;

/** Upstream clusterSubnetMaxDiff. */
const CLUSTER_SUBNET_MAX_DIFF = 16;

const CHUNK_BITS = 16;
const CHUNK_SLOTS = 1 << CHUNK_BITS; // blocks per chunk
const CHUNK_WORDS = CHUNK_SLOTS >>> 5;
const FULL = 0xffffffff;

function popcount32(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/** Mask of bits lo..hi (0 ≤ lo ≤ hi ≤ 31) of a word. */
function bitRange(lo: number, hi: number): number {
  const upTo = hi === 31 ? FULL : (1 << (hi + 1)) - 1;
  return (upTo & ~((1 << lo) - 1)) >>> 0;
}

export class CidrSet {
  readonly cluster: Cidr;
  readonly nodeMaskSize: number;
  /** 2^(nodeMask − clusterMask); up to 2^32 for IPv4, 2^16 for IPv6. */
  readonly maxCidrs: number;

  private readonly hostBits: bigint; // bits − nodeMask
  private readonly chunks: (Uint32Array | undefined)[];
  private readonly chunkUsed: Uint32Array;
  private readonly chunkWords: number;
  private _allocated = 0;
  private _nextCandidate = 0;

  constructor(cluster: Cidr, nodeMaskSize: number) {
    if (!Number.isInteger(nodeMaskSize) || nodeMaskSize < 0 || nodeMaskSize > cluster.bits) {
      throw new CidrSetError('InvalidNodeCIDRMaskSize', `New CIDR set failed; the node CIDR mask size ${nodeMaskSize} is not between 0 and ${cluster.bits}`);
    }
    if (cluster.prefix > nodeMaskSize) {
      throw new CidrSetError('InvalidClusterCIDRMask', CIDR_SET_MESSAGES.invalidClusterCidrMask);
    }
    const diff = nodeMaskSize - cluster.prefix;
    if (cluster.family === 6 && diff > CLUSTER_SUBNET_MAX_DIFF) {
      throw new CidrSetError('CIDRSetSubNetTooBig', CIDR_SET_MESSAGES.subNetTooBig);
    }
    this.cluster = cluster;
    this.nodeMaskSize = nodeMaskSize;
    this.maxCidrs = 2 ** diff;
    this.hostBits = BigInt(cluster.bits - nodeMaskSize);
    const nChunks = Math.ceil(this.maxCidrs / CHUNK_SLOTS);
    this.chunks = new Array<Uint32Array | undefined>(nChunks);
    this.chunkUsed = new Uint32Array(nChunks);
    this.chunkWords = Math.min(CHUNK_WORDS, Math.ceil(this.maxCidrs / 32));
  }

  /** Blocks currently marked used (allocated or occupied). */
  get allocatedCount(): number {
    return this._allocated;
  }

  get freeCount(): number {
    return this.maxCidrs - this._allocated;
  }

  /** Index the next allocateNext() starts scanning from. */
  get nextCandidate(): number {
    return this._nextCandidate;
  }

  isAllocated(index: number): boolean {
    if (!Number.isInteger(index) || index < 0 || index >= this.maxCidrs) return false;
    const chunk = this.chunks[Math.floor(index / CHUNK_SLOTS)];
    if (chunk === undefined) return false;
    return (chunk[(index & (CHUNK_SLOTS - 1)) >>> 5]! & (1 << (index & 31))) !== 0;
  }

  /** Upstream indexToCIDRBlock: the `index`-th node block. */
  cidrAt(index: number): Cidr {
    if (!Number.isInteger(index) || index < 0 || index >= this.maxCidrs) {
      throw new RangeError(`index ${index} is outside 0..${this.maxCidrs - 1}`);
    }
    return Cidr.of(this.cluster.family, this.cluster.network | (BigInt(index) << this.hostBits), this.nodeMaskSize);
  }

  /** Index of the node block holding `cidr`'s network address (upstream getIndexForCIDR). */
  indexOf(cidr: Cidr): number {
    if (cidr.family !== this.cluster.family || !this.cluster.contains(cidr.first)) {
      throw new CidrSetError('CIDROutOfRange', `CIDR: ${cidr.first.toString()}/${this.nodeMaskSize} is out of the range of CIDR allocator`);
    }
    return Number((cidr.network ^ this.cluster.network) >> this.hostBits);
  }

  /** Take the next free block, round-robin from nextCandidate. Throws CIDRRangeNoCIDRsRemaining when full. */
  allocateNext(): Cidr {
    if (this._allocated === this.maxCidrs) {
      throw new CidrSetError('CIDRRangeNoCIDRsRemaining', CIDR_SET_MESSAGES.noCidrsRemaining);
    }
    let candidate = this.findFree(this._nextCandidate);
    if (candidate < 0) candidate = this.findFree(0); // wrap; a free block exists since not full
    this.setRange(candidate, candidate, true);
    this._nextCandidate = (candidate + 1) % this.maxCidrs;
    return this.cidrAt(candidate);
  }

  /** Mark every block `cidr` covers as used. Succeeds even if some were already used. */
  occupy(cidr: Cidr): void {
    const [begin, end] = this.beginningAndEnd(cidr);
    this.setRange(begin, end, true);
  }

  /** Mark every block `cidr` covers as free (whoever holds them). */
  release(cidr: Cidr): void {
    const [begin, end] = this.beginningAndEnd(cidr);
    this.setRange(begin, end, false);
  }

  /** Every used block, ascending by index. */
  *allocated(): IterableIterator<Cidr> {
    for (let c = 0; c < this.chunks.length; c++) {
      const chunk = this.chunks[c];
      if (chunk === undefined || this.chunkUsed[c] === 0) continue;
      for (let w = 0; w < chunk.length; w++) {
        let word = chunk[w]!;
        while (word !== 0) {
          const low = word & -word;
          yield this.cidrAt(c * CHUNK_SLOTS + (w << 5) + (31 - Math.clz32(low)));
          word = (word ^ low) >>> 0;
        }
      }
    }
  }

  /** Upstream getBeginningAndEndIndices. */
  private beginningAndEnd(cidr: Cidr): [number, number] {
    // Upstream: !cluster.Contains(cidr.IP masked) && !cidr.Contains(cluster.IP masked), i.e. the two
    // blocks do not overlap.
    if (!this.cluster.overlaps(cidr)) {
      throw new CidrSetError('CIDROutOfRange', `cidr ${cidr.toString()} is out the range of cluster cidr ${this.cluster.toString()}`);
    }
    if (this.cluster.prefix < cidr.prefix) {
      const begin = Number((cidr.network - this.cluster.network) >> this.hostBits);
      const end = Number((cidr.last.value - this.cluster.network) >> this.hostBits);
      return [begin, end];
    }
    return [0, this.maxCidrs - 1];
  }

  /** Lowest free index ≥ from, or −1. */
  private findFree(from: number): number {
    const max = this.maxCidrs;
    if (from >= max) return -1;
    const chunks = this.chunks;
    let c = Math.floor(from / CHUNK_SLOTS);
    let local = from - c * CHUNK_SLOTS;
    const capacity = Math.min(CHUNK_SLOTS, max);
    for (; c < chunks.length; c++, local = 0) {
      if (this.chunkUsed[c] === capacity) continue;
      const chunk = chunks[c];
      if (chunk === undefined) return c * CHUNK_SLOTS + local;
      let w = local >>> 5;
      let word = (chunk[w]! | ((1 << (local & 31)) - 1)) >>> 0;
      while (word === FULL && ++w < chunk.length) word = chunk[w]!;
      if (word === FULL) continue;
      const inv = ~word;
      const index = c * CHUNK_SLOTS + (w << 5) + (31 - Math.clz32(inv & -inv));
      return index < max ? index : -1; // only a set smaller than 32 blocks has bits past max
    }
    return -1;
  }

  /** Set or clear bits begin..end (inclusive); counts only the bits that flip. */
  private setRange(begin: number, end: number, value: boolean): void {
    let i = begin;
    while (i <= end) {
      const c = Math.floor(i / CHUNK_SLOTS);
      const chunkStart = c * CHUNK_SLOTS;
      const chunkEnd = Math.min(end, chunkStart + CHUNK_SLOTS - 1);
      let chunk = this.chunks[c];
      if (chunk === undefined) {
        if (!value) {
          i = chunkEnd + 1;
          continue;
        }
        chunk = new Uint32Array(this.chunkWords);
        this.chunks[c] = chunk;
      }
      const lo = i - chunkStart;
      const hi = chunkEnd - chunkStart;
      let changed = 0;
      for (let w = lo >>> 5; w <= hi >>> 5; w++) {
        const mask = bitRange(w === lo >>> 5 ? lo & 31 : 0, w === hi >>> 5 ? hi & 31 : 31);
        const old = chunk[w]!;
        const next = value ? (old | mask) >>> 0 : (old & ~mask) >>> 0;
        changed += popcount32((old ^ next) >>> 0);
        chunk[w] = next;
      }
      if (value) {
        this.chunkUsed[c] = this.chunkUsed[c]! + changed;
        this._allocated += changed;
      } else {
        this.chunkUsed[c] = this.chunkUsed[c]! - changed;
        this._allocated -= changed;
      }
      i = chunkEnd + 1;
    }
  }
}
