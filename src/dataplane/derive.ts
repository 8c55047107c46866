// The topology the data plane converges on, read from the control plane's store: every VNet of every
// subscription (managed ones in node resource groups included), each subnet's route table and NSG
// (default rules included), and the hosts on them — AKS nodes from the node records, VMs from
// Microsoft.Compute. Pure: reads only, same store in, same topology out.
import { apiServerAddress, internalDomainSuffix } from '../aks/azure-dns.js';
import { networkModelOf } from '../aks/network-models/index.js';
import { Cidr, IpAddress } from '../net/ip.js';
import { primaryAddress, primaryNicId, virtualMachinesIn } from '../providers/compute/vmModel.js';
import { CLUSTER_TYPE, NODES_PREFIX, type ClusterRecord, type NodeRecord } from '../model/cluster-records.js';
import type { LoadBalancer, NetworkSecurityGroup, PublicIpAddress, SecurityRule, Subnet, VirtualNetwork } from '../providers/network/models.js';
import { findNetworkInterface } from '../providers/network/nicModel.js';
import { defaultSecurityRules, findNetworkSecurityGroup } from '../providers/network/nsgModel.js';
import { peeringsOf } from '../providers/network/peeringModel.js';
import { childrenOf, parentOf, TYPES } from '../providers/network/resource.js';
import { findRouteTable } from '../providers/network/routeTableModel.js';
import { findSubnet, prefixesOf, subnetsOf } from '../providers/network/subnetModel.js';
import type { ResourceGroup } from '../providers/resources/resourceGroups.js';
import type { Store } from '../store/store.js';
import type {
  HostTopology,
  LoadBalancerFrontend,
  LoadBalancerProbe,
  NodeTopology,
  NsgRule,
  NsgTopology,
  SubnetTopology,
  Topology,
  UdrRoute,
  VnetTopology,
} from './topology.js';
import { sameId } from '../ids/compare.js';
import { addOutbound, clusterLoadBalancers } from './derive-outbound.js';

function ipv4(prefix: string): boolean {
  try {
    return Cidr.parse(prefix, { canonical: false }).family === 4;
  } catch {
    return false;
  }
}

const UDR_HOPS: ReadonlySet<string> = new Set(['VirtualAppliance', 'VnetLocal', 'Internet', 'None', 'VirtualNetworkGateway']);

function routesOf(store: Store, subnet: Subnet): UdrRoute[] {
  const table = subnet.properties.routeTable && findRouteTable(store, subnet.properties.routeTable.id);
  if (!table) return [];
  // Service-tag prefixes (AzureCloud…) and IPv6 routes have nothing to program in an IPv4 router.
  return table.properties.routes
    .filter((r) => ipv4(r.properties.addressPrefix) && UDR_HOPS.has(r.properties.nextHopType))
    .map((r) => ({
      name: r.name,
      prefix: r.properties.addressPrefix,
      nextHopType: r.properties.nextHopType as UdrRoute['nextHopType'],
      ...(r.properties.nextHopType === 'VirtualAppliance' && r.properties.nextHopIpAddress ? { nextHopIp: r.properties.nextHopIpAddress } : {}),
    }));
}

/** A rule's singular and plural members are one list (Azure accepts either). */
function both(one: string | undefined, many: string[]): string[] {
  return one !== undefined && one !== '' ? [one, ...many] : [...many];
}

function nsgRule(rule: SecurityRule): NsgRule {
  const p = rule.properties;
  return {
    name: rule.name,
    priority: p.priority,
    direction: p.direction,
    access: p.access,
    protocol: p.protocol,
    sourcePrefixes: both(p.sourceAddressPrefix, p.sourceAddressPrefixes),
    sourcePorts: both(p.sourcePortRange, p.sourcePortRanges),
    destinationPrefixes: both(p.destinationAddressPrefix, p.destinationAddressPrefixes),
    destinationPorts: both(p.destinationPortRange, p.destinationPortRanges),
  };
}

/** Custom and default rules together, by priority (Inbound before Outbound at equal priority). */
export function effectiveRules(nsg: NetworkSecurityGroup): NsgRule[] {
  return [...nsg.properties.securityRules, ...defaultSecurityRules(nsg)]
    .map(nsgRule)
    .sort((a, b) => a.priority - b.priority || a.direction.localeCompare(b.direction));
}

function nsgOf(store: Store, subnet: Subnet): NsgTopology | undefined {
  const nsg = subnet.properties.networkSecurityGroup && findNetworkSecurityGroup(store, subnet.properties.networkSecurityGroup.id);
  return nsg ? { id: nsg.id, rules: effectiveRules(nsg) } : undefined;
}

function subnetTopology(store: Store, subnet: Subnet): SubnetTopology | undefined {
  const prefix = prefixesOf(subnet).find(ipv4);
  if (prefix === undefined) return undefined;
  const nsg = nsgOf(store, subnet);
  return { id: subnet.id, name: subnet.name, prefix, routes: routesOf(store, subnet), ...(nsg ? { nsg } : {}) };
}

/** The data-plane wiring of a cluster's nodes: its network model's. */
function nodeWiring(cluster: ClusterRecord): NodeTopology['wiring'] {
  return networkModelOf(cluster.resolved)?.wiring ?? 'none';
}

/** A node's pod subnet, when its pool has one and the subnet still exists with an IPv4 prefix. */
function podSubnetOf(store: Store, node: NodeRecord): Pick<NodeTopology, 'podSubnet'> {
  if (!node.podSubnetId || !node.podSubnetIps?.length) return {};
  const subnet = findSubnet(store, node.podSubnetId);
  const prefix = subnet && prefixesOf(subnet).find(ipv4);
  return prefix ? { podSubnet: { prefix, ips: [...node.podSubnetIps] } } : {};
}

/** The host id of an AKS node in the topology (HostTopology.id, PodAttachment.hostId). */
export function nodeHostId(clusterId: string, node: string): string {
  return `${clusterId}/nodes/${node}`;
}

function nodeHosts(store: Store): HostTopology[] {
  const clusters = new Map<string, ClusterRecord | undefined>();
  const hosts: HostTopology[] = [];
  for (const { value: node } of store.list<NodeRecord>(NODES_PREFIX)) {
    const key = node.clusterId.toLowerCase();
    if (!clusters.has(key)) {
      const record = store.get<ClusterRecord>(node.clusterId);
      clusters.set(key, record && record.id.toLowerCase().includes(`/providers/${CLUSTER_TYPE.toLowerCase()}/`) ? record : undefined);
    }
    const cluster = clusters.get(key);
    if (!cluster || node.ip.includes(':')) continue;
    const wiring = nodeWiring(cluster);
    const clusterPodCidr = cluster.resolved.network.podCidr;
    const topology: NodeTopology = {
      clusterId: cluster.id,
      wiring,
      ...(node.podCidr ? { podCidr: node.podCidr } : {}),
      ...(clusterPodCidr && wiring !== 'transparent' ? { clusterPodCidr } : {}),
      ...(node.secondaryIps && node.secondaryIps.length > 0 ? { secondaryIps: [...node.secondaryIps] } : {}),
      ...podSubnetOf(store, node),
    };
    hosts.push({ id: nodeHostId(cluster.id, node.name), kind: 'node', name: node.name, subnetId: node.subnetId, ip: node.ip, node: topology });
  }
  return hosts;
}

function vmHosts(store: Store, groups: ResourceGroup[]): HostTopology[] {
  const hosts: HostTopology[] = [];
  for (const group of groups) {
    for (const vm of virtualMachinesIn(store, group.id)) {
      if (vm.properties.provisioningState === 'Deleting') continue;
      const nicId = primaryNicId(vm);
      const nic = nicId === undefined ? undefined : findNetworkInterface(store, nicId);
      const address = nic && primaryAddress(nic);
      if (!address || address.ip.includes(':')) continue;
      hosts.push({ id: vm.id, kind: 'vm', name: vm.name, subnetId: address.subnetId, ip: address.ip });
    }
  }
  return hosts;
}

const DNS_LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * Each VNet's Azure DNS zone: every host as `<name>.<suffix>` under the internal suffixes of the VNet — its resource
 * group's, and the node resource group's of each cluster with nodes in it (the suffix those nodes' resolv.conf
 * searches, aks/azure-dns.ts) — and every cluster's API server FQDN, a public name Azure DNS resolves.
 */
function addDnsZones(store: Store, vnets: VnetTopology[], groupOf: Map<string, string>): void {
  const fqdns: Array<[string, string[]]> = [];
  const clusters = new Map<string, ClusterRecord>();
  for (const v of vnets) {
    for (const h of v.hosts) {
      const id = h.node?.clusterId;
      if (id && !clusters.has(id.toLowerCase())) {
        const c = store.get<ClusterRecord>(id);
        if (c) clusters.set(id.toLowerCase(), c);
      }
    }
  }
  for (const c of clusters.values()) if (c.fqdn) fqdns.push([c.fqdn.toLowerCase(), [apiServerAddress(c.id)]]);
  for (const v of vnets) {
    const suffixes = new Set([internalDomainSuffix(groupOf.get(v.id.toLowerCase()) ?? '')]);
    for (const h of v.hosts) {
      const c = h.node && clusters.get(h.node.clusterId.toLowerCase());
      if (c) suffixes.add(internalDomainSuffix(c.nodeResourceGroup));
    }
    const names = new Map<string, string[]>(fqdns);
    for (const h of v.hosts) {
      const label = h.name.toLowerCase();
      if (!DNS_LABEL.test(label)) continue;
      for (const s of suffixes) names.set(`${label}.${s}`, [...(names.get(`${label}.${s}`) ?? []), h.ip]);
    }
    v.dns = { records: [...names].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) };
  }
}

export function deriveTopology(store: Store): Topology {
  const groups = store
    .list<{ subscriptionId?: string }>('/subscriptions/', { children: true })
    .flatMap((sub) => childrenOf<ResourceGroup>(store, `${sub.key}/resourceGroups/`));
  const vnets: VnetTopology[] = [];
  const byVnet = new Map<string, VnetTopology>();
  const groupOf = new Map<string, string>();
  for (const group of groups) {
    for (const vnet of childrenOf<VirtualNetwork>(store, `${group.id}/providers/Microsoft.Network/virtualNetworks/`)) {
      if (vnet.type !== TYPES.virtualNetwork) continue;
      const subnets = subnetsOf(store, vnet.id)
        .map((s) => subnetTopology(store, s))
        .filter((s): s is SubnetTopology => s !== undefined);
      const topology: VnetTopology = { id: vnet.id, addressSpace: vnet.properties.addressSpace.addressPrefixes.filter(ipv4), subnets, hosts: [] };
      vnets.push(topology);
      byVnet.set(vnet.id.toLowerCase(), topology);
      groupOf.set(vnet.id.toLowerCase(), group.name);
    }
  }
  for (const host of [...nodeHosts(store), ...vmHosts(store, groups)]) {
    const vnet = byVnet.get(parentOf(host.subnetId).toLowerCase());
    // A host on a subnet without an IPv4 prefix has no place in the data plane.
    if (vnet && vnet.subnets.some((s) => sameId(s.id, host.subnetId))) vnet.hosts.push(host);
  }
  addPeerings(store, vnets, byVnet);
  addFrontends(store, vnets);
  addOutbound(store, vnets);
  addDnsZones(store, vnets, groupOf);
  return { vnets };
}

/** Connected peerings that allow virtual network access on both sides (an Initiated or Disconnected one carries nothing). */
function addPeerings(store: Store, vnets: VnetTopology[], byVnet: Map<string, VnetTopology>): void {
  const allows = (from: string, to: string) =>
    peeringsOf(store, from).some(
      (p) => sameId(p.properties.remoteVirtualNetwork.id, to) && p.properties.peeringState === 'Connected' && p.properties.allowVirtualNetworkAccess,
    );
  for (const v of vnets) {
    const peerings = peeringsOf(store, v.id)
      .map((p) => byVnet.get(p.properties.remoteVirtualNetwork.id.toLowerCase()))
      .filter((remote): remote is VnetTopology => remote !== undefined && allows(v.id, remote.id) && allows(remote.id, v.id))
      .map((remote) => ({ vnetId: remote.id, addressSpace: remote.addressSpace }));
    if (peerings.length > 0) v.peerings = peerings;
  }
}

/** A rule's probe, when it names one of the load balancer's. */
function probeOf(lb: LoadBalancer, id: string | undefined): { probe?: LoadBalancerProbe } {
  const probe = id ? lb.properties.probes.find((x) => sameId(x.id, id)) : undefined;
  if (!probe || !['Tcp', 'Http', 'Https'].includes(probe.properties.protocol)) return {};
  const { protocol, port, requestPath } = probe.properties;
  return { probe: { protocol: protocol as LoadBalancerProbe['protocol'], port, ...(requestPath ? { requestPath } : {}) } };
}

const isIpv4 = (ip: string | undefined): ip is string => ip !== undefined && IpAddress.tryParse(ip)?.family === 4;

/**
 * The frontends of each cluster's load balancers in its node resource group, in the VNet of its nodes: the backend
 * pool `kubernetes` is every node of the cluster (AKS's nodeIPConfiguration pools put every node NIC in it; the NICs'
 * pool memberships are not modelled, docs/aks-rules.md §11.3), and a frontend carries the TCP and UDP rules on it.
 */
function addFrontends(store: Store, vnets: VnetTopology[]): void {
  for (const v of vnets) {
    const frontends: LoadBalancerFrontend[] = [];
    for (const { nodes: backends, lb } of clusterLoadBalancers(store, v)) {
      for (const f of lb.properties.frontendIPConfigurations) {
        const rules = lb.properties.loadBalancingRules
          .filter((r) => sameId(r.properties.frontendIPConfiguration.id, f.id) && (r.properties.protocol === 'Tcp' || r.properties.protocol === 'Udp'))
          .map((r) => ({
            protocol: r.properties.protocol === 'Tcp' ? ('tcp' as const) : ('udp' as const),
            frontendPort: r.properties.frontendPort,
            backendPort: r.properties.backendPort,
            floatingIp: r.properties.enableFloatingIP,
            ...probeOf(lb, r.properties.probe?.id),
          }));
        if (rules.length === 0) continue;
        const pip = f.properties.publicIPAddress && store.get<PublicIpAddress>(f.properties.publicIPAddress.id);
        const ip = pip ? pip.properties.ipAddress : f.properties.privateIPAddress;
        if (!isIpv4(ip)) continue;
        const subnetId = f.properties.subnet?.id;
        if (!pip && !(subnetId && v.subnets.some((s) => sameId(s.id, subnetId)))) continue;
        frontends.push({ id: f.id, ip, public: !!pip, ...(subnetId && !pip ? { subnetId } : {}), rules, backends: [...backends].sort() });
      }
    }
    if (frontends.length > 0) v.frontends = frontends;
  }
}
