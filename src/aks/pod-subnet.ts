// Azure CNI with a pod subnet (a pool's podSubnetID; docs/aks-rules.md §3.8): pods take addresses of a subnet of
// their own, given to each node in one of two ways (the pool's podIPAllocationMode):
//   DynamicIndividual  batches of 16 addresses, the first batch when the node is created, more as its pods need them
//                      (MicrosoftDocs/azure-docs#97370: "we pre-allocate 16 ips (in a batch) on node create as a
//                      warm pool for Pod allocations. And then dynamically scale"; Azure/azure-container-networking#1605)
//   StaticBlock        /28 blocks (16 addresses) at node creation, enough for maxPods: blocks ≥ maxPods / 16
//                      (the PodIPAllocationMode enum's text in the REST spec and SDKs)
import { azureUsableCount, type Cidr } from '../net/ip.js';
import type { ResolvedPool } from './defaults.js';
import type { NetworkEnvironment, SubnetInfo } from './environment.js';

export type PodIpAllocationMode = 'DynamicIndividual' | 'StaticBlock';
export const POD_IP_ALLOCATION_MODES: readonly PodIpAllocationMode[] = ['DynamicIndividual', 'StaticBlock'];
/** "The default is 'DynamicIndividual'" (the spec's podIPAllocationMode). */
export const DEFAULT_POD_IP_ALLOCATION_MODE: PodIpAllocationMode = 'DynamicIndividual';

/** Addresses CNS asks for at a time in dynamic mode, and the size of a static block. */
export const POD_SUBNET_BATCH = 16;
/** The prefix length of a static block: a /28 is 16 addresses. */
export const STATIC_BLOCK_PREFIX = 28;

/** The pool's mode, its case folded to the enum's spelling; undefined for a pool without a pod subnet. */
export function podIpAllocationMode(pool: Pick<ResolvedPool, 'podSubnetID' | 'podIPAllocationMode'>): PodIpAllocationMode | undefined {
  if (!pool.podSubnetID) return undefined;
  const given = pool.podIPAllocationMode?.toLowerCase();
  return POD_IP_ALLOCATION_MODES.find((m) => m.toLowerCase() === given) ?? DEFAULT_POD_IP_ALLOCATION_MODE;
}

/** Static blocks a node of the pool holds: ⌈maxPods / 16⌉. */
export function staticBlocksPerNode(pool: Pick<ResolvedPool, 'maxPods'>): number {
  return Math.max(1, Math.ceil(pool.maxPods / POD_SUBNET_BATCH));
}

/** The most addresses one node may hold in dynamic mode: maxPods, rounded up to whole batches. */
export function dynamicCeiling(pool: Pick<ResolvedPool, 'maxPods'>): number {
  return staticBlocksPerNode(pool) * POD_SUBNET_BATCH;
}

/**
 * Pod-subnet addresses a new node takes when it is created: one batch (dynamic), or all its blocks (static). The
 * capacity checks count these (docs/aks-rules.md §2.5: a /24 pod subnet holds ⌊251 / 16⌋ = 15 dynamic nodes).
 */
export function podSubnetIpsPerNewNode(pool: Pick<ResolvedPool, 'podSubnetID' | 'podIPAllocationMode' | 'maxPods'>): number {
  const mode = podIpAllocationMode(pool);
  if (mode === undefined) return 0;
  return mode === 'StaticBlock' ? staticBlocksPerNode(pool) * POD_SUBNET_BATCH : POD_SUBNET_BATCH;
}

/** The pool's pod subnet as the environment knows it; undefined without one, or when it does not exist. */
export function podSubnetOfPool(env: NetworkEnvironment, pool: Pick<ResolvedPool, 'podSubnetID'>): SubnetInfo | undefined {
  return pool.podSubnetID ? env.subnets[pool.podSubnetID.toLowerCase()] : undefined;
}

/**
 * Whole /28 blocks a subnet can give out: the first and the last hold Azure's reserved addresses (.0–.3 and the
 * broadcast), and what is in use is counted in whole blocks (an estimate: the allocator finds the exact ones).
 */
export function freeStaticBlocks(cidr: Cidr, ipsInUse: number): number {
  if (cidr.prefix > STATIC_BLOCK_PREFIX) return 0;
  const all = 2 ** (STATIC_BLOCK_PREFIX - cidr.prefix);
  const usable = cidr.prefix === STATIC_BLOCK_PREFIX ? 0 : Math.max(all - 2, 0);
  return Math.max(usable - Math.ceil(ipsInUse / POD_SUBNET_BATCH), 0);
}

/** Addresses of a subnet the capacity checks offer: 2^(32−p) − 5 less what is in use (docs/aks-rules.md §2.5). */
export function usableAddresses(cidr: Cidr, ipsInUse: number): number {
  const usable = azureUsableCount(cidr);
  return Math.max((usable > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(usable)) - ipsInUse, 0);
}
