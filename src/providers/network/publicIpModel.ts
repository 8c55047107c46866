// publicIPAddresses and publicIPPrefixes (docs/aks-rules.md §11 P1–P12): validation, defaults, addresses from the
// emulated public range (publicAddresses.ts), and who uses them — a load balancer frontend or NIC ip
// configuration (`ipConfiguration`), a NAT gateway (`natGateway`) — kept on the address or prefix itself, so a
// delete of something in use is refused and a second user is refused too.
import type { IpFamily } from '../../net/ip.js';
import { Cidr } from '../../net/ip.js';
import type { Store } from '../../store/store.js';
import { idKey, sameId } from '../../ids/compare.js';
import { addBackReference, removeBackReference } from './backReferences.js';
import {
  basicSkuPublicIpCountLimitReached,
  idleTimeoutOutOfRange,
  invalidRequestFormat,
  invalidResourceReference,
  inUsePublicIpPrefixCannotBeDeleted,
  publicIpAddressCannotBeDeleted,
  publicIpAddressInUse,
  publicIpCountLimitReached,
  publicIpPrefixMismatch,
  publicIpPrefixOutOfAddresses,
  publicIpSkuCannotBeChanged,
  standardSkuPublicIpMustBeStatic,
} from './errors.js';
import type { PublicIpAddress, PublicIpPrefix, Sku } from './models.js';
import { addressesOf, allocatePublicAddress, allocatePublicBlock, releasePublicAddresses } from './publicAddresses.js';
import { compact, enumMember, putLocation, referenceId, type SubResource, TYPES, type ProvisioningState, trackedHead, trackedProperties } from './resource.js';

type Tags = Array<{ ipTagType: string; tag: string }>;

export interface PublicIpInput {
  location?: string;
  tags?: Record<string, string> | null;
  sku?: { name?: string | null; tier?: string | null } | null;
  zones?: string[] | null;
  properties?: {
    publicIPAllocationMethod?: string | null;
    publicIPAddressVersion?: string | null;
    idleTimeoutInMinutes?: number | null;
    dnsSettings?: { domainNameLabel?: string | null; reverseFqdn?: string | null } | null;
    ipTags?: Tags | null;
    publicIPPrefix?: { id?: string } | null;
  };
}

export interface PublicIpPrefixInput {
  location?: string;
  tags?: Record<string, string> | null;
  sku?: { name?: string | null; tier?: string | null } | null;
  zones?: string[] | null;
  properties?: { prefixLength?: number | null; publicIPAddressVersion?: string | null; ipTags?: Tags | null };
}

const SKUS = ['Basic', 'Standard', 'StandardV2'];
const TIERS = ['Regional', 'Global'];
const VERSIONS = ['IPv4', 'IPv6'] as const;
const METHODS = ['Static', 'Dynamic'] as const;
/** Prefix lengths Azure offers without a quota increase: /28–/31 for IPv4, /124–/127 for IPv6. */
const PREFIX_LENGTHS: Record<IpFamily, [number, number]> = { 4: [28, 31], 6: [124, 127] };
/** Azure's rule for a domain name label (the portal's and the RP's pattern). */
const DNS_LABEL = /^[a-z][a-z0-9-]{1,61}[a-z0-9]$/;

const familyOf = (version: 'IPv4' | 'IPv6'): IpFamily => (version === 'IPv4' ? 4 : 6);

function zonesOf(zones: string[] | null | undefined, target: string): string[] | undefined {
  if (!zones || zones.length === 0) return undefined;
  for (const z of zones) if (!['1', '2', '3'].includes(z)) throw invalidRequestFormat(`Zone '${z}' is not one of 1, 2, 3.`, target);
  return [...new Set(zones)].sort();
}

function skuOf(input: { name?: string | null; tier?: string | null } | null | undefined, existing: Sku | undefined, resourceId: string): Sku {
  const name = enumMember(input?.name, SKUS, 'sku.name') ?? existing?.name ?? 'Standard';
  const tier = enumMember(input?.tier, TIERS, 'sku.tier') ?? existing?.tier ?? 'Regional';
  if (existing && existing.name !== name) throw publicIpSkuCannotBeChanged(resourceId, existing.name, name);
  return { name, tier };
}

export function findPublicIp(store: Store, id: string): PublicIpAddress | undefined {
  const pip = store.get<PublicIpAddress>(id);
  return pip && pip.type === TYPES.publicIPAddress ? pip : undefined;
}

export function findPublicIpPrefix(store: Store, id: string): PublicIpPrefix | undefined {
  const prefix = store.get<PublicIpPrefix>(id);
  return prefix && prefix.type === TYPES.publicIPPrefix ? prefix : undefined;
}

/** An address of the prefix no public IP made from it holds yet. */
function freeAddressOfPrefix(store: Store, prefix: PublicIpPrefix): string | undefined {
  const used = new Set((prefix.properties.publicIPAddresses ?? []).map((r) => findPublicIp(store, r.id)?.properties.ipAddress));
  return addressesOf(Cidr.parse(prefix.properties.ipPrefix)).find((a) => !used.has(a));
}

/** Creates or replaces a public IP address. `id` carries the group's stored casing. */
export function writePublicIp(store: Store, id: string, input: PublicIpInput, state: ProvisioningState): { record: PublicIpAddress; created: boolean } {
  const existing = findPublicIp(store, id);
  const location = putLocation(input.location, existing, TYPES.publicIPAddress);
  const pipId = existing?.id ?? id;
  const p = input.properties ?? {};
  const sku = skuOf(input.sku, existing?.sku, pipId);
  const version = (enumMember(p.publicIPAddressVersion, VERSIONS, 'properties.publicIPAddressVersion') ??
    existing?.properties.publicIPAddressVersion ??
    'IPv4') as 'IPv4' | 'IPv6';
  if (existing && existing.properties.publicIPAddressVersion !== version)
    throw invalidRequestFormat(`The IP version of public IP address ${pipId} cannot change.`, 'properties.publicIPAddressVersion');
  if (!existing && sku.name === 'Basic') throw basicSkuPublicIpCountLimitReached(version);
  const method = (enumMember(p.publicIPAllocationMethod, METHODS, 'properties.publicIPAllocationMethod') ?? 'Static') as 'Static' | 'Dynamic';
  if (sku.name !== 'Basic' && method === 'Dynamic') throw standardSkuPublicIpMustBeStatic(pipId);
  const idle = p.idleTimeoutInMinutes ?? 4;
  if (idle < 4 || idle > 30) throw idleTimeoutOutOfRange(pipId, idle, 30, 'properties.idleTimeoutInMinutes');
  const label = p.dnsSettings?.domainNameLabel ?? undefined;
  if (label !== undefined && !DNS_LABEL.test(label))
    throw invalidRequestFormat(
      `The domain name label ${label} is invalid. It must conform to the following regular expression: ^[a-z][a-z0-9-]{1,61}[a-z0-9]$.`,
      'properties.dnsSettings.domainNameLabel',
    );

  // The address: kept across updates; from the prefix when one is named, else from the emulated range.
  const prefixRef = referenceId(p.publicIPPrefix, 'properties.publicIPPrefix');
  if (existing && idKey(prefixRef ?? '') !== idKey(existing.properties.publicIPPrefix?.id ?? ''))
    throw invalidRequestFormat(`The public IP prefix of public IP address ${pipId} cannot change.`, 'properties.publicIPPrefix');
  let ipAddress = existing?.properties.ipAddress;
  let prefix: PublicIpPrefix | undefined;
  if (prefixRef) {
    prefix = findPublicIpPrefix(store, prefixRef);
    if (!prefix || prefix.location !== location) throw invalidResourceReference(prefixRef, pipId);
    if (sku.name !== prefix.sku.name) throw publicIpPrefixMismatch(pipId, prefix.id, `the prefix's sku is ${prefix.sku.name}, the address's ${sku.name}`);
    if (version !== prefix.properties.publicIPAddressVersion)
      throw publicIpPrefixMismatch(pipId, prefix.id, `the prefix is ${prefix.properties.publicIPAddressVersion}, the address ${version}`);
    if (!ipAddress) {
      ipAddress = freeAddressOfPrefix(store, prefix);
      if (!ipAddress) throw publicIpPrefixOutOfAddresses(prefix.id, pipId);
    }
  } else if (!ipAddress) {
    ipAddress = allocatePublicAddress(store, familyOf(version), pipId);
    if (!ipAddress) throw publicIpCountLimitReached(`the emulated ${version} public range is exhausted.`);
  }

  const pip: PublicIpAddress = compact({
    ...trackedHead(existing, pipId, TYPES.publicIPAddress, location, input.tags),
    sku,
    zones: zonesOf(input.zones, 'zones') ?? existing?.zones,
    properties: {
      ...trackedProperties(existing, state),
      ipAddress,
      publicIPAddressVersion: version,
      publicIPAllocationMethod: method,
      idleTimeoutInMinutes: idle,
      ipTags: p.ipTags ?? [],
      dnsSettings: label
        ? { domainNameLabel: label, fqdn: `${label}.${location}.cloudapp.azure.com`, reverseFqdn: p.dnsSettings?.reverseFqdn ?? undefined }
        : undefined,
      publicIPPrefix: prefix ? { id: prefix.id } : undefined,
      ipConfiguration: existing?.properties.ipConfiguration,
      natGateway: existing?.properties.natGateway,
    },
  });
  store.put(pip.id, pip);
  if (prefix) addBackReference(store, prefix.id, 'publicIPAddresses', pip.id);
  return { record: pip, created: !existing };
}

/** Deletes a public IP address nothing uses, giving its address back (a prefix keeps its block). */
export function removePublicIp(store: Store, pip: PublicIpAddress): void {
  const user = userOf(pip, PIP_USES);
  if (user) throw publicIpAddressCannotBeDeleted(pip.id, user);
  if (pip.properties.publicIPPrefix) removeBackReference(store, pip.properties.publicIPPrefix.id, 'publicIPAddresses', pip.id);
  else if (pip.properties.ipAddress) releasePublicAddresses(store, [pip.properties.ipAddress]);
  store.delete(pip.id);
}

/** Creates or replaces a public IP prefix: an aligned block of the emulated range. */
export function writePublicIpPrefix(
  store: Store,
  id: string,
  input: PublicIpPrefixInput,
  state: ProvisioningState,
): { record: PublicIpPrefix; created: boolean } {
  const existing = findPublicIpPrefix(store, id);
  const location = putLocation(input.location, existing, TYPES.publicIPPrefix);
  const prefixId = existing?.id ?? id;
  const p = input.properties ?? {};
  const sku = skuOf(input.sku, existing?.sku, prefixId);
  if (sku.name === 'Basic') throw invalidRequestFormat(`Public IP prefixes are offered only in the Standard sku.`, 'sku.name');
  const version = (enumMember(p.publicIPAddressVersion, VERSIONS, 'properties.publicIPAddressVersion') ??
    existing?.properties.publicIPAddressVersion ??
    'IPv4') as 'IPv4' | 'IPv6';
  const [min, max] = PREFIX_LENGTHS[familyOf(version)];
  const length = p.prefixLength ?? existing?.properties.prefixLength;
  if (length === undefined || length === null || length < min || length > max)
    throw invalidRequestFormat(
      `The prefix length of public IP prefix ${prefixId} must be between ${min} and ${max} for ${version}.`,
      'properties.prefixLength',
    );
  if (existing && (existing.properties.prefixLength !== length || existing.properties.publicIPAddressVersion !== version))
    throw invalidRequestFormat(`The prefix length and IP version of public IP prefix ${prefixId} cannot change.`, 'properties.prefixLength');
  let ipPrefix = existing?.properties.ipPrefix;
  if (!ipPrefix) {
    const block = allocatePublicBlock(store, familyOf(version), length, prefixId);
    if (!block) throw publicIpCountLimitReached(`no free /${length} block is left in the emulated ${version} public range.`);
    ipPrefix = block.toString();
  }
  const prefix: PublicIpPrefix = compact({
    ...trackedHead(existing, prefixId, TYPES.publicIPPrefix, location, input.tags),
    sku: { name: sku.name, tier: sku.tier },
    zones: zonesOf(input.zones, 'zones') ?? existing?.zones,
    properties: {
      ...trackedProperties(existing, state),
      prefixLength: length,
      publicIPAddressVersion: version,
      ipPrefix,
      ipTags: p.ipTags ?? [],
      publicIPAddresses: existing?.properties.publicIPAddresses,
      loadBalancerFrontendIpConfiguration: existing?.properties.loadBalancerFrontendIpConfiguration,
      natGateway: existing?.properties.natGateway,
    },
  });
  store.put(prefix.id, prefix);
  return { record: prefix, created: !existing };
}

export function renderPublicIpPrefix(prefix: PublicIpPrefix): unknown {
  const list = prefix.properties.publicIPAddresses;
  return compact({ ...prefix, properties: { ...prefix.properties, publicIPAddresses: list && list.length > 0 ? list : undefined } });
}

export function removePublicIpPrefix(store: Store, prefix: PublicIpPrefix): void {
  const user = userOf(prefix, PREFIX_USES);
  const users = [...(prefix.properties.publicIPAddresses ?? []).map((r) => r.id), ...(user ? [user] : [])];
  if (users.length > 0) throw inUsePublicIpPrefixCannotBeDeleted(prefix.id, users);
  releasePublicAddresses(store, addressesOf(Cidr.parse(prefix.properties.ipPrefix)));
  store.delete(prefix.id);
}

type PipUse = 'ipConfiguration' | 'natGateway';
type PrefixUse = 'loadBalancerFrontendIpConfiguration' | 'natGateway';

/** What a public IP address or prefix keeps of its one user, under one of `uses`. */
interface Usable {
  id: string;
  location: string;
  properties: object;
}

const userOf = (r: Usable, uses: readonly string[]): string | undefined =>
  uses.map((u) => (r.properties as Record<string, SubResource | undefined>)[u]?.id).find((x) => x !== undefined);

function attach<T extends Usable>(
  store: Store,
  found: T | undefined,
  ref: string,
  uses: readonly string[],
  use: string,
  userId: string,
  referencing: string,
  location: string,
): T {
  if (!found || found.location !== location) throw invalidResourceReference(ref, referencing);
  const holder = userOf(found, uses);
  if (holder && !sameId(holder, userId)) throw publicIpAddressInUse(referencing, found.id, holder);
  if (!holder) store.put(found.id, { ...found, properties: { ...found.properties, [use]: { id: userId } } });
  return found;
}

function detach(store: Store, found: Usable | undefined, use: string, userId: string): void {
  if (!found || !sameId(userOf(found, [use]), userId)) return;
  store.put(found.id, compact({ ...found, properties: { ...found.properties, [use]: undefined } }));
}

const PIP_USES: readonly PipUse[] = ['ipConfiguration', 'natGateway'];
const PREFIX_USES: readonly PrefixUse[] = ['loadBalancerFrontendIpConfiguration', 'natGateway'];

/**
 * Makes `userId` (a frontend or NIC ip configuration, a NAT gateway) the user of a public IP address: it must exist
 * in the region, and no other resource may use it (PublicIPAddressInUse). Returns the address.
 */
export function attachPublicIp(store: Store, pipId: string, use: PipUse, userId: string, referencing: string, location: string): PublicIpAddress {
  return attach(store, findPublicIp(store, pipId), pipId, PIP_USES, use, userId, referencing, location);
}

/** Forgets `userId` as the user of a public IP address (when it still is). */
export function detachPublicIp(store: Store, pipId: string, use: PipUse, userId: string): void {
  detach(store, findPublicIp(store, pipId), use, userId);
}

/** Like attachPublicIp, for a whole prefix (an outbound frontend, a NAT gateway). */
export function attachPublicIpPrefix(store: Store, prefixId: string, use: PrefixUse, userId: string, referencing: string, location: string): PublicIpPrefix {
  return attach(store, findPublicIpPrefix(store, prefixId), prefixId, PREFIX_USES, use, userId, referencing, location);
}

export function detachPublicIpPrefix(store: Store, prefixId: string, use: PrefixUse, userId: string): void {
  detach(store, findPublicIpPrefix(store, prefixId), use, userId);
}
