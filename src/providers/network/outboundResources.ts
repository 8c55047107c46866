// The routes of publicIPAddresses, publicIPPrefixes, natGateways and loadBalancers: the resources AKS networking
// sends and receives internet traffic through (docs/aks-rules.md §11), each served by trackedRoutes from its model.
import type { Route } from '../../arm/provider.js';
import type { Schema } from '../../arm/schema.js';
import type { Store } from '../../store/store.js';
import { findLoadBalancer, removeLoadBalancer, renderLoadBalancer, writeLoadBalancer, type LoadBalancerInput } from './loadBalancerModel.js';
import type { LoadBalancer, NatGateway, PublicIpAddress, PublicIpPrefix } from './models.js';
import { findNatGateway, removeNatGateway, renderNatGateway, writeNatGateway, type NatGatewayInput } from './natGatewayModel.js';
import {
  findPublicIp,
  findPublicIpPrefix,
  removePublicIp,
  removePublicIpPrefix,
  renderPublicIpPrefix,
  writePublicIp,
  writePublicIpPrefix,
  type PublicIpInput,
  type PublicIpPrefixInput,
} from './publicIpModel.js';
import { loadBalancerModel, natGatewayModel, publicIpAddressModel, publicIpPrefixModel } from './schemas.js';
import type { ProvisioningState, TrackedResource } from './resource.js';
import { type TrackedKind, trackedRoutes } from './trackedRoutes.js';

/** A kind whose model writes with a provisioning state (Updating for a PUT) and renders from the record alone. */
function routesOf<T extends TrackedResource<unknown>, I extends { location?: string }>(
  type: string,
  nameParam: string,
  body: Schema,
  model: {
    find: TrackedKind<T, I>['find'];
    write: (store: Store, id: string, input: I, state: ProvisioningState) => { record: T; created: boolean };
    render: (record: T) => unknown;
    remove: TrackedKind<T, I>['remove'];
  },
): Route[] {
  return trackedRoutes<T, I>({
    type,
    nameParam,
    body,
    find: model.find,
    write: (store, id, input) => model.write(store, id, input, 'Updating'),
    render: (_store, record) => model.render(record),
    remove: model.remove,
  });
}

export const outboundResourceRoutes: Route[] = [
  ...routesOf<PublicIpAddress, PublicIpInput>('publicIPAddresses', 'publicIpAddressName', publicIpAddressModel, {
    find: findPublicIp,
    write: writePublicIp,
    render: (pip) => pip,
    remove: removePublicIp,
  }),
  ...routesOf<PublicIpPrefix, PublicIpPrefixInput>('publicIPPrefixes', 'publicIpPrefixName', publicIpPrefixModel, {
    find: findPublicIpPrefix,
    write: writePublicIpPrefix,
    render: renderPublicIpPrefix,
    remove: removePublicIpPrefix,
  }),
  ...routesOf<NatGateway, NatGatewayInput>('natGateways', 'natGatewayName', natGatewayModel, {
    find: findNatGateway,
    write: writeNatGateway,
    render: renderNatGateway,
    remove: removeNatGateway,
  }),
  ...routesOf<LoadBalancer, LoadBalancerInput>('loadBalancers', 'loadBalancerName', loadBalancerModel, {
    find: findLoadBalancer,
    write: writeLoadBalancer,
    render: renderLoadBalancer,
    remove: removeLoadBalancer,
  }),
];
