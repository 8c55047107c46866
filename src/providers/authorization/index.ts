// Microsoft.Authorization: built-in role definitions and role assignments at any scope; access.ts is
// the permission check other providers use.
import type { Provider } from '../../arm/provider.js';
import { AUTHORIZATION_API_VERSIONS } from './apiVersions.js';
import { roleAssignmentRoutes } from './roleAssignments.js';
import { deleteAssignmentsUnder } from './roleAssignmentStore.js';
import { roleDefinitionRoutes } from './roleDefinitions.js';

export function authorizationProvider(): Provider {
  return {
    namespace: 'Microsoft.Authorization',
    apiVersions: AUTHORIZATION_API_VERSIONS,
    routes: [...roleDefinitionRoutes, ...roleAssignmentRoutes],
    // Assignments are extension resources of their scope: they go with it.
    onResourceGroupDelete: (groupId, store) => void deleteAssignmentsUnder(store, groupId),
  };
}
