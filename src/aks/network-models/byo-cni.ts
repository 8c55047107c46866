// BYO CNI (networkPlugin none): AKS gives nodes an address and nothing else (use-byo-cni.md;
// docs/aks-rules.md §2.2 N13): no pod IPs, no per-node pod CIDR, no route table, no conflist; the user's CNI
// attaches pods and maxPods only limits scheduling. The pod CIDR is optional and only recorded (N3 warns when
// it is missing).
import type { NetworkModel } from './model.js';

export const byoCni: NetworkModel = {
  id: 'byo-cni',
  plugin: 'none',
  label: 'BYO CNI',
  podCidr: 'user',
  // Real BYO CNI clusters report maxPods 250, the per-node maximum (docs/aks-rules.md §3.7), not the kubelet's 110.
  defaults: { maxPods: 250 },
  rules: {
    enables: ['N3', 'N4'],
    windowsPools: false,
    networkModes: false,
    podCidrUpdate: 'free',
    migratesTo: [],
  },
  // Dual-stack from Kubernetes 1.21.2 (decided: the AKS-wide minimum, docs/aks-rules.md §9.1).
  dualStack: { minKubernetesVersion: '1.21.2' },
  nodes: { carvesPodCidr: false },
  nic: { secondaryIps: () => 0, routeTable: false },
  nodeConflist: () => undefined,
  podAddresses: { from: 'user-cni' },
  kubernetes: { nodeLabels: {}, ipMasqAgent: false },
  wiring: 'none',
};
