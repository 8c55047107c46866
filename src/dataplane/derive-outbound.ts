// The topology's outbound SNAT (docs/dataplane.md §17), read from Microsoft.Network: a subnet's NAT gateway sends
// everything of the subnet from its public IPs, and it takes precedence over a load balancer's outbound rule (the
// NAT gateway docs: "NAT gateway takes precedence over other outbound scenarios"); an AKS cluster's `kubernetes` load
// balancer sends its nodes (the outbound rule's backend pool: every node NIC) from the rule's frontend IPs.
import { Cidr, IpAddress } from '../net/ip.js';
import type { ClusterRecord } from '../model/cluster-records.js';
import type { LoadBalancer, NatGateway, PublicIpAddress, PublicIpPrefix, Subnet } from '../providers/network/models.js';
import { childrenOf, TYPES } from '../providers/network/resource.js';
import type { Store } from '../store/store.js';
import type { OutboundSnat, VnetTopology } from './topology.js';

/** A prefix gives at most this many addresses here (a NAT gateway takes at most 16; an outbound /28 is 16). */
const PREFIX_ADDRESSES = 16;

const ipv4 = (ip: string | undefined): ip is string => ip !== undefined && IpAddress.tryParse(ip)?.family === 4;

function pipAddresses(store: Store, id: string): string[] {
  const ip = store.get<PublicIpAddress>(id)?.properties.ipAddress;
  return ipv4(ip) ? [ip] : [];
}

function prefixAddresses(store: Store, id: string): string[] {
  const p = store.get<PublicIpPrefix>(id)?.properties.ipPrefix;
  const cidr = p ? safeCidr(p) : undefined;
  if (!cidr || cidr.family !== 4) return [];
  const n = Math.min(Number(cidr.size), PREFIX_ADDRESSES);
  return Array.from({ length: n }, (_, i) => cidr.addressAt(i).toString());
}

function safeCidr(text: string): Cidr | undefined {
  try {
    return Cidr.parse(text);
  } catch {
    return undefined;
  }
}

/** The NAT gateways of the VNet's subnets; returns the prefixes they cover (their hosts leave through them). */
function natGatewaySnat(store: Store, v: VnetTopology): { snat: OutboundSnat[]; covered: Cidr[] } {
  const snat: OutboundSnat[] = [];
  const covered: Cidr[] = [];
  for (const s of v.subnets) {
    const gwId = store.get<Subnet>(s.id)?.properties.natGateway?.id;
    const gw = gwId ? store.get<NatGateway>(gwId) : undefined;
    if (!gw || gw.type !== TYPES.natGateway) continue;
    const publicIps = [
      ...gw.properties.publicIpAddresses.flatMap((r) => pipAddresses(store, r.id)),
      ...gw.properties.publicIpPrefixes.flatMap((r) => prefixAddresses(store, r.id)),
    ];
    snat.push({ id: gw.id, sources: [s.prefix], publicIps });
    const c = safeCidr(s.prefix);
    if (c) covered.push(c);
  }
  return { snat, covered };
}

/**
 * The load balancers of the node resource group of each cluster with nodes in this VNet, with those nodes' addresses
 * (every node NIC is in the managed load balancer's pools; docs/dataplane.md §16, §17); `skip` leaves nodes out.
 */
export function clusterLoadBalancers(store: Store, v: VnetTopology, skip: (ip: string) => boolean = () => false): Array<{ nodes: string[]; lb: LoadBalancer }> {
  const byCluster = new Map<string, string[]>();
  for (const h of v.hosts) if (h.node && !skip(h.ip)) byCluster.set(h.node.clusterId, [...(byCluster.get(h.node.clusterId) ?? []), h.ip]);
  const out: Array<{ nodes: string[]; lb: LoadBalancer }> = [];
  for (const [clusterId, nodes] of byCluster) {
    const cluster = store.get<ClusterRecord>(clusterId);
    if (!cluster) continue;
    const prefix = `/subscriptions/${cluster.subscriptionId}/resourceGroups/${cluster.nodeResourceGroup}/providers/Microsoft.Network/loadBalancers/`;
    for (const lb of childrenOf<LoadBalancer>(store, prefix)) if (lb.type === TYPES.loadBalancer) out.push({ nodes, lb });
  }
  return out;
}

/** Each cluster's outbound rules on the load balancers of its node resource group, over its nodes in this VNet. */
function outboundRuleSnat(store: Store, v: VnetTopology, covered: Cidr[]): OutboundSnat[] {
  const out: OutboundSnat[] = [];
  for (const { nodes, lb } of clusterLoadBalancers(store, v, (ip) => covered.some((c) => c.contains(IpAddress.parse(ip))))) {
    for (const rule of lb.properties.outboundRules) {
      const publicIps = rule.properties.frontendIPConfigurations.flatMap((ref) => {
        const f = lb.properties.frontendIPConfigurations.find((x) => x.id.toLowerCase() === ref.id.toLowerCase());
        if (f?.properties.publicIPAddress) return pipAddresses(store, f.properties.publicIPAddress.id);
        if (f?.properties.publicIPPrefix) return prefixAddresses(store, f.properties.publicIPPrefix.id);
        return [];
      });
      out.push({ id: rule.id, sources: [...nodes].sort(), publicIps });
    }
  }
  return out;
}

export function addOutbound(store: Store, vnets: VnetTopology[]): void {
  for (const v of vnets) {
    const nat = natGatewaySnat(store, v);
    const outbound = [...nat.snat, ...outboundRuleSnat(store, v, nat.covered)].filter((s) => s.publicIps.length > 0 && s.sources.length > 0);
    if (outbound.length > 0) v.outbound = outbound;
  }
}
