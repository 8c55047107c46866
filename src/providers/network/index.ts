// Microsoft.Network: virtual networks and subnets, network security groups, route tables and network
// interfaces, with one address manager per subnet (ipam.ts) that ContainerService shares.
import type { Provider } from '../../arm/provider.js';
import { NETWORK_API_VERSIONS } from './apiVersions.js';
import { onNetworkResourceGroupDelete } from './groupCleanup.js';
import { networkInterfaceRoutes } from './networkInterfaces.js';
import { networkSecurityGroupRoutes } from './networkSecurityGroups.js';
import { operationKinds } from './operations.js';
import { NAMESPACE } from './resource.js';
import { routeTableRoutes } from './routeTables.js';
import { updateTagsRoutes } from './updateTags.js';
import { virtualNetworkRoutes } from './virtualNetworks.js';

export function networkProvider(): Provider {
  return {
    namespace: NAMESPACE,
    apiVersions: NETWORK_API_VERSIONS,
    routes: [...virtualNetworkRoutes, ...networkSecurityGroupRoutes, ...routeTableRoutes, ...networkInterfaceRoutes, ...updateTagsRoutes],
    operationKinds,
    onResourceGroupDelete: onNetworkResourceGroupDelete,
  };
}
