// Microsoft.Resources: subscriptions, tenants, resource groups, template deployments, and the operation-status URLs that
// every provider's long-running operations hand out.
import { RESOURCES_API_VERSIONS } from '../../arm/apiVersions.js';
import { operationRoutes } from '../../arm/lro.js';
import type { Provider } from '../../arm/provider.js';
import { deploymentRoutes } from './deployments.js';
import { deploymentDeleteKind, deploymentWriteKind } from './deploymentsRun.js';
import { groupDeleteKind, resourceGroupRoutes } from './resourceGroups.js';
import { subscriptionRoutes } from './subscriptions.js';

export function resourcesProvider(): Provider {
  return {
    namespace: 'Microsoft.Resources',
    apiVersions: RESOURCES_API_VERSIONS,
    routes: [...subscriptionRoutes, ...resourceGroupRoutes, ...deploymentRoutes, ...operationRoutes()],
    operationKinds: [groupDeleteKind, deploymentWriteKind, deploymentDeleteKind],
  };
}
