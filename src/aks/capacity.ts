// IP capacity arithmetic (docs/aks-rules.md §2.5, §4): what a cluster asks of each node subnet, of its pod CIDR and of
// its pools' pod subnets.
import { AZURE_RESERVED_TOTAL, azureUsableCount, type Cidr } from '../net/ip.js';
import { sizingNodes, surgeNodes, type ResolvedCluster, type ResolvedPool } from './defaults.js';
import { subnetOfPool, type NetworkEnvironment, type SubnetInfo } from './environment.js';
import { subnetCidr } from './parsed-network.js';
import {
  DEFAULT_POD_IP_ALLOCATION_MODE,
  freeStaticBlocks,
  POD_SUBNET_BATCH,
  podIpAllocationMode,
  podSubnetIpsPerNewNode,
  podSubnetOfPool,
  usableAddresses,
  type PodIpAllocationMode,
} from './pod-subnet.js';
import { ipsPerNode, NODE_POD_CIDR_MASK, NODE_POD_CIDR_SIZE, type NetworkModel } from './network-models/index.js';

export interface SubnetDemand {
  subnet: SubnetInfo;
  cidr: Cidr;
  /** 2^(32−p) − 5. */
  usable: number;
  inUse: number;
  /** What this request may still take: usable − inUse. */
  available: number;
  /** Addresses the counted nodes need: Σ nodes × ipsPerNode. */
  required: number;
  pools: ResolvedPool[];
}

export type NodeCounter = (pool: ResolvedPool) => number;

/** AKS's limit on nodes across a cluster's pools (docs/aks-rules.md §2.4 M9b). */
export const MAX_CLUSTER_NODES = 5000;

/** Nodes to size at create: count, or maxCount under the autoscaler. No surge at create (docs/aks-rules.md §2.5). */
export const createNodes: NodeCounter = sizingNodes;
export const upgradeSurgeNodes: NodeCounter = (p) => surgeNodes(p) ?? 0;

const num = (n: bigint): number => (n > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(n));

/** The pools grouped by the subnet `subnetOf` names for each; pools whose subnet is missing or unparsable are skipped. */
function groupBySubnet(
  pools: ResolvedPool[],
  subnetOf: (pool: ResolvedPool) => SubnetInfo | undefined,
): Array<{ subnet: SubnetInfo; cidr: Cidr; pools: ResolvedPool[] }> {
  const groups = new Map<string, { subnet: SubnetInfo; cidr: Cidr; pools: ResolvedPool[] }>();
  for (const pool of pools) {
    const subnet = subnetOf(pool);
    const cidr = subnet && subnetCidr(subnet);
    if (!subnet || !cidr) continue;
    const key = subnet.id.toLowerCase();
    const group = groups.get(key) ?? { subnet, cidr, pools: [] };
    groups.set(key, group);
    group.pools.push(pool);
  }
  return [...groups.values()];
}

/** Σ nodes × per-node addresses over the pools, counting only whole positive node numbers. */
function addressesFor(pools: ResolvedPool[], nodes: NodeCounter, perNode: (pool: ResolvedPool) => number): number {
  return pools.reduce((sum, p) => {
    const n = nodes(p);
    return sum + (Number.isInteger(n) && n > 0 ? n * perNode(p) : 0);
  }, 0);
}

/** Demand per node subnet, pools grouped by subnet; pools whose subnet is missing or unparsable are skipped. */
export function subnetDemands(
  cluster: ResolvedCluster,
  env: NetworkEnvironment,
  model: NetworkModel,
  nodes: NodeCounter,
  pools: ResolvedPool[] = cluster.pools,
): SubnetDemand[] {
  return groupBySubnet(pools, (p) => subnetOfPool(env, p)).map(({ subnet, cidr, pools: on }) => {
    const usable = num(azureUsableCount(cidr));
    const inUse = subnet.ipsInUse ?? 0;
    const required = addressesFor(on, nodes, (p) => ipsPerNode(model, p));
    return { subnet, cidr, usable, inUse, available: Math.max(usable - inUse, 0), required, pools: on };
  });
}

/** What the cluster asks of one pod subnet (Azure CNI with a pod subnet; docs/aks-rules.md §2.5, §3.8). */
export interface PodSubnetDemand {
  subnet: SubnetInfo;
  cidr: Cidr;
  /** StaticBlock when any pool on the subnet uses blocks: then only whole free /28s count. */
  mode: PodIpAllocationMode;
  /** Free addresses: 2^(32−p) − 5 − in use; in static mode 16 × the free /28 blocks. */
  available: number;
  /** Σ new nodes × the addresses a new node takes (16 dynamic; 16 × ⌈maxPods / 16⌉ static). */
  required: number;
  pools: ResolvedPool[];
}

/** Demand per pod subnet, pools grouped by it; pools without one, or whose pod subnet is missing, are skipped. */
export function podSubnetDemands(
  cluster: ResolvedCluster,
  env: NetworkEnvironment,
  nodes: NodeCounter,
  pools: ResolvedPool[] = cluster.pools,
): PodSubnetDemand[] {
  return groupBySubnet(pools, (p) => podSubnetOfPool(env, p)).map(({ subnet, cidr, pools: on }) => {
    const mode: PodIpAllocationMode = on.some((p) => podIpAllocationMode(p) === 'StaticBlock') ? 'StaticBlock' : DEFAULT_POD_IP_ALLOCATION_MODE;
    const inUse = subnet.ipsInUse ?? 0;
    const available = mode === 'StaticBlock' ? freeStaticBlocks(cidr, inUse) * POD_SUBNET_BATCH : usableAddresses(cidr, inUse);
    return { subnet, cidr, mode, available, required: addressesFor(on, nodes, podSubnetIpsPerNewNode), pools: on };
  });
}

export interface PodCidrDemand {
  cidr: Cidr;
  /** 2^(32−p): the whole pod CIDR, no reserved addresses. */
  available: number;
  /** Σ nodes × 256 (one /24 per node). */
  required: number;
  /** How many /24 node blocks the pod CIDR holds. */
  blocks: number;
}

export function podCidrDemand(podCidr: Cidr, totalNodes: number, blocksInUse = 0): PodCidrDemand {
  const blocks = podCidr.prefix > NODE_POD_CIDR_MASK ? 0 : num(1n << BigInt(NODE_POD_CIDR_MASK - podCidr.prefix));
  return {
    cidr: podCidr,
    available: num(podCidr.size) - blocksInUse * NODE_POD_CIDR_SIZE,
    required: totalNodes * NODE_POD_CIDR_SIZE,
    blocks,
  };
}

export function totalNodes(pools: ResolvedPool[], nodes: NodeCounter): number {
  return pools.reduce((sum, p) => {
    const n = nodes(p);
    return sum + (Number.isInteger(n) && n > 0 ? n : 0);
  }, 0);
}

/** The longest prefix whose Azure subnet still holds `addresses`: /21 for the 1,581 of the 50-node example. */
export function minimumSubnetPrefix(addresses: number, family: 4 | 6 = 4): number | undefined {
  const bits = family === 4 ? 32 : 128;
  for (let p = bits; p >= 0; p--) {
    if (num((1n << BigInt(bits - p)) - BigInt(AZURE_RESERVED_TOTAL)) >= addresses) return p;
  }
  return undefined;
}

export interface CapacitySummary {
  plugin: string;
  subnetCidr: string;
  subnetName: string;
  usableIps: number;
  ipsInUse: number;
  /** At create: Σ nodes × IPs per node (maxCount under the autoscaler). */
  ipsRequired: number;
  /** With every pool's surge nodes added, as the planning formula counts (AKSDOCS ip-address-planning). */
  ipsRequiredForUpgrade: number;
  /** The smallest subnet (longest prefix) that fits ipsRequiredForUpgrade plus what is in use. */
  minimumSubnetPrefix?: number;
  ipsPerNode: number;
  maxNodes: number;
  maxPods: number;
  podCidr?: { cidr: string; nodeBlocks: number; blocksRequired: number };
  /** The first pool's pod subnet (Azure CNI with a pod subnet): what it holds and what a node takes of it. */
  podSubnet?: { cidr: string; name: string; mode: PodIpAllocationMode; availableIps: number; ipsRequired: number; ipsPerNode: number };
}

/**
 * Capacity of the cluster on its first pool's subnet, growing the first pool: the documented examples
 * (kubenet /24 → 251 nodes, 27,610 pods; Azure CNI /24 → 8 nodes, 240 pods) are single-pool answers.
 */
export function summarizeCapacity(
  cluster: ResolvedCluster,
  env: NetworkEnvironment,
  model: NetworkModel,
  podCidr: Cidr | undefined,
): CapacitySummary | undefined {
  const first = cluster.pools[0];
  if (!first || !Number.isInteger(first.maxPods) || first.maxPods < 0) return undefined;
  const demand = subnetDemands(cluster, env, model, createNodes).find((d) => d.pools.includes(first));
  if (!demand) return undefined;
  const upgrade = subnetDemands(cluster, env, model, (p) => createNodes(p) + upgradeSurgeNodes(p)).find((d) => d.pools.includes(first));
  const perNode = ipsPerNode(model, first);
  const others = cluster.pools.filter((p) => p !== first);
  const othersOnSubnet = demand.pools.filter((p) => p !== first);
  const otherIps = othersOnSubnet.reduce((s, p) => s + Math.max(createNodes(p), 0) * ipsPerNode(model, p), 0);
  const otherNodes = totalNodes(others, createNodes);
  let firstMax = Math.floor(Math.max(demand.available - otherIps, 0) / perNode);
  let pod: CapacitySummary['podCidr'];
  if (model.nodes.carvesPodCidr && podCidr) {
    const pd = podCidrDemand(podCidr, totalNodes(cluster.pools, createNodes));
    pod = { cidr: podCidr.toString(), nodeBlocks: pd.blocks, blocksRequired: totalNodes(cluster.pools, createNodes) };
    firstMax = Math.min(firstMax, Math.max(pd.blocks - otherNodes, 0));
  }
  let podSubnet: CapacitySummary['podSubnet'];
  const pods = podSubnetDemands(cluster, env, createNodes).find((d) => d.pools.includes(first));
  if (pods) {
    const perPodNode = podSubnetIpsPerNewNode(first);
    const otherPodIps = pods.pools.filter((p) => p !== first).reduce((s, p) => s + Math.max(createNodes(p), 0) * podSubnetIpsPerNewNode(p), 0);
    firstMax = Math.min(firstMax, Math.floor(Math.max(pods.available - otherPodIps, 0) / perPodNode));
    podSubnet = {
      cidr: pods.cidr.toString(),
      name: pods.subnet.name,
      mode: pods.mode,
      availableIps: pods.available,
      ipsRequired: pods.required,
      ipsPerNode: perPodNode,
    };
  }
  // The model's own cap (kubenet's routes) and AKS's per-cluster limit (docs/aks-rules.md §2.4 M9b).
  const cap = Math.min(model.nodes.maxClusterNodes ?? MAX_CLUSTER_NODES, MAX_CLUSTER_NODES);
  firstMax = Math.min(firstMax, Math.max(cap - otherNodes, 0));
  const otherPods = others.reduce((s, p) => s + Math.max(createNodes(p), 0) * p.maxPods, 0);
  const summary: CapacitySummary = {
    plugin: model.label,
    subnetCidr: demand.cidr.toString(),
    subnetName: demand.subnet.name,
    usableIps: demand.usable,
    ipsInUse: demand.inUse,
    ipsRequired: demand.required,
    ipsRequiredForUpgrade: upgrade?.required ?? demand.required,
    ipsPerNode: perNode,
    maxNodes: otherNodes + firstMax,
    maxPods: otherPods + firstMax * first.maxPods,
  };
  const minPrefix = minimumSubnetPrefix(summary.ipsRequiredForUpgrade + demand.inUse, demand.cidr.family);
  if (minPrefix !== undefined) summary.minimumSubnetPrefix = minPrefix;
  if (pod) summary.podCidr = pod;
  if (podSubnet) summary.podSubnet = podSubnet;
  return summary;
}
