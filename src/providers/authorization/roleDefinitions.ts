// Built-in role definitions: GET by id and LIST (with $filter=roleName eq '…' / type eq '…') at any
// scope; ids are rendered under the request's subscription, as ARM does.
import type { RequestContext, Route } from '../../arm/provider.js';
import { ROLE_DEFINITION_API_VERSIONS } from './apiVersions.js';
import { BUILT_IN_ROLES, builtInRole, type BuiltInRole } from './builtInRoles.js';
import { roleDefinitionDoesNotExist } from './errors.js';
import { SCOPE_TEMPLATES, scopeOf, subscriptionOf } from './scopes.js';
import { sameId } from '../../ids/compare.js';

const ROLE_DEFINITION_TYPE = 'Microsoft.Authorization/roleDefinitions';

/** When built-in roles appear to have been created and last changed (fixed: they are not ours). */
const BUILT_IN_CREATED = '2015-02-02T21:55:09.8806423Z';

/** The id a role definition has when seen from `scope`. */
export function roleDefinitionId(scope: string, guid: string): string {
  const sub = subscriptionOf(scope);
  return `${sub ? `/subscriptions/${sub}` : ''}/providers/Microsoft.Authorization/roleDefinitions/${guid}`;
}

function renderRoleDefinition(role: BuiltInRole, scope: string): unknown {
  return {
    id: roleDefinitionId(scope, role.id),
    name: role.id,
    type: ROLE_DEFINITION_TYPE,
    properties: {
      roleName: role.roleName,
      type: 'BuiltInRole',
      description: role.description,
      assignableScopes: ['/'],
      permissions: role.permissions,
      createdOn: BUILT_IN_CREATED,
      updatedOn: BUILT_IN_CREATED,
      createdBy: null,
      updatedBy: null,
    },
  };
}

/** roleName eq 'x' and type eq 'BuiltInRole'|'CustomRole', as az and the portal send them. */
function roleFilter(filter: string | null): (role: BuiltInRole) => boolean {
  if (!filter) return () => true;
  const name = /roleName\s+eq\s+'([^']*)'/i.exec(filter)?.[1];
  const type = /type\s+eq\s+'([^']*)'/i.exec(filter)?.[1];
  return (role) => (name === undefined || sameId(role.roleName, name)) && (type === undefined || type.toLowerCase() === 'builtinrole');
}

function list(ctx: RequestContext) {
  const scope = scopeOf(ctx);
  const matches = roleFilter(ctx.query.get('$filter'));
  return { status: 200, body: { value: BUILT_IN_ROLES.filter(matches).map((r) => renderRoleDefinition(r, scope)) } };
}

function get(ctx: RequestContext) {
  const id = ctx.params['roleDefinitionId']!;
  const role = builtInRole(id);
  if (!role) throw roleDefinitionDoesNotExist(id, 404);
  return { status: 200, body: renderRoleDefinition(role, scopeOf(ctx)) };
}

export const roleDefinitionRoutes: Route[] = SCOPE_TEMPLATES.flatMap((scope): Route[] => [
  {
    method: 'GET',
    path: `${scope}/providers/Microsoft.Authorization/roleDefinitions`,
    apiVersions: ROLE_DEFINITION_API_VERSIONS,
    resourceType: 'roleDefinitions',
    handle: list,
  },
  {
    method: 'GET',
    path: `${scope}/providers/Microsoft.Authorization/roleDefinitions/{roleDefinitionId}`,
    apiVersions: ROLE_DEFINITION_API_VERSIONS,
    resourceType: 'roleDefinitions',
    handle: get,
  },
]);
