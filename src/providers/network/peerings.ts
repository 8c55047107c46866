// REST routes of virtualNetworks/virtualNetworkPeerings: PUT (long-running; `syncRemoteAddressSpace=true` takes
// the remote VNet's address space now, what `az network vnet peering sync` sends), GET, LIST, DELETE.
import type { RequestContext, Route } from '../../arm/provider.js';
import { childNotFound } from './errors.js';
import { IN_GROUP, listBody, param, readGroup, requireTracked, resourceId, writeGroup } from './http.js';
import { beginDelete, beginPut } from './operations.js';
import { findPeering, peeringsOf, removePeering, renderPeering, writePeering, type PeeringInput } from './peeringModel.js';
import { virtualNetworkPeeringModel } from './schemas.js';
import { findVirtualNetwork } from './vnetModel.js';

const VNET = `${IN_GROUP}/virtualNetworks/{virtualNetworkName}`;
const PEERING = `${VNET}/virtualNetworkPeerings/{virtualNetworkPeeringName}`;
const TYPE = 'virtualNetworks/virtualNetworkPeerings';

const requireVnet = (ctx: RequestContext) => requireTracked(ctx, findVirtualNetwork, 'virtualNetworks', 'virtualNetworkName');

function putPeering(ctx: RequestContext) {
  const vnet = requireVnet(ctx);
  writeGroup(ctx);
  const name = param(ctx, 'virtualNetworkPeeringName');
  const sync = ctx.query.get('syncRemoteAddressSpace')?.toLowerCase() === 'true';
  return beginPut(ctx, {
    resourceId: `${vnet.id}/virtualNetworkPeerings/${name}`,
    location: vnet.location,
    write: () => {
      const { peering, created } = writePeering(ctx.store, vnet, name, (ctx.body ?? {}) as PeeringInput, 'Updating', sync);
      return { created, touched: [peering.id], body: () => renderPeering(ctx.store, peering) };
    },
  });
}

function getPeering(ctx: RequestContext) {
  const vnet = requireVnet(ctx);
  const id = `${vnet.id}/virtualNetworkPeerings/${param(ctx, 'virtualNetworkPeeringName')}`;
  const peering = findPeering(ctx.store, id);
  if (!peering) throw childNotFound(id);
  return { status: 200, body: renderPeering(ctx.store, peering) };
}

function deletePeering(ctx: RequestContext) {
  const vnet = findVirtualNetwork(ctx.store, resourceId(readGroup(ctx), 'virtualNetworks', param(ctx, 'virtualNetworkName')));
  const peering = vnet && findPeering(ctx.store, `${vnet.id}/virtualNetworkPeerings/${param(ctx, 'virtualNetworkPeeringName')}`);
  if (!vnet || !peering) return { status: 204 };
  return beginDelete(ctx, { resourceId: peering.id, location: vnet.location, remove: () => removePeering(ctx.store, peering) });
}

export const peeringRoutes: Route[] = [
  { method: 'PUT', path: PEERING, resourceType: TYPE, body: virtualNetworkPeeringModel, bodyRequired: true, handle: putPeering },
  { method: 'GET', path: PEERING, resourceType: TYPE, handle: getPeering },
  { method: 'DELETE', path: PEERING, resourceType: TYPE, handle: deletePeering },
  {
    method: 'GET',
    path: `${VNET}/virtualNetworkPeerings`,
    resourceType: TYPE,
    handle: (ctx) => listBody(peeringsOf(ctx.store, requireVnet(ctx).id).map((x) => renderPeering(ctx.store, x))),
  },
];
