import type { Cidr } from '../../net/ip.js';
import type { Store } from '../../store/store.js';
import {
  duplicateResourceName,
  inUseSubnetCannotBeDeleted,
  invalidRequestFormat,
  unsupportedFeature,
  vnetAddressSpaceMissing,
  vnetAddressSpacesOverlap,
} from './errors.js';
import type { Subnet, VirtualNetwork } from './models.js';
import { checkPeeredAddressSpace, peeringsOf, removePeering, renderPeering } from './peeringModel.js';
import { parsePrefixes } from './prefixes.js';
import { compact, enumMember, putLocation, TYPES, type ProvisioningState, trackedHead, trackedProperties } from './resource.js';
import { buildSubnet, removeSubnet, renderSubnet, subnetsOf, subnetUser, writeSubnet, type SubnetBuild, type SubnetInput } from './subnetModel.js';
import { validateResourceName } from '../../arm/names.js';
import { idKey, sameId } from '../../ids/compare.js';

export interface VnetInput {
  location?: string;
  tags?: Record<string, string> | null;
  properties?: {
    addressSpace?: { addressPrefixes?: string[] | null } | null;
    subnets?: SubnetInput[] | null;
    dhcpOptions?: { dnsServers?: string[] | null } | null;
    enableDdosProtection?: boolean | null;
    enableVmProtection?: boolean | null;
    flowTimeoutInMinutes?: number | null;
    virtualNetworkPeerings?: unknown[] | null;
    bgpCommunities?: { virtualNetworkCommunity?: string | null } | null;
    encryption?: { enabled?: boolean | null; enforcement?: string | null } | null;
  };
}

/** VirtualNetworkEncryption.enforcement in the 2023-11-01 spec. */
const ENCRYPTION_ENFORCEMENT = ['DropUnencrypted', 'AllowUnencrypted'];

/** The spec's required members of bgpCommunities and encryption, checked before anything is stored. */
function communitiesOf(p: NonNullable<VnetInput['properties']>): Pick<VirtualNetwork['properties'], 'bgpCommunities' | 'encryption'> {
  const community = p.bgpCommunities?.virtualNetworkCommunity;
  if (p.bgpCommunities && typeof community !== 'string')
    throw invalidRequestFormat('bgpCommunities needs virtualNetworkCommunity.', 'properties.bgpCommunities.virtualNetworkCommunity');
  const enabled = p.encryption?.enabled;
  if (p.encryption && typeof enabled !== 'boolean') throw invalidRequestFormat('encryption needs enabled.', 'properties.encryption.enabled');
  return {
    bgpCommunities: typeof community === 'string' ? { virtualNetworkCommunity: community } : undefined,
    encryption:
      typeof enabled === 'boolean'
        ? { enabled, enforcement: enumMember(p.encryption?.enforcement, ENCRYPTION_ENFORCEMENT, 'properties.encryption.enforcement') }
        : undefined,
  };
}

interface VnetWrite {
  vnet: VirtualNetwork;
  created: boolean;
  /** The VNet's id and its subnets' ids: what a provisioning operation finishes. */
  touched: string[];
}

export function vnetPrefixes(vnet: VirtualNetwork): Cidr[] {
  return parsePrefixes(vnet.properties.addressSpace.addressPrefixes, vnet.id);
}

function checkAddressSpace(vnetId: string, prefixes: string[]): Cidr[] {
  if (prefixes.length === 0) throw vnetAddressSpaceMissing(vnetId);
  const cidrs = parsePrefixes(prefixes, vnetId);
  cidrs.forEach((a, i) => {
    const j = cidrs.findIndex((b, k) => k > i && a.overlaps(b));
    if (j >= 0) throw vnetAddressSpacesOverlap(vnetId, prefixes[j]!, prefixes[i]!);
  });
  return cidrs;
}

/**
 * A VNet PUT may carry back the peerings a GET showed (az's generic update does): those are kept as they are. A
 * new peering inline is not modelled; it is created through its own route (…/virtualNetworkPeerings/{name}).
 */
function checkInlinePeerings(store: Store, vnetId: string, inline: unknown[] | null | undefined): void {
  const known = new Set(peeringsOf(store, vnetId).map((x) => idKey(x.name)));
  for (const entry of inline ?? []) {
    const name = (entry as { name?: unknown } | null)?.name;
    if (typeof name !== 'string' || !known.has(idKey(name)))
      throw unsupportedFeature(
        'a new virtual network peering inside a virtual network PUT (PUT it at …/virtualNetworkPeerings/{name})',
        'properties.virtualNetworkPeerings',
      );
  }
}

/**
 * Creates or replaces a VNet and its subnets, validated. `id` carries the group's stored casing.
 * Resources are written with `state` (Updating while a REST operation runs, Succeeded otherwise).
 */
export function writeVirtualNetwork(store: Store, id: string, input: VnetInput, state: ProvisioningState): VnetWrite {
  const existing = store.get<VirtualNetwork>(id);
  const p = input.properties ?? {};
  const location = putLocation(input.location, existing, TYPES.virtualNetwork);
  const vnetId = existing?.id ?? id;
  checkInlinePeerings(store, vnetId, p.virtualNetworkPeerings);
  const addressPrefixes = [...(p.addressSpace?.addressPrefixes ?? [])];
  const cidrs = checkAddressSpace(vnetId, addressPrefixes);
  if (existing) checkPeeredAddressSpace(store, vnetId, cidrs.map(String));

  const vnet: VirtualNetwork = compact({
    ...trackedHead(existing, vnetId, TYPES.virtualNetwork, location, input.tags),
    properties: {
      ...trackedProperties(existing, state),
      addressSpace: { addressPrefixes: cidrs.map(String) },
      dhcpOptions: p.dhcpOptions ? { dnsServers: p.dhcpOptions.dnsServers ?? [] } : undefined,
      enableDdosProtection: p.enableDdosProtection ?? false,
      enableVmProtection: p.enableVmProtection ?? undefined,
      flowTimeoutInMinutes: p.flowTimeoutInMinutes ?? undefined,
      virtualNetworkPeerings: [],
      ...communitiesOf(p),
    },
  });

  const before = existing ? subnetsOf(store, existing.id) : [];
  const inputs = p.subnets ?? [];
  const names = new Set<string>();
  const built: Array<SubnetBuild & { existing: Subnet | undefined }> = [];
  inputs.forEach((input, i) => {
    if (!input.name) throw invalidRequestFormat(`Subnet ${i} of virtual network ${vnetId} has no name.`, `properties.subnets[${i}].name`);
    // An inline child is named as its own route would name it: 'a/b' would be a key under another record.
    validateResourceName(input.name);
    if (names.has(idKey(input.name))) throw duplicateResourceName(vnetId, 'subnets', input.name);
    names.add(idKey(input.name));
    const old = before.find((s) => sameId(s.name, input.name));
    built.push({ ...buildSubnet(store, vnet, cidrs, input, built, old, state), existing: old });
  });

  // Subnets left out of the body go, unless something uses them.
  const dropped = before.filter((s) => !names.has(idKey(s.name)));
  for (const s of dropped) {
    const user = subnetUser(store, s);
    if (user) throw inUseSubnetCannotBeDeleted(s.name, user);
  }
  for (const s of dropped) removeSubnet(store, s);
  store.put(vnet.id, vnet);
  for (const b of built) writeSubnet(store, b.subnet, b.existing);
  return { vnet, created: !existing, touched: [vnet.id, ...built.map((b) => b.subnet.id)] };
}

/** The VNet as ARM returns it, with its subnets and peerings. */
export function renderVirtualNetwork(store: Store, vnet: VirtualNetwork): unknown {
  const subnets = subnetsOf(store, vnet.id).map((s) => renderSubnet(store, s));
  const virtualNetworkPeerings = peeringsOf(store, vnet.id).map((x) => renderPeering(store, x));
  return { ...vnet, properties: { ...vnet.properties, subnets, virtualNetworkPeerings } };
}

/** Deletes a VNet whose subnets nobody uses. */
export function removeVirtualNetwork(store: Store, vnet: VirtualNetwork): void {
  const subnets = subnetsOf(store, vnet.id);
  for (const s of subnets) {
    const user = subnetUser(store, s);
    if (user) throw inUseSubnetCannotBeDeleted(s.name, user);
  }
  for (const s of subnets) removeSubnet(store, s);
  // Its peerings go with it; the remote VNets' peerings back become Disconnected.
  for (const x of peeringsOf(store, vnet.id)) removePeering(store, x);
  store.deletePrefix(`${vnet.id}/`);
  store.delete(vnet.id);
}

export function findVirtualNetwork(store: Store, id: string): VirtualNetwork | undefined {
  const vnet = store.get<VirtualNetwork>(id);
  return vnet && vnet.type === TYPES.virtualNetwork ? vnet : undefined;
}
