// What every Microsoft.Network resource shares: the stored shape, ids, etags, regions, and the
// references between resources ({"id": …}).
import { randomUUID } from 'node:crypto';
import { findRegion, REGIONS } from '../../arm/locations.js';
import type { Store } from '../../store/store.js';
import { writableResourceGroup, type ResourceGroup } from '../resources/resourceGroups.js';
import { locationRequired } from '../../arm/errors.js';
import { invalidRequestFormat, invalidResourceLocation, linkedInvalidPropertyId, locationNotAvailableForResourceType } from './errors.js';
import { sameId } from '../../ids/compare.js';
import { trimTrailingSlashes } from '../../ids/trim.js';

export const NAMESPACE = 'Microsoft.Network';

export const TYPES = {
  virtualNetwork: 'Microsoft.Network/virtualNetworks',
  subnet: 'Microsoft.Network/virtualNetworks/subnets',
  delegation: 'Microsoft.Network/virtualNetworks/subnets/delegations',
  serviceAssociationLink: 'Microsoft.Network/virtualNetworks/subnets/serviceAssociationLinks',
  networkSecurityGroup: 'Microsoft.Network/networkSecurityGroups',
  securityRule: 'Microsoft.Network/networkSecurityGroups/securityRules',
  defaultSecurityRule: 'Microsoft.Network/networkSecurityGroups/defaultSecurityRules',
  routeTable: 'Microsoft.Network/routeTables',
  route: 'Microsoft.Network/routeTables/routes',
  networkInterface: 'Microsoft.Network/networkInterfaces',
  ipConfiguration: 'Microsoft.Network/networkInterfaces/ipConfigurations',
  publicIPAddress: 'Microsoft.Network/publicIPAddresses',
  publicIPPrefix: 'Microsoft.Network/publicIPPrefixes',
  natGateway: 'Microsoft.Network/natGateways',
  loadBalancer: 'Microsoft.Network/loadBalancers',
  virtualNetworkPeering: 'Microsoft.Network/virtualNetworks/virtualNetworkPeerings',
} as const;

export type ProvisioningState = 'Succeeded' | 'Updating' | 'Deleting' | 'Failed';

export interface SubResource {
  id: string;
}

/** A top-level resource as the store keeps it (children such as subnets are kept under its id). */
export interface TrackedResource<P> {
  id: string;
  name: string;
  type: string;
  etag: string;
  location: string;
  tags?: Record<string, string>;
  properties: P;
}

/** A child resource (subnet, route, rule): no location, no tags. */
export interface ChildResource<P> {
  id: string;
  name: string;
  type: string;
  etag: string;
  properties: P;
}

/** The Network RP's weak etags: W/"<guid>", new on every write. */
export function newEtag(): string {
  return `W/"${randomUUID()}"`;
}

function newResourceGuid(): string {
  return randomUUID();
}

export function groupNameOf(resourceId: string): string {
  return /\/resourceGroups\/([^/]+)/i.exec(resourceId)?.[1] ?? '';
}

/** The last segment: a resource's name. */
export function nameOf(resourceId: string): string {
  return resourceId.slice(resourceId.lastIndexOf('/') + 1);
}

/** The resource an id's child lives in: …/virtualNetworks/v/subnets/s → …/virtualNetworks/v. */
export function parentOf(childId: string): string {
  return childId.replace(/\/[^/]+\/[^/]+$/, '');
}

/**
 * The group a resource is written into: it must exist and not be being deleted. Returned with the
 * stored casing, so new ids use it.
 */
export function writableGroup(store: Store, subscriptionId: string, groupName: string): ResourceGroup {
  return writableResourceGroup(store, subscriptionId, groupName);
}

/** The scope of the group a resource id lives in: `/subscriptions/<s>/resourceGroups/<g>`. */
const GROUP_SCOPE = /^\/subscriptions\/([^/]+)\/resourceGroups\/([^/]+)/i;

/** The group scope a resource id lives in, as the id spells it; undefined for an id above groups. */
export function groupScopeOf(resourceId: string): string | undefined {
  return GROUP_SCOPE.exec(resourceId)?.[0];
}

/** Like writableGroup, from a full resource id (the helpers other providers call). */
export function writableGroupOf(store: Store, resourceId: string): ResourceGroup {
  const match = GROUP_SCOPE.exec(resourceId);
  if (!match) throw new Error(`not a resource-group-scoped id: ${resourceId}`);
  return writableGroup(store, match[1]!, match[2]!);
}

/** The region's stored name (eastus), or ARM's LocationNotAvailableForResourceType. */
export function regionName(location: string, resourceType: string): string {
  const region = findRegion(location);
  if (!region)
    throw locationNotAvailableForResourceType(
      location,
      resourceType,
      REGIONS.map((r) => r.displayName),
    );
  return region.name;
}

/** The region a PUT names: required, known, and the stored resource's own when it exists (a resource cannot move). */
export function putLocation(location: string | undefined, existing: { id: string; name: string; location: string } | undefined, resourceType: string): string {
  if (!location) throw locationRequired();
  const region = regionName(location, resourceType);
  if (existing && existing.location !== region) throw invalidResourceLocation(existing.name, existing.location, groupNameOf(existing.id), region);
  return region;
}

/**
 * The id of a reference member ({"id": "/subscriptions/…"}), or undefined when absent. An id that is
 * not fully qualified is ARM's LinkedInvalidPropertyId naming the member's path.
 */
export function referenceId(value: { id?: string | null } | null | undefined, path: string): string | undefined {
  if (value === null || value === undefined) return undefined;
  const id = value.id;
  if (typeof id !== 'string' || !/^\/subscriptions\/[^/]+\/resourceGroups\/[^/]+\/providers\/[^/]+\/[^/]+\/[^/]+/i.test(id)) {
    throw linkedInvalidPropertyId(String(id ?? ''), `${path}.id`);
  }
  return trimTrailingSlashes(id);
}

/** A string enum member as the spec spells it, whatever case was sent; a value outside the set is refused. */
export function enumMember(value: string | null | undefined, allowed: readonly string[], target: string): string | undefined {
  if (value === null || value === undefined) return undefined;
  const found = allowed.find((a) => sameId(a, value));
  if (!found) throw invalidRequestFormat(`The value '${value}' of ${target} is not one of ${allowed.join(', ')}.`, target);
  return found;
}

/**
 * The members every tracked Network resource writes the same way: an update keeps the stored id and
 * name casing, a new etag each time. Spread first so the record keeps ARM's member order.
 */
export function trackedHead(
  existing: { name: string } | undefined,
  id: string,
  type: string,
  location: string,
  tags: Record<string, string> | null | undefined,
) {
  return { id, name: existing?.name ?? nameOf(id), type, etag: newEtag(), location, tags: tags ?? undefined };
}

/** The first properties of a tracked Network resource: its state, and a resourceGuid kept across updates. */
export function trackedProperties<S extends string>(existing: { properties: { resourceGuid: string } } | undefined, state: S) {
  return { provisioningState: state, resourceGuid: existing?.properties.resourceGuid ?? newResourceGuid() };
}

/** Drops undefined members (JSON would anyway; this keeps stored records and responses identical). */
export function compact<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** Entries of a key prefix that are direct children, as values. */
export function childrenOf<T>(store: Store, prefix: string): T[] {
  return store.list<T>(prefix.endsWith('/') ? prefix : `${prefix}/`, { children: true }).map((e) => e.value);
}
