// RBAC action strings: wildcard matching as ARM evaluates it ('*' stands for any run of characters,
// case-insensitively: '*', 'Microsoft.Network/*', '*/read', 'Microsoft.Authorization/*/Write'), and
// the catalogue of concrete operations a wildcard is expanded against when a caller wants the
// effective actions spelled out (the AKS model checks for exact action names).

/**
 * Whether `action` matches `pattern`, without a regular expression: the patterns come from clients' role
 * definitions, and a RegExp built from one (and a cache of them, one per pattern ever seen) let a client choose
 * what the process compiles and keeps. The classic greedy wildcard walk with one backtrack point: time
 * O(pattern × action) at worst, no memory kept.
 */
export function actionMatches(pattern: string, action: string): boolean {
  const p = pattern.toLowerCase();
  const a = action.toLowerCase();
  let i = 0;
  let j = 0;
  let star = -1;
  let resume = 0;
  while (j < a.length) {
    if (i < p.length && p[i] !== '*' && p[i] === a[j]) {
      i++;
      j++;
    } else if (i < p.length && p[i] === '*') {
      star = i++;
      resume = j;
    } else if (star >= 0) {
      i = star + 1;
      j = ++resume;
    } else return false;
  }
  while (p[i] === '*') i++;
  return i === p.length;
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
