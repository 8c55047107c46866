// GET /ui/api/group (docs/dashboard.md §3): one resource group's networks, clusters, route tables, NSGs, load
// balancers and public IPs, each summarised from what the store keeps.
import type { ClusterRecord } from '../model/cluster-records.js';
import { nodesOf } from '../model/cluster-records.js';
import type { LoadBalancer, NetworkSecurityGroup, PublicIpAddress, RouteTable, VirtualNetwork } from '../providers/network/models.js';
import { peeringsOf } from '../providers/network/peeringModel.js';
import { prefixesOf, subnetsOf } from '../providers/network/subnetModel.js';
import type { Store } from '../store/store.js';
import { sameId } from '../ids/compare.js';
import { notFound } from './errors.js';
import { operationsView } from './operations.js';
import { byName, groupId, resourcesOf } from './resources.js';
import { subnetCounts } from './subnet-map.js';

/** How many of a cluster's nodes are Ready, from its running API (undefined when it is not running). */
export type ReadyNodes = (clusterId: string) => number | undefined;

export function vnetSummary(store: Store, vnet: VirtualNetwork) {
  return {
    id: vnet.id,
    name: vnet.name,
    location: vnet.location,
    addressPrefixes: vnet.properties.addressSpace.addressPrefixes,
    subnets: subnetsOf(store, vnet.id)
      .sort((a, b) => byName(a.name, b.name))
      .map((s) => {
        const prefix = prefixesOf(s)[0] ?? '';
        // No IPv4 prefix to count (an IPv6-only subnet): shown without a fill.
        const map = subnetCounts(store, s);
        const used = map ? map.total - map.counts.free - map.counts.reserved : 0;
        return { id: s.id, name: s.name, addressPrefix: prefix, used, total: map?.total ?? 0 };
      }),
    peerings: peeringsOf(store, vnet.id).length,
  };
}

export function groupView(store: Store, subscriptionId: string, name: string | null, readyNodes: ReadyNodes) {
  if (name === null || name === '' || name.length > 90 || name.includes('/')) throw notFound(`No resource group ${String(name).slice(0, 100)}.`);
  const id = groupId(subscriptionId, name);
  const group = store.get<{ name: string; location: string }>(id);
  if (!group) throw notFound(`Resource group '${name}' could not be found.`);
  const r = resourcesOf(store, id);
  const values = <T>(list: { value: unknown }[]) => list.map((e) => e.value as T);
  return {
    name: group.name,
    location: group.location,
    virtualNetworks: values<VirtualNetwork>(r.virtualNetworks).map((v) => vnetSummary(store, v)),
    managedClusters: values<ClusterRecord>(r.managedClusters).map((c) => {
      const net = c.resolved.network;
      return {
        id: c.id,
        name: c.name,
        location: c.location,
        provisioningState: c.provisioningState,
        powerState: c.powerState ?? 'Running',
        kubernetesVersion: c.resolved.kubernetesVersion,
        networkPlugin: net.networkPlugin,
        ...(net.networkPluginMode ? { networkPluginMode: net.networkPluginMode } : {}),
        nodeCount: nodesOf(store, c).length,
        readyNodes: readyNodes(c.id) ?? 0,
      };
    }),
    routeTables: values<RouteTable>(r.routeTables).map((t) => ({
      id: t.id,
      name: t.name,
      routes: t.properties.routes.length,
      subnets: subnetsUsing(store, r.virtualNetworks, 'routeTable', t.id),
    })),
    networkSecurityGroups: values<NetworkSecurityGroup>(r.networkSecurityGroups).map((g) => ({
      id: g.id,
      name: g.name,
      rules: g.properties.securityRules.length,
    })),
    loadBalancers: values<LoadBalancer>(r.loadBalancers).map((lb) => ({
      id: lb.id,
      name: lb.name,
      sku: lb.sku?.name,
      frontends: (lb.properties.frontendIPConfigurations ?? []).map((f) => ({
        name: f.name,
        ...(f.properties.privateIPAddress ? { privateIp: f.properties.privateIPAddress } : {}),
        ...(f.properties.publicIPAddress ? { publicIpId: f.properties.publicIPAddress.id } : {}),
      })),
    })),
    publicIPAddresses: values<PublicIpAddress>(r.publicIPAddresses).map((p) => ({ id: p.id, name: p.name, ipAddress: p.properties.ipAddress })),
    operations: operationsView(store, id),
  };
}

/** Ids of the group's subnets associated with a route table or NSG. */
function subnetsUsing(store: Store, vnets: { key: string }[], member: 'routeTable' | 'networkSecurityGroup', id: string): string[] {
  return vnets.flatMap((v) =>
    subnetsOf(store, v.key)
      .filter((s) => sameId(s.properties[member]?.id, id))
      .map((s) => s.id),
  );
}
