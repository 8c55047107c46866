// What the data plane must build, as plain data derived from the control plane's state: VNets with their
// subnets, route tables (UDRs), NSGs and hosts (AKS nodes and VMs). The data plane converges on it; it never
// reads the store itself. Pods are attached one at a time (dataplane.ts), not listed here.
import type { AzureDnsZone } from './azure-dns-zone.js';

export interface Topology {
  vnets: VnetTopology[];
}

export interface VnetTopology {
  /** ARM id of the virtual network (lower case is fine: compared case-insensitively). */
  id: string;
  addressSpace: string[];
  subnets: SubnetTopology[];
  hosts: HostTopology[];
  /**
   * The VNets this one is peered with, Connected and with virtual network access allowed on both sides, with their
   * IPv4 address spaces: the router routes those spaces to the remote VNet's router (docs/dataplane.md §3.7).
   */
  peerings?: Array<{ vnetId: string; addressSpace: string[] }>;
  /**
   * Load-balancer frontends whose backends are hosts of this VNet (an AKS cluster's `kubernetes` and
   * `kubernetes-internal` load balancers: their pool is the cluster's nodes), with the rules that use them
   * (docs/dataplane.md §16).
   */
  frontends?: LoadBalancerFrontend[];
  /**
   * Outbound SNAT to the internet (docs/dataplane.md §17): NAT gateways of its subnets first, then the outbound
   * rules of the clusters' `kubernetes` load balancers.
   */
  outbound?: OutboundSnat[];
  /** What the VNet's Azure DNS (168.63.129.16) answers; none: it answers nothing (NXDOMAIN). */
  dns?: AzureDnsZone;
}

export interface SubnetTopology {
  id: string;
  name: string;
  /** IPv4 prefix, e.g. 10.224.0.0/16 (the gateway is the first usable address, .1). */
  prefix: string;
  /** The associated route table's routes (kubenet: one per node, podCIDR → node IP). */
  routes: UdrRoute[];
  /** The associated NSG's effective rules, custom and default, in priority order. */
  nsg?: NsgTopology;
}

export interface UdrRoute {
  name: string;
  prefix: string;
  nextHopType: 'VirtualAppliance' | 'VnetLocal' | 'Internet' | 'None' | 'VirtualNetworkGateway';
  nextHopIp?: string;
}

export interface NsgTopology {
  id: string;
  rules: NsgRule[];
}

export interface NsgRule {
  name: string;
  priority: number;
  direction: 'Inbound' | 'Outbound';
  access: 'Allow' | 'Deny';
  /** Tcp, Udp, Icmp or * (Azure's spelling). */
  protocol: string;
  /** CIDRs, addresses, `*`, or service tags (VirtualNetwork, Internet, AzureLoadBalancer). */
  sourcePrefixes: string[];
  sourcePorts: string[];
  destinationPrefixes: string[];
  destinationPorts: string[];
}

export interface HostTopology {
  /** ARM id of the NIC's owner: the VM, or the AKS node (`<cluster id>/nodes/<name>`). */
  id: string;
  kind: 'node' | 'vm';
  name: string;
  subnetId: string;
  ip: string;
  node?: NodeTopology;
}

export interface NodeTopology {
  clusterId: string;
  /**
   * How the node's pods are wired (netns/wiring/): `bridge` (kubenet: pods on cbr0 with the node's /24),
   * `transparent` (Azure CNI node subnet: azure-vnet's transparent mode, pods on VNet addresses), `overlay`
   * (Azure CNI Overlay: routed veths with the node's /24, which the VNet routes to the node for the cluster's
   * own hosts), `none` (BYO CNI: the user's CNI plugins attach the pods).
   */
  wiring: 'bridge' | 'transparent' | 'overlay' | 'none';
  /** bridge, overlay: the node's /24. */
  podCidr?: string;
  /** bridge, overlay: the cluster's pod CIDR (ip-masq-agent's nonMasqueradeCIDRs). */
  clusterPodCidr?: string;
  /** transparent: the node NIC's pre-allocated pod addresses. */
  secondaryIps?: string[];
  /**
   * transparent with a pod subnet (Azure CNI dynamic or static block allocation): the pod subnet's IPv4 prefix and
   * the addresses the node holds of it, which the VNet routes to the node (netns/pod-subnet-routes.ts).
   */
  podSubnet?: { prefix: string; ips: string[] };
}

export interface LoadBalancerFrontend {
  /** The frontend's ARM id. */
  id: string;
  /** Its IPv4 address: a public IP's (from the emulated public range) or a private one of a subnet of this VNet. */
  ip: string;
  public: boolean;
  /** The subnet of a private frontend. */
  subnetId?: string;
  rules: Array<{ protocol: 'tcp' | 'udp'; frontendPort: number; backendPort: number; floatingIp: boolean; probe?: LoadBalancerProbe }>;
  /** The backend pool's hosts' addresses: the cluster's nodes in this VNet. */
  backends: string[];
}

/** A rule's health probe, as the load balancer asks each backend node. */
export interface LoadBalancerProbe {
  protocol: 'Tcp' | 'Http' | 'Https';
  port: number;
  requestPath?: string;
}

/** One outbound resource's SNAT: new flows to the internet from `sources` leave with one of `publicIps`. */
export interface OutboundSnat {
  /** The NAT gateway's or the outbound rule's ARM id. */
  id: string;
  /** IPv4 addresses or prefixes: a NAT gateway's subnet, or the cluster's node addresses. */
  sources: string[];
  /** The public IPv4 addresses it sends from (a prefix's addresses, each). */
  publicIps: string[];
}
