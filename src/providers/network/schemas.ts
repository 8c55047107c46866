// Request-body models of the Network resources aksemu serves, named as in the REST spec (the strict
// check names them in its errors). Every member a GET returns is accepted, so `az … update` (GET, edit,
// PUT the whole object) round-trips; read-only members are ignored. Writable features aksemu does not
// model (NAT gateways, peerings with content, application security groups…) are
// left out, so strict mode names them instead of silently dropping them.
import { s, type Schema } from '../../arm/schema.js';

const tags = s.tags();
const readOnlyAny = s.any();

/** A reference: {"id": …}. Other members of an embedded resource are tolerated and ignored. */
function reference(typeName: string): Schema {
  return s.object(typeName, { id: s.string(), name: s.string(), type: s.string(), etag: s.string(), location: s.string(), tags, properties: readOnlyAny });
}

/** The members every ARM resource has in a GET; accepted on PUT (and ignored). */
const envelope = { id: s.string(), name: s.string(), type: s.string(), etag: s.string() };

const delegation = s.object('Delegation', {
  ...envelope,
  properties: s.object('ServiceDelegationPropertiesFormat', { serviceName: s.string(), actions: s.array(s.string()), provisioningState: s.string() }),
});

const serviceEndpoint = s.object('ServiceEndpointPropertiesFormat', { service: s.string(), locations: s.array(s.string()), provisioningState: s.string() });

const subnetProperties = s.object('SubnetPropertiesFormat', {
  addressPrefix: s.string(),
  addressPrefixes: s.array(s.string()),
  networkSecurityGroup: reference('NetworkSecurityGroup'),
  routeTable: reference('RouteTable'),
  delegations: s.array(delegation),
  serviceEndpoints: s.array(serviceEndpoint),
  privateEndpointNetworkPolicies: s.string(),
  privateLinkServiceNetworkPolicies: s.string(),
  sharingScope: s.string(),
  defaultOutboundAccess: s.boolean(),
  // References to serviceEndpointPolicies, which aksemu does not serve: refused as missing resources.
  serviceEndpointPolicies: s.array(reference('ServiceEndpointPolicy')),
  // Read-only.
  provisioningState: s.string(),
  ipConfigurations: readOnlyAny,
  serviceAssociationLinks: readOnlyAny,
  purpose: s.string(),
});

export const subnetModel = s.object('Subnet', { ...envelope, properties: subnetProperties });

export const virtualNetworkModel = s.object('VirtualNetwork', {
  ...envelope,
  location: s.string(),
  tags,
  properties: s.object('VirtualNetworkPropertiesFormat', {
    addressSpace: s.object('AddressSpace', { addressPrefixes: s.array(s.string()) }),
    subnets: s.array(subnetModel),
    dhcpOptions: s.object('DhcpOptions', { dnsServers: s.array(s.string()) }),
    enableDdosProtection: s.boolean(),
    enableVmProtection: s.boolean(),
    flowTimeoutInMinutes: s.integer(),
    virtualNetworkPeerings: s.array(s.any()),
    bgpCommunities: s.object('VirtualNetworkBgpCommunities', { virtualNetworkCommunity: s.string(), regionalCommunity: s.string() }),
    encryption: s.object('VirtualNetworkEncryption', { enabled: s.boolean(), enforcement: s.string() }),
    // Read-only.
    provisioningState: s.string(),
    resourceGuid: s.string(),
  }),
});

const securityRuleProperties = s.object('SecurityRulePropertiesFormat', {
  description: s.string(),
  protocol: s.string(),
  sourcePortRange: s.string(),
  destinationPortRange: s.string(),
  sourceAddressPrefix: s.string(),
  destinationAddressPrefix: s.string(),
  sourcePortRanges: s.array(s.string()),
  destinationPortRanges: s.array(s.string()),
  sourceAddressPrefixes: s.array(s.string()),
  destinationAddressPrefixes: s.array(s.string()),
  access: s.string(),
  priority: s.integer(),
  direction: s.string(),
  provisioningState: s.string(),
});

export const securityRuleModel = s.object('SecurityRule', { ...envelope, properties: securityRuleProperties });

export const networkSecurityGroupModel = s.object('NetworkSecurityGroup', {
  ...envelope,
  location: s.string(),
  tags,
  properties: s.object('NetworkSecurityGroupPropertiesFormat', {
    securityRules: s.array(securityRuleModel),
    flushConnection: s.boolean(),
    // Read-only.
    defaultSecurityRules: readOnlyAny,
    subnets: readOnlyAny,
    networkInterfaces: readOnlyAny,
    provisioningState: s.string(),
    resourceGuid: s.string(),
  }),
});

export const routeModel = s.object('Route', {
  ...envelope,
  properties: s.object('RoutePropertiesFormat', {
    addressPrefix: s.string(),
    nextHopType: s.string(),
    nextHopIpAddress: s.string(),
    provisioningState: s.string(),
    hasBgpOverride: s.boolean(),
  }),
});

export const routeTableModel = s.object('RouteTable', {
  ...envelope,
  location: s.string(),
  tags,
  properties: s.object('RouteTablePropertiesFormat', {
    routes: s.array(routeModel),
    disableBgpRoutePropagation: s.boolean(),
    // Read-only.
    subnets: readOnlyAny,
    provisioningState: s.string(),
    resourceGuid: s.string(),
  }),
});

const ipConfiguration = s.object('NetworkInterfaceIPConfiguration', {
  ...envelope,
  properties: s.object('NetworkInterfaceIPConfigurationPropertiesFormat', {
    privateIPAddress: s.string(),
    privateIPAllocationMethod: s.string(),
    privateIPAddressVersion: s.string(),
    subnet: reference('Subnet'),
    primary: s.boolean(),
    // A reference to a publicIPAddresses resource, which aksemu does not serve: refused as a missing resource.
    publicIPAddress: reference('PublicIPAddress'),
    provisioningState: s.string(),
  }),
});

export const networkInterfaceModel = s.object('NetworkInterface', {
  ...envelope,
  location: s.string(),
  tags,
  properties: s.object('NetworkInterfacePropertiesFormat', {
    ipConfigurations: s.array(ipConfiguration),
    networkSecurityGroup: reference('NetworkSecurityGroup'),
    dnsSettings: s.object('NetworkInterfaceDnsSettings', {
      dnsServers: s.array(s.string()),
      appliedDnsServers: s.array(s.string()),
    }),
    enableAcceleratedNetworking: s.boolean(),
    enableIPForwarding: s.boolean(),
    disableTcpStateTracking: s.boolean(),
    nicType: s.string(),
    // Read-only.
    provisioningState: s.string(),
    resourceGuid: s.string(),
    hostedWorkloads: readOnlyAny,
    tapConfigurations: readOnlyAny,
    vnetEncryptionSupported: s.boolean(),
    primary: s.boolean(),
    macAddress: s.string(),
    virtualMachine: readOnlyAny,
  }),
});
