// kubenet: one subnet address per node, a /24 of the pod CIDR per node, and a UDR per node in the
// cluster's route table, which caps the cluster at 400 nodes (configure-kubenet.md; docs/aks-rules.md §3.4, §3.5, §2.2 N9).
import type { NetworkPluginStrategy } from './strategy.js';

export const KUBENET_MAX_NODES = 400;

export const kubenetStrategy: NetworkPluginStrategy = {
  name: 'kubenet',
  label: () => 'kubenet',
  ipsPerNode: () => 1,
  carvesPodCidr: () => true,
  usesRouteTable: () => true,
  assignsPodIps: () => true,
  maxClusterNodes: () => KUBENET_MAX_NODES,
};
