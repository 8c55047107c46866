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
  natGateway?: SubResource;
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
  publicIPAddress?: SubResource;
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

/** A SKU as Network returns it: publicIPAddresses and loadBalancers carry a tier, the others only a name. */
export interface Sku {
  name: string;
  tier?: string;
}

interface PublicIpAddressProperties {
  provisioningState: ProvisioningState;
  resourceGuid: string;
  publicIPAddressVersion: 'IPv4' | 'IPv6';
  publicIPAllocationMethod: 'Static' | 'Dynamic';
  idleTimeoutInMinutes: number;
  /** Absent for a Dynamic address nothing uses (Basic only, which aksemu refuses), else from the emulated range. */
  ipAddress?: string;
  ipTags: Array<{ ipTagType: string; tag: string }>;
  dnsSettings?: { domainNameLabel: string; fqdn: string; reverseFqdn?: string };
  publicIPPrefix?: SubResource;
  /** Back-reference: the ip configuration (LB frontend, NIC ip configuration) that uses the address. */
  ipConfiguration?: SubResource;
  /** Back-reference: the NAT gateway that uses the address. */
  natGateway?: SubResource;
}
export interface PublicIpAddress extends TrackedResource<PublicIpAddressProperties> {
  sku: Sku;
  zones?: string[];
}

interface PublicIpPrefixProperties {
  provisioningState: ProvisioningState;
  resourceGuid: string;
  prefixLength: number;
  publicIPAddressVersion: 'IPv4' | 'IPv6';
  ipPrefix: string;
  ipTags: Array<{ ipTagType: string; tag: string }>;
  /** Back-references: the public IP addresses made from the prefix. */
  publicIPAddresses?: SubResource[];
  /** Back-references: the LB frontend or NAT gateway that uses the whole prefix. */
  loadBalancerFrontendIpConfiguration?: SubResource;
  natGateway?: SubResource;
}
export interface PublicIpPrefix extends TrackedResource<PublicIpPrefixProperties> {
  sku: Sku;
  zones?: string[];
}

interface NatGatewayProperties {
  provisioningState: ProvisioningState;
  resourceGuid: string;
  idleTimeoutInMinutes: number;
  publicIpAddresses: SubResource[];
  publicIpPrefixes: SubResource[];
  /** Back-references, kept by the subnets that associate the gateway. */
  subnets?: SubResource[];
}
export interface NatGateway extends TrackedResource<NatGatewayProperties> {
  sku: Sku;
  zones?: string[];
}

export type FrontendIpConfiguration = ChildResource<{
  provisioningState: ProvisioningState;
  privateIPAddress?: string;
  privateIPAllocationMethod?: 'Dynamic' | 'Static';
  privateIPAddressVersion?: 'IPv4' | 'IPv6';
  subnet?: SubResource;
  publicIPAddress?: SubResource;
  publicIPPrefix?: SubResource;
  /** Read-only: the rules that use the frontend (derived on render). */
  loadBalancingRules?: SubResource[];
  outboundRules?: SubResource[];
}> & { zones?: string[] };

export type BackendAddressPool = ChildResource<{
  provisioningState: ProvisioningState;
  loadBalancingRules?: SubResource[];
  outboundRules?: SubResource[];
  outboundRule?: SubResource;
}>;

export type LoadBalancingRule = ChildResource<{
  provisioningState: ProvisioningState;
  frontendIPConfiguration: SubResource;
  backendAddressPool?: SubResource;
  backendAddressPools?: SubResource[];
  probe?: SubResource;
  protocol: string;
  loadDistribution: string;
  frontendPort: number;
  backendPort: number;
  idleTimeoutInMinutes: number;
  enableFloatingIP: boolean;
  enableTcpReset: boolean;
  disableOutboundSnat: boolean;
}>;

export type Probe = ChildResource<{
  provisioningState: ProvisioningState;
  protocol: string;
  port: number;
  requestPath?: string;
  intervalInSeconds: number;
  numberOfProbes: number;
  probeThreshold: number;
  /** Read-only: the rules that use the probe (derived on render). */
  loadBalancingRules?: SubResource[];
}>;

export type OutboundRule = ChildResource<{
  provisioningState: ProvisioningState;
  frontendIPConfigurations: SubResource[];
  backendAddressPool: SubResource;
  protocol: string;
  allocatedOutboundPorts: number;
  idleTimeoutInMinutes: number;
  enableTcpReset: boolean;
}>;

interface LoadBalancerProperties {
  provisioningState: ProvisioningState;
  resourceGuid: string;
  frontendIPConfigurations: FrontendIpConfiguration[];
  backendAddressPools: BackendAddressPool[];
  loadBalancingRules: LoadBalancingRule[];
  probes: Probe[];
  outboundRules: OutboundRule[];
  inboundNatRules: unknown[];
  inboundNatPools: unknown[];
}
export interface LoadBalancer extends TrackedResource<LoadBalancerProperties> {
  sku: Sku;
}

export type PeeringState = 'Initiated' | 'Connected' | 'Disconnected';
export type PeeringSyncLevel = 'FullyInSync' | 'RemoteNotInSync' | 'LocalNotInSync' | 'LocalAndRemoteNotInSync';

export type VirtualNetworkPeering = ChildResource<{
  provisioningState: ProvisioningState;
  resourceGuid: string;
  remoteVirtualNetwork: SubResource;
  allowVirtualNetworkAccess: boolean;
  allowForwardedTraffic: boolean;
  allowGatewayTransit: boolean;
  useRemoteGateways: boolean;
  doNotVerifyRemoteGateways: boolean;
  peeringState: PeeringState;
  peeringSyncLevel: PeeringSyncLevel;
  /** The remote VNet's address space when the peering last synced, and now. */
  remoteAddressSpace: { addressPrefixes: string[] };
  remoteVirtualNetworkAddressSpace: { addressPrefixes: string[] };
}>;
