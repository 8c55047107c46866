// The ARM resources of a resource group as the store keeps them, classified by type from their ids
// (docs/dashboard.md §3.1): one prefix scan per group, so the overview costs one scan per group whatever it counts.
import type { Store } from '../store/store.js';

/** `/subscriptions/<s>/resourceGroups/<rg>`, as the resource groups provider keys groups. */
export function groupId(subscriptionId: string, name: string): string {
  return `/subscriptions/${subscriptionId}/resourceGroups/${name}`;
}

/** The kinds the dashboard shows, by ARM type (lower case) → the overview's count name. */
export const SHOWN_TYPES = {
  'microsoft.network/virtualnetworks': 'virtualNetworks',
  'microsoft.containerservice/managedclusters': 'managedClusters',
  'microsoft.network/routetables': 'routeTables',
  'microsoft.network/networksecuritygroups': 'networkSecurityGroups',
  'microsoft.network/loadbalancers': 'loadBalancers',
  'microsoft.network/publicipaddresses': 'publicIPAddresses',
} as const;

export type ShownKind = (typeof SHOWN_TYPES)[keyof typeof SHOWN_TYPES];

/** A top-level resource id: …/providers/<namespace>/<type>/<name>, nothing after. */
const TOP_LEVEL = /^\/subscriptions\/[^/]+\/resourcegroups\/[^/]+\/providers\/([^/]+\/[^/]+)\/[^/]+$/i;

/** The group's top-level resources of the kinds shown, by kind, each list sorted by name. */
export function resourcesOf(store: Store, group: string): Record<ShownKind, { key: string; value: unknown }[]> {
  const out = Object.fromEntries(Object.values(SHOWN_TYPES).map((k) => [k, []])) as unknown as Record<ShownKind, { key: string; value: unknown }[]>;
  for (const entry of store.list(`${group}/providers/`)) {
    const type = TOP_LEVEL.exec(entry.key)?.[1]?.toLowerCase();
    const kind = type === undefined ? undefined : (SHOWN_TYPES as Record<string, ShownKind>)[type];
    if (kind !== undefined) out[kind].push(entry);
  }
  for (const list of Object.values(out)) list.sort((a, b) => byName(nameOf(a.key), nameOf(b.key)));
  return out;
}

export function nameOf(id: string): string {
  return id.slice(id.lastIndexOf('/') + 1);
}

export function byName(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  return x < y ? -1 : x > y ? 1 : 0;
}
