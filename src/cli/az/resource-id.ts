// Resource ids as az's msrestazure helpers see them: validity, and the "name or id" arguments
// (--network-security-group, --route-table) that a name completes in the command's group.

const ID = /^\/subscriptions\/[^/]+\/resourceGroups\/[^/]+\/providers\/[^/]+\/[^/]+\/[^/]+(\/[^/]+\/[^/]+)*\/?$/i;

export function isValidResourceId(value: string): boolean {
  return ID.test(value);
}

export function nameOrId(value: string, subscriptionId: string, resourceGroup: string, namespace: string, type: string): string {
  if (isValidResourceId(value)) return value;
  return `/subscriptions/${subscriptionId}/resourceGroups/${resourceGroup}/providers/${namespace}/${type}/${value}`;
}

export function groupScope(subscriptionId: string, resourceGroup: string): string {
  return `/subscriptions/${subscriptionId}/resourceGroups/${encodeURIComponent(resourceGroup)}`;
}
