// REST routes of networkInterfaces. PUT and DELETE go through the same functions as the IPAM's
// putNic/deleteNic, so addresses taken over REST and by ContainerService come from one pool.
import type { RequestContext, Route } from '../../arm/provider.js';
import { IN_GROUP, IN_SUBSCRIPTION, listBody, listInGroup, listInSubscription, param, readGroup, requireTracked, resourceId, writeGroup } from './http.js';
import type { NetworkInterface } from './models.js';
import { findNetworkInterface, removeNetworkInterface, writeNetworkInterface, type NicInput } from './nicModel.js';
import { beginDelete, beginPut } from './operations.js';
import { networkInterfaceModel } from './schemas.js';

const NICS = 'networkInterfaces';
const NIC = `${IN_GROUP}/networkInterfaces/{networkInterfaceName}`;

function putNic(ctx: RequestContext) {
  const id = resourceId(writeGroup(ctx), NICS, param(ctx, 'networkInterfaceName'));
  const input = (ctx.body ?? {}) as NicInput;
  return beginPut(ctx, {
    resourceId: id,
    location: input.location ?? '',
    write: () => {
      const { nic, created } = writeNetworkInterface(ctx.store, id, input, 'Updating');
      return { created, touched: [nic.id], body: () => nic };
    },
  });
}

function deleteNic(ctx: RequestContext) {
  const nic = findNetworkInterface(ctx.store, resourceId(readGroup(ctx), NICS, param(ctx, 'networkInterfaceName')));
  if (!nic) return { status: 204 };
  return beginDelete(ctx, { resourceId: nic.id, location: nic.location, remove: () => removeNetworkInterface(ctx.store, nic.id) });
}

export const networkInterfaceRoutes: Route[] = [
  { method: 'PUT', path: NIC, resourceType: NICS, body: networkInterfaceModel, bodyRequired: true, handle: putNic },
  {
    method: 'GET',
    path: NIC,
    resourceType: NICS,
    handle: (ctx) => ({ status: 200, body: requireTracked(ctx, findNetworkInterface, NICS, 'networkInterfaceName') }),
  },
  { method: 'DELETE', path: NIC, resourceType: NICS, handle: deleteNic },
  {
    method: 'GET',
    path: `${IN_GROUP}/networkInterfaces`,
    resourceType: NICS,
    handle: (ctx) => listBody(listInGroup<NetworkInterface>(ctx.store, readGroup(ctx), NICS)),
  },
  {
    method: 'GET',
    path: `${IN_SUBSCRIPTION}/networkInterfaces`,
    resourceType: NICS,
    handle: (ctx) => listBody(listInSubscription<NetworkInterface>(ctx, NICS)),
  },
];
