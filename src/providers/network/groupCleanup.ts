// What deleting a resource group means for Microsoft.Network, run in the group delete's transaction
// before the group's keys go: addresses held by the group's NICs (and by any other owner under the
// group) are released wherever their subnets are; a VNet whose subnets are still used from outside
// the group blocks the delete with InUseSubnetCannotBeDeleted, as in Azure; subnets and NICs outside
// the group that use the group's NSGs or route tables lose the association (Azure would refuse the
// delete instead; aksemu detaches, so a node resource group can always go). Load balancers give their private
// addresses back and free their public IPs; NAT gateways lose their subnets; public IP addresses and prefixes give
// their addresses back to the emulated range; peerings of the group's VNets leave the remote sides Disconnected.
import type { Store } from '../../store/store.js';
import { Cidr } from '../../net/ip.js';
import { removeLoadBalancer } from './loadBalancerModel.js';
import type {
  LoadBalancer,
  NatGateway,
  NetworkInterface,
  NetworkSecurityGroup,
  PublicIpAddress,
  PublicIpPrefix,
  RouteTable,
  Subnet,
  VirtualNetwork,
} from './models.js';
import { removeNatGateway } from './natGatewayModel.js';
import { addressesOf, releasePublicAddresses } from './publicAddresses.js';
import { releaseOwnersUnder } from './ipam.js';
import { removeNetworkInterface } from './nicModel.js';
import { childrenOf, compact, newEtag } from './resource.js';
import { removeVirtualNetwork } from './vnetModel.js';

function detach(store: Store, id: string, member: 'networkSecurityGroup' | 'routeTable' | 'natGateway'): void {
  const record = store.get<Subnet | NetworkInterface>(id);
  if (!record) return;
  const properties = compact({ ...record.properties, [member]: undefined });
  store.put(id, { ...record, etag: newEtag(), properties });
}

export function onNetworkResourceGroupDelete(groupId: string, store: Store): void {
  const prefix = `${groupId}/providers/Microsoft.Network`;
  for (const nic of childrenOf<NetworkInterface>(store, `${prefix}/networkInterfaces/`)) removeNetworkInterface(store, nic.id);
  for (const lb of childrenOf<LoadBalancer>(store, `${prefix}/loadBalancers/`)) removeLoadBalancer(store, lb);
  for (const gw of childrenOf<NatGateway>(store, `${prefix}/natGateways/`)) {
    for (const ref of gw.properties.subnets ?? []) detach(store, ref.id, 'natGateway');
    removeNatGateway(store, { ...gw, properties: { ...gw.properties, subnets: [] } });
  }
  for (const pip of childrenOf<PublicIpAddress>(store, `${prefix}/publicIPAddresses/`))
    if (!pip.properties.publicIPPrefix && pip.properties.ipAddress) releasePublicAddresses(store, [pip.properties.ipAddress]);
  for (const block of childrenOf<PublicIpPrefix>(store, `${prefix}/publicIPPrefixes/`))
    releasePublicAddresses(store, addressesOf(Cidr.parse(block.properties.ipPrefix)));
  releaseOwnersUnder(store, groupId);
  for (const vnet of childrenOf<VirtualNetwork>(store, `${prefix}/virtualNetworks/`)) removeVirtualNetwork(store, vnet);
  for (const nsg of childrenOf<NetworkSecurityGroup>(store, `${prefix}/networkSecurityGroups/`)) {
    for (const ref of nsg.properties.subnets ?? []) detach(store, ref.id, 'networkSecurityGroup');
    for (const ref of nsg.properties.networkInterfaces ?? []) detach(store, ref.id, 'networkSecurityGroup');
  }
  for (const table of childrenOf<RouteTable>(store, `${prefix}/routeTables/`)) {
    for (const ref of table.properties.subnets ?? []) detach(store, ref.id, 'routeTable');
  }
}
