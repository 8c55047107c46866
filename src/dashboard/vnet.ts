// GET /ui/api/vnet (docs/dashboard.md §3): a VNet as ARM returns it, each subnet with its address counts, route
// table (with its UDRs) and NSG (with its rules), and the peerings.
import type { NetworkSecurityGroup, RouteTable, VirtualNetwork } from '../providers/network/models.js';
import { peeringsOf, renderPeering } from '../providers/network/peeringModel.js';
import { prefixesOf, subnetsOf } from '../providers/network/subnetModel.js';
import type { Store } from '../store/store.js';
import type { ArmReader } from './arm-read.js';
import { notFound } from './errors.js';
import { byName } from './resources.js';
import { emptyCounts, subnetCounts } from './subnet-map.js';

const VNET = /^\/subscriptions\/[^/]+\/resourcegroups\/[^/]+\/providers\/microsoft\.network\/virtualnetworks\/[^/]+$/i;

export function vnetView(store: Store, arm: ArmReader, id: string | null) {
  if (id === null || !VNET.test(id)) throw notFound(`No virtual network ${String(id).slice(0, 300)}.`);
  const stored = store.get<VirtualNetwork>(id);
  if (!stored) throw notFound(`No virtual network ${id.slice(0, 300)}.`);
  const subnets = subnetsOf(store, stored.id)
    .sort((a, b) => byName(a.name, b.name))
    .map((s) => {
      const { total, counts } = subnetCounts(store, s) ?? { total: 0, counts: emptyCounts() };
      const rt = s.properties.routeTable ? store.get<RouteTable>(s.properties.routeTable.id) : undefined;
      const nsg = s.properties.networkSecurityGroup ? store.get<NetworkSecurityGroup>(s.properties.networkSecurityGroup.id) : undefined;
      return {
        id: s.id,
        name: s.name,
        addressPrefix: prefixesOf(s)[0] ?? '',
        total,
        counts,
        ...(rt
          ? {
              routeTable: {
                id: rt.id,
                name: rt.name,
                routes: rt.properties.routes.map((r) => ({
                  name: r.name,
                  addressPrefix: r.properties.addressPrefix,
                  nextHopType: r.properties.nextHopType,
                  ...(r.properties.nextHopIpAddress ? { nextHopIpAddress: r.properties.nextHopIpAddress } : {}),
                })),
              },
            }
          : {}),
        ...(nsg
          ? {
              networkSecurityGroup: {
                id: nsg.id,
                name: nsg.name,
                securityRules: [...nsg.properties.securityRules]
                  .sort((a, b) => a.properties.priority - b.properties.priority)
                  .map((r) => ({
                    name: r.name,
                    priority: r.properties.priority,
                    direction: r.properties.direction,
                    access: r.properties.access,
                    protocol: r.properties.protocol,
                    sourceAddressPrefix: r.properties.sourceAddressPrefix ?? r.properties.sourceAddressPrefixes.join(','),
                    destinationAddressPrefix: r.properties.destinationAddressPrefix ?? r.properties.destinationAddressPrefixes.join(','),
                    destinationPortRange: r.properties.destinationPortRange ?? r.properties.destinationPortRanges.join(','),
                  })),
              },
            }
          : {}),
      };
    });
  const peerings = peeringsOf(store, stored.id)
    .sort((a, b) => byName(a.name, b.name))
    .map((p) => ({ name: p.name, remoteVirtualNetworkId: p.properties.remoteVirtualNetwork.id, ...renderPeering(store, p).properties }));
  return { vnet: arm.get(stored.id), subnets, peerings };
}
