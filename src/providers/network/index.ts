// Microsoft.Network: virtual networks with their subnets and peerings, network security groups, route tables,
// network interfaces, public IP addresses and prefixes, NAT gateways and load balancers, with one address manager
// per subnet (ipam.ts) that ContainerService shares and one for the emulated public range (publicAddresses.ts).
import type { Provider } from '../../arm/provider.js';
import { NETWORK_API_VERSIONS } from './apiVersions.js';
import { onNetworkResourceGroupDelete } from './groupCleanup.js';
import { networkInterfaceRoutes } from './networkInterfaces.js';
import { networkSecurityGroupRoutes } from './networkSecurityGroups.js';
import { operationKinds } from './operations.js';
import { outboundResourceRoutes } from './outboundResources.js';
import { peeringRoutes } from './peerings.js';
import { NAMESPACE } from './resource.js';
import { routeTableRoutes } from './routeTables.js';
import { updateTagsRoutes } from './updateTags.js';
import { virtualNetworkRoutes } from './virtualNetworks.js';

export function networkProvider(): Provider {
  return {
    namespace: NAMESPACE,
    apiVersions: NETWORK_API_VERSIONS,
    routes: [
      ...virtualNetworkRoutes,
      ...peeringRoutes,
      ...networkSecurityGroupRoutes,
      ...routeTableRoutes,
      ...networkInterfaceRoutes,
      ...updateTagsRoutes,
      ...outboundResourceRoutes,
    ],
    operationKinds,
    onResourceGroupDelete: onNetworkResourceGroupDelete,
  };
}
