// One interface for the three network plugins: what a node costs in addresses, what it gets, and what the
// cluster gets (route table or not). Validation lives in the rule table; the rules ask the strategy for the numbers.
import type { ResolvedCluster, ResolvedPool } from '../defaults.js';

export interface NetworkPluginStrategy {
  readonly name: 'none' | 'kubenet' | 'azure';
  /** A short human name: "kubenet", "Azure CNI (node subnet)", "Azure CNI Overlay", "BYO CNI". */
  label(cluster: ResolvedCluster): string;
  /** Addresses one node takes from its node subnet: the node's own, plus maxPods for Azure CNI node subnet. */
  ipsPerNode(pool: ResolvedPool, cluster: ResolvedCluster): number;
  /** Nodes get a /24 of the pod CIDR (kubenet and overlay). */
  carvesPodCidr(cluster: ResolvedCluster): boolean;
  /** AKS keeps a route table with one UDR per node (kubenet only). */
  usesRouteTable(cluster: ResolvedCluster): boolean;
  /** AKS hands out pod addresses (false for BYO CNI: the user's CNI does). */
  assignsPodIps(cluster: ResolvedCluster): boolean;
  /** Hard cap on nodes the model imposes (400 for kubenet's UDR limit), if any. */
  maxClusterNodes(cluster: ResolvedCluster): number | undefined;
}

/** The node mask of per-node pod CIDRs: AKS fixes it at /24 for kubenet and overlay (docs/aks-rules.md §3.4). */
export const NODE_POD_CIDR_MASK = 24;
export const NODE_POD_CIDR_SIZE = 256;
