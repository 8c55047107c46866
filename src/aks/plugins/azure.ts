// Azure CNI. Node subnet (legacy): every node pre-allocates maxPods secondary addresses on its NIC, so it costs
// maxPods + 1 subnet addresses (docs/aks-rules.md §3.6, §6 X9). Overlay: nodes cost one address and get a /24 of the pod CIDR.
import type { ResolvedCluster } from '../defaults.js';
import type { NetworkPluginStrategy } from './strategy.js';

export const isOverlay = (cluster: ResolvedCluster): boolean => cluster.network.networkPluginMode === 'overlay';

export const azureStrategy: NetworkPluginStrategy = {
  name: 'azure',
  label: (c) => (isOverlay(c) ? 'Azure CNI Overlay' : 'Azure CNI (node subnet)'),
  ipsPerNode: (pool, c) => (isOverlay(c) || pool.podSubnetID ? 1 : pool.maxPods + 1),
  carvesPodCidr: (c) => isOverlay(c),
  usesRouteTable: () => false,
  assignsPodIps: () => true,
  maxClusterNodes: () => undefined,
};
