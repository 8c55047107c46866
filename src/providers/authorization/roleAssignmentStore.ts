// Role assignments as the store keeps them: one entry per assignment under an internal key (the
// assignment's GUID name is unique across scopes, as in Azure), so lists at any scope and the
// permission check are one scan of the assignments, never of the resources.
import { ROLE_ASSIGNMENTS_PREFIX as PREFIX } from '../../store/keys.js';
import type { Store } from '../../store/store.js';
import { scopeContains } from './scopes.js';

export const ROLE_ASSIGNMENT_TYPE = 'Microsoft.Authorization/roleAssignments';

export interface RoleAssignment {
  id: string;
  name: string;
  type: typeof ROLE_ASSIGNMENT_TYPE;
  properties: {
    roleDefinitionId: string;
    principalId: string;
    principalType: string;
    scope: string;
    condition: string | null;
    conditionVersion: string | null;
    description: string | null;
    delegatedManagedIdentityResourceId: string | null;
    createdOn: string;
    updatedOn: string;
    createdBy: string | null;
    updatedBy: string | null;
  };
}

export function getAssignment(store: Store, name: string): RoleAssignment | undefined {
  return store.get<RoleAssignment>(PREFIX + name);
}

export function putAssignment(store: Store, assignment: RoleAssignment): void {
  store.put(PREFIX + assignment.name, assignment);
}

export function deleteAssignment(store: Store, name: string): boolean {
  return store.delete(PREFIX + name);
}

export function allAssignments(store: Store): RoleAssignment[] {
  return store.list<RoleAssignment>(PREFIX).map((e) => e.value);
}

/** Assignments that apply at `scope`: made there or at a parent scope. */
export function assignmentsAbove(store: Store, scope: string): RoleAssignment[] {
  return allAssignments(store).filter((a) => scopeContains(a.properties.scope, scope));
}

/** Removes every assignment made at `scope` or below it (the scope is being deleted). */
export function deleteAssignmentsUnder(store: Store, scope: string): number {
  const doomed = allAssignments(store).filter((a) => scopeContains(scope, a.properties.scope));
  for (const a of doomed) deleteAssignment(store, a.name);
  return doomed.length;
}
