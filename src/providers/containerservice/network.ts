// Everything ContainerService asks of Microsoft.Network: the model's view of a cluster's subnets, addresses
// from the one IPAM that owns each subnet, node NICs, the managed VNet, and kubenet's route table.
import type { ResolvedPool } from '../../aks/defaults.js';
import { isDualStack } from '../../aks/defaults.js';
import { managedPrefixes, managedSubnet, type NetworkEnvironment, type SubnetInfo } from '../../aks/environment.js';
import { networkModelOf } from '../../aks/network-models/index.js';
import type { AddressPool, AllocatorSource, PlannedRoute } from '../../aks/planner.js';
import { IpAddress } from '../../net/ip.js';
import type { Store } from '../../store/store.js';
import type { NetworkProfile } from '../../aks/types.js';
import { findPublicIp, findPublicIpPrefix } from '../network/publicIpModel.js';
import { hasPermission } from '../authorization/access.js';
import {
  AddressSpaceExhaustedError,
  deleteNic,
  kubenetTag,
  putNics,
  releaseOwner,
  subnetExists,
  subnetInfo,
  subnetIpam,
  subnetRouteTableId,
} from '../network/ipam.js';
import {
  associateRouteTable,
  deleteLoadBalancer,
  associateNatGateway,
  deleteNatGateway,
  deletePublicIp,
  loadBalancerInputOf,
  putNatGateway,
  putLoadBalancer,
  putPublicIp,
  putRouteTable,
  putVirtualNetwork,
} from '../network/managed.js';
import type { LoadBalancer, NatGateway, PublicIpAddress, RouteTable } from '../network/models.js';
import { TYPES } from '../network/resource.js';
import { loadBalancerOutbound, managedNatGatewayId, managedOutboundIpIds, natGatewayOutbound } from '../../aks/outbound.js';
import { nodesPrefix, type ClusterRecord } from '../../model/cluster-records.js';
import { sameId } from '../../ids/compare.js';

export const MANAGED_VNET_CIDR = '10.224.0.0/12';
export const MANAGED_SUBNET_CIDR = '10.224.0.0/16';

const JOIN = 'Microsoft.Network/virtualNetworks/subnets/join/action';
const READ = 'Microsoft.Network/virtualNetworks/subnets/read';
const RT_JOIN = 'Microsoft.Network/routeTables/join/action';

export function nodeResourceGroupId(c: Pick<ClusterRecord, 'subscriptionId' | 'nodeResourceGroup'>): string {
  return `/subscriptions/${c.subscriptionId}/resourceGroups/${c.nodeResourceGroup}`;
}

export function managedVnetId(c: Pick<ClusterRecord, 'subscriptionId' | 'nodeResourceGroup' | 'digits'>): string {
  return `${nodeResourceGroupId(c)}/providers/Microsoft.Network/virtualNetworks/aks-vnet-${c.digits}`;
}

export function managedSubnetId(c: Pick<ClusterRecord, 'subscriptionId' | 'nodeResourceGroup' | 'digits'>): string {
  return `${managedVnetId(c)}/subnets/aks-subnet`;
}

export function nicId(c: Pick<ClusterRecord, 'subscriptionId' | 'nodeResourceGroup'>, nodeName: string): string {
  return `${nodeResourceGroupId(c)}/providers/Microsoft.Network/networkInterfaces/${nodeName}-nic`;
}

export interface EnvironmentOptions {
  /** The cluster's identity, to check its access to BYO subnets (S4, S5). */
  principal?: { clientId: string; objectId: string };
  /** The cluster is dual-stack: the managed VNet it will get has an IPv6 range (docs/aks-rules.md §9.3). */
  dualStack?: boolean;
  /** The cluster's network profile: the outbound IPs and prefixes it names are looked up (O3, O4). */
  network?: NetworkProfile;
}

/** The model's view of the subnets a cluster's pools name, read from Microsoft.Network. */
export function environmentFor(
  store: Store,
  cluster: Pick<ClusterRecord, 'id' | 'location' | 'subscriptionId' | 'nodeResourceGroup' | 'digits'>,
  pools: ResolvedPool[],
  opts: EnvironmentOptions = {},
): NetworkEnvironment {
  const env: NetworkEnvironment = {
    subnets: {},
    location: cluster.location,
    nodeResourceGroupId: nodeResourceGroupId(cluster),
    clusterDigits: cluster.digits,
  };
  // Other kubenet clusters only: this cluster's own NICs are tagged with its id.
  const others = (info: SubnetInfo): SubnetInfo => ({
    ...info,
    kubenetClusterIds: (info.kubenetClusterIds ?? []).filter((id) => !sameId(id, cluster.id)),
  });
  for (const pool of pools) {
    // The pod subnet too (Azure CNI with a pod subnet): the rules and the planner read it the same way.
    for (const id of [pool.vnetSubnetID, pool.podSubnetID]) {
      if (!id || env.subnets[id.toLowerCase()]) continue;
      const found = subnetInfo(store, id);
      if (!found) continue;
      const info = others(found);
      if (opts.principal) info.access = access(store, opts.principal, info.id, [JOIN, READ]);
      if (opts.principal && info.routeTableId) info.routeTableAccess = access(store, opts.principal, info.routeTableId, [RT_JOIN]);
      env.subnets[id.toLowerCase()] = info;
    }
  }
  const managed = subnetInfo(store, managedSubnetId(cluster));
  env.managedSubnet = managed ? { ...others(managed), managed: true } : managedSubnet({ subnets: {} }, opts.dualStack);
  if (opts.network) env.outboundResources = outboundResources(store, opts.network);
  return env;
}

/** The public IPs and prefixes a loadBalancerProfile names that exist, with how many addresses each gives. */
function outboundResources(store: Store, network: NetworkProfile): NonNullable<NetworkEnvironment['outboundResources']> {
  const lb = loadBalancerOutbound(network);
  const out: NonNullable<NetworkEnvironment['outboundResources']> = {};
  for (const id of lb.publicIps ?? []) if (findPublicIp(store, id)) out[id.toLowerCase()] = { addresses: 1 };
  for (const id of lb.prefixes ?? []) {
    const prefix = findPublicIpPrefix(store, id);
    if (prefix) out[id.toLowerCase()] = { addresses: 2 ** (32 - prefix.properties.prefixLength) };
  }
  return out;
}

function access(store: Store, principal: { clientId: string; objectId: string }, scope: string, actions: string[]) {
  return { ...principal, actions: actions.filter((a) => hasPermission(store, principal.objectId, scope, a)) };
}

/**
 * Who holds a node's pod-subnet addresses in the IPAM: not the NIC (putNic keeps a NIC's addresses to its ip
 * configurations), an owner under it, so that the node resource group's cleanup takes them too.
 */
export function podAddressOwner(c: Pick<ClusterRecord, 'subscriptionId' | 'nodeResourceGroup'>, nodeName: string): string {
  return podAddressOwnerOfNic(nicId(c, nodeName));
}

function podAddressOwnerOfNic(nic: string): string {
  return `${nic}/podSubnetAddresses`;
}

/** The planner's address pools, backed by the IPAM; owners are NIC ids so that NICs and addresses agree. */
export function ipamAllocators(store: Store, cluster: Pick<ClusterRecord, 'subscriptionId' | 'nodeResourceGroup'>): AllocatorSource {
  // One pool per subnet and family: a dual-stack node takes its IPv6 address from the subnet's IPv6 prefix.
  return (subnet: SubnetInfo, cidr, use): AddressPool => {
    const ownerOf = (owner: string) => (use === 'pods' ? podAddressOwner(cluster, owner) : nicId(cluster, owner));
    const exhausted = <T>(fn: () => T): T | undefined => {
      try {
        return fn();
      } catch (e) {
        if (e instanceof AddressSpaceExhaustedError) return undefined;
        throw e;
      }
    };
    // The subnet is read once per pool: an operation allocates node after node, and writes no subnet meanwhile.
    const ipam = subnetIpam(store, subnet.id);
    return {
      get free() {
        return ipam.free(cidr.family);
      },
      // A node's addresses go on its NIC (writeNodeNics), in the order they are taken: recorded once, as the NIC's.
      allocateMany: (n, owner) => exhausted(() => ipam.allocate(ownerOf(owner), n, cidr.family, use !== 'pods').map((ip) => IpAddress.parse(ip))),
      allocateBlocks: (n, prefixLength, owner) => exhausted(() => ipam.allocateBlocks(ownerOf(owner), n, prefixLength)),
      // The IPAM already holds what the store holds: restoring a planner claims nothing new.
      claim: () => true,
      releaseOwner: (owner) => releaseOwner(store, ownerOf(owner)),
    };
  };
}

/** The NICs of an operation's new (or reimaged) nodes, in order, written as one batch (putNics): their ids. */
export function writeNodeNics(
  store: Store,
  cluster: ClusterRecord,
  nodes: ReadonlyArray<{ name: string; subnetId: string; ip: string; secondaryIps?: string[]; ipv6?: string }>,
): string[] {
  const tags: Record<string, string> = { 'aks-managed-cluster': cluster.id };
  // A cluster with a route table marks its NICs, so that a second one on the subnet is refused (N10).
  if (networkModelOf(cluster.resolved)?.nic.routeTable) Object.assign(tags, kubenetTag(cluster.id));
  const specs = nodes.map((node) => ({
    id: nicId(cluster, node.name),
    location: cluster.location,
    subnetId: node.subnetId,
    addresses: [node.ip, ...(node.secondaryIps ?? []), ...(node.ipv6 ? [node.ipv6] : [])],
    tags: { ...tags },
  }));
  putNics(store, specs);
  return specs.map((s) => s.id);
}

/** Removes a node's NIC and gives back its pod-subnet addresses (Azure CNI with a pod subnet), if it held any. */
export function removeNodeNic(store: Store, id: string): void {
  deleteNic(store, id);
  releaseOwner(store, podAddressOwnerOfNic(id));
}

export function ensureManagedVnet(store: Store, cluster: ClusterRecord): string {
  const subnetId = managedSubnetId(cluster);
  // Whether it is there (its VNet too, as subnetInfo asks), not its use: every node's allocation would be read.
  if (!subnetExists(store, subnetId)) {
    // A dual-stack cluster's managed VNet and subnet get an IPv6 range beside the IPv4 one.
    const prefixes = managedPrefixes(isDualStack(cluster.resolved.network));
    putVirtualNetwork(store, {
      id: managedVnetId(cluster),
      location: cluster.location,
      addressPrefixes: prefixes.vnet,
      subnets: [
        prefixes.subnet.length === 1 ? { name: 'aks-subnet', addressPrefix: MANAGED_SUBNET_CIDR } : { name: 'aks-subnet', addressPrefixes: prefixes.subnet },
      ],
    });
  }
  return subnetId;
}

export function routeTableId(cluster: ClusterRecord): string {
  return `${nodeResourceGroupId(cluster)}/providers/Microsoft.Network/routeTables/aks-agentpool-${cluster.digits}-routetable`;
}

/** The route table kubenet uses: the user's own on the node subnet (AKS adds its routes there), else AKS's. */
function clusterRouteTable(store: Store, cluster: ClusterRecord, subnetIds: string[]): { id: string; custom: boolean } {
  const ours = routeTableId(cluster);
  for (const subnetId of subnetIds) {
    const existing = subnetRouteTableId(store, subnetId);
    if (existing && !sameId(existing, ours)) return { id: existing, custom: true };
  }
  return { id: ours, custom: false };
}

/** Routes of this cluster's nodes: their names carry the cluster's digits (aks-<pool>-<digits>-vmss…). */
const isClusterRoute = (cluster: ClusterRecord, name: string) => name.includes(`-${cluster.digits}-vmss`);

/** kubenet: one UDR per node in the cluster's route table, which every node subnet uses (docs/aks-rules.md §3.5). */
export function syncRouteTable(store: Store, cluster: ClusterRecord, routes: PlannedRoute[], subnetIds: string[]): void {
  const table = clusterRouteTable(store, cluster, subnetIds);
  const existing = store.get<RouteTable>(table.id);
  const foreign = (existing?.properties.routes ?? [])
    .filter((r) => !isClusterRoute(cluster, r.name))
    .map((r) => ({
      name: r.name,
      addressPrefix: r.properties.addressPrefix,
      nextHopType: r.properties.nextHopType,
      nextHopIpAddress: r.properties.nextHopIpAddress,
    }));
  putRouteTable(store, {
    id: table.id,
    location: existing?.location ?? cluster.location,
    routes: [...foreign, ...routes],
    ...(existing?.tags ? { tags: existing.tags } : {}),
  });
  if (!table.custom) for (const subnetId of subnetIds) associateRouteTable(store, subnetId, table.id);
}

/**
 * Takes the cluster's routes out: its own table leaves the subnets it was put on; a user's table keeps its other
 * routes. `nodeSubnets`: the subnets of the cluster's nodes when the caller has them (the planner's), else read from
 * the node records.
 */
export function clearRouteTable(store: Store, cluster: ClusterRecord, nodeSubnets?: string[]): void {
  const ours = routeTableId(cluster);
  const table = store.get<RouteTable>(ours);
  for (const ref of table?.properties.subnets ?? []) associateRouteTable(store, ref.id, undefined);
  // A user's route table on a BYO subnet: remove only our routes.
  const subnetIds = new Set(nodeSubnets ?? nodesSubnets(store, cluster));
  for (const subnetId of subnetIds) {
    const custom = subnetRouteTableId(store, subnetId);
    if (!custom || sameId(custom, ours)) continue;
    const t = store.get<RouteTable>(custom);
    if (!t) continue;
    const kept = t.properties.routes.filter((r) => !isClusterRoute(cluster, r.name));
    if (kept.length === t.properties.routes.length) continue;
    putRouteTable(store, {
      id: t.id,
      location: t.location,
      routes: kept.map((r) => ({
        name: r.name,
        addressPrefix: r.properties.addressPrefix,
        nextHopType: r.properties.nextHopType,
        nextHopIpAddress: r.properties.nextHopIpAddress,
      })),
      ...(t.tags ? { tags: t.tags } : {}),
    });
  }
}

function nodesSubnets(store: Store, cluster: ClusterRecord): string[] {
  return store.list<{ subnetId: string }>(nodesPrefix(cluster.id)).map((e) => e.value.subnetId);
}

/** The managed load balancer's name, its backend pools and its outbound rule (cloud-provider-azure's and AKS's). */
export const OUTBOUND_LB = {
  name: 'kubernetes',
  pools: ['aksOutboundBackendPool', 'kubernetes'],
  rule: 'aksOutboundRule',
  pool: 'aksOutboundBackendPool',
} as const;

export function managedLoadBalancerId(c: Pick<ClusterRecord, 'subscriptionId' | 'nodeResourceGroup'>): string {
  return `${nodeResourceGroupId(c)}/providers/Microsoft.Network/loadBalancers/${OUTBOUND_LB.name}`;
}

/** The frontend name for an outbound IP or prefix: its resource name (AKS's managed IPs are GUIDs, so are their frontends). */
const frontendName = (id: string) => id.slice(id.lastIndexOf('/') + 1);
const MANAGED_OUTBOUND_TAG = { 'aks-managed-type': 'aks-slb-managed-outbound-ip' };

/**
 * outboundType loadBalancer: the `kubernetes` load balancer in the node resource group with the outbound IPs as
 * frontends (the managed ones AKS creates, or the user's public IPs or prefixes), the backend pools
 * `aksOutboundBackendPool` and `kubernetes` (the one cloud-provider-azure puts Services' rules on) and the outbound
 * rule `aksOutboundRule` (all protocols, over every outbound frontend, with the profile's ports and idle timeout;
 * docs/aks-rules.md §12, §14). What is on it besides (Services' frontends, rules, probes) stays; outbound frontends
 * the profile no longer names leave, and managed IPs no longer wanted are deleted.
 */
export function ensureOutboundLoadBalancer(store: Store, cluster: ClusterRecord): void {
  if (cluster.resolved.network.outboundType !== 'loadBalancer') return;
  const rg = nodeResourceGroupId(cluster);
  const profile = loadBalancerOutbound(cluster.resolved.network);
  const managed = profile.managedCount !== undefined ? managedOutboundIpIds(rg, profile.managedCount, 'lb') : [];
  for (const id of managed) putPublicIp(store, id, { location: cluster.location, tags: MANAGED_OUTBOUND_TAG });
  const wanted = [
    ...[...managed, ...(profile.publicIps ?? [])].map((id) => ({ name: frontendName(id), properties: { publicIPAddress: { id } } })),
    ...(profile.prefixes ?? []).map((id) => ({ name: frontendName(id), properties: { publicIPPrefix: { id } } })),
  ];
  const lbId = managedLoadBalancerId(cluster);
  const existing = store.get<LoadBalancer>(lbId);
  const input = existing ? loadBalancerInputOf(existing) : { location: cluster.location, sku: { name: 'Standard' }, properties: {} };
  const props = (input.properties ??= {});
  const rules = (props.outboundRules ??= []);
  const before = rules.find((r) => r.name === OUTBOUND_LB.rule);
  // Frontends the outbound rule used and no load-balancing rule uses: they go unless still wanted.
  const servedByRules = new Set((props.loadBalancingRules ?? []).map((r) => String(r.properties?.frontendIPConfiguration?.id ?? '').toLowerCase()));
  const oldOutbound = new Set(
    (before?.properties?.frontendIPConfigurations ?? []).map((f) => String(f?.id ?? '').toLowerCase()).filter((id) => !servedByRules.has(id)),
  );
  const wantedNames = new Set(wanted.map((f) => f.name.toLowerCase()));
  props.frontendIPConfigurations = (props.frontendIPConfigurations ?? []).filter(
    (f) => wantedNames.has(String(f.name).toLowerCase()) || !oldOutbound.has(`${lbId}/frontendIPConfigurations/${f.name}`.toLowerCase()),
  );
  const frontends = props.frontendIPConfigurations;
  for (const [i, f] of wanted.entries()) if (!frontends.some((x) => x.name === f.name)) frontends.splice(i, 0, f);
  const pools = (props.backendAddressPools ??= []);
  for (const name of OUTBOUND_LB.pools) if (!pools.some((p) => p.name === name)) pools.push({ name });
  const rule = {
    name: OUTBOUND_LB.rule,
    properties: {
      frontendIPConfigurations: wanted.map((f) => ({ id: `${lbId}/frontendIPConfigurations/${f.name}` })),
      backendAddressPool: { id: `${lbId}/backendAddressPools/${OUTBOUND_LB.pool}` },
      protocol: 'All',
      allocatedOutboundPorts: profile.allocatedOutboundPorts,
      idleTimeoutInMinutes: profile.idleTimeoutInMinutes,
      enableTcpReset: true,
    },
  };
  props.outboundRules = [...rules.filter((r) => r.name !== OUTBOUND_LB.rule), rule];
  if (!existing || JSON.stringify(loadBalancerInputOf(existing)) !== JSON.stringify(input)) putLoadBalancer(store, lbId, input);
  // Managed outbound IPs beyond the count (or all of them, once the user's IPs replace them) are deleted.
  const keep = new Set(managed.map((id) => id.toLowerCase()));
  for (const { value: pip } of store.list<PublicIpAddress>(`${rg}/providers/Microsoft.Network/publicIPAddresses/`))
    if (pip.type === TYPES.publicIPAddress && pip.tags?.['aks-managed-type'] === MANAGED_OUTBOUND_TAG['aks-managed-type'] && !keep.has(pip.id.toLowerCase()))
      deletePublicIp(store, pip);
}

/**
 * outboundType managedNATGateway: a NAT gateway in the node resource group with its managed outbound IPs and idle
 * timeout, associated with the managed subnet (docs/aks-rules.md §14.1).
 */
export function ensureManagedNatGateway(store: Store, cluster: ClusterRecord): void {
  if (cluster.resolved.network.outboundType !== 'managedNATGateway') return;
  const rg = nodeResourceGroupId(cluster);
  const nat = natGatewayOutbound(cluster.resolved.network);
  const ips = managedOutboundIpIds(rg, nat.managedCount, 'nat');
  for (const id of ips) putPublicIp(store, id, { location: cluster.location, tags: { 'aks-managed-type': 'aks-nat-gateway-managed-outbound-ip' } });
  const id = managedNatGatewayId(rg);
  putNatGateway(store, id, {
    location: cluster.location,
    sku: { name: 'Standard' },
    properties: { idleTimeoutInMinutes: nat.idleTimeoutInMinutes, publicIpAddresses: ips.map((x) => ({ id: x })) },
  });
  associateNatGateway(store, managedSubnetId(cluster), id);
}

/** Takes the node resource group's load balancers and public IPs away, their addresses given back (cluster delete). */
export function removeLoadBalancing(store: Store, cluster: ClusterRecord): void {
  const prefix = `${nodeResourceGroupId(cluster)}/providers/Microsoft.Network`;
  for (const lb of store.list<LoadBalancer>(`${prefix}/loadBalancers/`)) if (lb.value.type === TYPES.loadBalancer) deleteLoadBalancer(store, lb.value);
  // The managed NAT gateway goes before its public IPs, which it holds.
  for (const gw of store.list<NatGateway>(`${prefix}/natGateways/`)) if (gw.value.type === TYPES.natGateway) deleteNatGateway(store, gw.value);
  // One a user attached elsewhere (a NIC, a NAT gateway) is left to the group's own delete.
  for (const { value: pip } of store.list<PublicIpAddress>(`${prefix}/publicIPAddresses/`))
    if (pip.type === TYPES.publicIPAddress && !pip.properties.ipConfiguration && !pip.properties.natGateway) deletePublicIp(store, pip);
}
