// Aligned blocks of a subnet, lowest first, taken through an allocator's claim and release: Azure CNI's static block
// allocation gives each node /28 blocks of its pod subnet (src/aks/pod-subnet.ts). A block with any address taken
// or reserved (the allocator refuses to claim those) is skipped.
import type { Cidr, IpAddress } from './ip.js';

export interface ClaimingAllocator {
  claim(ip: IpAddress, owner: string): boolean;
  release(ip: IpAddress): boolean;
}

function claimBlock(alloc: ClaimingAllocator, block: Cidr, owner: string): boolean {
  const taken: IpAddress[] = [];
  for (let i = 0n; i < block.size; i++) {
    const ip = block.addressAt(i);
    if (!alloc.claim(ip, owner)) {
      for (const t of taken) alloc.release(t);
      return false;
    }
    taken.push(ip);
  }
  return true;
}

/** `count` free aligned blocks of length `prefixLength` inside `within`, now held by `owner`; all or nothing. */
export function allocateAlignedBlocks(alloc: ClaimingAllocator, within: Cidr, count: number, prefixLength: number, owner: string): Cidr[] | undefined {
  if (prefixLength < within.prefix || prefixLength > within.bits) return count === 0 ? [] : undefined;
  const blocks: Cidr[] = [];
  const total = 1n << BigInt(prefixLength - within.prefix);
  for (let i = 0n; i < total && blocks.length < count; i++) {
    const block = within.subnet(prefixLength, i);
    if (claimBlock(alloc, block, owner)) blocks.push(block);
  }
  if (blocks.length === count) return blocks;
  for (const b of blocks) for (let i = 0n; i < b.size; i++) alloc.release(b.addressAt(i));
  return undefined;
}
