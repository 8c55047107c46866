// The networks a cluster's VNet is joined to (peered VNets, on-premises ranges over ExpressRoute or a VPN), and
// where the cluster's own ranges collide with them. AKS does not check these at create (it cannot see on-premises);
// its docs ask the user to plan for them, so `aksemu plan` warns (docs/aks-rules.md §2.1 C18, C19).
import type { Cidr } from '../net/ip.js';
import type { ConnectedKind, ConnectedNetwork, SubnetInfo } from './environment.js';
import type { NetworkModel } from './network-models/model.js';
import type { ParsedNetwork } from './parsed-network.js';
import { parseCidrField, vnetCidrs } from './parsed-network.js';

/** One of the cluster's ranges, with what an overlap does to traffic (the warning's second half). */
interface ClusterRange {
  label: string;
  target: string;
  cidr: Cidr;
  effect: Record<ConnectedKind, string>;
}

export interface ConnectedOverlap {
  range: ClusterRange;
  network: ConnectedNetwork;
  prefix: Cidr;
}

const VNET_EFFECT: Record<ConnectedKind, string> = {
  peered: 'Azure refuses to peer virtual networks whose address spaces overlap (VnetAddressSpacesOverlap)',
  'on-premises': 'the same addresses on both sides of the gateway cannot be routed to each other',
};
const POD_EFFECT: Record<ConnectedKind, string> = {
  peered: "pods cannot reach the peered VNet's hosts at those addresses, and their replies to pods are misrouted",
  'on-premises': 'pods cannot reach the on-premises hosts at those addresses, and their replies to pods are misrouted',
};
const SERVICE_EFFECT: Record<ConnectedKind, string> = {
  peered: "kube-proxy treats traffic to those addresses as Service traffic, so the peered VNet's hosts there are unreachable from the cluster",
  'on-premises': 'kube-proxy treats traffic to those addresses as Service traffic, so the on-premises hosts there are unreachable from the cluster',
};

/**
 * The cluster's ranges that the connected networks must avoid: the VNet's address space (it holds the nodes, and
 * with Azure CNI node subnet the pods), the pod CIDR where pods take addresses outside the VNet (kubenet, overlay,
 * BYO CNI), and the service CIDR; IPv6 ranges of a dual-stack cluster too.
 */
function clusterRanges(subnets: SubnetInfo[], model: NetworkModel | undefined, parsed: ParsedNetwork): ClusterRange[] {
  const out: ClusterRange[] = [];
  const seen = new Set<string>();
  for (const subnet of subnets) {
    for (const cidr of vnetCidrs(subnet)) {
      if (seen.has(String(cidr))) continue;
      seen.add(String(cidr));
      out.push({ label: `address space of virtual network '${subnet.vnet.name}'`, target: 'agentPoolProfile.vnetSubnetID', cidr, effect: VNET_EFFECT });
    }
  }
  if (model && model.podCidr !== 'ignored') {
    for (const pod of [parsed.podCidr.value, parsed.podCidrIPv6.value]) {
      if (pod) out.push({ label: 'pod CIDR', target: 'networkProfile.podCIDR', cidr: pod, effect: POD_EFFECT });
    }
  }
  for (const svc of [parsed.serviceCidr.value, parsed.serviceCidrIPv6.value]) {
    if (svc) out.push({ label: 'service CIDR', target: 'networkProfile.serviceCIDR', cidr: svc, effect: SERVICE_EFFECT });
  }
  return out;
}

/** Every (cluster range, connected prefix) pair that overlaps, for the networks of one kind. */
export function connectedOverlaps(
  kind: ConnectedKind,
  networks: readonly ConnectedNetwork[],
  subnets: SubnetInfo[],
  model: NetworkModel | undefined,
  parsed: ParsedNetwork,
): ConnectedOverlap[] {
  const out: ConnectedOverlap[] = [];
  const ranges = clusterRanges(subnets, model, parsed);
  for (const network of networks) {
    if (network.kind !== kind) continue;
    for (const raw of network.addressPrefixes) {
      const prefix = parseCidrField(raw).value;
      if (!prefix) continue;
      for (const range of ranges) if (range.cidr.overlaps(prefix)) out.push({ range, network, prefix });
    }
  }
  return out;
}
