// RBAC action strings: wildcard matching as ARM evaluates it ('*' stands for any run of characters,
// case-insensitively: '*', 'Microsoft.Network/*', '*/read', 'Microsoft.Authorization/*/Write'), and
// the catalogue of concrete operations a wildcard is expanded against when a caller wants the
// effective actions spelled out (the AKS model checks for exact action names).

const patterns = new Map<string, RegExp>();

export function actionMatches(pattern: string, action: string): boolean {
  let re = patterns.get(pattern);
  if (!re) {
    const body = pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*');
    re = new RegExp(`^${body}$`, 'i');
    patterns.set(pattern, re);
  }
  return re.test(action);
}

export function anyMatches(patternList: readonly string[], action: string): boolean {
  return patternList.some((p) => actionMatches(p, action));
}

function crud(type: string, extra: string[] = []): string[] {
  return [`${type}/read`, `${type}/write`, `${type}/delete`, ...extra.map((a) => `${type}/${a}`)];
}

/**
 * The operations of the resource types aksemu serves (names from the providers' operation lists).
 * Wildcard permissions are expanded against this list; an exact action in a role is always kept.
 */
export const KNOWN_ACTIONS: readonly string[] = [
  ...crud('Microsoft.Network/virtualNetworks', ['join/action', 'peer/action']),
  ...crud('Microsoft.Network/virtualNetworks/subnets', [
    'join/action',
    'joinViaServiceEndpoint/action',
    'action',
    'prepareNetworkPolicies/action',
    'unprepareNetworkPolicies/action',
  ]),
  ...crud('Microsoft.Network/networkSecurityGroups', ['join/action']),
  ...crud('Microsoft.Network/networkSecurityGroups/securityRules'),
  'Microsoft.Network/networkSecurityGroups/defaultSecurityRules/read',
  ...crud('Microsoft.Network/routeTables', ['join/action']),
  ...crud('Microsoft.Network/routeTables/routes'),
  ...crud('Microsoft.Network/networkInterfaces', ['join/action']),
  'Microsoft.Network/networkInterfaces/ipconfigurations/read',
  ...crud('Microsoft.Network/publicIPAddresses', ['join/action']),
  ...crud('Microsoft.Network/loadBalancers'),
  'Microsoft.Network/locations/operations/read',
  ...crud('Microsoft.ContainerService/managedClusters', ['listClusterUserCredential/action', 'listClusterAdminCredential/action']),
  ...crud('Microsoft.ContainerService/managedClusters/agentPools'),
  ...crud('Microsoft.Compute/virtualMachineScaleSets'),
  ...crud('Microsoft.ManagedIdentity/userAssignedIdentities', ['assign/action']),
  ...crud('Microsoft.Authorization/roleAssignments'),
  ...crud('Microsoft.Authorization/roleDefinitions'),
  ...crud('Microsoft.Resources/subscriptions/resourceGroups'),
  ...crud('Microsoft.Resources/deployments', ['validate/action', 'whatIf/action', 'cancel/action']),
];
