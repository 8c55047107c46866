// Resource groups: PUT (create or update), GET, HEAD (exists), LIST, PATCH (tags, managedBy), and
// DELETE, which is a long-running operation that removes everything under the group.
import {
  invalidResourceGroupLocation,
  locationNotAvailableForResourceGroup,
  locationRequired,
  resourceGroupBeingDeleted,
  resourceGroupNotFound,
} from '../../arm/errors.js';
import { getSubscription } from '../../arm/identity.js';
import { findRegion, REGIONS } from '../../arm/locations.js';
import type { OperationKind } from '../../arm/lro.js';
import type { RequestContext, Route } from '../../arm/provider.js';
import { s } from '../../arm/schema.js';
import type { Store } from '../../store/store.js';
import { sameId } from '../../ids/compare.js';

export const RESOURCE_GROUP_TYPE = 'Microsoft.Resources/resourceGroups';
const GROUP_DELETE_KIND = 'Microsoft.Resources/resourceGroups/delete';

/** ARM's representation, which is also what the store keeps. */
export interface ResourceGroup {
  id: string;
  name: string;
  type: typeof RESOURCE_GROUP_TYPE;
  location: string;
  managedBy?: string;
  tags?: Record<string, string>;
  properties: { provisioningState: 'Succeeded' | 'Deleting' };
}

const tags = s.tags();

/** Read-only members are accepted and ignored, as ARM does, so a GET body can be PUT back. */
const resourceGroupModel = s.object('ResourceGroup', {
  id: s.string(),
  name: s.string(),
  type: s.string(),
  location: s.string(),
  managedBy: s.string(),
  tags,
  properties: s.object('ResourceGroupProperties', { provisioningState: s.string() }),
});

const resourceGroupPatchModel = s.object('ResourceGroupPatchable', {
  name: s.string(),
  managedBy: s.string(),
  tags,
  properties: s.object('ResourceGroupProperties', { provisioningState: s.string() }),
});

const GROUP = '/subscriptions/{subscriptionId}/resourcegroups/{resourceGroupName}';

function resourceGroupId(subscriptionId: string, name: string): string {
  return `/subscriptions/${subscriptionId}/resourceGroups/${name}`;
}

/** The subscription id of the request in its stored casing (the pipeline has checked it exists). */
function subscriptionId(ctx: RequestContext): string {
  return getSubscription(ctx.store, ctx.params['subscriptionId']!)!.subscriptionId;
}

/** The stored group, or ResourceGroupNotFound. */
export function getResourceGroup(store: Store, subscriptionId: string, name: string): ResourceGroup {
  const group = store.get<ResourceGroup>(resourceGroupId(subscriptionId, name));
  if (!group) throw resourceGroupNotFound(name);
  return group;
}

/**
 * The group a resource is written into: it must exist and not be being deleted (ARM's 409), so
 * nothing new lands in a group whose delete is under way.
 */
export function writableResourceGroup(store: Store, subscriptionId: string, name: string): ResourceGroup {
  const group = getResourceGroup(store, subscriptionId, name);
  if (group.properties.provisioningState === 'Deleting') throw resourceGroupBeingDeleted(group.name);
  return group;
}

function requestedGroup(ctx: RequestContext): ResourceGroup {
  return getResourceGroup(ctx.store, ctx.params['subscriptionId']!, ctx.params['resourceGroupName']!);
}

function put(ctx: RequestContext) {
  // The pipeline has checked the name (src/arm/names.ts).
  const name = ctx.params['resourceGroupName']!;
  const body = (ctx.body ?? {}) as { location?: string; tags?: Record<string, string>; managedBy?: string };
  if (!body.location) throw locationRequired();
  const region = findRegion(body.location);
  if (!region)
    throw locationNotAvailableForResourceGroup(
      body.location,
      REGIONS.map((r) => r.name),
    );
  return ctx.store.transaction(() => {
    const existing = ctx.store.get<ResourceGroup>(resourceGroupId(subscriptionId(ctx), name));
    if (existing?.properties.provisioningState === 'Deleting') throw resourceGroupBeingDeleted(existing.name);
    if (existing && existing.location !== region.name) throw invalidResourceGroupLocation(body.location!, existing.location);
    // Members left undefined are not stored or sent (JSON drops them).
    const group: ResourceGroup = {
      // An update keeps the name's original casing, as ARM does.
      id: existing?.id ?? resourceGroupId(subscriptionId(ctx), name),
      name: existing?.name ?? name,
      type: RESOURCE_GROUP_TYPE,
      location: region.name,
      managedBy: body.managedBy ?? undefined,
      tags: body.tags ?? undefined,
      properties: { provisioningState: 'Succeeded' },
    };
    ctx.store.put(group.id, group);
    return { status: existing ? 200 : 201, body: group };
  });
}

function patch(ctx: RequestContext) {
  const body = (ctx.body ?? {}) as { tags?: Record<string, string>; managedBy?: string };
  return ctx.store.transaction(() => {
    const group = requestedGroup(ctx);
    if (group.properties.provisioningState === 'Deleting') throw resourceGroupBeingDeleted(group.name);
    const updated: ResourceGroup = {
      ...group,
      tags: body.tags === undefined ? group.tags : (body.tags ?? undefined),
      managedBy: body.managedBy === undefined ? group.managedBy : (body.managedBy ?? undefined),
    };
    ctx.store.put(updated.id, updated);
    return { status: 200, body: updated };
  });
}

/** $filter as ARM supports it for groups: tagName eq 'x' [and tagValue eq 'y']. */
function tagFilter(filter: string | null): (group: ResourceGroup) => boolean {
  if (!filter) return () => true;
  const name = /tagName\s+eq\s+'([^']*)'/i.exec(filter)?.[1];
  const value = /tagValue\s+eq\s+'([^']*)'/i.exec(filter)?.[1];
  if (name === undefined) return () => true;
  return (group) => {
    const key = Object.keys(group.tags ?? {}).find((k) => sameId(k, name));
    return key !== undefined && (value === undefined || group.tags![key] === value);
  };
}

function list(ctx: RequestContext) {
  const matches = tagFilter(ctx.query.get('$filter'));
  let value = ctx.store
    .list<ResourceGroup>(resourceGroupId(subscriptionId(ctx), ''), { children: true })
    .map((e) => e.value)
    .filter(matches);
  const top = Number(ctx.query.get('$top'));
  if (Number.isInteger(top) && top > 0) value = value.slice(0, top);
  return { status: 200, body: { value } };
}

function remove(ctx: RequestContext) {
  const group = requestedGroup(ctx);
  return ctx.lro.begin(ctx, {
    kind: GROUP_DELETE_KIND,
    namespace: 'Microsoft.Resources',
    location: group.location,
    resourceId: group.id,
    method: 'DELETE',
    prepare: () => ctx.store.put(group.id, { ...group, properties: { provisioningState: 'Deleting' } }),
    response: { status: 202 },
    headers: 'subscription-location',
  });
}

export const resourceGroupRoutes: Route[] = [
  { method: 'PUT', path: GROUP, body: resourceGroupModel, bodyRequired: true, handle: put },
  { method: 'PATCH', path: GROUP, body: resourceGroupPatchModel, bodyRequired: true, handle: patch },
  { method: 'GET', path: GROUP, handle: (ctx) => ({ status: 200, body: requestedGroup(ctx) }) },
  {
    method: 'HEAD',
    path: GROUP,
    handle: (ctx) => {
      requestedGroup(ctx);
      return { status: 204 };
    },
  },
  { method: 'DELETE', path: GROUP, handle: remove },
  { method: 'GET', path: '/subscriptions/{subscriptionId}/resourcegroups', handle: list },
];

/**
 * Deletes the group and everything under it: first the providers' slices (a cluster each), then,
 * with what they hold outside the group released, the group's keys.
 */
export const groupDeleteKind: OperationKind = {
  kind: GROUP_DELETE_KIND,
  slice(op, { store, registry }) {
    const group = store.get<ResourceGroup>(op.resourceId);
    return group !== undefined && registry.deleteSliceOfResourceGroup(group.id, store);
  },
  run(op, { store, registry }) {
    const group = store.get<ResourceGroup>(op.resourceId);
    if (!group) return;
    registry.onResourceGroupDelete(group.id, store);
    store.deletePrefix(`${group.id}/`);
    store.delete(group.id);
  },
  fail(op, { store }) {
    const group = store.get<ResourceGroup>(op.resourceId);
    if (group) store.put(group.id, { ...group, properties: { provisioningState: 'Succeeded' } });
  },
};
