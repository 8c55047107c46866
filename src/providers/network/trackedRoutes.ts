// The REST routes every tracked Network resource type has, from one description of the type: PUT (long-running,
// Updating → Succeeded), GET, DELETE (long-running), LIST by group and by subscription, and PATCH of its tags.
// publicIPAddresses, publicIPPrefixes, natGateways and loadBalancers are served this way.
import type { RequestContext, Route } from '../../arm/provider.js';
import type { Schema } from '../../arm/schema.js';
import type { Store } from '../../store/store.js';
import { IN_GROUP, IN_SUBSCRIPTION, listBody, listInGroup, listInSubscription, param, readGroup, requireTracked, resourceId, writeGroup } from './http.js';
import { beginDelete, beginPut } from './operations.js';
import type { TrackedResource } from './resource.js';
import { tagsObjectModel, updateTags } from './updateTags.js';

export interface TrackedKind<T extends TrackedResource<unknown>, I> {
  /** The path segment, e.g. publicIPAddresses. */
  type: string;
  nameParam: string;
  body: Schema;
  find(store: Store, id: string): T | undefined;
  /** Validates and writes inside the request's transaction; `touched` defaults to the record's id. */
  write(store: Store, id: string, input: I): { record: T; created: boolean; touched?: string[] };
  render(store: Store, record: T): unknown;
  remove(store: Store, record: T): void;
}

export function trackedRoutes<T extends TrackedResource<unknown>, I extends { location?: string }>(kind: TrackedKind<T, I>): Route[] {
  const one = `${IN_GROUP}/${kind.type}/{${kind.nameParam}}`;
  const put = (ctx: RequestContext) => {
    const id = resourceId(writeGroup(ctx), kind.type, param(ctx, kind.nameParam));
    const input = (ctx.body ?? {}) as I;
    return beginPut(ctx, {
      resourceId: id,
      location: input.location ?? '',
      write: () => {
        const { record, created, touched } = kind.write(ctx.store, id, input);
        return { created, touched: touched ?? [record.id], body: () => kind.render(ctx.store, record) };
      },
    });
  };
  const remove = (ctx: RequestContext) => {
    const found = kind.find(ctx.store, resourceId(readGroup(ctx), kind.type, param(ctx, kind.nameParam)));
    if (!found) return { status: 204 };
    return beginDelete(ctx, { resourceId: found.id, location: found.location, remove: () => kind.remove(ctx.store, found) });
  };
  const render = (ctx: RequestContext) => (r: T) => kind.render(ctx.store, r);
  return [
    { method: 'PUT', path: one, resourceType: kind.type, body: kind.body, bodyRequired: true, handle: put },
    {
      method: 'GET',
      path: one,
      resourceType: kind.type,
      handle: (ctx) => ({ status: 200, body: kind.render(ctx.store, requireTracked(ctx, kind.find, kind.type, kind.nameParam)) }),
    },
    { method: 'DELETE', path: one, resourceType: kind.type, handle: remove },
    {
      method: 'PATCH',
      path: one,
      resourceType: kind.type,
      body: tagsObjectModel,
      bodyRequired: true,
      handle: (ctx) => updateTags(ctx, { type: kind.type, nameParam: kind.nameParam, find: kind.find, render: kind.render }),
    },
    {
      method: 'GET',
      path: `${IN_GROUP}/${kind.type}`,
      resourceType: kind.type,
      handle: (ctx) =>
        listBody(
          listInGroup<T>(ctx.store, readGroup(ctx), kind.type)
            .filter((r) => kind.find(ctx.store, r.id))
            .map(render(ctx)),
        ),
    },
    {
      method: 'GET',
      path: `${IN_SUBSCRIPTION}/${kind.type}`,
      resourceType: kind.type,
      handle: (ctx) =>
        listBody(
          listInSubscription<T>(ctx, kind.type)
            .filter((r) => kind.find(ctx.store, r.id))
            .map(render(ctx)),
        ),
    },
  ];
}
