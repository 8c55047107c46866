// Role assignments at any scope: PUT (always 201, as az requires), GET, DELETE (200 with the deleted
// assignment, 204 when there was none) and LIST with ARM's filters: no filter = at, above and below
// the scope; atScope() = at and above; principalId eq '…' / assignedTo('…') = one principal.
import type { RequestContext, Route } from '../../arm/provider.js';
import { s } from '../../arm/schema.js';
import { ROLE_ASSIGNMENT_API_VERSIONS } from './apiVersions.js';
import { builtInRole } from './builtInRoles.js';
import {
  invalidPrincipalId,
  invalidPrincipalType,
  invalidRoleAssignmentId,
  missingRoleDefinitionId,
  roleAssignmentExists,
  roleAssignmentNotFound,
  roleAssignmentUpdateNotPermitted,
  roleDefinitionDoesNotExist,
  unsupportedFilter,
} from './errors.js';
import { roleDefinitionId } from './roleDefinitions.js';
import { allAssignments, deleteAssignment, getAssignment, putAssignment, ROLE_ASSIGNMENT_TYPE, type RoleAssignment } from './roleAssignmentStore.js';
import { normalizeScope, requireScopeExists, SCOPE_TEMPLATES, scopeContains, scopeOf } from './scopes.js';
import { sameId } from '../../ids/compare.js';

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const PRINCIPAL_TYPES = ['User', 'Group', 'ServicePrincipal', 'ForeignGroup', 'Device'];

/** Older api-versions nest the same members; read-only ones are accepted so a GET body can be PUT back. */
const roleAssignmentModel = s.object('RoleAssignmentCreateParameters', {
  id: s.string(),
  name: s.string(),
  type: s.string(),
  properties: s.object('RoleAssignmentProperties', {
    roleDefinitionId: s.string(),
    principalId: s.string(),
    principalType: s.string(),
    description: s.string(),
    condition: s.string(),
    conditionVersion: s.string(),
    delegatedManagedIdentityResourceId: s.string(),
    canDelegate: s.boolean(),
    // Read-only.
    scope: s.string(),
    createdOn: s.string(),
    updatedOn: s.string(),
    createdBy: s.string(),
    updatedBy: s.string(),
  }),
});

interface AssignmentBody {
  properties?: {
    roleDefinitionId?: string;
    principalId?: string;
    principalType?: string;
    description?: string | null;
    condition?: string | null;
    conditionVersion?: string | null;
    delegatedManagedIdentityResourceId?: string | null;
  };
}

function assignmentId(scope: string, name: string): string {
  return `${scope === '/' ? '' : scope}/providers/Microsoft.Authorization/roleAssignments/${name}`;
}

function put(ctx: RequestContext) {
  const scope = scopeOf(ctx);
  const name = ctx.params['roleAssignmentName']!;
  if (!GUID.test(name)) throw invalidRoleAssignmentId(name);
  const p = (ctx.body as AssignmentBody | undefined)?.properties ?? {};
  if (!p.roleDefinitionId) throw missingRoleDefinitionId();
  const role = builtInRole(p.roleDefinitionId);
  if (!role) throw roleDefinitionDoesNotExist(p.roleDefinitionId.slice(p.roleDefinitionId.lastIndexOf('/') + 1));
  if (!p.principalId || !GUID.test(p.principalId)) throw invalidPrincipalId(p.principalId);
  const principalType = p.principalType ? PRINCIPAL_TYPES.find((t) => sameId(t, p.principalType)) : 'ServicePrincipal';
  if (!principalType) throw invalidPrincipalType(p.principalType!);
  const definitionId = roleDefinitionId(scope, role.id);

  return ctx.store.transaction(() => {
    requireScopeExists(ctx.store, scope);
    const existing = getAssignment(ctx.store, name);
    // The same grant: one principal, one role, one scope.
    const sameGrant = (a: RoleAssignment) =>
      sameId(a.properties.principalId, p.principalId) &&
      a.properties.roleDefinitionId.toLowerCase().endsWith(role.id) &&
      sameId(normalizeScope(a.properties.scope), scope);
    if (existing && !sameGrant(existing)) throw roleAssignmentUpdateNotPermitted();
    if (!existing && allAssignments(ctx.store).some(sameGrant)) throw roleAssignmentExists();
    const now = new Date().toISOString();
    const assignment: RoleAssignment = {
      id: existing?.id ?? assignmentId(scope, name),
      name: existing?.name ?? name,
      type: ROLE_ASSIGNMENT_TYPE,
      properties: {
        roleDefinitionId: definitionId,
        principalId: p.principalId!,
        principalType,
        scope: existing?.properties.scope ?? scope,
        condition: p.condition ?? null,
        conditionVersion: p.conditionVersion ?? null,
        description: p.description ?? null,
        delegatedManagedIdentityResourceId: p.delegatedManagedIdentityResourceId ?? null,
        createdOn: existing?.properties.createdOn ?? now,
        updatedOn: now,
        createdBy: existing?.properties.createdBy ?? ctx.principal.objectId,
        updatedBy: ctx.principal.objectId,
      },
    };
    putAssignment(ctx.store, assignment);
    return { status: 201, body: assignment };
  });
}

/** The assignment a path names: its name, at exactly that scope. */
function find(ctx: RequestContext): RoleAssignment | undefined {
  const assignment = getAssignment(ctx.store, ctx.params['roleAssignmentName']!);
  return assignment && sameId(normalizeScope(assignment.properties.scope), scopeOf(ctx)) ? assignment : undefined;
}

function get(ctx: RequestContext) {
  const assignment = find(ctx);
  if (!assignment) throw roleAssignmentNotFound(ctx.params['roleAssignmentName']!);
  return { status: 200, body: assignment };
}

function remove(ctx: RequestContext) {
  return ctx.store.transaction(() => {
    const assignment = find(ctx);
    if (!assignment) return { status: 204 };
    deleteAssignment(ctx.store, assignment.name);
    return { status: 200, body: assignment };
  });
}

interface Filter {
  atScope: boolean;
  principalId?: string;
}

function parseFilter(filter: string | null): Filter {
  const out: Filter = { atScope: false };
  if (!filter || filter.trim() === '') return out;
  // Whitespace runs collapsed first: splitting on /\s+and\s+/ backtracked quadratically on a long run of spaces.
  for (const term of filter.trim().replace(/\s+/g, ' ').split(/ and /i)) {
    const principal = /^(?:principalId\s+eq\s+'([^']*)'|assignedTo\('([^']*)'\))$/i.exec(term.trim());
    if (/^atScope\(\)$/i.test(term.trim())) out.atScope = true;
    else if (principal) out.principalId = principal[1] ?? principal[2];
    else throw unsupportedFilter(filter);
  }
  return out;
}

function list(ctx: RequestContext) {
  const scope = scopeOf(ctx);
  const filter = parseFilter(ctx.query.get('$filter'));
  const value = allAssignments(ctx.store).filter((a) => {
    const at = a.properties.scope;
    const inScope = scopeContains(at, scope) || (!filter.atScope && scopeContains(scope, at));
    return inScope && (filter.principalId === undefined || sameId(a.properties.principalId, filter.principalId));
  });
  return { status: 200, body: { value } };
}

export const roleAssignmentRoutes: Route[] = SCOPE_TEMPLATES.flatMap((scope): Route[] => {
  const collection = `${scope}/providers/Microsoft.Authorization/roleAssignments`;
  const item = `${collection}/{roleAssignmentName}`;
  const common = { apiVersions: ROLE_ASSIGNMENT_API_VERSIONS, resourceType: 'roleAssignments' };
  return [
    { method: 'PUT', path: item, ...common, body: roleAssignmentModel, bodyRequired: true, handle: put },
    { method: 'GET', path: item, ...common, handle: get },
    { method: 'DELETE', path: item, ...common, handle: remove },
    { method: 'GET', path: collection, ...common, handle: list },
  ];
});
