// Azure CNI, node subnet (legacy): pods take addresses of the node subnet, every node pre-allocating maxPods
// secondary IPs on its NIC, so a node costs maxPods + 1 subnet addresses (docs/aks-rules.md §3.6, §6 X9); the
// pod CIDR is ignored (N2 warns). Pools with a pod subnet (podSubnetID) cost one node-subnet address per node,
// default to 110 pods, and take their pods' addresses from the pod subnet in batches or /28 blocks
// (src/aks/pod-subnet.ts, docs/aks-rules.md §3.8).
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
  // A node with a pod subnet gets its addresses from CNS (dynamic or static block allocation), as overlay's do.
  nodeConflist: (node) => azureConflist(node.podSubnetId ? 'azure-cns' : IPAM),
  podAddresses: { from: 'node-subnet', ipam: IPAM },
  kubernetes: { nodeLabels: {}, ipMasqAgent: true },
  wiring: 'transparent',
};
