// What deleting a resource group means for Microsoft.Network, run in the group delete's transaction
// before the group's keys go: addresses held by the group's NICs (and by any other owner under the
// group) are released wherever their subnets are; a VNet whose subnets are still used from outside
// the group blocks the delete with InUseSubnetCannotBeDeleted, as in Azure; subnets and NICs outside
// the group that use the group's NSGs or route tables lose the association (Azure would refuse the
// delete instead; aksemu detaches, so a node resource group can always go).
import type { Store } from '../../store/store.js';
import type { NetworkInterface, NetworkSecurityGroup, RouteTable, Subnet, VirtualNetwork } from './models.js';
import { releaseOwnersUnder } from './ipam.js';
import { removeNetworkInterface } from './nicModel.js';
import { childrenOf, compact, newEtag } from './resource.js';
import { removeVirtualNetwork } from './vnetModel.js';

function detach(store: Store, id: string, member: 'networkSecurityGroup' | 'routeTable'): void {
  const record = store.get<Subnet | NetworkInterface>(id);
  if (!record) return;
  const properties = compact({ ...record.properties, [member]: undefined });
  store.put(id, { ...record, etag: newEtag(), properties });
}

export function onNetworkResourceGroupDelete(groupId: string, store: Store): void {
  const prefix = `${groupId}/providers/Microsoft.Network`;
  for (const nic of childrenOf<NetworkInterface>(store, `${prefix}/networkInterfaces/`)) removeNetworkInterface(store, nic.id);
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
