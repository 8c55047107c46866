import type { Store } from '../../store/store.js';
import { subnetsOfOwner, subnetsOfOwners } from './allocations.js';
import { moveBackReference, removeBackReference } from './backReferences.js';
import { invalidNicIpConfigurations, invalidResourceReference, staticAllocationWithoutAddress } from './errors.js';
import type { IpConfiguration, NetworkInterface, NetworkSecurityGroup, Subnet, VirtualNetwork } from './models.js';
import { parentOf, referenceId, putLocation, TYPES, type ProvisioningState, trackedHead, trackedProperties } from './resource.js';
import { attachPublicIp, detachPublicIp } from './publicIpModel.js';
import { hold, releaseIn, type Holding, type SubnetRef } from './subnetAddresses.js';
import { findSubnet, subnetRef } from './subnetModel.js';
import { validateResourceName } from '../../arm/names.js';
import { idKey, sameId } from '../../ids/compare.js';

/** The tag ContainerService puts on kubenet node NICs: the cluster id (subnetInfo's kubenetClusterIds). */
export const KUBENET_CLUSTER_TAG = 'aksemu-kubenet-cluster';

interface IpConfigurationInput {
  name?: string;
  properties?: {
    privateIPAddress?: string | null;
    privateIPAllocationMethod?: string | null;
    privateIPAddressVersion?: string | null;
    subnet?: { id?: string } | null;
    primary?: boolean | null;
    publicIPAddress?: { id?: string } | null;
  };
}

export interface NicInput {
  location?: string;
  tags?: Record<string, string> | null;
  properties?: {
    ipConfigurations?: IpConfigurationInput[] | null;
    networkSecurityGroup?: { id?: string } | null;
    enableAcceleratedNetworking?: boolean | null;
    enableIPForwarding?: boolean | null;
    disableTcpStateTracking?: boolean | null;
    dnsSettings?: { dnsServers?: string[] | null } | null;
    nicType?: string | null;
  };
}

interface PlannedConfig {
  id: string;
  name: string;
  subnetId: string;
  method: 'Dynamic' | 'Static';
  primary: boolean;
  /** Set when the address is asked for by value. */
  address?: string;
  /** The public IP address the ip configuration takes (docs/aks-rules.md §11 P8). */
  publicIp?: string;
}

interface SubnetRead {
  subnet: Subnet | undefined;
  vnet: VirtualNetwork | undefined;
  ref?: SubnetRef;
}

/**
 * The subnets (and their VNets) NIC writes name, each read once: an Azure CNI node's NIC has 1 + maxPods ip
 * configurations on one subnet, and an operation writes a NIC per node. NIC writes change neither, so one set serves
 * a run of NIC writes in which nothing else writes a subnet or a VNet (putNics' batch).
 */
export class SubnetReads {
  private readonly found = new Map<string, SubnetRead>();

  constructor(private readonly store: Store) {}

  of(subnetId: string): SubnetRead {
    const key = idKey(subnetId);
    let found = this.found.get(key);
    if (!found) {
      const subnet = findSubnet(this.store, subnetId);
      found = { subnet, vnet: subnet && this.store.get<VirtualNetwork>(parentOf(subnet.id)) };
      this.found.set(key, found);
    }
    return found;
  }

  subnet(subnetId: string): Subnet | undefined {
    return this.of(subnetId).subnet;
  }

  /** The batch's owners' subnets (subnetsOfOwners), each handed out once: a second write of one owner reads its own. */
  private owners: Map<string, string[]> | undefined;

  /** Reads the subnets the batch's NICs hold addresses in, in one scan, before the batch writes any of them. */
  readOwners(owners: readonly string[]): void {
    this.owners = subnetsOfOwners(this.store, owners);
  }

  /** subnetsOfOwner, from the batch's read while it holds the owner's (nothing but the owner's own write changes it). */
  subnetsOfOwner(owner: string): string[] {
    const key = idKey(owner);
    const read = this.owners?.get(key);
    if (!read) return subnetsOfOwner(this.store, owner);
    this.owners!.delete(key);
    return read;
  }

  /** The subnet as address management needs it (its prefixes parsed once). */
  ref(subnet: Subnet): SubnetRef {
    const found = this.of(subnet.id);
    return (found.ref ??= subnetRef(subnet));
  }
}

function planConfigs(subnets: SubnetReads, nicId: string, location: string, input: NicInput, existing: NetworkInterface | undefined): PlannedConfig[] {
  const configs = input.properties?.ipConfigurations ?? [];
  if (configs.length === 0) throw invalidNicIpConfigurations(nicId, 'a network interface needs at least one ip configuration.');
  const primaries = configs.filter((c) => c.properties?.primary === true).length;
  if (primaries > 1) throw invalidNicIpConfigurations(nicId, 'exactly one ip configuration must be primary.');
  const names = new Set<string>();
  return configs.map((c, i) => {
    const name = c.name ?? (i === 0 ? 'ipconfig1' : `ipconfig${i + 1}`);
    validateResourceName(name);
    if (names.has(idKey(name))) throw invalidNicIpConfigurations(nicId, `two ip configurations are named '${name}'.`);
    names.add(idKey(name));
    const id = `${nicId}/ipConfigurations/${name}`;
    const p = c.properties ?? {};
    const ref = referenceId(p.subnet, `properties.ipConfigurations[${i}].properties.subnet`);
    if (!ref) throw invalidNicIpConfigurations(nicId, `ip configuration '${name}' has no subnet.`);
    const { subnet, vnet } = subnets.of(ref);
    if (!subnet || !vnet || vnet.location !== location) throw invalidResourceReference(ref, nicId);
    const publicIp = referenceId(p.publicIPAddress, `properties.ipConfigurations[${i}].properties.publicIPAddress`);
    const method = p.privateIPAllocationMethod?.toLowerCase() === 'static' ? 'Static' : 'Dynamic';
    const before = existing?.properties.ipConfigurations.find((x) => sameId(x.name, name));
    const kept = before && sameId(before.properties.subnet.id, subnet.id) ? before.properties.privateIPAddress : undefined;
    const address = p.privateIPAddress ?? (method === 'Dynamic' ? kept : undefined);
    if (method === 'Static' && !address) throw staticAllocationWithoutAddress(id);
    return {
      id,
      name,
      subnetId: subnet.id,
      method,
      primary: primaries === 0 ? i === 0 : p.primary === true,
      ...(address ? { address } : {}),
      ...(publicIp ? { publicIp } : {}),
    };
  });
}

function checkNsg(store: Store, input: NicInput, nicId: string, location: string): string | undefined {
  const ref = referenceId(input.properties?.networkSecurityGroup, 'properties.networkSecurityGroup');
  if (!ref) return undefined;
  const nsg = store.get<NetworkSecurityGroup>(ref);
  if (!nsg || nsg.type !== TYPES.networkSecurityGroup || nsg.location !== location) throw invalidResourceReference(ref, nicId);
  return nsg.id;
}

/**
 * Creates or replaces a NIC, its addresses included. `id` carries the group's stored casing. `subnets`: the reads of
 * a batch of NIC writes (see SubnetReads), else this write's own.
 */
export function writeNetworkInterface(
  store: Store,
  id: string,
  input: NicInput,
  state: ProvisioningState,
  subnets = new SubnetReads(store),
): { nic: NetworkInterface; created: boolean } {
  return store.transaction(() => {
    const existing = store.get<NetworkInterface>(id);
    const location = putLocation(input.location, existing, TYPES.networkInterface);
    const nicId = existing?.id ?? id;
    const planned = planConfigs(subnets, nicId, location, input, existing);
    const nsgId = checkNsg(store, input, nicId, location);

    // Addresses, subnet by subnet; subnets the NIC leaves give its addresses back.
    const kubenetCluster = input.tags?.[KUBENET_CLUSTER_TAG];
    const bySubnet = new Map<string, PlannedConfig[]>();
    for (const c of planned) bySubnet.set(idKey(c.subnetId), [...(bySubnet.get(idKey(c.subnetId)) ?? []), c]);
    for (const subnetId of subnets.subnetsOfOwner(nicId)) {
      const subnet = subnets.subnet(subnetId);
      if (subnet && !bySubnet.has(idKey(subnet.id))) releaseIn(store, subnets.ref(subnet), nicId);
    }
    const addresses = new Map<string, string>();
    for (const configs of bySubnet.values()) {
      const subnet = subnets.subnet(configs[0]!.subnetId)!;
      const want: Holding = {
        explicit: configs.filter((c) => c.address !== undefined).map((c) => ({ address: c.address!, ipConfigurationId: c.id })),
        dynamic: configs.filter((c) => c.address === undefined).map((c) => c.id),
        ...(kubenetCluster !== undefined ? { kubenetCluster } : {}),
      };
      for (const [configId, address] of hold(store, subnets.ref(subnet), nicId, want)) addresses.set(configId, address);
    }

    // Public IPs: the configurations' old ones are let go, the new ones taken (each by one user only).
    for (const before of existing?.properties.ipConfigurations ?? []) {
      const now = planned.find((c) => sameId(c.id, before.id));
      if (before.properties.publicIPAddress && !sameId(now?.publicIp, before.properties.publicIPAddress.id))
        detachPublicIp(store, before.properties.publicIPAddress.id, 'ipConfiguration', before.id);
    }
    for (const c of planned) if (c.publicIp) c.publicIp = attachPublicIp(store, c.publicIp, 'ipConfiguration', c.id, nicId, location).id;

    // Built with no undefined member (no JSON copy to drop them): a node NIC has 1 + maxPods configurations.
    const { tags, ...head } = trackedHead(existing, nicId, TYPES.networkInterface, location, input.tags);
    const ipConfigurations: IpConfiguration[] = planned.map((c) => ({
      id: c.id,
      name: c.name,
      type: TYPES.ipConfiguration,
      // Child etags follow the parent's, as the RP's do.
      etag: head.etag,
      properties: {
        provisioningState: state,
        privateIPAddress: addresses.get(c.id)!,
        privateIPAllocationMethod: c.method,
        privateIPAddressVersion: addresses.get(c.id)!.includes(':') ? 'IPv6' : 'IPv4',
        subnet: { id: c.subnetId },
        primary: c.primary,
        ...(c.publicIp ? { publicIPAddress: { id: c.publicIp } } : {}),
      },
    }));
    const p = input.properties ?? {};
    const nic: NetworkInterface = {
      ...head,
      ...(tags ? { tags } : {}),
      properties: {
        ...trackedProperties(existing, state),
        ipConfigurations,
        dnsSettings: { dnsServers: p.dnsSettings?.dnsServers ?? [], appliedDnsServers: [] },
        enableAcceleratedNetworking: p.enableAcceleratedNetworking ?? false,
        enableIPForwarding: p.enableIPForwarding ?? false,
        disableTcpStateTracking: p.disableTcpStateTracking ?? false,
        ...(nsgId ? { networkSecurityGroup: { id: nsgId } } : {}),
        nicType: p.nicType ?? 'Standard',
        hostedWorkloads: [],
        tapConfigurations: [],
        vnetEncryptionSupported: false,
      },
    };
    store.put(nic.id, nic);
    moveBackReference(store, 'networkInterfaces', nic.id, existing?.properties.networkSecurityGroup?.id, nsgId);
    return { nic, created: !existing };
  });
}

/** Deletes a NIC and gives its addresses back. False when there was none. */
export function removeNetworkInterface(store: Store, nicId: string): boolean {
  return store.transaction(() => {
    const nic = store.get<NetworkInterface>(nicId);
    for (const subnetId of subnetsOfOwner(store, nic?.id ?? nicId)) {
      const subnet = findSubnet(store, subnetId);
      if (subnet) releaseIn(store, subnetRef(subnet), nic?.id ?? nicId);
    }
    if (!nic || nic.type !== TYPES.networkInterface) return false;
    for (const c of nic.properties.ipConfigurations)
      if (c.properties.publicIPAddress) detachPublicIp(store, c.properties.publicIPAddress.id, 'ipConfiguration', c.id);
    if (nic.properties.networkSecurityGroup) removeBackReference(store, nic.properties.networkSecurityGroup.id, 'networkInterfaces', nic.id);
    store.delete(nic.id);
    return true;
  });
}

export function findNetworkInterface(store: Store, id: string): NetworkInterface | undefined {
  const nic = store.get<NetworkInterface>(id);
  return nic && nic.type === TYPES.networkInterface ? nic : undefined;
}
