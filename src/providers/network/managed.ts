// Network resources that another provider manages (AKS's VNet, kubenet route table, load balancers and public IPs in
// the node resource group): the same validation and records as the REST API, written Succeeded at once and
// inside the caller's transaction, without a long-running operation of their own.
import type { Store } from '../../store/store.js';
import { moveBackReference } from './backReferences.js';
import { childNotFound, invalidResourceReference } from './errors.js';
import { type LoadBalancerInput, removeLoadBalancer, writeLoadBalancer } from './loadBalancerModel.js';
import type { LoadBalancer, NatGateway, PublicIpAddress, RouteTable, VirtualNetwork } from './models.js';
import { findNatGateway, type NatGatewayInput, removeNatGateway, writeNatGateway } from './natGatewayModel.js';
import { findPublicIp, type PublicIpInput, removePublicIp, writePublicIp } from './publicIpModel.js';
import { compact, newEtag, parentOf, TYPES, writableGroupOf } from './resource.js';
import { findRouteTable, writeRouteTable } from './routeTableModel.js';
import { findSubnet } from './subnetModel.js';
import { writeVirtualNetwork } from './vnetModel.js';

interface ManagedVnetSpec {
  id: string;
  location: string;
  addressPrefixes: string[];
  /** A dual-stack subnet's IPv4 and IPv6 prefixes go in addressPrefixes. */
  subnets: Array<{ name: string; addressPrefix: string } | { name: string; addressPrefixes: string[] }>;
  tags?: Record<string, string>;
}

/** Creates or replaces a VNet with its subnets (subnets not listed are deleted, as a REST PUT does). */
export function putVirtualNetwork(store: Store, spec: ManagedVnetSpec): VirtualNetwork {
  return store.transaction(() => {
    writableGroupOf(store, spec.id);
    return writeVirtualNetwork(
      store,
      spec.id,
      {
        location: spec.location,
        tags: spec.tags ?? null,
        properties: {
          addressSpace: { addressPrefixes: spec.addressPrefixes },
          subnets: spec.subnets.map((s) => ({
            name: s.name,
            properties: 'addressPrefixes' in s ? { addressPrefixes: s.addressPrefixes } : { addressPrefix: s.addressPrefix },
          })),
        },
      },
      'Succeeded',
    ).vnet;
  });
}

interface ManagedRouteTableSpec {
  id: string;
  location: string;
  routes: Array<{ name: string; addressPrefix: string; nextHopType: string; nextHopIpAddress?: string }>;
  tags?: Record<string, string>;
}

/** Creates or replaces a route table's routes; the subnets associated with it stay associated. */
export function putRouteTable(store: Store, spec: ManagedRouteTableSpec): RouteTable {
  return store.transaction(() => {
    writableGroupOf(store, spec.id);
    return writeRouteTable(
      store,
      spec.id,
      {
        location: spec.location,
        tags: spec.tags ?? null,
        properties: {
          routes: spec.routes.map((r) => ({
            name: r.name,
            properties: { addressPrefix: r.addressPrefix, nextHopType: r.nextHopType, nextHopIpAddress: r.nextHopIpAddress ?? null },
          })),
        },
      },
      'Succeeded',
    ).table;
  });
}

/** Associates a route table with a subnet (or, with undefined, removes the association). */
export function associateRouteTable(store: Store, subnetId: string, routeTableId: string | undefined): void {
  store.transaction(() => {
    const subnet = findSubnet(store, subnetId);
    if (!subnet) throw childNotFound(subnetId);
    let table: RouteTable | undefined;
    if (routeTableId !== undefined) {
      table = findRouteTable(store, routeTableId);
      const vnet = store.get<VirtualNetwork>(parentOf(subnet.id));
      if (!table || table.type !== TYPES.routeTable || table.location !== vnet?.location) throw invalidResourceReference(routeTableId, subnet.id);
    }
    const before = subnet.properties.routeTable?.id;
    const properties = compact({ ...subnet.properties, routeTable: table ? { id: table.id } : undefined });
    store.put(subnet.id, { ...subnet, etag: newEtag(), properties });
    moveBackReference(store, 'subnets', subnet.id, before, table?.id);
  });
}

/** A public IP another provider manages (AKS's outbound IP, cloud-provider-azure's per-Service IPs): Standard, Static. */
export function putPublicIp(store: Store, id: string, spec: { location: string; tags?: Record<string, string> }): PublicIpAddress {
  return store.transaction(() => {
    writableGroupOf(store, id);
    const existing = findPublicIp(store, id);
    const input: PublicIpInput = {
      location: spec.location,
      tags: spec.tags ?? existing?.tags ?? null,
      sku: { name: 'Standard', tier: 'Regional' },
      properties: { publicIPAllocationMethod: 'Static', publicIPAddressVersion: 'IPv4' },
    };
    return writePublicIp(store, id, input, 'Succeeded').record;
  });
}

/** Creates or replaces a load balancer as a PUT of `input` would, Succeeded at once. */
export function putLoadBalancer(store: Store, id: string, input: LoadBalancerInput): LoadBalancer {
  return store.transaction(() => {
    writableGroupOf(store, id);
    return writeLoadBalancer(store, id, input, 'Succeeded').record;
  });
}

/** A stored load balancer as the body of a PUT that keeps it as it is (what a client GETs, edits and PUTs back). */
export function loadBalancerInputOf(lb: LoadBalancer): LoadBalancerInput {
  const p = lb.properties;
  const strip = <T extends { provisioningState: unknown }>(props: T): Omit<T, 'provisioningState'> => {
    const { provisioningState: _state, ...rest } = props;
    return rest;
  };
  return {
    location: lb.location,
    tags: lb.tags ?? null,
    sku: lb.sku,
    properties: {
      frontendIPConfigurations: p.frontendIPConfigurations.map((f) => ({
        name: f.name,
        ...(f.zones ? { zones: f.zones } : {}),
        properties: {
          subnet: f.properties.subnet ?? null,
          publicIPAddress: f.properties.publicIPAddress ?? null,
          publicIPPrefix: f.properties.publicIPPrefix ?? null,
          privateIPAddress: f.properties.subnet ? (f.properties.privateIPAddress ?? null) : null,
          privateIPAllocationMethod: f.properties.privateIPAllocationMethod ?? null,
        },
      })),
      backendAddressPools: p.backendAddressPools.map((x) => ({ name: x.name })),
      loadBalancingRules: p.loadBalancingRules.map((r) => ({ name: r.name, properties: strip(r.properties) })),
      probes: p.probes.map((x) => ({ name: x.name, properties: strip(x.properties) })),
      outboundRules: p.outboundRules.map((r) => ({ name: r.name, properties: strip(r.properties) })),
    },
  };
}

/** Deletes a load balancer: its private addresses go back, its public IPs are free for another user. */
export function deleteLoadBalancer(store: Store, lb: LoadBalancer): void {
  store.transaction(() => removeLoadBalancer(store, lb));
}

export function deletePublicIp(store: Store, pip: PublicIpAddress): void {
  store.transaction(() => removePublicIp(store, pip));
}

/** Creates or replaces a NAT gateway as a PUT of `input` would, Succeeded at once (AKS's managed NAT gateway). */
export function putNatGateway(store: Store, id: string, input: NatGatewayInput): NatGateway {
  return store.transaction(() => {
    writableGroupOf(store, id);
    return writeNatGateway(store, id, input, 'Succeeded').record;
  });
}

/** Associates a NAT gateway with a subnet (a subnet PUT naming it), or with undefined takes the association away. */
export function associateNatGateway(store: Store, subnetId: string, natGatewayId: string | undefined): void {
  store.transaction(() => {
    const subnet = findSubnet(store, subnetId);
    if (!subnet) throw childNotFound(subnetId);
    const gw = natGatewayId === undefined ? undefined : findNatGateway(store, natGatewayId);
    if (natGatewayId !== undefined && !gw) throw invalidResourceReference(natGatewayId, subnet.id);
    const before = subnet.properties.natGateway?.id;
    if ((before ?? '').toLowerCase() === (gw?.id ?? '').toLowerCase()) return;
    const properties = compact({ ...subnet.properties, natGateway: gw ? { id: gw.id } : undefined });
    store.put(subnet.id, { ...subnet, etag: newEtag(), properties });
    moveBackReference(store, 'subnets', subnet.id, before, gw?.id);
  });
}

/** Deletes a NAT gateway, its subnets' associations first; its public IPs are free again. */
export function deleteNatGateway(store: Store, gw: NatGateway): void {
  store.transaction(() => {
    for (const ref of gw.properties.subnets ?? []) associateNatGateway(store, ref.id, undefined);
    const fresh = findNatGateway(store, gw.id);
    if (fresh) removeNatGateway(store, fresh);
  });
}
