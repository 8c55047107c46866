// virtualNetworks/virtualNetworkPeerings (docs/aks-rules.md §11 V1–V9). A peering is one direction; the pair is
// Connected only when the remote VNet has the reverse peering: the first side is Initiated, and when one side is
// deleted the other becomes Disconnected (it must then be deleted and created again). Each peering is its own store
// entry under its VNet, like a subnet. peeringSyncLevel is derived on every read from the address spaces each side
// last synced (`remoteAddressSpace`) against the VNets' address spaces now.
import { randomUUID } from 'node:crypto';
import type { Store } from '../../store/store.js';
import { idKey, sameId } from '../../ids/compare.js';
import {
  invalidGlobalResourceReference,
  invalidRequestFormat,
  peeringAddressSpacesOverlap,
  peeringAlreadyExists,
  peeringToSelf,
  remotePeeringDisconnected,
  remoteVnetHasNoGateways,
  vnetAddressSpaceOverlapsPeered,
  vnetAddressSpaceOverlapsWithAlreadyPeeredVnet,
} from './errors.js';
import type { PeeringSyncLevel, VirtualNetwork, VirtualNetworkPeering } from './models.js';
import { parsePrefixes } from './prefixes.js';
import { childrenOf, compact, newEtag, parentOf, referenceId, TYPES, type ProvisioningState } from './resource.js';

export interface PeeringInput {
  properties?: {
    remoteVirtualNetwork?: { id?: string } | null;
    allowVirtualNetworkAccess?: boolean | null;
    allowForwardedTraffic?: boolean | null;
    allowGatewayTransit?: boolean | null;
    useRemoteGateways?: boolean | null;
    doNotVerifyRemoteGateways?: boolean | null;
  };
}

const PEERINGS = 'virtualNetworkPeerings';

export function peeringsOf(store: Store, vnetId: string): VirtualNetworkPeering[] {
  return childrenOf<VirtualNetworkPeering>(store, `${vnetId}/${PEERINGS}/`);
}

export function findPeering(store: Store, id: string): VirtualNetworkPeering | undefined {
  const p = store.get<VirtualNetworkPeering>(id);
  return p && p.type === TYPES.virtualNetworkPeering ? p : undefined;
}

function vnetOf(store: Store, id: string): VirtualNetwork | undefined {
  const vnet = store.get<VirtualNetwork>(id);
  return vnet && vnet.type === TYPES.virtualNetwork ? vnet : undefined;
}

/** The remote VNet's peering back to `vnetId`, if it has one. */
function reverseOf(store: Store, remoteId: string, vnetId: string): VirtualNetworkPeering | undefined {
  return peeringsOf(store, remoteId).find((p) => sameId(p.properties.remoteVirtualNetwork.id, vnetId));
}

/** Each prefix of `a` that overlaps one of `b`, then each of `b` that overlaps one of `a`, as the RP lists them. */
function overlapping(a: readonly string[], b: readonly string[]): string[] {
  const ca = parsePrefixes(a, 'a');
  const cb = parsePrefixes(b, 'b');
  const left = a.filter((_, i) => cb.some((y) => ca[i]!.overlaps(y)));
  const right = b.filter((_, j) => ca.some((x) => x.overlaps(cb[j]!)));
  return [...left, ...right];
}

const vnetIdOf = (peering: VirtualNetworkPeering): string => parentOf(peering.id);

const spaceOf = (vnet: VirtualNetwork): string[] => vnet.properties.addressSpace.addressPrefixes;

/** Refuses a peering between address spaces that overlap, directly or through a VNet already peered with the other. */
function checkOverlaps(store: Store, peeringId: string, vnet: VirtualNetwork, remote: VirtualNetwork): void {
  const direct = overlapping(spaceOf(vnet), spaceOf(remote));
  if (direct.length > 0) throw peeringAddressSpacesOverlap(peeringId, vnet.id, remote.id, direct);
  const third = (of: VirtualNetwork, other: VirtualNetwork) => {
    for (const p of peeringsOf(store, other.id)) {
      if (sameId(p.properties.remoteVirtualNetwork.id, of.id)) continue;
      const c = vnetOf(store, p.properties.remoteVirtualNetwork.id);
      const list = c ? overlapping(spaceOf(of), spaceOf(c)) : [];
      if (c && list.length > 0) throw vnetAddressSpaceOverlapsWithAlreadyPeeredVnet(peeringId, of.id, other.id, c.id, list);
    }
  };
  third(vnet, remote);
  third(remote, vnet);
}

/**
 * Creates or updates a peering of `vnet`. `sync` (the PUT's syncRemoteAddressSpace=true) takes the remote VNet's
 * address space now, as `az network vnet peering sync` asks.
 */
export function writePeering(
  store: Store,
  vnet: VirtualNetwork,
  name: string,
  input: PeeringInput,
  state: ProvisioningState,
  sync: boolean,
): { peering: VirtualNetworkPeering; created: boolean } {
  const existing = findPeering(store, `${vnet.id}/${PEERINGS}/${name}`);
  const id = existing?.id ?? `${vnet.id}/${PEERINGS}/${name}`;
  const p = input.properties ?? {};
  const remoteRef = referenceId(p.remoteVirtualNetwork, 'properties.remoteVirtualNetwork');
  if (!remoteRef) throw invalidRequestFormat(`Peering ${id} has no properties.remoteVirtualNetwork.`, 'properties.remoteVirtualNetwork');
  if (existing && !sameId(existing.properties.remoteVirtualNetwork.id, remoteRef))
    throw invalidRequestFormat(`The remote virtual network of peering ${id} cannot change.`, 'properties.remoteVirtualNetwork');
  const remote = vnetOf(store, remoteRef);
  if (!remote) throw invalidGlobalResourceReference(remoteRef, id);
  if (sameId(remote.id, vnet.id)) throw peeringToSelf(id);
  const twin = peeringsOf(store, vnet.id).find((x) => !sameId(x.id, id) && sameId(x.properties.remoteVirtualNetwork.id, remote.id));
  if (twin) throw peeringAlreadyExists(id, twin.id, remote.id);
  if (p.useRemoteGateways === true) throw remoteVnetHasNoGateways(id, remote.id);
  checkOverlaps(store, id, vnet, remote);

  const reverse = reverseOf(store, remote.id, vnet.id);
  if (reverse?.properties.peeringState === 'Disconnected') throw remotePeeringDisconnected(id, reverse.id);
  const connected = reverse !== undefined;
  if (reverse && reverse.properties.peeringState !== 'Connected') {
    // The remote side's first half now has its pair: both are Connected, each knowing the other's space.
    store.put(reverse.id, {
      ...reverse,
      etag: newEtag(),
      properties: { ...reverse.properties, peeringState: 'Connected', remoteAddressSpace: { addressPrefixes: [...spaceOf(vnet)] } },
    });
  }
  const keepSpace = existing && !sync && existing.properties.peeringState !== 'Disconnected';
  const peering: VirtualNetworkPeering = compact({
    id,
    name: existing?.name ?? name,
    type: TYPES.virtualNetworkPeering,
    etag: newEtag(),
    properties: {
      provisioningState: state,
      resourceGuid: existing?.properties.resourceGuid ?? randomUUID(),
      remoteVirtualNetwork: { id: remote.id },
      allowVirtualNetworkAccess: p.allowVirtualNetworkAccess ?? true,
      allowForwardedTraffic: p.allowForwardedTraffic ?? false,
      allowGatewayTransit: p.allowGatewayTransit ?? false,
      useRemoteGateways: false,
      doNotVerifyRemoteGateways: p.doNotVerifyRemoteGateways ?? false,
      peeringState: connected ? 'Connected' : 'Initiated',
      peeringSyncLevel: 'FullyInSync',
      remoteAddressSpace: keepSpace ? existing.properties.remoteAddressSpace : { addressPrefixes: [...spaceOf(remote)] },
      remoteVirtualNetworkAddressSpace: { addressPrefixes: [...spaceOf(remote)] },
    },
  });
  store.put(peering.id, peering);
  return { peering, created: !existing };
}

const sameSpace = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((x, i) => idKey(x) === idKey(b[i]!));

/** A peering as ARM returns it: the remote VNet's address space now, and how far each side is in sync with it. */
export function renderPeering(store: Store, peering: VirtualNetworkPeering): VirtualNetworkPeering {
  const vnet = vnetOf(store, vnetIdOf(peering));
  const remote = vnetOf(store, peering.properties.remoteVirtualNetwork.id);
  const reverse = remote && vnet ? reverseOf(store, remote.id, vnet.id) : undefined;
  const remoteSpace = remote ? spaceOf(remote) : peering.properties.remoteVirtualNetworkAddressSpace.addressPrefixes;
  let level: PeeringSyncLevel = 'RemoteNotInSync';
  if (peering.properties.peeringState === 'Connected' && reverse && vnet) {
    const localOk = sameSpace(peering.properties.remoteAddressSpace.addressPrefixes, remoteSpace);
    const remoteOk = sameSpace(reverse.properties.remoteAddressSpace.addressPrefixes, spaceOf(vnet));
    level = localOk ? (remoteOk ? 'FullyInSync' : 'RemoteNotInSync') : remoteOk ? 'LocalNotInSync' : 'LocalAndRemoteNotInSync';
  }
  return {
    ...peering,
    properties: { ...peering.properties, peeringSyncLevel: level, remoteVirtualNetworkAddressSpace: { addressPrefixes: [...remoteSpace] } },
  };
}

/** Deletes a peering; the remote VNet's peering back (if any) becomes Disconnected. */
export function removePeering(store: Store, peering: VirtualNetworkPeering): void {
  const reverse = reverseOf(store, peering.properties.remoteVirtualNetwork.id, vnetIdOf(peering));
  if (reverse && reverse.properties.peeringState !== 'Disconnected')
    store.put(reverse.id, { ...reverse, etag: newEtag(), properties: { ...reverse.properties, peeringState: 'Disconnected' } });
  store.delete(peering.id);
}

/** A peered VNet's new address space must not overlap the VNets it is peered with. */
export function checkPeeredAddressSpace(store: Store, vnetId: string, prefixes: readonly string[]): void {
  for (const p of peeringsOf(store, vnetId)) {
    const remote = vnetOf(store, p.properties.remoteVirtualNetwork.id);
    const list = remote ? overlapping(prefixes, spaceOf(remote)) : [];
    if (remote && list.length > 0) throw vnetAddressSpaceOverlapsPeered(vnetId, remote.id, list);
  }
}
