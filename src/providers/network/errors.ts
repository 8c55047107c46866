// Microsoft.Network's errors, each a named factory so the wording lives once. Messages copy the Network
// RP's where they were found in public logs (the source is named); the ones marked "(aksemu)" are
// ours, written in the RP's style, because no real message was found.
import { ArmError } from '../../arm/errors.js';

// ---- lookups -------------------------------------------------------------------------------

/** A child resource (subnet, route, security rule) that does not exist. Network RP: 404 NotFound "Resource <id> not found." (from memory of RP responses). */
export function childNotFound(id: string): ArmError {
  return new ArmError(404, 'NotFound', `Resource ${id} not found.`);
}

/** A reference (subnet of a NIC, NSG or route table of a subnet) to something that does not exist or sits in another region. Seen in azure-cli#8569, #9354. */
export function invalidResourceReference(referenced: string, referencing: string): ArmError {
  return new ArmError(
    400,
    'InvalidResourceReference',
    `Resource ${referenced} referenced by resource ${referencing} was not found. Please make sure that the referenced resource exists, and that both resources are in the same region.`,
  );
}

/** A reference that is not a fully qualified id. Seen in ernestio/ernest#498. */
export function linkedInvalidPropertyId(value: string, path: string): ArmError {
  return new ArmError(
    400,
    'LinkedInvalidPropertyId',
    `Property id '${value}' at path '${path}' is invalid. Expect fully qualified resource Id that start with '/subscriptions/{subscriptionId}' or '/providers/{resourceProviderNamespace}/'.`,
  );
}

/** ARM's wording for a region a resource type is not offered in. */
export function locationNotAvailableForResourceType(location: string, resourceType: string, available: readonly string[]): ArmError {
  return new ArmError(
    400,
    'LocationNotAvailableForResourceType',
    `The provided location '${location}' is not available for resource type '${resourceType}'. List of available regions for the resource type is '${available.join(',')}'.`,
  );
}

/** (aksemu) The request lacks a member the RP needs; the RP's generic code with our sentence. */
export function invalidRequestFormat(detail: string, target?: string): ArmError {
  return new ArmError(400, 'InvalidRequestFormat', `Cannot parse the request. ${detail}`, target);
}

/** (aksemu) Two child resources of one PUT share a name. */
export function duplicateResourceName(parentId: string, childType: string, name: string): ArmError {
  return new ArmError(400, 'DuplicateResourceName', `Resource ${parentId} has two child resources of type '${childType}' with the same name (${name}).`);
}

// ---- address prefixes ----------------------------------------------------------------------

/** Seen in Azure/azure-service-operator#997 and Azure/avdaccelerator#83. */
export function invalidAddressPrefixFormat(prefix: string, resourceId: string): ArmError {
  return new ArmError(
    400,
    'InvalidAddressPrefixFormat',
    `Address prefix ${prefix} of resource ${resourceId} is not formatted correctly. It should follow CIDR notation, for example 10.0.0.0/24.`,
  );
}

/** Host bits set below the mask. Seen in microsoft/sql-server-samples#492 (the RP's missing space kept). */
export function invalidCidrNotation(prefix: string, resourceId: string, canonical: string): ArmError {
  return new ArmError(
    400,
    'InvalidCIDRNotation',
    `The address prefix ${prefix} in resource ${resourceId} has an invalid CIDR notation. For the given prefix length, the address prefix should be ${canonical}.`,
  );
}

/** Seen in MicrosoftDocs/azure-docs#123869. */
export function subnetRangeOutsideVnet(subnet: string, vnet: string): ArmError {
  return new ArmError(
    400,
    'NetcfgSubnetRangeOutsideVnet',
    `Subnet '${subnet}' is not valid because its IP address range is outside the IP address range of virtual network '${vnet}'.`,
  );
}

/** Seen in MicrosoftDocs/azure-docs#123869. */
export function subnetRangesOverlap(subnet: string, vnet: string): ArmError {
  return new ArmError(
    400,
    'NetcfgSubnetRangesOverlap',
    `Subnet '${subnet}' is not valid because its IP address range overlaps with that of an existing subnet in virtual network '${vnet}'.`,
  );
}

/** The RP's catch-all for a subnet it refuses (too small, no prefix). Seen in Azure/azure-cli#28097, #10917. */
export function invalidSubnet(subnet: string, vnet: string): ArmError {
  return new ArmError(400, 'NetcfgInvalidSubnet', `Subnet '${subnet}' is not valid in virtual network '${vnet}'.`);
}

/** (aksemu) Two address spaces of one VNet overlap; the RP's exact wording was not found. */
export function vnetAddressSpacesOverlap(vnetId: string, a: string, b: string): ArmError {
  return new ArmError(400, 'VnetAddressSpacesOverlap', `Specified address space '${a}' overlaps with address space '${b}' of virtual network ${vnetId}.`);
}

/** (aksemu) A VNet PUT without any address space. */
export function vnetAddressSpaceMissing(vnetId: string): ArmError {
  return invalidRequestFormat(
    `Virtual network ${vnetId} must have at least one address prefix in properties.addressSpace.addressPrefixes.`,
    'properties.addressSpace.addressPrefixes',
  );
}

// ---- things in use -------------------------------------------------------------------------

/** Seen in terraform-provider-azurerm#4784, Azure-Samples/Copilot-Studio-with-Azure-AI-Search#99. */
export function inUseSubnetCannotBeDeleted(subnet: string, user: string): ArmError {
  return new ArmError(
    400,
    'InUseSubnetCannotBeDeleted',
    `Subnet ${subnet} is in use by ${user} and cannot be deleted. In order to delete the subnet, delete all the resources within the subnet. See aka.ms/deletesubnet.`,
  );
}

/** (aksemu) A subnet with addresses in use whose prefix would change. */
export function inUseSubnetCannotBeUpdated(subnet: string, user: string): ArmError {
  return new ArmError(
    400,
    'InUseSubnetCannotBeUpdated',
    `Subnet ${subnet} is in use by ${user} and its address prefix cannot be changed. In order to change the address prefix, delete all the resources within the subnet.`,
  );
}

/** Seen in pulumi/pulumi-azure-native#3051 and DataBiosphere/terra-workspace-manager#502. */
export function inUseNetworkSecurityGroupCannotBeDeleted(nsgId: string, users: readonly string[]): ArmError {
  return new ArmError(
    400,
    'InUseNetworkSecurityGroupCannotBeDeleted',
    `Network security group ${nsgId} cannot be deleted because it is in use by the following resources: ${users.join(', ')}. In order to delete the Network security group, remove the association with the resource(s).`,
  );
}

/** (aksemu) The code is the RP's; its wording was not found, so this follows the NSG message. */
export function inUseRouteTableCannotBeDeleted(routeTableId: string, users: readonly string[]): ArmError {
  return new ArmError(
    400,
    'InUseRouteTableCannotBeDeleted',
    `Route table ${routeTableId} cannot be deleted because it is in use by the following resources: ${users.join(', ')}. In order to delete the route table, remove the association with the resource(s).`,
  );
}

// ---- private addresses ---------------------------------------------------------------------

/** Seen in MicrosoftDocs/azure-docs#88211. */
export function subnetIsFull(subnet: string, prefix: string, count: number): ArmError {
  return new ArmError(400, 'SubnetIsFull', `Subnet ${subnet} with address prefix ${prefix} does not have enough capacity for ${count} IP addresses.`);
}

/** Seen in Azure/acs-engine#1867. */
export function privateIpAddressIsAllocated(ipConfigurationId: string, address: string, holder: string): ArmError {
  return new ArmError(
    400,
    'PrivateIPAddressIsAllocated',
    `IP configuration ${ipConfigurationId} is using the private IP address ${address} which is already allocated to resource ${holder}.`,
  );
}

/** Seen in public lab notes of the RP's answer. */
export function privateIpAddressInReservedRange(address: string, prefix: string): ArmError {
  return new ArmError(
    400,
    'PrivateIPAddressInReservedRange',
    `Private static IP address ${address} falls within reserved IP range of subnet prefix ${prefix}.`,
  );
}

/** Seen in several AKS internal-load-balancer logs. */
export function privateIpAddressNotInSubnet(address: string, prefix: string): ArmError {
  return new ArmError(400, 'PrivateIPAddressNotInSubnet', `Private static IP address ${address} does not belong to the range of subnet prefix ${prefix}.`);
}

/** (aksemu) Static allocation without an address. */
export function staticAllocationWithoutAddress(ipConfigurationId: string): ArmError {
  return new ArmError(
    400,
    'PrivateIPAddressRequired',
    `IP configuration ${ipConfigurationId} has privateIPAllocationMethod Static but no privateIPAddress.`,
    'properties.ipConfigurations',
  );
}

/** (aksemu) A privateIPAddress that is not an address at all. */
export function invalidPrivateIpAddress(address: string, ipConfigurationId: string): ArmError {
  return new ArmError(400, 'InvalidPrivateIPAddress', `Private IP address ${address} of IP configuration ${ipConfigurationId} is not a valid IP address.`);
}

/** (aksemu) A NIC without an ip configuration, or several marked primary. */
export function invalidNicIpConfigurations(nicId: string, reason: string): ArmError {
  return new ArmError(400, 'InvalidRequestFormat', `Cannot parse the request. Network interface ${nicId}: ${reason}`, 'properties.ipConfigurations');
}

// ---- security rules and routes -------------------------------------------------------------

/** (aksemu) Priority outside 100–4096; the RP's sentence shape. */
export function securityRuleInvalidPriority(ruleId: string, priority: unknown): ArmError {
  return new ArmError(
    400,
    'SecurityRuleInvalidPriority',
    `Security rule ${ruleId} has invalid Priority. Value provided: ${String(priority)} Allowed values are from 100 to 4096.`,
  );
}

/** (aksemu) Two rules with one priority and direction. */
export function securityRuleConflict(ruleId: string, other: string): ArmError {
  return new ArmError(400, 'SecurityRuleConflict', `Security rule ${ruleId} conflicts with rule ${other}. Rules cannot have the same Priority and Direction.`);
}

/** (aksemu) A rule member with a value outside its enumeration, or missing. */
export function securityRuleInvalidProperty(ruleId: string, member: string, value: unknown): ArmError {
  return new ArmError(
    400,
    'SecurityRuleParameterContainsUnsupportedValue',
    `Security rule ${ruleId} has invalid value ${JSON.stringify(value ?? null)} for ${member}.`,
    `properties.${member}`,
  );
}

/** (aksemu) A route to a virtual appliance needs its address; other hop types must not have one. */
export function invalidRouteNextHop(routeId: string, reason: string): ArmError {
  return new ArmError(400, 'InvalidRouteNextHop', `Route ${routeId}: ${reason}`, 'properties.nextHopIpAddress');
}

/** (aksemu) Unknown nextHopType. */
export function invalidNextHopType(routeId: string, value: unknown): ArmError {
  return new ArmError(
    400,
    'InvalidNextHopType',
    `Route ${routeId} has invalid nextHopType ${JSON.stringify(value ?? null)}. Allowed values are VirtualNetworkGateway, VnetLocal, Internet, VirtualAppliance, None.`,
    'properties.nextHopType',
  );
}

/** ARM's wording for a PUT that would move an existing resource to another region. */
export function invalidResourceLocation(name: string, existing: string, group: string, requested: string): ArmError {
  return new ArmError(
    409,
    'InvalidResourceLocation',
    `The resource '${name}' already exists in location '${existing}' in resource group '${group}'. A resource with the same name cannot be created in location '${requested}'. Please select a new resource name.`,
  );
}

/** (aksemu) A feature aksemu does not model, asked for explicitly. */
export function unsupportedFeature(what: string, target: string): ArmError {
  return new ArmError(400, 'UnsupportedFeature', `aksemu does not model ${what}; remove ${target} from the request.`, target);
}

// ---- public IP addresses and prefixes (docs/aks-rules.md §11) -------------------------------

/** Basic public IPs can no longer be created (retired 2025-09-30; the quota is 0). Seen in skypilot-org/skypilot#7977, Azure/azure-quickstart-templates#14512 (IPv4). */
export function basicSkuPublicIpCountLimitReached(version: 'IPv4' | 'IPv6'): ArmError {
  return new ArmError(
    400,
    `${version}BasicSkuPublicIpCountLimitReached`,
    `Cannot create more than 0 ${version} Basic SKU public IP addresses for this subscription in this region.`,
  );
}

/** Seen in public lab notes and an azure-cli session (the code since StandardV2 was added). */
export function standardSkuPublicIpMustBeStatic(publicIpId: string): ArmError {
  return new ArmError(
    400,
    'StandardAndStandardV2SkuPublicIPAddressesMustBeStatic',
    `Standard sku publicIp ${publicIpId} must have AllocationMethod set to Static.`,
  );
}

/** The message seen in a public azure-cli session; (aksemu) the code, which that session did not show. */
export function publicIpSkuCannotBeChanged(publicIpId: string, from: string, to: string): ArmError {
  return new ArmError(
    400,
    'PublicIPAddressSkuCannotBeChanged',
    `Sku property is set at creation time and cannot be changed from ${from} to ${to} on resource update for resource ${publicIpId}.`,
  );
}

/** (aksemu) An idle timeout outside what the resource allows (public IPs and LB rules 4–30, NAT gateways 4–120). */
export function idleTimeoutOutOfRange(resourceId: string, value: number, max: number, target: string): ArmError {
  return new ArmError(
    400,
    'InvalidIdleTimeoutInMinutes',
    `Idle timeout ${value} of resource ${resourceId} is not valid. It must be between 4 and ${max} minutes.`,
    target,
  );
}

/** (aksemu) The emulated public range (or a prefix) has no free address left; the RP's quota code. */
export function publicIpCountLimitReached(detail: string): ArmError {
  return new ArmError(400, 'PublicIPCountLimitReached', `Cannot create more public IP addresses: ${detail}`);
}

/** (aksemu) A public IP asked from a prefix whose addresses are all taken; the RP's code. */
export function publicIpPrefixOutOfAddresses(prefixId: string, publicIpId: string): ArmError {
  return new ArmError(
    400,
    'PublicIpPrefixOutOfIpAddressesForPublicIp',
    `Public IP prefix ${prefixId} has no free IP address left for public IP address ${publicIpId}.`,
  );
}

/** (aksemu) A public IP made from a prefix must match it (Standard SKU, same IP version). */
export function publicIpPrefixMismatch(publicIpId: string, prefixId: string, what: string): ArmError {
  return new ArmError(400, 'PublicIpAddressAndPrefixMismatch', `Public IP address ${publicIpId} cannot use public IP prefix ${prefixId}: ${what}.`);
}

/** Seen in kubernetes-sigs/cloud-provider-azure logs and terraform-provider-azurerm#17885 ("To learn how to do this, see aka.ms/deletepublicip."). */
export function publicIpAddressCannotBeDeleted(publicIpId: string, user: string): ArmError {
  return new ArmError(
    400,
    'PublicIPAddressCannotBeDeleted',
    `Public IP address ${publicIpId} can not be deleted since it is still allocated to resource ${user}. In order to delete the public IP, disassociate/detach the Public IP address from the resource.  To learn how to do this, see aka.ms/deletepublicip.`,
  );
}

/** Seen in a pod-external-ip operator's comment quoting the RP (a NIC ip configuration taking a held address). */
export function publicIpAddressInUse(referencing: string, publicIpId: string, holder: string): ArmError {
  return new ArmError(
    400,
    'PublicIPAddressInUse',
    `Resource ${referencing} is referencing public IP address ${publicIpId} that is already allocated to resource ${holder}.`,
  );
}

/** (aksemu) The code is the RP's quota family's; a prefix is deleted only when nothing uses it. */
export function inUsePublicIpPrefixCannotBeDeleted(prefixId: string, users: readonly string[]): ArmError {
  return new ArmError(
    400,
    'InUsePublicIpPrefixCannotBeDeleted',
    `Public IP prefix ${prefixId} cannot be deleted because it is in use by the following resources: ${users.join(', ')}.`,
  );
}

// ---- load balancers and NAT gateways -------------------------------------------------------

/** The code from the Load Balancer troubleshooting article's error table; (aksemu) the sentence. */
export function differentSkuLoadBalancerAndPublicIp(lbId: string, lbSku: string, publicIpId: string, ipSku: string): ArmError {
  return new ArmError(
    400,
    'DifferentSkuLoadBalancersAndPublicIPAddressNotAllowed',
    `Load balancer ${lbId} of sku ${lbSku} cannot reference public IP address ${publicIpId} of sku ${ipSku}. Both Public IP SKU and Load Balancer SKU must match.`,
  );
}

/** Seen in hashicorp/terraform-provider-azurerm#1622. */
export function frontendIpConfigHasBothSubnetAndPublicIp(frontendId: string): ArmError {
  return new ArmError(
    400,
    'FrontendIPConfigHasBothSubnetAndPublicIP',
    `Frontend IP Configuration ${frontendId} must not reference both a Subnet and a Public IP Address.`,
  );
}

/** (aksemu) A frontend with neither a subnet nor a public IP (address or prefix). */
export function frontendIpConfigNeedsAddress(frontendId: string): ArmError {
  return new ArmError(
    400,
    'FrontendIPConfigurationMissingIPAddress',
    `Frontend IP Configuration ${frontendId} must reference a Subnet, a Public IP Address or a Public IP Prefix.`,
  );
}

/** (aksemu) A rule's reference to a frontend, pool or probe that is not a child of the same load balancer. */
export function invalidLoadBalancerReference(referencing: string, referenced: string): ArmError {
  return new ArmError(
    400,
    'InvalidResourceReference',
    `Resource ${referenced} referenced by resource ${referencing} was not found. Please make sure that the referenced resource exists, and that both resources are in the same region.`,
  );
}

/** (aksemu) Two load-balancing rules on one frontend, protocol and port. */
export function loadBalancingRuleConflict(ruleId: string, other: string): ArmError {
  return new ArmError(
    400,
    'LoadBalancingRulesUseSameFrontendIPConfigurationAndPort',
    `Load balancing rules ${ruleId} and ${other} use the same frontend IP configuration, protocol and frontend port.`,
  );
}

/** (aksemu) A member of a load balancer child outside its allowed values. */
export function invalidLoadBalancerMember(childId: string, member: string, value: unknown, allowed: string): ArmError {
  return new ArmError(
    400,
    'InvalidRequestFormat',
    `Cannot parse the request. ${member} of ${childId} is ${JSON.stringify(value ?? null)}; allowed: ${allowed}.`,
    `properties.${member}`,
  );
}

/** The code from a public catalogue of Network errors ("deleting a NAT gateway still associated with a subnet"); (aksemu) the sentence, after the NSG's. */
export function inUseNatGatewayCannotBeDeleted(natGatewayId: string, users: readonly string[]): ArmError {
  return new ArmError(
    400,
    'InUseNatGatewayCannotBeDeleted',
    `Nat Gateway ${natGatewayId} cannot be deleted because it is in use by the following resources: ${users.join(', ')}. In order to delete the Nat Gateway, remove the association with the resource(s).`,
  );
}

// ---- virtual network peerings --------------------------------------------------------------

/** Seen in an azure-cli session (subnet-peering write-up) and the Go constant of a public ARM client: VnetAddressSpacesOverlap. */
export function peeringAddressSpacesOverlap(peeringId: string, local: string, remote: string, overlapping: readonly string[]): ArmError {
  return new ArmError(
    400,
    'VnetAddressSpacesOverlap',
    `Cannot create or update peering ${peeringId}. Virtual networks ${local} and ${remote} cannot be peered because their address spaces overlap. Overlapping address prefixes: ${overlapping.join(', ')}`,
  );
}

/** Seen in Azure/ResourceModules#731, microsoft/AzureTRE#1927 and #4641. */
export function vnetAddressSpaceOverlapsWithAlreadyPeeredVnet(
  peeringId: string,
  local: string,
  remote: string,
  third: string,
  overlapping: readonly string[],
): ArmError {
  return new ArmError(
    400,
    'VnetAddressSpaceOverlapsWithAlreadyPeeredVnet',
    `Cannot create or update peering ${peeringId}. Virtual networks ${local} and ${remote} cannot be peered because address space of the first virtual network overlaps with address space of virtual network ${third} already peered with the second virtual network. Overlapping address prefixes: ${overlapping.join(', ')}.`,
  );
}

/** Seen in Azure/azure-cli#7746 (the text) and FreddyAyala/AzureAIServicesLandingZone#2 (the code). */
export function invalidGlobalResourceReference(referenced: string, referencing: string): ArmError {
  return new ArmError(
    400,
    'InvalidGlobalResourceReference',
    `Resource ${referenced} referenced by resource ${referencing} was not found. Please make sure that the referenced resource exists.`,
  );
}

/** Seen in Azure/terraform-azurerm-lz-vending#398 (its start); (aksemu) the end of the sentence. aksemu has no gateways. */
export function remoteVnetHasNoGateways(peeringId: string, remote: string): ArmError {
  return new ArmError(
    400,
    'RemoteVnetHasNoGateways',
    `Peering ${peeringId} cannot have UseRemoteGateway flag set to true because remote virtual network ${remote} referenced by the peering does not have any gateways.`,
  );
}

/** (aksemu) Peering a VNet with itself. */
export function peeringToSelf(peeringId: string): ArmError {
  return new ArmError(400, 'CannotPeerVirtualNetworkWithItself', `Peering ${peeringId} references its own virtual network as the remote virtual network.`);
}

/** (aksemu) A second peering of one VNet to the same remote VNet. */
export function peeringAlreadyExists(peeringId: string, other: string, remote: string): ArmError {
  return new ArmError(
    400,
    'PeeringWithRemoteVirtualNetworkAlreadyExists',
    `Cannot create peering ${peeringId} because peering ${other} already references remote virtual network ${remote}.`,
  );
}

/** (aksemu) The remote side of a Disconnected peering must be deleted and created again, as the peering docs say. */
export function remotePeeringDisconnected(peeringId: string, remotePeering: string): ArmError {
  return new ArmError(
    400,
    'RemotePeeringIsDisconnected',
    `Cannot create or update peering ${peeringId} because remote peering ${remotePeering} referencing its virtual network is in Disconnected state. Delete the remote peering and create it again.`,
  );
}

/** (aksemu) A peered VNet's address space may change only to ranges that do not overlap the peered VNets. */
export function vnetAddressSpaceOverlapsPeered(vnetId: string, peered: string, overlapping: readonly string[]): ArmError {
  return new ArmError(
    400,
    'VnetAddressSpaceOverlapsWithAlreadyPeeredVnet',
    `Address space of virtual network ${vnetId} cannot be updated because it would overlap with address space of peered virtual network ${peered}. Overlapping address prefixes: ${overlapping.join(', ')}.`,
  );
}
