// REST routes of virtualNetworks and virtualNetworks/subnets: PUT (long-running, Updating →
// Succeeded), GET, LIST by group and subscription, DELETE (long-running).
import type { RequestContext, Route } from '../../arm/provider.js';
import { childNotFound } from './errors.js';
import { IN_GROUP, IN_SUBSCRIPTION, listBody, listInGroup, listInSubscription, param, readGroup, requireTracked, resourceId, writeGroup } from './http.js';
import type { VirtualNetwork } from './models.js';
import { beginDelete, beginPut } from './operations.js';
import { parsePrefixes } from './prefixes.js';
import { buildSubnet, findSubnet, prefixesOf, removeSubnet, renderSubnet, subnetsOf, writeSubnet, type SubnetInput } from './subnetModel.js';
import { subnetModel, virtualNetworkModel } from './schemas.js';
import { findVirtualNetwork, removeVirtualNetwork, renderVirtualNetwork, vnetPrefixes, writeVirtualNetwork, type VnetInput } from './vnetModel.js';
import { sameId } from '../../ids/compare.js';

const VNETS = 'virtualNetworks';
const VNET = `${IN_GROUP}/virtualNetworks/{virtualNetworkName}`;
const SUBNET = `${VNET}/subnets/{subnetName}`;

function requireVnet(ctx: RequestContext): VirtualNetwork {
  return requireTracked(ctx, findVirtualNetwork, VNETS, 'virtualNetworkName');
}

function putVnet(ctx: RequestContext) {
  const group = writeGroup(ctx);
  const id = resourceId(group, VNETS, param(ctx, 'virtualNetworkName'));
  const input = (ctx.body ?? {}) as VnetInput;
  return beginPut(ctx, {
    resourceId: id,
    location: input.location ?? '',
    write: () => {
      const { vnet, created, touched } = writeVirtualNetwork(ctx.store, id, input, 'Updating');
      return { created, touched, body: () => renderVirtualNetwork(ctx.store, vnet) };
    },
  });
}

function deleteVnet(ctx: RequestContext) {
  const group = readGroup(ctx);
  const vnet = findVirtualNetwork(ctx.store, resourceId(group, VNETS, param(ctx, 'virtualNetworkName')));
  if (!vnet) return { status: 204 };
  return beginDelete(ctx, { resourceId: vnet.id, location: vnet.location, remove: () => removeVirtualNetwork(ctx.store, vnet) });
}

function putSubnet(ctx: RequestContext) {
  const vnet = requireVnet(ctx);
  writeGroup(ctx);
  const name = param(ctx, 'subnetName');
  const id = `${vnet.id}/subnets/${name}`;
  return beginPut(ctx, {
    resourceId: id,
    location: vnet.location,
    write: () => {
      const existing = findSubnet(ctx.store, id);
      const siblings = subnetsOf(ctx.store, vnet.id)
        .filter((s) => !sameId(s.id, id))
        .map((s) => ({ subnet: s, prefixes: parsePrefixes(prefixesOf(s), s.id) }));
      // The body's own name (az sends one) never renames: the path names the subnet.
      const input = { ...((ctx.body ?? {}) as SubnetInput), name };
      const { subnet } = buildSubnet(ctx.store, vnet, vnetPrefixes(vnet), input, siblings, existing, 'Updating');
      writeSubnet(ctx.store, subnet, existing);
      return { created: !existing, touched: [subnet.id], body: () => renderSubnet(ctx.store, subnet) };
    },
  });
}

function getSubnet(ctx: RequestContext) {
  const vnet = requireVnet(ctx);
  const id = `${vnet.id}/subnets/${param(ctx, 'subnetName')}`;
  const subnet = findSubnet(ctx.store, id);
  if (!subnet) throw childNotFound(id);
  return { status: 200, body: renderSubnet(ctx.store, subnet) };
}

function deleteSubnet(ctx: RequestContext) {
  const group = readGroup(ctx);
  const vnet = findVirtualNetwork(ctx.store, resourceId(group, VNETS, param(ctx, 'virtualNetworkName')));
  const subnet = vnet && findSubnet(ctx.store, `${vnet.id}/subnets/${param(ctx, 'subnetName')}`);
  if (!vnet || !subnet) return { status: 204 };
  return beginDelete(ctx, { resourceId: subnet.id, location: vnet.location, remove: () => removeSubnet(ctx.store, subnet) });
}

export const virtualNetworkRoutes: Route[] = [
  { method: 'PUT', path: VNET, resourceType: VNETS, body: virtualNetworkModel, bodyRequired: true, handle: putVnet },
  { method: 'GET', path: VNET, resourceType: VNETS, handle: (ctx) => ({ status: 200, body: renderVirtualNetwork(ctx.store, requireVnet(ctx)) }) },
  { method: 'DELETE', path: VNET, resourceType: VNETS, handle: deleteVnet },
  {
    method: 'GET',
    path: `${IN_GROUP}/virtualNetworks`,
    resourceType: VNETS,
    handle: (ctx) => listBody(listInGroup<VirtualNetwork>(ctx.store, readGroup(ctx), VNETS).map((v) => renderVirtualNetwork(ctx.store, v))),
  },
  {
    method: 'GET',
    path: `${IN_SUBSCRIPTION}/virtualNetworks`,
    resourceType: VNETS,
    handle: (ctx) => listBody(listInSubscription<VirtualNetwork>(ctx, VNETS).map((v) => renderVirtualNetwork(ctx.store, v))),
  },
  { method: 'PUT', path: SUBNET, resourceType: 'virtualNetworks/subnets', body: subnetModel, bodyRequired: true, handle: putSubnet },
  { method: 'GET', path: SUBNET, resourceType: 'virtualNetworks/subnets', handle: getSubnet },
  { method: 'DELETE', path: SUBNET, resourceType: 'virtualNetworks/subnets', handle: deleteSubnet },
  {
    method: 'GET',
    path: `${VNET}/subnets`,
    resourceType: 'virtualNetworks/subnets',
    handle: (ctx) => listBody(subnetsOf(ctx.store, requireVnet(ctx).id).map((s) => renderSubnet(ctx.store, s))),
  },
];
