// What a network model is: one AKS way of giving pods a network (BYO CNI, kubenet, Azure CNI node subnet,
// Azure CNI Overlay), declared in one module each, as data where it can be. index.ts maps the wire values
// (networkPlugin, networkPluginMode) to the model; everything else asks the model, never the plugin name.
// Azure CNI with a pod subnet is a per-pool variant of the node-subnet model, not a model of its own: a pool's
// podSubnetID gives its nodes pod-subnet addresses (src/aks/pod-subnet.ts), one node-subnet address each, CNS as the
// IPAM, and the same transparent wiring with the VNet routing the pods' addresses to their node.
import type { ResolvedPool } from '../defaults.js';

export type NetworkModelId = 'byo-cni' | 'kubenet' | 'azure-node-subnet' | 'azure-overlay';

/** The node mask of per-node pod CIDRs: AKS fixes it at /24 for kubenet and overlay (docs/aks-rules.md §3.4). */
export const NODE_POD_CIDR_MASK = 24;
export const NODE_POD_CIDR_SIZE = 256;

/** The node mask of per-node IPv6 pod CIDRs on dual-stack clusters: a /80 each (docs/aks-rules.md §9.2). */
export const NODE_POD_CIDR_MASK_IPV6 = 80;

/** The pod CIDR AKS gives the models that carve one when none is given (docs/aks-rules.md §3.7). */
export const DEFAULT_POD_CIDR = '10.244.0.0/16';

/** A CNI network config file as AKS writes it into a node's conf dir (AgentBaker). */
export interface Conflist {
  file: string;
  text: string;
}

/** The IPAM plugin of the node's CNI: its exhaustion error is what a pod sees when the node runs out of addresses. */
export type PodIpam = 'host-local' | 'azure-cns' | 'azure-vnet-ipam';

/** Where pod addresses come from; cluster/kubelet/ipam.ts hands them out. */
export type PodAddressSource =
  /** The node's /24 of the pod CIDR (node.spec.podCIDR), handed out by the model's IPAM. */
  | { from: 'node-pod-cidr'; ipam: PodIpam }
  /** The node NIC's pre-allocated secondary IPs on the node subnet. */
  | { from: 'node-subnet'; ipam: PodIpam }
  /** The user's CNI: the IPAM of the node's conf dir, run or emulated. */
  | { from: 'user-cni' };

/**
 * What the rule table (rules.ts) reads of the model. Rows marked `perModel` run only for the models that list
 * their id in `enables`; the flags are read by rows that apply to every model (an unknown plugin has no model:
 * those rows judge it as if every flag were false).
 */
export interface RuleHooks {
  /** Model-specific rows of the rule table this model is judged by. */
  readonly enables: readonly string[];
  /** Windows agent pools are allowed (N7 refuses them otherwise). */
  readonly windowsPools: boolean;
  /** networkMode may be given (N6 refuses it otherwise; N6b checks its value). */
  readonly networkModes: boolean;
  /** How the pod CIDR may change on update: not at all (U1), only to a superset (U3), freely. */
  readonly podCidrUpdate: 'fixed' | 'grow-only' | 'free';
  /** Models the cluster may migrate to in place (U1 lets the plugin change, U2 checks the requirements). */
  readonly migratesTo: readonly NetworkModelId[];
}

export interface NetworkModel {
  readonly id: NetworkModelId;
  /** The wire values that select the model (index.ts): networkPlugin, and networkPluginMode for a mode. */
  readonly plugin: string;
  readonly mode?: string;
  /** A short human name: "kubenet", "Azure CNI (node subnet)", "Azure CNI Overlay", "BYO CNI". */
  readonly label: string;
  /**
   * What networkProfile.podCidr is to the model: carved into per-node /24s, the user's CNI's range (optional,
   * recorded, returned from api-version 2026-01-01), or ignored (N2 warns).
   */
  readonly podCidr: 'per-node' | 'user' | 'ignored';
  /** Defaults resolveNetworkProfile and resolvePool apply (docs/aks-rules.md §2.4 M2, §3.7). */
  readonly defaults: {
    readonly podCidr?: string;
    readonly maxPods: number;
    /** maxPods of a pool with a pod subnet, where it differs. */
    readonly maxPodsWithPodSubnet?: number;
    /** `networkDataplane` AKS reports when none is given, in the api-versions that have it (docs/aks-rules.md §3.7). */
    readonly networkDataplane?: 'azure';
  };
  readonly rules: RuleHooks;
  /**
   * Dual-stack (ipFamilies [IPv4, IPv6]): the first Kubernetes version AKS allows it with (D6), or undefined
   * where AKS refuses it (D2). Nodes then get an IPv6 address from their subnet's IPv6 prefix, and models that
   * carve pod CIDRs give each node a /80 of the IPv6 pod CIDR too (docs/aks-rules.md §9).
   */
  readonly dualStack?: { readonly minKubernetesVersion: string };
  /** Node address planning (aks/planner.ts, aks/capacity.ts). */
  readonly nodes: {
    /** Each node gets a /24 of the pod CIDR (node.spec.podCIDR). */
    readonly carvesPodCidr: boolean;
    /** Hard cap on the cluster's nodes (kubenet's 400 UDRs; N9), if any. */
    readonly maxClusterNodes?: number;
  };
  /** What AKS does in Microsoft.Network for the model's nodes (providers/containerservice). */
  readonly nic: {
    /** Secondary IPs pre-allocated on a node's NIC for its pods (Azure CNI node subnet: maxPods). */
    secondaryIps(pool: ResolvedPool): number;
    /** AKS keeps a route table with one UDR per node, and tags the NICs so that a second cluster on the subnet is refused (N10). */
    readonly routeTable: boolean;
  };
  /** The conflist AKS writes into a new node's conf dir, or undefined: the dir starts with what the user installed. */
  nodeConflist(node: { podCidr?: string; podSubnetId?: string }): Conflist | undefined;
  readonly podAddresses: PodAddressSource;
  /** What the cluster's Kubernetes objects show of the model (cluster/cloud/nodes.ts, cluster/cloud/addons.ts). */
  readonly kubernetes: {
    readonly nodeLabels: Readonly<Record<string, string>>;
    /** AKS runs azure-ip-masq-agent. */
    readonly ipMasqAgent: boolean;
  };
  /**
   * How the data plane attaches pods: a cbr0 bridge over the node's /24 (kubenet), azure-vnet's transparent
   * mode with the pod addresses on the NIC (node subnet), routed veths over the node's /24 with Azure's
   * overlay routing the /24s between the cluster's nodes (overlay), or the user's CNI (none).
   * Declared here, implemented in dataplane/ (docs/architecture.md §6).
   */
  readonly wiring: 'bridge' | 'transparent' | 'overlay' | 'none';
}

/** Addresses one node takes from its node subnet: its own, plus the secondary IPs on its NIC. */
export function ipsPerNode(model: NetworkModel, pool: ResolvedPool): number {
  return 1 + model.nic.secondaryIps(pool);
}
