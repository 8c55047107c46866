// natGateways (docs/aks-rules.md §11 G1–G4): Standard sku, an idle timeout of 4–120 minutes, the public IP
// addresses and prefixes it sends from (each used by this gateway only), and the subnets that associate it
// (back-references kept by the subnets, as for route tables).
import type { Store } from '../../store/store.js';
import { sameId } from '../../ids/compare.js';
import { idleTimeoutOutOfRange, inUseNatGatewayCannotBeDeleted, invalidRequestFormat } from './errors.js';
import type { NatGateway } from './models.js';
import { attachPublicIp, attachPublicIpPrefix, detachPublicIp, detachPublicIpPrefix } from './publicIpModel.js';
import { compact, enumMember, putLocation, referenceId, TYPES, type ProvisioningState, type SubResource, trackedHead, trackedProperties } from './resource.js';

export interface NatGatewayInput {
  location?: string;
  tags?: Record<string, string> | null;
  sku?: { name?: string | null } | null;
  zones?: string[] | null;
  properties?: {
    idleTimeoutInMinutes?: number | null;
    publicIpAddresses?: Array<{ id?: string } | null> | null;
    publicIpPrefixes?: Array<{ id?: string } | null> | null;
  };
}

function referencesOf(list: Array<{ id?: string } | null> | null | undefined, path: string): string[] {
  return (list ?? []).map((r, i) => referenceId(r, `${path}[${i}]`)).filter((id): id is string => id !== undefined);
}

export function findNatGateway(store: Store, id: string): NatGateway | undefined {
  const gw = store.get<NatGateway>(id);
  return gw && gw.type === TYPES.natGateway ? gw : undefined;
}

export function writeNatGateway(store: Store, id: string, input: NatGatewayInput, state: ProvisioningState): { record: NatGateway; created: boolean } {
  const existing = findNatGateway(store, id);
  const location = putLocation(input.location, existing, TYPES.natGateway);
  const natId = existing?.id ?? id;
  const p = input.properties ?? {};
  const sku = enumMember(input.sku?.name, ['Standard', 'StandardV2'], 'sku.name') ?? existing?.sku.name ?? 'Standard';
  const idle = p.idleTimeoutInMinutes ?? 4;
  if (idle < 4 || idle > 120) throw idleTimeoutOutOfRange(natId, idle, 120, 'properties.idleTimeoutInMinutes');
  const zones = input.zones && input.zones.length > 0 ? [...input.zones] : existing?.zones;
  if (zones && zones.length > 1) throw invalidRequestFormat(`A NAT gateway is zonal: it takes at most one zone, not ${zones.join(', ')}.`, 'zones');
  const pipIds = referencesOf(p.publicIpAddresses, 'properties.publicIpAddresses');
  const prefixIds = referencesOf(p.publicIpPrefixes, 'properties.publicIpPrefixes');
  for (const old of existing?.properties.publicIpAddresses ?? [])
    if (!pipIds.some((x) => sameId(x, old.id))) detachPublicIp(store, old.id, 'natGateway', natId);
  for (const old of existing?.properties.publicIpPrefixes ?? [])
    if (!prefixIds.some((x) => sameId(x, old.id))) detachPublicIpPrefix(store, old.id, 'natGateway', natId);
  const publicIpAddresses: SubResource[] = pipIds.map((ref) => ({ id: attachPublicIp(store, ref, 'natGateway', natId, natId, location).id }));
  const publicIpPrefixes: SubResource[] = prefixIds.map((ref) => ({ id: attachPublicIpPrefix(store, ref, 'natGateway', natId, natId, location).id }));
  const record: NatGateway = compact({
    ...trackedHead(existing, natId, TYPES.natGateway, location, input.tags),
    sku: { name: sku },
    zones,
    properties: {
      ...trackedProperties(existing, state),
      idleTimeoutInMinutes: idle,
      publicIpAddresses,
      publicIpPrefixes,
      subnets: existing?.properties.subnets,
    },
  });
  store.put(record.id, record);
  return { record, created: !existing };
}

export function renderNatGateway(gw: NatGateway): unknown {
  const subnets = gw.properties.subnets;
  return compact({ ...gw, properties: { ...gw.properties, subnets: subnets && subnets.length > 0 ? subnets : undefined } });
}

export function removeNatGateway(store: Store, gw: NatGateway): void {
  const users = (gw.properties.subnets ?? []).map((r) => r.id);
  if (users.length > 0) throw inUseNatGatewayCannotBeDeleted(gw.id, users);
  for (const r of gw.properties.publicIpAddresses) detachPublicIp(store, r.id, 'natGateway', gw.id);
  for (const r of gw.properties.publicIpPrefixes) detachPublicIpPrefix(store, r.id, 'natGateway', gw.id);
  store.delete(gw.id);
}
