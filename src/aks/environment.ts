// What the model needs to know about the VNet around a cluster. The ARM layer fills it from the store;
// `aksemu plan` builds it from flags. Absent facts are not checked (a plan has no permissions to look at).
import { DEFAULTS, type ResolvedPool } from './defaults.js';

export interface VnetInfo {
  id: string;
  name: string;
  addressSpace: string[];
  provisioningState?: string;
  location?: string;
  subnets: Array<{ id: string; name: string; addressPrefixes: string[] }>;
}

export interface SubnetInfo {
  id: string;
  name: string;
  addressPrefixes: string[];
  vnet: VnetInfo;
  location?: string;
  /** True for the VNet AKS creates itself in the node resource group. */
  managed?: boolean;
  /** Service names of the subnet's delegations. */
  delegations?: string[];
  /** Ids of resources from other services that lock the subnet (service association links). */
  externalResources?: string[];
  /** Addresses taken right now by anything, this cluster's current nodes included. */
  ipsInUse?: number;
  routeTableId?: string;
  /** The route table's routes (outboundType userDefinedRouting checks its default route, O7–O9). */
  routes?: Array<{ addressPrefix: string; nextHopType: string; nextHopIpAddress?: string }>;
  /** The NAT gateway associated with the subnet (outboundType userAssignedNATGateway, O6). */
  natGatewayId?: string;
  /** Ids of other kubenet clusters whose nodes already sit on this subnet. */
  kubenetClusterIds?: string[];
  /** The cluster identity's effective actions on the subnet, when the caller checked them. */
  access?: IdentityAccess;
  /** The identity's actions on the custom route table, for kubenet (S5). */
  routeTableAccess?: IdentityAccess;
}

export interface IdentityAccess {
  clientId: string;
  objectId: string;
  actions: string[];
}

export type ConnectedKind = 'peered' | 'on-premises';

/** A network the cluster's VNet is joined to: a peered VNet, or an on-premises range over ExpressRoute or a VPN. */
export interface ConnectedNetwork {
  kind: ConnectedKind;
  /** A peered VNet's name, or how the user named an on-premises range. */
  name: string;
  addressPrefixes: string[];
}

export interface NetworkEnvironment {
  /** Subnets by lower-cased resource id; a missing entry means "not found". */
  subnets: Record<string, SubnetInfo | undefined>;
  location?: string;
  /** `/subscriptions/…/resourceGroups/MC_…`, to name the VMSS in InvalidResourceReference and LinkedAuthorizationFailed. */
  nodeResourceGroupId?: string;
  /** The 8-digit id in node and VMSS names. */
  clusterDigits?: string;
  /** The managed VNet used for pools without vnetSubnetID. */
  managedSubnet?: SubnetInfo;
  /** Networks joined to the cluster's VNet, when the caller knows them (`aksemu plan` flags; C18, C19). */
  connectedNetworks?: ConnectedNetwork[];
  /**
   * The public IPs and prefixes a loadBalancerProfile names, by lower-cased id, with how many addresses each gives
   * (a prefix: all of its range); missing means not found (O3, O4).
   */
  outboundResources?: Record<string, { addresses: number } | undefined>;
}

/** The managed VNet's address space and subnet prefixes; a dual-stack cluster's has an IPv6 range too (docs/aks-rules.md §9.3). */
export function managedPrefixes(dualStack: boolean): { vnet: string[]; subnet: string[] } {
  return dualStack
    ? { vnet: [DEFAULTS.managedVnetCidr, DEFAULTS.managedVnetCidrIPv6], subnet: [DEFAULTS.managedSubnetCidr, DEFAULTS.managedSubnetCidrIPv6] }
    : { vnet: [DEFAULTS.managedVnetCidr], subnet: [DEFAULTS.managedSubnetCidr] };
}

export function managedSubnet(env: NetworkEnvironment, dualStack = false): SubnetInfo {
  if (env.managedSubnet) return env.managedSubnet;
  const vnetId = 'managed:aks-vnet';
  const subnetId = `${vnetId}/subnets/${DEFAULTS.managedSubnetName}`;
  const prefixes = managedPrefixes(dualStack);
  return {
    id: subnetId,
    name: DEFAULTS.managedSubnetName,
    addressPrefixes: prefixes.subnet,
    managed: true,
    vnet: {
      id: vnetId,
      name: 'aks-vnet',
      addressSpace: prefixes.vnet,
      subnets: [{ id: subnetId, name: DEFAULTS.managedSubnetName, addressPrefixes: prefixes.subnet }],
    },
  };
}

/** The subnet a pool's nodes land on; undefined when its vnetSubnetID names nothing that exists. */
export function subnetOfPool(env: NetworkEnvironment, pool: Pick<ResolvedPool, 'vnetSubnetID'>): SubnetInfo | undefined {
  if (!pool.vnetSubnetID) return managedSubnet(env);
  return env.subnets[pool.vnetSubnetID.toLowerCase()];
}

export function vmssId(env: NetworkEnvironment, poolName: string): string {
  const rg = env.nodeResourceGroupId ?? '/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/MC_rg_cluster_location';
  return `${rg}/providers/Microsoft.Compute/virtualMachineScaleSets/aks-${poolName}-${env.clusterDigits ?? '00000000'}-vmss`;
}
