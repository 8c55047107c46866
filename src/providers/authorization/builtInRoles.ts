// Azure's built-in role definitions that matter around AKS networking, with their real ids and
// permissions (as published in the Azure RBAC built-in roles reference). Built-in roles are the same
// in every subscription; ARM shows them under the subscription a request names.

export interface Permission {
  actions: string[];
  notActions: string[];
  dataActions: string[];
  notDataActions: string[];
}

export interface BuiltInRole {
  /** The role definition's GUID (its name). */
  id: string;
  roleName: string;
  description: string;
  permissions: Permission[];
}

function permission(actions: string[], notActions: string[] = []): Permission[] {
  return [{ actions, notActions, dataActions: [], notDataActions: [] }];
}

const OWNER = '8e3af657-a8ff-443c-a75c-2fe8c4bcb635';
export const CONTRIBUTOR = 'b24988ac-6180-42a0-ab88-20f7382dd24c';
export const READER = 'acdd72a7-3385-48ef-bd42-f606fba81ae7';
export const NETWORK_CONTRIBUTOR = '4d97b98b-1d4f-4787-a291-c67834d212e7';

export const BUILT_IN_ROLES: readonly BuiltInRole[] = [
  {
    id: OWNER,
    roleName: 'Owner',
    description: 'Grants full access to manage all resources, including the ability to assign roles in Azure RBAC.',
    permissions: permission(['*']),
  },
  {
    id: CONTRIBUTOR,
    roleName: 'Contributor',
    description:
      'Grants full access to manage all resources, but does not allow you to assign roles in Azure RBAC, manage assignments in Azure Blueprints, or share image galleries.',
    permissions: permission(
      ['*'],
      [
        'Microsoft.Authorization/*/Delete',
        'Microsoft.Authorization/*/Write',
        'Microsoft.Authorization/elevateAccess/Action',
        'Microsoft.Blueprint/blueprintAssignments/write',
        'Microsoft.Blueprint/blueprintAssignments/delete',
        'Microsoft.Compute/galleries/share/action',
        'Microsoft.Purview/consents/write',
        'Microsoft.Purview/consents/delete',
        'Microsoft.Resources/deploymentStacks/manageDenySetting/action',
        'Microsoft.Subscription/cancel/action',
        'Microsoft.Subscription/enable/action',
      ],
    ),
  },
  {
    id: READER,
    roleName: 'Reader',
    description: 'View all resources, but does not allow you to make any changes.',
    permissions: permission(['*/read']),
  },
  {
    id: NETWORK_CONTRIBUTOR,
    roleName: 'Network Contributor',
    description: 'Lets you manage networks, but not access to them.',
    permissions: permission([
      'Microsoft.Authorization/*/read',
      'Microsoft.Insights/alertRules/*',
      'Microsoft.Network/*',
      'Microsoft.ResourceHealth/availabilityStatuses/read',
      'Microsoft.Resources/deployments/*',
      'Microsoft.Resources/subscriptions/resourceGroups/read',
      'Microsoft.Support/*',
    ]),
  },
  {
    id: '18d7d88d-d35e-4fb5-a5c3-7773c20a72d9',
    roleName: 'User Access Administrator',
    description: 'Lets you manage user access to Azure resources.',
    permissions: permission(['*/read', 'Microsoft.Authorization/*', 'Microsoft.Support/*']),
  },
  {
    id: 'f1a07417-d97a-45cb-824c-7a7467783830',
    roleName: 'Managed Identity Operator',
    description: 'Read and Assign User Assigned Identity',
    permissions: permission([
      'Microsoft.ManagedIdentity/userAssignedIdentities/*/read',
      'Microsoft.ManagedIdentity/userAssignedIdentities/*/assign/action',
      'Microsoft.Authorization/*/read',
      'Microsoft.Insights/alertRules/*',
      'Microsoft.Resources/subscriptions/resourceGroups/read',
      'Microsoft.Resources/deployments/*',
      'Microsoft.Support/*',
    ]),
  },
  {
    id: 'ed7f3fbd-7b88-4dd4-9017-9adb7ce333f8',
    roleName: 'Azure Kubernetes Service Contributor Role',
    description: 'Grants access to read and write Azure Kubernetes Service clusters',
    permissions: permission([
      'Microsoft.ContainerService/managedClusters/read',
      'Microsoft.ContainerService/managedClusters/write',
      'Microsoft.Resources/deployments/*',
    ]),
  },
];

export function builtInRole(id: string): BuiltInRole | undefined {
  const guid = id.slice(id.lastIndexOf('/') + 1).toLowerCase();
  return BUILT_IN_ROLES.find((r) => r.id === guid);
}
