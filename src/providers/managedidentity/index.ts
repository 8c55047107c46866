// Microsoft.ManagedIdentity: user-assigned identities, which clusters name as their control-plane and kubelet
// identities (docs/aks-rules.md §13). Their keys live under their group, so a group delete takes them.
import type { Provider } from '../../arm/provider.js';
import { NAMESPACE } from './identities.js';
import { identityRoutes } from './userAssignedIdentities.js';

/**
 * Newest first. az 2.45 sends 2022-01-31-preview for `az identity` (its profile's MGMT_MSI) and the package default
 * 2018-11-30 from `az aks` (acs/_client_factory.py get_msi_client names no resource type).
 */
const MSI_API_VERSIONS = ['2024-11-30', '2023-07-31-preview', '2023-01-31', '2022-01-31-preview', '2021-09-30-preview', '2018-11-30'] as const;

export function managedIdentityProvider(): Provider {
  return { namespace: NAMESPACE, apiVersions: MSI_API_VERSIONS, routes: identityRoutes };
}
