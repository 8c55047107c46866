// The address management of Microsoft.Network subnets, for the rest of aksemu (ContainerService's
// node NICs and pod IPs) and for Network's own REST API: one owner of every subnet's addresses.
//
// Contract:
// - Call every function that changes something inside a store transaction (each opens one too, which
//   nests). A transaction that rolls back leaves no trace, in the store or in the in-memory pools.
// - Addresses are handed out lowest free first, from .4 (Azure reserves the first four and the last).
// - An owner is any string; for NICs it is the NIC id. putNic makes the NIC's id the owner of exactly
//   the addresses on its ip configurations, so allocate with the NIC id as owner, then putNic.
// - The pools are rebuilt from the stored allocations after a restart (they are written in the same
//   transactions as the NICs), so nothing is handed out twice across restarts or back-to-back creates.
import type { SubnetInfo } from '../../aks/environment.js';
import type { Cidr, IpFamily } from '../../net/ip.js';
import type { Store } from '../../store/store.js';
import { allocationsIn, ownersUnder, subnetsOfOwner } from './allocations.js';
import { childNotFound } from './errors.js';
import type { NetworkInterface, RouteTable, ServiceAssociationLink, Subnet, VirtualNetwork } from './models.js';
import { findNetworkInterface, KUBENET_CLUSTER_TAG, removeNetworkInterface, SubnetReads, writeNetworkInterface, type NicInput } from './nicModel.js';
import { groupScopeOf, newEtag, parentOf, TYPES, writableGroupOf } from './resource.js';
import { allocate, allocateBlocks, readPool, releaseIn, type SubnetRef } from './subnetAddresses.js';
import { findSubnet, prefixesOf, subnetRef, subnetsOf } from './subnetModel.js';
import { idKey, sameId } from '../../ids/compare.js';

export { AddressSpaceExhaustedError } from './subnetAddresses.js';
export { KUBENET_CLUSTER_TAG } from './nicModel.js';

interface SubnetInfoOptions {
  /** Addresses of owners whose id starts with this (case-insensitively) are not counted in ipsInUse. */
  excludeOwnerPrefix?: string | undefined;
}

/** The AKS model's view of a subnet (src/aks/environment.ts); undefined when the subnet does not exist. */
export function subnetInfo(store: Store, subnetId: string, opts: SubnetInfoOptions = {}): SubnetInfo | undefined {
  const subnet = findSubnet(store, subnetId);
  const vnet = subnet && store.get<VirtualNetwork>(parentOf(subnet.id));
  if (!subnet || !vnet) return undefined;
  const exclude = opts.excludeOwnerPrefix?.toLowerCase();
  const allocations = allocationsIn(store, subnet.id);
  const kubenet = new Map<string, string>();
  for (const a of allocations) if (a.kubenetCluster) kubenet.set(idKey(a.kubenetCluster), a.kubenetCluster);
  const info: SubnetInfo = {
    id: subnet.id,
    name: subnet.name,
    addressPrefixes: prefixesOf(subnet),
    location: vnet.location,
    vnet: {
      id: vnet.id,
      name: vnet.name,
      addressSpace: [...vnet.properties.addressSpace.addressPrefixes],
      provisioningState: vnet.properties.provisioningState,
      location: vnet.location,
      subnets: subnetsOf(store, vnet.id).map((s) => ({ id: s.id, name: s.name, addressPrefixes: prefixesOf(s) })),
    },
    delegations: subnet.properties.delegations.map((d) => d.properties.serviceName),
    externalResources: (subnet.properties.serviceAssociationLinks ?? []).map((l) => l.properties.link),
    ipsInUse: allocations.filter((a) => exclude === undefined || !a.owner.toLowerCase().startsWith(exclude)).reduce((n, a) => n + a.addresses.length, 0),
    kubenetClusterIds: [...kubenet.values()],
  };
  if (subnet.properties.routeTable) {
    info.routeTableId = subnet.properties.routeTable.id;
    const table = store.get<RouteTable>(subnet.properties.routeTable.id);
    info.routes = (table?.properties.routes ?? []).map((r) => ({
      addressPrefix: r.properties.addressPrefix,
      nextHopType: r.properties.nextHopType,
      ...(r.properties.nextHopIpAddress ? { nextHopIpAddress: r.properties.nextHopIpAddress } : {}),
    }));
  }
  if (subnet.properties.natGateway?.id) info.natGatewayId = subnet.properties.natGateway.id;
  return info;
}

/** Whether subnetInfo would find the subnet (it and its VNet are there), without reading the subnet's allocations. */
export function subnetExists(store: Store, subnetId: string): boolean {
  const subnet = findSubnet(store, subnetId);
  return subnet !== undefined && store.get(parentOf(subnet.id)) !== undefined;
}

/** The route table a subnet uses, if any: subnetInfo's routeTableId without reading the subnet's allocations. */
export function subnetRouteTableId(store: Store, subnetId: string): string | undefined {
  return findSubnet(store, subnetId)?.properties.routeTable?.id;
}

function requireSubnet(store: Store, subnetId: string): Subnet {
  const subnet = findSubnet(store, subnetId);
  if (!subnet) throw childNotFound(subnetId);
  return subnet;
}

/**
 * The `count` lowest free addresses of the subnet, now held by `owner` (added to what it holds).
 * All or nothing: AddressSpaceExhaustedError (the RP's SubnetIsFull) when fewer are free.
 * `forNic`: the owner is the id of a NIC that putNic writes next with all the owner's addresses there, in order;
 * the allocation is then recorded with that NIC's ip configurations, and putNic finds nothing left to write.
 */
export function allocateAddresses(store: Store, subnetId: string, owner: string, count: number, family?: IpFamily, forNic = false): string[] {
  return subnetIpam(store, subnetId).allocate(owner, count, family, forNic);
}

/** The name putNic gives the ip configuration of a NIC's i-th address. */
const nicConfigName = (i: number) => `ipconfig${i + 1}`;

/** `count` free aligned blocks of length `prefixLength` (static /28 pod blocks), held by `owner`; SubnetIsFull otherwise. */
export function allocateAddressBlocks(store: Store, subnetId: string, owner: string, count: number, prefixLength: number): Cidr[] {
  return subnetIpam(store, subnetId).allocateBlocks(owner, count, prefixLength);
}

/** Free addresses of the subnet right now, of its first prefix's family or of `family` (from the in-memory pool: cheap enough to ask per node). */
export function freeAddressCount(store: Store, subnetId: string, family?: IpFamily): number {
  return subnetIpam(store, subnetId).free(family);
}

/** allocateAddresses, allocateAddressBlocks and freeAddressCount of one subnet. */
export interface SubnetIpam {
  allocate(owner: string, count: number, family?: IpFamily, forNic?: boolean): string[];
  allocateBlocks(owner: string, count: number, prefixLength: number): Cidr[];
  free(family?: IpFamily): number;
}

/**
 * The address management of one subnet, its record read when first needed and then kept: for a run of changes in
 * which nothing writes the subnet (an operation's planner allocating node after node). ChildNotFound when it is gone.
 */
export function subnetIpam(store: Store, subnetId: string): SubnetIpam {
  let ref: SubnetRef | undefined;
  const subnet = () => (ref ??= subnetRef(requireSubnet(store, subnetId)));
  return {
    allocate: (owner, count, family, forNic = false) => {
      const configOf = forNic ? (i: number) => `${owner}/ipConfigurations/${nicConfigName(i)}` : undefined;
      return allocate(store, subnet(), owner, count, family, configOf);
    },
    allocateBlocks: (owner, count, prefixLength) => allocateBlocks(store, subnet(), owner, count, prefixLength),
    free: (family) => readPool(store, subnet(), (pool) => pool.freeOf(family)),
  };
}

/** Which addresses are taken by whom: every held address of the subnet, ascending per owner. */
export function addressesInUse(store: Store, subnetId: string): Array<{ address: string; owner: string; ipConfigurationId?: string }> {
  return allocationsIn(store, subnetId).flatMap((a) =>
    a.addresses.map((address, i) => {
      const ipConfigurationId = a.ipConfigurations?.[i];
      return ipConfigurationId ? { address, owner: a.owner, ipConfigurationId } : { address, owner: a.owner };
    }),
  );
}

/** A node NIC: one ip configuration per address, the first primary (ipconfig1), the rest secondary. */
interface NicSpec {
  id: string;
  subnetId: string;
  addresses: string[];
  /** Defaults to the VNet's location. */
  location?: string;
  tags?: Record<string, string>;
}

/**
 * Writes a Microsoft.Network/networkInterfaces resource holding exactly `addresses` (each free or
 * already held by the NIC's id, e.g. through allocateAddresses(store, subnetId, spec.id, n)); any
 * other address the NIC's id held is released. The subnet's ipConfigurations list the NIC's.
 */
export function putNic(store: Store, spec: NicSpec): NetworkInterface {
  return putNics(store, [spec])[0]!;
}

/**
 * putNic of each spec, in order, in one transaction: the groups they go into are checked, and the subnets and VNets
 * they name read, once for the batch (an operation's node NICs: one group, one or two subnets).
 */
export function putNics(store: Store, specs: readonly NicSpec[]): NetworkInterface[] {
  return store.transaction(() => {
    const groups = new Set<string>();
    const subnets = new SubnetReads(store);
    subnets.readOwners(specs.map((spec) => spec.id));
    return specs.map((spec) => {
      const group = idKey(groupScopeOf(spec.id) ?? spec.id);
      if (!groups.has(group)) {
        writableGroupOf(store, spec.id);
        groups.add(group);
      }
      const { subnet, vnet } = subnets.of(spec.subnetId);
      if (!subnet) throw childNotFound(spec.subnetId);
      const input: NicInput = {
        location: spec.location ?? vnet!.location,
        tags: spec.tags ?? null,
        properties: {
          ipConfigurations: spec.addresses.map((address, i) => ({
            name: nicConfigName(i),
            properties: { subnet: { id: subnet.id }, privateIPAddress: address, privateIPAllocationMethod: 'Dynamic', primary: i === 0 },
          })),
        },
      };
      return writeNetworkInterface(store, spec.id, input, 'Succeeded', subnets).nic;
    });
  });
}

/** Deletes a NIC and releases its addresses; false when it did not exist. */
export function deleteNic(store: Store, nicId: string): boolean {
  return removeNetworkInterface(store, nicId);
}

/**
 * Releases every address `owner` holds, in every subnet. When the owner is a NIC, the NIC goes too
 * (a NIC never keeps addresses nobody holds). Returns the number of addresses released.
 */
export function releaseOwner(store: Store, owner: string): number {
  return store.transaction(() => {
    let released = 0;
    for (const subnetId of subnetsOfOwner(store, owner)) {
      const subnet = findSubnet(store, subnetId);
      if (subnet) released += releaseIn(store, subnetRef(subnet), owner);
    }
    if (findNetworkInterface(store, owner)) removeNetworkInterface(store, owner);
    return released;
  });
}

/** releaseOwner for every owner whose id is `prefix` or lies below it (a cluster, a resource group). */
export function releaseOwnersUnder(store: Store, prefix: string): number {
  return store.transaction(() => ownersUnder(store, prefix).reduce((n, owner) => n + releaseOwner(store, owner), 0));
}

/**
 * Links a service's resource to a subnet (what ACI or App Service do); the subnet then has external
 * resources (rule S2) and cannot be deleted. Read-only over REST, as in Azure.
 */
export function addServiceAssociationLink(store: Store, subnetId: string, link: { name: string; linkedResourceType: string; link: string }): void {
  store.transaction(() => {
    const subnet = requireSubnet(store, subnetId);
    const links = (subnet.properties.serviceAssociationLinks ?? []).filter((l) => !sameId(l.name, link.name));
    const sal: ServiceAssociationLink = {
      id: `${subnet.id}/serviceAssociationLinks/${link.name}`,
      name: link.name,
      type: TYPES.serviceAssociationLink,
      etag: newEtag(),
      properties: { linkedResourceType: link.linkedResourceType, link: link.link, provisioningState: 'Succeeded', allowDelete: false, locations: [] },
    };
    store.put(subnet.id, { ...subnet, etag: newEtag(), properties: { ...subnet.properties, serviceAssociationLinks: [...links, sal] } });
  });
}

/** The tag value that marks a kubenet node NIC of `clusterId` (for putNic's tags). */
export function kubenetTag(clusterId: string): Record<string, string> {
  return { [KUBENET_CLUSTER_TAG]: clusterId };
}
