// PATCH of a tracked Network resource (the spec's *_UpdateTags, body TagsObject): the request's tags
// replace the resource's, nothing else changes, a new etag, 200 with the resource; not long-running.
import type { RequestContext, Route } from '../../arm/provider.js';
import { s } from '../../arm/schema.js';
import type { Store } from '../../store/store.js';
import { IN_GROUP, requireTracked, writeGroup } from './http.js';
import { findNetworkInterface } from './nicModel.js';
import { findNetworkSecurityGroup, renderNetworkSecurityGroup } from './nsgModel.js';
import { compact, newEtag, type TrackedResource } from './resource.js';
import { findRouteTable, renderRouteTable } from './routeTableModel.js';
import { findVirtualNetwork, renderVirtualNetwork } from './vnetModel.js';

/** TagsObject: the one member UpdateTags takes. */
export const tagsObjectModel = s.object('TagsObject', { tags: s.tags() });

export interface Tagged<T extends TrackedResource<unknown>> {
  type: string;
  nameParam: string;
  find(store: Store, id: string): T | undefined;
  render(store: Store, resource: T): unknown;
}

const tagged = <T extends TrackedResource<unknown>>(t: Tagged<T>): Tagged<TrackedResource<unknown>> => t as unknown as Tagged<TrackedResource<unknown>>;

/** The Network resource types aksemu keeps that UpdateTags applies to. */
const TAGGED = [
  tagged({ type: 'virtualNetworks', nameParam: 'virtualNetworkName', find: findVirtualNetwork, render: renderVirtualNetwork }),
  tagged({
    type: 'networkSecurityGroups',
    nameParam: 'networkSecurityGroupName',
    find: findNetworkSecurityGroup,
    render: (_store, nsg) => renderNetworkSecurityGroup(nsg),
  }),
  tagged({ type: 'routeTables', nameParam: 'routeTableName', find: findRouteTable, render: (_store, table) => renderRouteTable(table) }),
  tagged({ type: 'networkInterfaces', nameParam: 'networkInterfaceName', find: findNetworkInterface, render: (_store, nic) => nic }),
];

export function updateTags<T extends TrackedResource<unknown>>(ctx: RequestContext, kind: Tagged<T>) {
  writeGroup(ctx);
  const found = requireTracked(ctx, kind.find, kind.type, kind.nameParam);
  const tags = (ctx.body as { tags?: Record<string, string> } | undefined)?.tags;
  // Spread over the stored record so its members keep their order (tags sits after location).
  const updated = compact({ ...found, etag: newEtag(), tags: tags ?? undefined });
  ctx.store.put(found.id, updated);
  return { status: 200, body: kind.render(ctx.store, updated) };
}

export const updateTagsRoutes: Route[] = TAGGED.map((kind) => ({
  method: 'PATCH' as const,
  path: `${IN_GROUP}/${kind.type}/{${kind.nameParam}}`,
  resourceType: kind.type,
  body: tagsObjectModel,
  bodyRequired: true,
  handle: (ctx: RequestContext) => updateTags(ctx, kind),
}));
