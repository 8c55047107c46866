// kubenet: one subnet address per node, a /24 of the pod CIDR per node bridged on cbr0 with host-local IPAM, and
// a UDR per node in the cluster's route table, which caps the cluster at 400 nodes (configure-kubenet.md;
// docs/aks-rules.md §3.4, §3.5, §2.2 N9).
import { DEFAULT_POD_CIDR, type Conflist, type NetworkModel } from './model.js';

/** AgentBaker's kubenet conflist: bridge cbr0 with host-local IPAM over the node's podCIDR, then portmap. */
function kubenetConflist(podCidr: string): Conflist {
  const conf = {
    cniVersion: '0.3.1',
    name: 'kubenet',
    plugins: [
      {
        type: 'bridge',
        bridge: 'cbr0',
        mtu: 1500,
        addIf: 'eth0',
        isGateway: true,
        ipMasq: false,
        promiscMode: true,
        hairpinMode: false,
        ipam: { type: 'host-local', subnet: podCidr, routes: [{ dst: '0.0.0.0/0' }] },
      },
      { type: 'portmap', capabilities: { portMappings: true }, externalSetMarkChain: 'KUBE-MARK-MASQ' },
    ],
  };
  return { file: '10-containerd-net.conflist', text: `${JSON.stringify(conf, null, 4)}\n` };
}

export const kubenet: NetworkModel = {
  id: 'kubenet',
  plugin: 'kubenet',
  label: 'kubenet',
  podCidr: 'per-node',
  defaults: { podCidr: DEFAULT_POD_CIDR, maxPods: 110 },
  rules: {
    // C9: the pod CIDR clear of the VNet's address space; K2: /24s for every node; N5: no Azure NPM;
    // N10, S5: the route table (one cluster per subnet, routeTables/join/action).
    enables: ['C9', 'N5', 'N10', 'S5', 'K2'],
    windowsPools: false,
    networkModes: false,
    podCidrUpdate: 'fixed',
    migratesTo: ['azure-overlay'],
  },
  // Dual-stack from Kubernetes 1.21.2 (configure-kubenet-dual-stack.md).
  dualStack: { minKubernetesVersion: '1.21.2' },
  nodes: { carvesPodCidr: true, maxClusterNodes: 400 },
  nic: { secondaryIps: () => 0, routeTable: true },
  // A node without a /24 gets no conflist (its dir starts as BYO CNI's would).
  nodeConflist: (node) => (node.podCidr ? kubenetConflist(node.podCidr) : undefined),
  podAddresses: { from: 'node-pod-cidr', ipam: 'host-local' },
  kubernetes: { nodeLabels: {}, ipMasqAgent: true },
  wiring: 'bridge',
};
