// The permission check other providers make (ContainerService: does the cluster identity hold
// subnets/join/action on a BYO subnet?). Azure RBAC's evaluation: the assignments of the principal
// at the scope or any parent scope; per role, an action is granted when it matches an Actions entry
// and no NotActions entry; the grants of all roles add up. There are no deny assignments.
import type { Store } from '../../store/store.js';
import { anyMatches, KNOWN_ACTIONS } from './actions.js';
import { builtInRole, type Permission } from './builtInRoles.js';
import { assignmentsAbove } from './roleAssignmentStore.js';
import { sameId } from '../../ids/compare.js';

function permissionsOf(store: Store, principalId: string, scope: string): Permission[] {
  return assignmentsAbove(store, scope)
    .filter((a) => sameId(a.properties.principalId, principalId))
    .flatMap((a) => builtInRole(a.properties.roleDefinitionId)?.permissions ?? []);
}

function granted(permissions: readonly Permission[], action: string): boolean {
  return permissions.some((p) => anyMatches(p.actions, action) && !anyMatches(p.notActions, action));
}

/** True when principalId may perform `action` (e.g. Microsoft.Network/virtualNetworks/subnets/join/action) on `scope`. */
export function hasPermission(store: Store, principalId: string, scope: string, action: string): boolean {
  return granted(permissionsOf(store, principalId, scope), action);
}

/**
 * The actions principalId may perform on scope, spelled out: wildcards (Microsoft.Network/*, *) are
 * expanded against the operations aksemu knows (actions.ts), exact actions of the roles are kept.
 * Sorted, without duplicates.
 */
export function effectiveActions(store: Store, principalId: string, scope: string): string[] {
  const permissions = permissionsOf(store, principalId, scope);
  const exact = permissions.flatMap((p) => p.actions).filter((a) => !a.includes('*'));
  const found = new Map<string, string>();
  for (const action of [...KNOWN_ACTIONS, ...exact]) {
    if (granted(permissions, action)) found.set(action.toLowerCase(), action);
  }
  return [...found.values()].sort((a, b) => a.localeCompare(b));
}
