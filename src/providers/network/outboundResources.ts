// The routes of publicIPAddresses, publicIPPrefixes, natGateways and loadBalancers: the resources AKS networking
// sends and receives internet traffic through (docs/aks-rules.md §11), each served by trackedRoutes from its model.
import type { Route } from '../../arm/provider.js';
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
import { trackedRoutes } from './trackedRoutes.js';

export const outboundResourceRoutes: Route[] = [
  ...trackedRoutes<PublicIpAddress, PublicIpInput>({
    type: 'publicIPAddresses',
    nameParam: 'publicIpAddressName',
    body: publicIpAddressModel,
    find: findPublicIp,
    write: (store, id, input) => writePublicIp(store, id, input, 'Updating'),
    render: (_store, pip) => pip,
    remove: removePublicIp,
  }),
  ...trackedRoutes<PublicIpPrefix, PublicIpPrefixInput>({
    type: 'publicIPPrefixes',
    nameParam: 'publicIpPrefixName',
    body: publicIpPrefixModel,
    find: findPublicIpPrefix,
    write: (store, id, input) => writePublicIpPrefix(store, id, input, 'Updating'),
    render: (_store, prefix) => renderPublicIpPrefix(prefix),
    remove: removePublicIpPrefix,
  }),
  ...trackedRoutes<NatGateway, NatGatewayInput>({
    type: 'natGateways',
    nameParam: 'natGatewayName',
    body: natGatewayModel,
    find: findNatGateway,
    write: (store, id, input) => writeNatGateway(store, id, input, 'Updating'),
    render: (_store, gw) => renderNatGateway(gw),
    remove: removeNatGateway,
  }),
  ...trackedRoutes<LoadBalancer, LoadBalancerInput>({
    type: 'loadBalancers',
    nameParam: 'loadBalancerName',
    body: loadBalancerModel,
    find: findLoadBalancer,
    write: (store, id, input) => writeLoadBalancer(store, id, input, 'Updating'),
    render: (_store, lb) => renderLoadBalancer(lb),
    remove: removeLoadBalancer,
  }),
];
