// REST routes of Microsoft.ManagedIdentity/userAssignedIdentities: PUT (create or update, answered in the request),
// PATCH (tags), GET, LIST by group and subscription, DELETE. Deleting a group takes its identities with its keys.
import { resourceNotFound } from '../../arm/errors.js';
import type { RequestContext, Route } from '../../arm/provider.js';
import { s } from '../../arm/schema.js';
import { listBody, param, readGroup, writeGroup } from '../network/http.js';
import { childrenOf } from '../network/resource.js';
import type { ResourceGroup } from '../resources/resourceGroups.js';
import { checkIdentityName, findIdentity, IDENTITY_TYPE, identitiesIn, identityId, writeIdentity, type UserAssignedIdentity } from './identities.js';

const SUBSCRIPTION = '/subscriptions/{subscriptionId}';
const IN_GROUP = `${SUBSCRIPTION}/resourceGroups/{resourceGroupName}/providers/Microsoft.ManagedIdentity/userAssignedIdentities`;
const IDENTITY = `${IN_GROUP}/{resourceName}`;
const TYPE = 'userAssignedIdentities';

/** The request model (Identity in the MSI spec); the read-only members of a GET are accepted so it can be PUT back. */
const identityModel = s.object('Identity', {
  id: s.string(),
  name: s.string(),
  type: s.string(),
  location: s.string(),
  tags: s.tags(),
  systemData: s.ignored(),
  properties: s.object('UserAssignedIdentityProperties', {
    tenantId: s.ignored(),
    principalId: s.ignored(),
    clientId: s.ignored(),
    isolationScope: s.string(),
  }),
});

const patchModel = s.object('IdentityUpdate', { location: s.string(), tags: s.tags(), properties: s.any() });

function requireIdentity(ctx: RequestContext): UserAssignedIdentity {
  const group = readGroup(ctx);
  const found = findIdentity(ctx.store, identityId(group, param(ctx, 'resourceName')));
  if (!found) throw resourceNotFound(IDENTITY_TYPE, param(ctx, 'resourceName'), group.name);
  return found;
}

function put(ctx: RequestContext) {
  const name = param(ctx, 'resourceName');
  checkIdentityName(name);
  const group = writeGroup(ctx);
  const { identity, created } = writeIdentity(ctx.store, identityId(group, name), (ctx.body ?? {}) as { location?: string }, ctx.identity.tenantId);
  return { status: created ? 201 : 200, body: identity };
}

function patch(ctx: RequestContext) {
  const found = requireIdentity(ctx);
  const body = (ctx.body ?? {}) as { tags?: Record<string, string> };
  const updated = { ...found, ...(body.tags !== undefined ? { tags: body.tags } : {}) };
  ctx.store.put(found.id, updated);
  return { status: 200, body: updated };
}

function remove(ctx: RequestContext) {
  const group = readGroup(ctx);
  const found = findIdentity(ctx.store, identityId(group, param(ctx, 'resourceName')));
  if (!found) return { status: 204 };
  ctx.store.delete(found.id);
  return { status: 200 };
}

function listInSubscription(ctx: RequestContext) {
  const groups = childrenOf<ResourceGroup>(ctx.store, `/subscriptions/${param(ctx, 'subscriptionId')}/resourceGroups/`);
  return listBody(groups.flatMap((g) => identitiesIn(ctx.store, g.id)));
}

export const identityRoutes: Route[] = [
  { method: 'PUT', path: IDENTITY, resourceType: TYPE, body: identityModel, bodyRequired: true, handle: put },
  { method: 'PATCH', path: IDENTITY, resourceType: TYPE, body: patchModel, bodyRequired: true, handle: patch },
  { method: 'GET', path: IDENTITY, resourceType: TYPE, handle: (ctx) => ({ status: 200, body: requireIdentity(ctx) }) },
  { method: 'DELETE', path: IDENTITY, resourceType: TYPE, handle: remove },
  { method: 'GET', path: IN_GROUP, resourceType: TYPE, handle: (ctx) => listBody(identitiesIn(ctx.store, readGroup(ctx).id)) },
  { method: 'GET', path: `${SUBSCRIPTION}/providers/Microsoft.ManagedIdentity/userAssignedIdentities`, resourceType: TYPE, handle: listInSubscription },
];
