// Client-side reshaping az applies to results before printing.

/** azure-cli's _resource_group_transform: every object whose id names a resource inside a group
 *  (at least 9 segments) gets resourceGroup, unless it has one already; recursively. */
export function addResourceGroup(value: unknown): void {
  if (Array.isArray(value)) {
    for (const item of value) addResourceGroup(item);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const record = value as Record<string, unknown>;
  if (!Object.keys(record).some((k) => k.toLowerCase() === 'resourcegroup')) {
    const id = record['id'];
    if (typeof id === 'string' && id) {
      const parts = id.split('/');
      if (parts.length > 8 && parts[3]!.toLowerCase() === 'resourcegroups') record['resourceGroup'] = parts[4];
    }
  }
  for (const [key, item] of Object.entries(record)) if (key !== 'sourceVault') addResourceGroup(item);
}

/** acs custom.py _remove_nulls: the few null members az hides on managed clusters. */
export function removeClusterNulls(cluster: Record<string, unknown>): Record<string, unknown> {
  if (cluster['tags'] === null) delete cluster['tags'];
  const pools = cluster['agentPoolProfiles'];
  if (Array.isArray(pools)) {
    for (const pool of pools as Record<string, unknown>[]) {
      if (pool['osDiskSizeGb'] === null) delete pool['osDiskSizeGb'];
      if (pool['vnetSubnetId'] === null) delete pool['vnetSubnetId'];
    }
  }
  const sp = cluster['servicePrincipalProfile'] as Record<string, unknown> | null | undefined;
  if (sp && sp['secret'] === null) delete sp['secret'];
  return cluster;
}

/** AAZ output (client_flatten): each `properties` object is merged into its parent, recursively. */
export function flattenProperties(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(flattenProperties);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    if (key === 'properties' && typeof item === 'object' && item !== null && !Array.isArray(item)) {
      for (const [k, v] of Object.entries(item as Record<string, unknown>)) out[k] = flattenProperties(v);
    } else {
      out[key] = flattenProperties(item);
    }
  }
  return out;
}
