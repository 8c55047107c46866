// BYO CNI: AKS gives nodes an address and nothing else (use-byo-cni.md; docs/aks-rules.md §2.2 N13): no pod IPs,
// no per-node pod CIDR, no route table; maxPods only limits scheduling.
import type { NetworkPluginStrategy } from './strategy.js';

export const noneStrategy: NetworkPluginStrategy = {
  name: 'none',
  label: () => 'BYO CNI',
  ipsPerNode: () => 1,
  carvesPodCidr: () => false,
  usesRouteTable: () => false,
  assignsPodIps: () => false,
  maxClusterNodes: () => undefined,
};
