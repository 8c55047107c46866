// Azure CNI, node subnet (legacy): pods take addresses of the node subnet, every node pre-allocating maxPods
// secondary IPs on its NIC, so a node costs maxPods + 1 subnet addresses (docs/aks-rules.md §3.6, §6 X9); the
// pod CIDR is ignored (N2 warns). Pools with a pod subnet cost one address per node and default to 110 pods
// (a pod-subnet model's work, not built; see model.ts).
import { AZURE_CNI_RULES, azureConflist } from './azure-cni.js';
import type { NetworkModel } from './model.js';

const IPAM = 'azure-vnet-ipam';

export const azureNodeSubnet: NetworkModel = {
  id: 'azure-node-subnet',
  plugin: 'azure',
  label: 'Azure CNI (node subnet)',
  podCidr: 'ignored',
  defaults: { maxPods: 30, maxPodsWithPodSubnet: 110, networkDataplane: 'azure' },
  rules: {
    ...AZURE_CNI_RULES,
    enables: ['N2', 'N11'],
    podCidrUpdate: 'free',
    migratesTo: ['azure-overlay'],
  },
  nodes: { carvesPodCidr: false },
  nic: { secondaryIps: (pool) => (pool.podSubnetID ? 0 : pool.maxPods), routeTable: false },
  nodeConflist: () => azureConflist(IPAM),
  podAddresses: { from: 'node-subnet', ipam: IPAM },
  kubernetes: { nodeLabels: {}, ipMasqAgent: true },
  wiring: 'transparent',
};
