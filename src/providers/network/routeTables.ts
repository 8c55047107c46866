// REST routes of routeTables and their routes (child resources kept inline).
import type { RequestContext, Route } from '../../arm/provider.js';
import { childNotFound } from './errors.js';
import { IN_GROUP, IN_SUBSCRIPTION, listBody, listInGroup, listInSubscription, param, readGroup, requireTracked, resourceId, writeGroup } from './http.js';
import type { RouteTable } from './models.js';
import { beginDelete, beginPut } from './operations.js';
import {
  findRouteTable,
  removeRoute,
  removeRouteTable,
  renderRouteTable,
  writeRoute,
  writeRouteTable,
  type RouteInput,
  type RouteTableInput,
} from './routeTableModel.js';
import { routeModel, routeTableModel } from './schemas.js';
import { sameId } from '../../ids/compare.js';

const TABLES = 'routeTables';
const TABLE = `${IN_GROUP}/routeTables/{routeTableName}`;
const ROUTE = `${TABLE}/routes/{routeName}`;

function requireTable(ctx: RequestContext): RouteTable {
  return requireTracked(ctx, findRouteTable, TABLES, 'routeTableName');
}

function putTable(ctx: RequestContext) {
  const id = resourceId(writeGroup(ctx), TABLES, param(ctx, 'routeTableName'));
  const input = (ctx.body ?? {}) as RouteTableInput;
  return beginPut(ctx, {
    resourceId: id,
    location: input.location ?? '',
    write: () => {
      const { table, created } = writeRouteTable(ctx.store, id, input, 'Updating');
      return { created, touched: [table.id], body: () => renderRouteTable(table) };
    },
  });
}

function deleteTable(ctx: RequestContext) {
  const table = findRouteTable(ctx.store, resourceId(readGroup(ctx), TABLES, param(ctx, 'routeTableName')));
  if (!table) return { status: 204 };
  return beginDelete(ctx, { resourceId: table.id, location: table.location, remove: () => removeRouteTable(ctx.store, table) });
}

function putRoute(ctx: RequestContext) {
  const table = requireTable(ctx);
  writeGroup(ctx);
  const name = param(ctx, 'routeName');
  return beginPut(ctx, {
    resourceId: `${table.id}/routes/${name}`,
    location: table.location,
    write: () => {
      const { route, created } = writeRoute(ctx.store, table, name, (ctx.body ?? {}) as RouteInput, 'Updating');
      return { created, touched: [table.id], body: () => route };
    },
  });
}

function getRoute(ctx: RequestContext) {
  const table = requireTable(ctx);
  const name = param(ctx, 'routeName');
  const route = table.properties.routes.find((r) => sameId(r.name, name));
  if (!route) throw childNotFound(`${table.id}/routes/${name}`);
  return { status: 200, body: route };
}

function deleteRoute(ctx: RequestContext) {
  const table = findRouteTable(ctx.store, resourceId(readGroup(ctx), TABLES, param(ctx, 'routeTableName')));
  const name = param(ctx, 'routeName');
  if (!table || !table.properties.routes.some((r) => sameId(r.name, name))) return { status: 204 };
  return beginDelete(ctx, { resourceId: `${table.id}/routes/${name}`, location: table.location, remove: () => removeRoute(ctx.store, table, name) });
}

export const routeTableRoutes: Route[] = [
  { method: 'PUT', path: TABLE, resourceType: TABLES, body: routeTableModel, bodyRequired: true, handle: putTable },
  { method: 'GET', path: TABLE, resourceType: TABLES, handle: (ctx) => ({ status: 200, body: renderRouteTable(requireTable(ctx)) }) },
  { method: 'DELETE', path: TABLE, resourceType: TABLES, handle: deleteTable },
  {
    method: 'GET',
    path: `${IN_GROUP}/routeTables`,
    resourceType: TABLES,
    handle: (ctx) => listBody(listInGroup<RouteTable>(ctx.store, readGroup(ctx), TABLES).map(renderRouteTable)),
  },
  {
    method: 'GET',
    path: `${IN_SUBSCRIPTION}/routeTables`,
    resourceType: TABLES,
    handle: (ctx) => listBody(listInSubscription<RouteTable>(ctx, TABLES).map(renderRouteTable)),
  },
  { method: 'PUT', path: ROUTE, resourceType: 'routeTables/routes', body: routeModel, bodyRequired: true, handle: putRoute },
  { method: 'GET', path: ROUTE, resourceType: 'routeTables/routes', handle: getRoute },
  { method: 'DELETE', path: ROUTE, resourceType: 'routeTables/routes', handle: deleteRoute },
  { method: 'GET', path: `${TABLE}/routes`, resourceType: 'routeTables/routes', handle: (ctx) => listBody(requireTable(ctx).properties.routes) },
];
