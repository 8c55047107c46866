// Network resources that another provider manages (AKS's VNet and kubenet route table in the node
// resource group): the same validation and records as the REST API, written Succeeded at once and
// inside the caller's transaction, without a long-running operation of their own.
import type { Store } from '../../store/store.js';
import { moveBackReference } from './backReferences.js';
import { childNotFound, invalidResourceReference } from './errors.js';
import type { RouteTable, VirtualNetwork } from './models.js';
import { compact, newEtag, parentOf, TYPES, writableGroupOf } from './resource.js';
import { findRouteTable, writeRouteTable } from './routeTableModel.js';
import { findSubnet } from './subnetModel.js';
import { writeVirtualNetwork } from './vnetModel.js';

interface ManagedVnetSpec {
  id: string;
  location: string;
  addressPrefixes: string[];
  /** A dual-stack subnet's IPv4 and IPv6 prefixes go in addressPrefixes. */
  subnets: Array<{ name: string; addressPrefix: string } | { name: string; addressPrefixes: string[] }>;
  tags?: Record<string, string>;
}

/** Creates or replaces a VNet with its subnets (subnets not listed are deleted, as a REST PUT does). */
export function putVirtualNetwork(store: Store, spec: ManagedVnetSpec): VirtualNetwork {
  return store.transaction(() => {
    writableGroupOf(store, spec.id);
    return writeVirtualNetwork(
      store,
      spec.id,
      {
        location: spec.location,
        tags: spec.tags ?? null,
        properties: {
          addressSpace: { addressPrefixes: spec.addressPrefixes },
          subnets: spec.subnets.map((s) => ({
            name: s.name,
            properties: 'addressPrefixes' in s ? { addressPrefixes: s.addressPrefixes } : { addressPrefix: s.addressPrefix },
          })),
        },
      },
      'Succeeded',
    ).vnet;
  });
}

interface ManagedRouteTableSpec {
  id: string;
  location: string;
  routes: Array<{ name: string; addressPrefix: string; nextHopType: string; nextHopIpAddress?: string }>;
  tags?: Record<string, string>;
}

/** Creates or replaces a route table's routes; the subnets associated with it stay associated. */
export function putRouteTable(store: Store, spec: ManagedRouteTableSpec): RouteTable {
  return store.transaction(() => {
    writableGroupOf(store, spec.id);
    return writeRouteTable(
      store,
      spec.id,
      {
        location: spec.location,
        tags: spec.tags ?? null,
        properties: {
          routes: spec.routes.map((r) => ({
            name: r.name,
            properties: { addressPrefix: r.addressPrefix, nextHopType: r.nextHopType, nextHopIpAddress: r.nextHopIpAddress ?? null },
          })),
        },
      },
      'Succeeded',
    ).table;
  });
}

/** Associates a route table with a subnet (or, with undefined, removes the association). */
export function associateRouteTable(store: Store, subnetId: string, routeTableId: string | undefined): void {
  store.transaction(() => {
    const subnet = findSubnet(store, subnetId);
    if (!subnet) throw childNotFound(subnetId);
    let table: RouteTable | undefined;
    if (routeTableId !== undefined) {
      table = findRouteTable(store, routeTableId);
      const vnet = store.get<VirtualNetwork>(parentOf(subnet.id));
      if (!table || table.type !== TYPES.routeTable || table.location !== vnet?.location) throw invalidResourceReference(routeTableId, subnet.id);
    }
    const before = subnet.properties.routeTable?.id;
    const properties = compact({ ...subnet.properties, routeTable: table ? { id: table.id } : undefined });
    store.put(subnet.id, { ...subnet, etag: newEtag(), properties });
    moveBackReference(store, 'subnets', subnet.id, before, table?.id);
  });
}
