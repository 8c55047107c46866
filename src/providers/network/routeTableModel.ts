import { IpAddress } from '../../net/ip.js';
import type { Store } from '../../store/store.js';
import { duplicateResourceName, inUseRouteTableCannotBeDeleted, invalidNextHopType, invalidRequestFormat, invalidRouteNextHop } from './errors.js';
import type { Route, RouteTable } from './models.js';
import { parsePrefix } from './prefixes.js';
import { compact, newEtag, putLocation, TYPES, type ProvisioningState, trackedHead, trackedProperties } from './resource.js';
import { validateResourceName } from '../../arm/names.js';
import { sameId } from '../../ids/compare.js';

export interface RouteInput {
  name?: string;
  properties?: { addressPrefix?: string | null; nextHopType?: string | null; nextHopIpAddress?: string | null };
}

export interface RouteTableInput {
  location?: string;
  tags?: Record<string, string> | null;
  properties?: { routes?: RouteInput[] | null; disableBgpRoutePropagation?: boolean | null };
}

const NEXT_HOP_TYPES = ['VirtualNetworkGateway', 'VnetLocal', 'Internet', 'VirtualAppliance', 'None'];

function buildRoute(tableId: string, input: RouteInput, name: string, state: ProvisioningState): Route {
  const id = `${tableId}/routes/${name}`;
  const p = input.properties ?? {};
  if (!p.addressPrefix) throw invalidRequestFormat(`Route ${id} has no properties.addressPrefix.`, 'properties.addressPrefix');
  // A route's prefix may also be a service tag (AzureCloud, Storage…): only CIDR-looking text is checked.
  const addressPrefix = /^[0-9a-f.:]+\/\d+$/i.test(p.addressPrefix) ? parsePrefix(p.addressPrefix, id).toString() : p.addressPrefix;
  const nextHopType = NEXT_HOP_TYPES.find((t) => sameId(t, p.nextHopType));
  if (!nextHopType) throw invalidNextHopType(id, p.nextHopType);
  if (nextHopType === 'VirtualAppliance') {
    if (!p.nextHopIpAddress) throw invalidRouteNextHop(id, 'nextHopIpAddress is required when nextHopType is VirtualAppliance.');
    if (!IpAddress.tryParse(p.nextHopIpAddress)) throw invalidRouteNextHop(id, `nextHopIpAddress '${p.nextHopIpAddress}' is not a valid IP address.`);
  } else if (p.nextHopIpAddress) {
    throw invalidRouteNextHop(id, `nextHopIpAddress is allowed only when nextHopType is VirtualAppliance, not ${nextHopType}.`);
  }
  return compact({
    id,
    name,
    type: TYPES.route,
    etag: newEtag(),
    properties: { provisioningState: state, addressPrefix, nextHopType, nextHopIpAddress: p.nextHopIpAddress ?? undefined, hasBgpOverride: false },
  });
}

function checkRouteNames(tableId: string, routes: readonly Route[]): void {
  routes.forEach((route, i) => {
    if (routes.slice(0, i).some((r) => sameId(r.name, route.name))) throw duplicateResourceName(tableId, 'routes', route.name);
  });
}

export function writeRouteTable(store: Store, id: string, input: RouteTableInput, state: ProvisioningState): { table: RouteTable; created: boolean } {
  const existing = store.get<RouteTable>(id);
  const location = putLocation(input.location, existing, TYPES.routeTable);
  const tableId = existing?.id ?? id;
  const routes = (input.properties?.routes ?? []).map((r, i) => {
    if (!r.name) throw invalidRequestFormat(`Route ${i} of route table ${tableId} has no name.`, `properties.routes[${i}].name`);
    validateResourceName(r.name);
    return buildRoute(tableId, r, r.name, state);
  });
  checkRouteNames(tableId, routes);
  const table: RouteTable = compact({
    ...trackedHead(existing, tableId, TYPES.routeTable, location, input.tags),
    properties: {
      ...trackedProperties(existing, state),
      disableBgpRoutePropagation: input.properties?.disableBgpRoutePropagation ?? false,
      routes,
      subnets: existing?.properties.subnets,
    },
  });
  store.put(table.id, table);
  return { table, created: !existing };
}

export function writeRoute(store: Store, table: RouteTable, name: string, input: RouteInput, state: ProvisioningState): { route: Route; created: boolean } {
  const existing = table.properties.routes.find((r) => sameId(r.name, name));
  const route = buildRoute(table.id, input, existing?.name ?? name, state);
  const routes = existing ? table.properties.routes.map((r) => (r === existing ? route : r)) : [...table.properties.routes, route];
  store.put(table.id, { ...table, etag: newEtag(), properties: { ...table.properties, routes } });
  return { route, created: !existing };
}

export function removeRoute(store: Store, table: RouteTable, name: string): boolean {
  const routes = table.properties.routes.filter((r) => !sameId(r.name, name));
  if (routes.length === table.properties.routes.length) return false;
  store.put(table.id, { ...table, etag: newEtag(), properties: { ...table.properties, routes } });
  return true;
}

export function renderRouteTable(table: RouteTable): unknown {
  const { subnets, ...rest } = table.properties;
  return compact({ ...table, properties: { ...rest, subnets: subnets && subnets.length > 0 ? subnets : undefined } });
}

export function removeRouteTable(store: Store, table: RouteTable): void {
  const users = (table.properties.subnets ?? []).map((r) => r.id);
  if (users.length > 0) throw inUseRouteTableCannotBeDeleted(table.id, users);
  store.delete(table.id);
}

export function findRouteTable(store: Store, id: string): RouteTable | undefined {
  const table = store.get<RouteTable>(id);
  return table && table.type === TYPES.routeTable ? table : undefined;
}
