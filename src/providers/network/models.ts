// The Microsoft.Network resources as the store keeps them: ARM's own JSON shapes, minus what is
// derived on every read (a VNet's subnets, a subnet's ipConfigurations, an NSG's default rules).
import type { ChildResource, ProvisioningState, SubResource, TrackedResource } from './resource.js';

interface VirtualNetworkProperties {
  provisioningState: ProvisioningState;
  resourceGuid: string;
  addressSpace: { addressPrefixes: string[] };
  dhcpOptions?: { dnsServers: string[] };
  enableDdosProtection: boolean;
  enableVmProtection?: boolean;
  flowTimeoutInMinutes?: number;
  virtualNetworkPeerings: unknown[];
  /** As sent; Network's read-only regionalCommunity (a per-region value) is not emulated. */
  bgpCommunities?: { virtualNetworkCommunity: string };
  encryption?: { enabled: boolean; enforcement?: string };
}
export type VirtualNetwork = TrackedResource<VirtualNetworkProperties>;

export interface Delegation extends ChildResource<{ serviceName: string; actions: string[]; provisioningState: ProvisioningState }> {}

export interface ServiceAssociationLink
  extends ChildResource<{ linkedResourceType: string; link: string; provisioningState: ProvisioningState; allowDelete?: boolean; locations?: string[] }> {}

interface SubnetProperties {
  provisioningState: ProvisioningState;
  /** Exactly one of addressPrefix / addressPrefixes is kept: the one the client sent. */
  addressPrefix?: string;
  addressPrefixes?: string[];
  networkSecurityGroup?: SubResource;
  routeTable?: SubResource;
  delegations: Delegation[];
  serviceAssociationLinks?: ServiceAssociationLink[];
  serviceEndpoints?: Array<{ service: string; locations?: string[]; provisioningState?: string }>;
  privateEndpointNetworkPolicies: string;
  privateLinkServiceNetworkPolicies: string;
  /** As sent (2023-11-01): absent unless the client set them. */
  sharingScope?: string;
  defaultOutboundAccess?: boolean;
  purpose?: string;
}
export type Subnet = ChildResource<SubnetProperties>;

interface SecurityRuleProperties {
  provisioningState: ProvisioningState;
  description?: string;
  protocol: string;
  sourcePortRange?: string;
  destinationPortRange?: string;
  sourceAddressPrefix?: string;
  destinationAddressPrefix?: string;
  sourcePortRanges: string[];
  destinationPortRanges: string[];
  sourceAddressPrefixes: string[];
  destinationAddressPrefixes: string[];
  access: 'Allow' | 'Deny';
  priority: number;
  direction: 'Inbound' | 'Outbound';
}
export type SecurityRule = ChildResource<SecurityRuleProperties>;

interface NetworkSecurityGroupProperties {
  provisioningState: ProvisioningState;
  resourceGuid: string;
  /** Whether flows are re-evaluated when rules change; false unless sent. */
  flushConnection?: boolean;
  securityRules: SecurityRule[];
  /** Back-references, kept by the subnets and NICs that associate the group. */
  subnets?: SubResource[];
  networkInterfaces?: SubResource[];
}
export type NetworkSecurityGroup = TrackedResource<NetworkSecurityGroupProperties>;

interface RouteProperties {
  provisioningState: ProvisioningState;
  addressPrefix: string;
  nextHopType: string;
  nextHopIpAddress?: string;
  hasBgpOverride: boolean;
}
export type Route = ChildResource<RouteProperties>;

interface RouteTableProperties {
  provisioningState: ProvisioningState;
  resourceGuid: string;
  disableBgpRoutePropagation: boolean;
  routes: Route[];
  /** Back-references, kept by the subnets that associate the table. */
  subnets?: SubResource[];
}
export type RouteTable = TrackedResource<RouteTableProperties>;

interface IpConfigurationProperties {
  provisioningState: ProvisioningState;
  privateIPAddress: string;
  privateIPAllocationMethod: 'Dynamic' | 'Static';
  privateIPAddressVersion: 'IPv4' | 'IPv6';
  subnet: SubResource;
  primary: boolean;
}
export type IpConfiguration = ChildResource<IpConfigurationProperties>;

interface NetworkInterfaceProperties {
  provisioningState: ProvisioningState;
  resourceGuid: string;
  ipConfigurations: IpConfiguration[];
  dnsSettings: { dnsServers: string[]; appliedDnsServers: string[] };
  enableAcceleratedNetworking: boolean;
  enableIPForwarding: boolean;
  disableTcpStateTracking: boolean;
  networkSecurityGroup?: SubResource;
  nicType: string;
  hostedWorkloads: string[];
  tapConfigurations: unknown[];
  vnetEncryptionSupported: boolean;
}
export type NetworkInterface = TrackedResource<NetworkInterfaceProperties>;
