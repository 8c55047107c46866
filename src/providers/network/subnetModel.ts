// Subnets: validation against the VNet and the sibling subnets (the Network RP's Netcfg* errors), the
// stored record, NSG/route-table association, and the rendered form with the ipConfigurations that
// use the subnet. Each subnet is its own store entry under its VNet's id, so it can be read by id,
// carry role assignments as a scope, and be written without rewriting the VNet.
import type { Cidr } from '../../net/ip.js';
import type { Store } from '../../store/store.js';
import { allocationsIn, dropSubnetAllocations } from './allocations.js';
import { moveBackReference, removeBackReference } from './backReferences.js';
import {
  duplicateResourceName,
  inUseSubnetCannotBeDeleted,
  inUseSubnetCannotBeUpdated,
  invalidRequestFormat,
  invalidResourceReference,
  invalidSubnet,
  subnetRangeOutsideVnet,
  subnetRangesOverlap,
} from './errors.js';
import type { Delegation, NatGateway, NetworkSecurityGroup, RouteTable, Subnet, VirtualNetwork } from './models.js';
import { containedIn, overlapsAny, parsePrefix, parsePrefixes, subnetSizeSupported } from './prefixes.js';
import { idKey, sameId } from '../../ids/compare.js';
import { childrenOf, compact, enumMember, newEtag, referenceId, TYPES, type ProvisioningState, type SubResource } from './resource.js';
import { serviceEndpointLocations } from './regionPairs.js';
import { forgetPool, type SubnetRef } from './subnetAddresses.js';

/** A subnet as a client sends it (PUT body, or one element of a VNet's `subnets`). */
export interface SubnetInput {
  name?: string;
  properties?: {
    addressPrefix?: string | null;
    addressPrefixes?: string[] | null;
    networkSecurityGroup?: { id?: string } | null;
    routeTable?: { id?: string } | null;
    natGateway?: { id?: string } | null;
    delegations?: Array<{ name?: string; properties?: { serviceName?: string; actions?: string[] } }> | null;
    serviceEndpoints?: Array<{ service: string; locations?: string[] }> | null;
    privateEndpointNetworkPolicies?: string | null;
    privateLinkServiceNetworkPolicies?: string | null;
    sharingScope?: string | null;
    defaultOutboundAccess?: boolean | null;
    serviceEndpointPolicies?: Array<{ id?: string } | null> | null;
  };
}

/** A service endpoint names its service: without one there is no region set to give it. */
function serviceOf(endpoint: { service?: string | null } | null, i: number): string {
  if (typeof endpoint?.service !== 'string' || endpoint.service === '')
    throw invalidRequestFormat(`Service endpoint ${i} has no service.`, `properties.serviceEndpoints[${i}].service`);
  return endpoint.service;
}

/** SubnetPropertiesFormat.sharingScope in the 2023-11-01 spec. */
const SHARING_SCOPES = ['Tenant', 'DelegatedServices'];

/**
 * aksemu serves no serviceEndpointPolicies, so a reference to one names a missing resource: refused as Network
 * refuses any reference to a resource that does not exist (InvalidResourceReference).
 */
function checkServiceEndpointPolicies(input: SubnetInput, subnetId: string): void {
  (input.properties?.serviceEndpointPolicies ?? []).forEach((r, i) => {
    const ref = referenceId(r, `properties.serviceEndpointPolicies[${i}]`);
    if (ref) throw invalidResourceReference(ref, subnetId);
  });
}

/**
 * The actions Azure fills into a delegation per service (from GET responses of delegated subnets). A service
 * not listed gets none: the 2023-11-01 examples answer `actions: []` for a delegation to
 * Microsoft.Provider/resourceType sent without actions.
 */
const DELEGATION_ACTIONS: Record<string, string[]> = {
  'microsoft.containerinstance/containergroups': ['Microsoft.Network/virtualNetworks/subnets/action'],
  'microsoft.web/serverfarms': ['Microsoft.Network/virtualNetworks/subnets/action'],
  'microsoft.containerservice/managedclusters': ['Microsoft.Network/virtualNetworks/subnets/join/action'],
  'microsoft.dbforpostgresql/flexibleservers': ['Microsoft.Network/virtualNetworks/subnets/join/action'],
  'microsoft.dbformysql/flexibleservers': ['Microsoft.Network/virtualNetworks/subnets/join/action'],
  'microsoft.sql/managedinstances': [
    'Microsoft.Network/virtualNetworks/subnets/join/action',
    'Microsoft.Network/virtualNetworks/subnets/prepareNetworkPolicies/action',
    'Microsoft.Network/virtualNetworks/subnets/unprepareNetworkPolicies/action',
  ],
  'microsoft.netapp/volumes': ['Microsoft.Network/networkinterfaces/*', 'Microsoft.Network/virtualNetworks/subnets/join/action'],
};

export function subnetsOf(store: Store, vnetId: string): Subnet[] {
  return childrenOf<Subnet>(store, `${vnetId}/subnets/`);
}

export function prefixesOf(subnet: Pick<Subnet, 'properties'>): string[] {
  return subnet.properties.addressPrefixes ?? (subnet.properties.addressPrefix ? [subnet.properties.addressPrefix] : []);
}

export function subnetRef(subnet: Subnet): SubnetRef {
  return { id: subnet.id, name: subnet.name, prefixes: parsePrefixes(prefixesOf(subnet), subnet.id) };
}

/** The prefixes a client asked for: addressPrefixes when given, else addressPrefix. */
function requestedPrefixes(input: SubnetInput): { prefixes: string[]; plural: boolean } {
  const p = input.properties ?? {};
  if (p.addressPrefixes && p.addressPrefixes.length > 0) return { prefixes: [...p.addressPrefixes], plural: true };
  if (p.addressPrefix) return { prefixes: [p.addressPrefix], plural: false };
  return { prefixes: [], plural: false };
}

function checkReference(store: Store, refId: string | undefined, subnetId: string, vnet: VirtualNetwork, type: string): SubResource | undefined {
  if (refId === undefined) return undefined;
  const target = store.get<NetworkSecurityGroup | RouteTable | NatGateway>(refId);
  if (!target || !sameId(target.type, type) || target.location !== vnet.location) {
    throw invalidResourceReference(refId, subnetId);
  }
  // The reference keeps the target's stored casing, as ARM's responses do.
  return { id: target.id };
}

function delegationsOf(input: SubnetInput, subnetId: string, existing: Subnet | undefined, state: ProvisioningState): Delegation[] {
  const seen = new Set<string>();
  return (input.properties?.delegations ?? []).map((d, i) => {
    const serviceName = d.properties?.serviceName;
    if (!serviceName)
      throw invalidRequestFormat(`Delegation ${i} of subnet ${subnetId} has no properties.serviceName.`, `properties.delegations[${i}].properties.serviceName`);
    const name = d.name ?? String(i);
    if (seen.has(idKey(name))) throw duplicateResourceName(subnetId, 'delegations', name);
    seen.add(idKey(name));
    const before = existing?.properties.delegations.find((x) => sameId(x.name, name));
    const actions = d.properties?.actions && d.properties.actions.length > 0 ? d.properties.actions : (DELEGATION_ACTIONS[idKey(serviceName)] ?? []);
    return {
      id: `${subnetId}/delegations/${name}`,
      name,
      type: TYPES.delegation,
      etag: before?.etag ?? newEtag(),
      properties: { serviceName, actions, provisioningState: state },
    };
  });
}

export interface SubnetBuild {
  subnet: Subnet;
  prefixes: Cidr[];
}

/**
 * Validates one subnet of a VNet and returns its record. `siblings` are the other subnets it must
 * not overlap (already validated). Checks run in the RP's order: format, size, containment, overlap.
 */
export function buildSubnet(
  store: Store,
  vnet: VirtualNetwork,
  vnetPrefixes: readonly Cidr[],
  input: SubnetInput,
  siblings: readonly SubnetBuild[],
  existing: Subnet | undefined,
  state: ProvisioningState,
): SubnetBuild {
  const name = existing?.name ?? input.name!;
  const id = existing?.id ?? `${vnet.id}/subnets/${name}`;
  const { prefixes: text, plural } = requestedPrefixes(input);
  if (text.length === 0) throw invalidSubnet(name, vnet.name);
  const prefixes = text.map((p) => parsePrefix(p, id));
  if (!prefixes.every(subnetSizeSupported)) throw invalidSubnet(name, vnet.name);
  if (!prefixes.every((p) => containedIn(p, vnetPrefixes))) throw subnetRangeOutsideVnet(name, vnet.name);
  const selfOverlap = prefixes.some((a, i) => prefixes.some((b, j) => j > i && a.overlaps(b)));
  if (selfOverlap || siblings.some((s) => overlapsAny(prefixes, s.prefixes))) throw subnetRangesOverlap(name, vnet.name);
  const p = input.properties ?? {};
  checkServiceEndpointPolicies(input, id);
  const delegations = delegationsOf(input, id, existing, state);
  const subnet: Subnet = compact({
    id,
    name,
    type: TYPES.subnet,
    etag: newEtag(),
    properties: {
      provisioningState: state,
      addressPrefix: plural ? undefined : prefixes[0]!.toString(),
      addressPrefixes: plural ? prefixes.map(String) : undefined,
      networkSecurityGroup: checkReference(store, referenceId(p.networkSecurityGroup, 'properties.networkSecurityGroup'), id, vnet, TYPES.networkSecurityGroup),
      routeTable: checkReference(store, referenceId(p.routeTable, 'properties.routeTable'), id, vnet, TYPES.routeTable),
      natGateway: checkReference(store, referenceId(p.natGateway, 'properties.natGateway'), id, vnet, TYPES.natGateway),
      delegations,
      // Network answers purpose "" for a delegated subnet (every delegated subnet of the 2023-11-01 examples) and
      // leaves it out otherwise.
      purpose: delegations.length > 0 ? '' : undefined,
      // Set only by the services that link themselves to a subnet (addServiceAssociationLink).
      serviceAssociationLinks: existing?.properties.serviceAssociationLinks,
      serviceEndpoints: p.serviceEndpoints?.map((e, i) => ({
        service: serviceOf(e, i),
        locations: e.locations ?? serviceEndpointLocations(e.service, vnet.location),
        provisioningState: state,
      })),
      privateEndpointNetworkPolicies: p.privateEndpointNetworkPolicies ?? existing?.properties.privateEndpointNetworkPolicies ?? 'Disabled',
      privateLinkServiceNetworkPolicies: p.privateLinkServiceNetworkPolicies ?? existing?.properties.privateLinkServiceNetworkPolicies ?? 'Enabled',
      sharingScope: enumMember(p.sharingScope, SHARING_SCOPES, 'properties.sharingScope'),
      defaultOutboundAccess: p.defaultOutboundAccess ?? undefined,
    },
  });
  return { subnet, prefixes };
}

/** Who uses a subnet (first NIC ip configuration, address owner or linked service), if anyone. */
export function subnetUser(store: Store, subnet: Subnet): string | undefined {
  const allocation = allocationsIn(store, subnet.id)[0];
  if (allocation) return allocation.ipConfigurations?.[0] ?? allocation.owner;
  return subnet.properties.serviceAssociationLinks?.[0]?.properties.link;
}

/** Stores a validated subnet, moving NSG/route-table back-references; a prefix change needs an unused subnet. */
export function writeSubnet(store: Store, subnet: Subnet, existing: Subnet | undefined): void {
  if (existing && prefixesOf(existing).join(',') !== prefixesOf(subnet).join(',')) {
    const user = allocationsIn(store, existing.id)[0];
    if (user) throw inUseSubnetCannotBeUpdated(existing.name, user.ipConfigurations?.[0] ?? user.owner);
    forgetPool(store, existing.id);
  }
  store.put(subnet.id, subnet);
  moveBackReference(store, 'subnets', subnet.id, existing?.properties.networkSecurityGroup?.id, subnet.properties.networkSecurityGroup?.id);
  moveBackReference(store, 'subnets', subnet.id, existing?.properties.routeTable?.id, subnet.properties.routeTable?.id);
  moveBackReference(store, 'subnets', subnet.id, existing?.properties.natGateway?.id, subnet.properties.natGateway?.id);
}

/** Deletes a subnet nobody uses (InUseSubnetCannotBeDeleted otherwise), with its back-references. */
export function removeSubnet(store: Store, subnet: Subnet): void {
  const user = subnetUser(store, subnet);
  if (user) throw inUseSubnetCannotBeDeleted(subnet.name, user);
  if (subnet.properties.networkSecurityGroup) removeBackReference(store, subnet.properties.networkSecurityGroup.id, 'subnets', subnet.id);
  if (subnet.properties.routeTable) removeBackReference(store, subnet.properties.routeTable.id, 'subnets', subnet.id);
  if (subnet.properties.natGateway) removeBackReference(store, subnet.properties.natGateway.id, 'subnets', subnet.id);
  dropSubnetAllocations(store, subnet.id);
  forgetPool(store, subnet.id);
  store.delete(subnet.id);
}

/** The subnet as ARM returns it: the stored record plus the ip configurations that use it. */
export function renderSubnet(store: Store, subnet: Subnet): Subnet & { properties: { ipConfigurations?: SubResource[] } } {
  const ipConfigurations = allocationsIn(store, subnet.id).flatMap((a) => (a.ipConfigurations ?? []).map((id) => ({ id })));
  return ipConfigurations.length === 0 ? subnet : { ...subnet, properties: { ...subnet.properties, ipConfigurations } };
}

export function findSubnet(store: Store, subnetId: string): Subnet | undefined {
  const subnet = store.get<Subnet>(subnetId);
  return subnet && sameId(subnet.type, TYPES.subnet) ? subnet : undefined;
}
