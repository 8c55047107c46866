// GET /ui/api/overview (docs/dashboard.md §3): the subscription's resource groups with how many of each shown kind
// they hold, and the newest operations.
import type { Store } from '../store/store.js';
import { operationsView, type OperationView } from './operations.js';
import { byName, groupId, resourcesOf, type ShownKind } from './resources.js';

interface StoredGroup {
  id: string;
  name: string;
  location: string;
}

export interface Overview {
  subscriptionId: string;
  groups: { name: string; location: string; counts: Record<ShownKind, number> }[];
  operations: OperationView[];
}

/** The subscription's groups: direct children of its resourceGroups key. */
export function groupsOf(store: Store, subscriptionId: string): StoredGroup[] {
  return store
    .list<StoredGroup>(`/subscriptions/${subscriptionId}/resourceGroups/`, { children: true })
    .map((e) => e.value)
    .sort((a, b) => byName(a.name, b.name));
}

export function overview(store: Store, subscriptionId: string): Overview {
  const groups = groupsOf(store, subscriptionId).map((g) => {
    const resources = resourcesOf(store, groupId(subscriptionId, g.name));
    const counts = Object.fromEntries(Object.entries(resources).map(([kind, list]) => [kind, list.length])) as Record<ShownKind, number>;
    return { name: g.name, location: g.location, counts };
  });
  return { subscriptionId, groups, operations: operationsView(store) };
}
