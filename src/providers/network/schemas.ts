// Request-body models of the Network resources aksemu serves, named as in the REST spec (the strict
// check names them in its errors). Every member a GET returns is accepted, so `az … update` (GET, edit,
// PUT the whole object) round-trips; read-only members are ignored. Writable features aksemu does not
// model (application security groups, inbound NAT rules with content, gateways…) are
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
  natGateway: reference('NatGateway'),
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

const sku = s.object('Sku', { name: s.string(), tier: s.string() });
const ipTag = s.object('IpTag', { ipTagType: s.string(), tag: s.string() });
/** The members every tracked resource has in a GET, and sends on PUT. */
const tracked = { ...envelope, location: s.string(), tags, sku, zones: s.array(s.string()) };

export const publicIpAddressModel = s.object('PublicIPAddress', {
  ...tracked,
  properties: s.object('PublicIPAddressPropertiesFormat', {
    publicIPAllocationMethod: s.string(),
    publicIPAddressVersion: s.string(),
    idleTimeoutInMinutes: s.integer(),
    dnsSettings: s.object('PublicIPAddressDnsSettings', { domainNameLabel: s.string(), fqdn: s.string(), reverseFqdn: s.string() }),
    ipTags: s.array(ipTag),
    publicIPPrefix: reference('PublicIPPrefix'),
    // Read-only, or kept by Network itself.
    ipAddress: s.string(),
    ipConfiguration: readOnlyAny,
    natGateway: readOnlyAny,
    provisioningState: s.string(),
    resourceGuid: s.string(),
  }),
});

export const publicIpPrefixModel = s.object('PublicIPPrefix', {
  ...tracked,
  properties: s.object('PublicIPPrefixPropertiesFormat', {
    prefixLength: s.integer(),
    publicIPAddressVersion: s.string(),
    ipTags: s.array(ipTag),
    // Read-only.
    ipPrefix: s.string(),
    publicIPAddresses: readOnlyAny,
    loadBalancerFrontendIpConfiguration: readOnlyAny,
    natGateway: readOnlyAny,
    provisioningState: s.string(),
    resourceGuid: s.string(),
  }),
});

export const natGatewayModel = s.object('NatGateway', {
  ...tracked,
  properties: s.object('NatGatewayPropertiesFormat', {
    idleTimeoutInMinutes: s.integer(),
    publicIpAddresses: s.array(reference('PublicIPAddress')),
    publicIpPrefixes: s.array(reference('PublicIPPrefix')),
    // Read-only.
    subnets: readOnlyAny,
    provisioningState: s.string(),
    resourceGuid: s.string(),
  }),
});

const frontendIpConfiguration = s.object('FrontendIPConfiguration', {
  ...envelope,
  zones: s.array(s.string()),
  properties: s.object('FrontendIPConfigurationPropertiesFormat', {
    privateIPAddress: s.string(),
    privateIPAllocationMethod: s.string(),
    privateIPAddressVersion: s.string(),
    subnet: reference('Subnet'),
    publicIPAddress: reference('PublicIPAddress'),
    publicIPPrefix: reference('PublicIPPrefix'),
    // Read-only.
    loadBalancingRules: readOnlyAny,
    outboundRules: readOnlyAny,
    inboundNatRules: readOnlyAny,
    inboundNatPools: readOnlyAny,
    provisioningState: s.string(),
  }),
});

const backendAddressPool = s.object('BackendAddressPool', {
  ...envelope,
  properties: s.object('BackendAddressPoolPropertiesFormat', {
    // Read-only: the NICs and rules that use the pool.
    backendIPConfigurations: readOnlyAny,
    loadBalancingRules: readOnlyAny,
    outboundRule: readOnlyAny,
    outboundRules: readOnlyAny,
    provisioningState: s.string(),
  }),
});

const loadBalancingRule = s.object('LoadBalancingRule', {
  ...envelope,
  properties: s.object('LoadBalancingRulePropertiesFormat', {
    frontendIPConfiguration: reference('SubResource'),
    backendAddressPool: reference('SubResource'),
    backendAddressPools: s.array(reference('SubResource')),
    probe: reference('SubResource'),
    protocol: s.string(),
    loadDistribution: s.string(),
    frontendPort: s.integer(),
    backendPort: s.integer(),
    idleTimeoutInMinutes: s.integer(),
    enableFloatingIP: s.boolean(),
    enableTcpReset: s.boolean(),
    disableOutboundSnat: s.boolean(),
    provisioningState: s.string(),
  }),
});

const probe = s.object('Probe', {
  ...envelope,
  properties: s.object('ProbePropertiesFormat', {
    protocol: s.string(),
    port: s.integer(),
    requestPath: s.string(),
    intervalInSeconds: s.integer(),
    numberOfProbes: s.integer(),
    probeThreshold: s.integer(),
    loadBalancingRules: readOnlyAny,
    provisioningState: s.string(),
  }),
});

const outboundRule = s.object('OutboundRule', {
  ...envelope,
  properties: s.object('OutboundRulePropertiesFormat', {
    frontendIPConfigurations: s.array(reference('SubResource')),
    backendAddressPool: reference('SubResource'),
    protocol: s.string(),
    allocatedOutboundPorts: s.integer(),
    idleTimeoutInMinutes: s.integer(),
    enableTcpReset: s.boolean(),
    provisioningState: s.string(),
  }),
});

export const loadBalancerModel = s.object('LoadBalancer', {
  ...tracked,
  properties: s.object('LoadBalancerPropertiesFormat', {
    frontendIPConfigurations: s.array(frontendIpConfiguration),
    backendAddressPools: s.array(backendAddressPool),
    loadBalancingRules: s.array(loadBalancingRule),
    probes: s.array(probe),
    outboundRules: s.array(outboundRule),
    // aksemu serves no inbound NAT rules or pools: an empty list (what a GET returns) is accepted, content is refused by the model.
    inboundNatRules: s.array(s.object('InboundNatRule', {})),
    inboundNatPools: s.array(s.object('InboundNatPool', {})),
    provisioningState: s.string(),
    resourceGuid: s.string(),
  }),
});

export const virtualNetworkPeeringModel = s.object('VirtualNetworkPeering', {
  ...envelope,
  properties: s.object('VirtualNetworkPeeringPropertiesFormat', {
    remoteVirtualNetwork: reference('SubResource'),
    allowVirtualNetworkAccess: s.boolean(),
    allowForwardedTraffic: s.boolean(),
    allowGatewayTransit: s.boolean(),
    useRemoteGateways: s.boolean(),
    doNotVerifyRemoteGateways: s.boolean(),
    // Read-only.
    peeringState: s.string(),
    peeringSyncLevel: s.string(),
    remoteAddressSpace: readOnlyAny,
    remoteVirtualNetworkAddressSpace: readOnlyAny,
    remoteBgpCommunities: readOnlyAny,
    remoteVirtualNetworkEncryption: readOnlyAny,
    provisioningState: s.string(),
    resourceGuid: s.string(),
  }),
});
