// Azure CNI Overlay (networkPlugin azure, networkPluginMode overlay): nodes cost one subnet address and get a /24
// of the pod CIDR, which CNS hands out; the pod CIDR must miss the VNet's subnets (C9b) and may only grow (U3).
import { AZURE_CNI_RULES, azureConflist } from './azure-cni.js';
import { DEFAULT_POD_CIDR, type NetworkModel } from './model.js';

const IPAM = 'azure-cns';

export const azureOverlay: NetworkModel = {
  id: 'azure-overlay',
  plugin: 'azure',
  mode: 'overlay',
  label: 'Azure CNI Overlay',
  podCidr: 'per-node',
  defaults: { podCidr: DEFAULT_POD_CIDR, maxPods: 250, networkDataplane: 'azure' },
  rules: {
    ...AZURE_CNI_RULES,
    enables: ['C9b', 'N11', 'K3'],
    podCidrUpdate: 'grow-only',
    migratesTo: [],
  },
  // Dual-stack from Kubernetes 1.26.3 (azure-cni-overlay.md, dual-stack prerequisites).
  dualStack: { minKubernetesVersion: '1.26.3' },
  nodes: { carvesPodCidr: true },
  nic: { secondaryIps: () => 0, routeTable: false },
  nodeConflist: () => azureConflist(IPAM),
  podAddresses: { from: 'node-pod-cidr', ipam: IPAM },
  kubernetes: { nodeLabels: { 'kubernetes.azure.com/azure-cni-overlay': 'true' }, ipMasqAgent: true },
  wiring: 'overlay',
};
