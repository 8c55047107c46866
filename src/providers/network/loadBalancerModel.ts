// loadBalancers (docs/aks-rules.md §11 L1–L10): frontends (a public IP address, a public IP prefix, or a private
// address of a subnet, held like a NIC's), backend pools, load-balancing rules, health probes and outbound rules,
// kept inline as the RP keeps them. References between the children must name children of the same load balancer;
// the lists of who uses a frontend, pool or probe are derived when the load balancer is rendered.
import type { Store } from '../../store/store.js';
import { validateResourceName } from '../../arm/names.js';
import { idKey, sameId } from '../../ids/compare.js';
import { subnetsOfOwner } from './allocations.js';
import {
  differentSkuLoadBalancerAndPublicIp,
  duplicateResourceName,
  frontendIpConfigHasBothSubnetAndPublicIp,
  frontendIpConfigNeedsAddress,
  idleTimeoutOutOfRange,
  invalidLoadBalancerMember,
  invalidLoadBalancerReference,
  invalidRequestFormat,
  invalidResourceReference,
  loadBalancingRuleConflict,
  staticAllocationWithoutAddress,
} from './errors.js';
import type { BackendAddressPool, FrontendIpConfiguration, LoadBalancer, LoadBalancingRule, OutboundRule, Probe, VirtualNetwork } from './models.js';
import { attachPublicIp, attachPublicIpPrefix, detachPublicIp, detachPublicIpPrefix } from './publicIpModel.js';
import {
  compact,
  enumMember,
  parentOf,
  putLocation,
  referenceId,
  TYPES,
  type ProvisioningState,
  type SubResource,
  trackedHead,
  trackedProperties,
} from './resource.js';
import { hold, type Holding, releaseIn } from './subnetAddresses.js';
import { findSubnet, subnetRef } from './subnetModel.js';

type Ref = { id?: string } | null | undefined;

interface ChildInput<P> {
  name?: string;
  zones?: string[] | null;
  properties?: P;
}

export interface LoadBalancerInput {
  location?: string;
  tags?: Record<string, string> | null;
  sku?: { name?: string | null; tier?: string | null } | null;
  properties?: {
    frontendIPConfigurations?: Array<
      ChildInput<{
        privateIPAddress?: string | null;
        privateIPAllocationMethod?: string | null;
        privateIPAddressVersion?: string | null;
        subnet?: Ref;
        publicIPAddress?: Ref;
        publicIPPrefix?: Ref;
      }>
    > | null;
    backendAddressPools?: Array<ChildInput<unknown>> | null;
    loadBalancingRules?: Array<
      ChildInput<{
        frontendIPConfiguration?: Ref;
        backendAddressPool?: Ref;
        backendAddressPools?: Ref[] | null;
        probe?: Ref;
        protocol?: string | null;
        loadDistribution?: string | null;
        frontendPort?: number | null;
        backendPort?: number | null;
        idleTimeoutInMinutes?: number | null;
        enableFloatingIP?: boolean | null;
        enableTcpReset?: boolean | null;
        disableOutboundSnat?: boolean | null;
      }>
    > | null;
    probes?: Array<
      ChildInput<{
        protocol?: string | null;
        port?: number | null;
        requestPath?: string | null;
        intervalInSeconds?: number | null;
        numberOfProbes?: number | null;
        probeThreshold?: number | null;
      }>
    > | null;
    outboundRules?: Array<
      ChildInput<{
        frontendIPConfigurations?: Ref[] | null;
        backendAddressPool?: Ref;
        protocol?: string | null;
        allocatedOutboundPorts?: number | null;
        idleTimeoutInMinutes?: number | null;
        enableTcpReset?: boolean | null;
      }>
    > | null;
  };
}

/** The child collections and the type each child has. */
const CHILD_TYPES = {
  frontendIPConfigurations: `${TYPES.loadBalancer}/frontendIPConfigurations`,
  backendAddressPools: `${TYPES.loadBalancer}/backendAddressPools`,
  loadBalancingRules: `${TYPES.loadBalancer}/loadBalancingRules`,
  probes: `${TYPES.loadBalancer}/probes`,
  outboundRules: `${TYPES.loadBalancer}/outboundRules`,
} as const;
type Collection = keyof typeof CHILD_TYPES;

const RULE_PROTOCOLS = ['Tcp', 'Udp', 'All'];
const PROBE_PROTOCOLS = ['Http', 'Tcp', 'Https'];
const DISTRIBUTIONS = ['Default', 'SourceIP', 'SourceIPProtocol'];

export function findLoadBalancer(store: Store, id: string): LoadBalancer | undefined {
  const lb = store.get<LoadBalancer>(id);
  return lb && lb.type === TYPES.loadBalancer ? lb : undefined;
}

/** Names, ids and uniqueness of one child collection. */
function named<P>(
  lbId: string,
  collection: Collection,
  list: Array<ChildInput<P>> | null | undefined,
): Array<{ id: string; name: string; input: ChildInput<P> }> {
  const seen = new Set<string>();
  return (list ?? []).map((input, i) => {
    if (!input?.name) throw invalidRequestFormat(`Child ${i} of ${collection} of load balancer ${lbId} has no name.`, `properties.${collection}[${i}].name`);
    validateResourceName(input.name);
    if (seen.has(idKey(input.name))) throw duplicateResourceName(lbId, collection, input.name);
    seen.add(idKey(input.name));
    return { id: `${lbId}/${collection}/${input.name}`, name: input.name, input };
  });
}

function child<P>(id: string, name: string, collection: Collection, properties: P) {
  return { id, name, type: CHILD_TYPES[collection], etag: '', properties };
}

/** A reference that must name a child of this load balancer's collection: its stored id. */
function siblingRef(ids: readonly string[], ref: Ref, path: string, referencing: string): string | undefined {
  const id = referenceId(ref, path);
  if (id === undefined) return undefined;
  const found = ids.find((x) => sameId(x, id));
  if (!found) throw invalidLoadBalancerReference(referencing, id);
  return found;
}

function required<T>(value: T | null | undefined, childId: string, member: string, allowed: string): T {
  if (value === null || value === undefined) throw invalidLoadBalancerMember(childId, member, value, allowed);
  return value;
}

function inRange(value: number, min: number, max: number, childId: string, member: string): number {
  if (!Number.isInteger(value) || value < min || value > max) throw invalidLoadBalancerMember(childId, member, value, `${min}–${max}`);
  return value;
}

interface FrontendPlan {
  id: string;
  name: string;
  zones?: string[];
  subnetId?: string;
  address?: string;
  method?: 'Dynamic' | 'Static';
  publicIPAddress?: string;
  publicIPPrefix?: string;
}

function planFrontends(store: Store, lb: { id: string; location: string; sku: string }, input: LoadBalancerInput): FrontendPlan[] {
  return named(lb.id, 'frontendIPConfigurations', input.properties?.frontendIPConfigurations).map(({ id, name, input: c }, i) => {
    const p = c.properties ?? {};
    const path = `properties.frontendIPConfigurations[${i}].properties`;
    const subnetId = referenceId(p.subnet, `${path}.subnet`);
    const publicIPAddress = referenceId(p.publicIPAddress, `${path}.publicIPAddress`);
    const publicIPPrefix = referenceId(p.publicIPPrefix, `${path}.publicIPPrefix`);
    if (subnetId && (publicIPAddress || publicIPPrefix)) throw frontendIpConfigHasBothSubnetAndPublicIp(id);
    if (!subnetId && !publicIPAddress && !publicIPPrefix) throw frontendIpConfigNeedsAddress(id);
    const plan: FrontendPlan = { id, name, ...(c.zones && c.zones.length > 0 ? { zones: [...c.zones] } : {}) };
    if (subnetId) {
      const subnet = findSubnet(store, subnetId);
      const vnet = subnet && store.get<VirtualNetwork>(parentOf(subnet.id));
      if (!subnet || !vnet || vnet.location !== lb.location) throw invalidResourceReference(subnetId, lb.id);
      const method = p.privateIPAllocationMethod?.toLowerCase() === 'static' ? 'Static' : 'Dynamic';
      if (method === 'Static' && !p.privateIPAddress) throw staticAllocationWithoutAddress(id);
      return { ...plan, subnetId: subnet.id, method, ...(p.privateIPAddress ? { address: p.privateIPAddress } : {}) };
    }
    return { ...plan, ...(publicIPAddress ? { publicIPAddress } : {}), ...(publicIPPrefix ? { publicIPPrefix } : {}) };
  });
}

/** Holds the private frontends' addresses, subnet by subnet (a frontend keeps its Dynamic address across updates). */
function holdPrivateAddresses(store: Store, lbId: string, plans: FrontendPlan[], existing: LoadBalancer | undefined): Map<string, string> {
  const bySubnet = new Map<string, FrontendPlan[]>();
  for (const f of plans) if (f.subnetId) bySubnet.set(idKey(f.subnetId), [...(bySubnet.get(idKey(f.subnetId)) ?? []), f]);
  for (const subnetId of subnetsOfOwner(store, lbId)) {
    const subnet = findSubnet(store, subnetId);
    if (subnet && !bySubnet.has(idKey(subnet.id))) releaseIn(store, subnetRef(subnet), lbId);
  }
  const out = new Map<string, string>();
  for (const fs of bySubnet.values()) {
    const kept = (f: FrontendPlan) => {
      const before = existing?.properties.frontendIPConfigurations.find((x) => sameId(x.id, f.id));
      return before && sameId(before.properties.subnet?.id, f.subnetId) ? before.properties.privateIPAddress : undefined;
    };
    const want: Holding = { explicit: [], dynamic: [] };
    for (const f of fs) {
      const address = f.address ?? kept(f);
      if (address) want.explicit.push({ address, ipConfigurationId: f.id });
      else want.dynamic.push(f.id);
    }
    for (const [id, address] of hold(store, subnetRef(findSubnet(store, fs[0]!.subnetId!)!), lbId, want)) out.set(id, address);
  }
  return out;
}

/** Moves the public IP addresses and prefixes from the frontends before to the frontends now. */
function attachPublic(store: Store, lb: { id: string; location: string; sku: string }, plans: FrontendPlan[], existing: LoadBalancer | undefined): void {
  for (const before of existing?.properties.frontendIPConfigurations ?? []) {
    const now = plans.find((f) => sameId(f.id, before.id));
    if (before.properties.publicIPAddress && !sameId(now?.publicIPAddress, before.properties.publicIPAddress.id))
      detachPublicIp(store, before.properties.publicIPAddress.id, 'ipConfiguration', before.id);
    if (before.properties.publicIPPrefix && !sameId(now?.publicIPPrefix, before.properties.publicIPPrefix.id))
      detachPublicIpPrefix(store, before.properties.publicIPPrefix.id, 'loadBalancerFrontendIpConfiguration', before.id);
  }
  for (const f of plans) {
    if (f.publicIPAddress) {
      const pip = attachPublicIp(store, f.publicIPAddress, 'ipConfiguration', f.id, lb.id, lb.location);
      if (pip.sku.name !== lb.sku) throw differentSkuLoadBalancerAndPublicIp(lb.id, lb.sku, pip.id, pip.sku.name);
      f.publicIPAddress = pip.id;
    }
    if (f.publicIPPrefix) {
      const prefix = attachPublicIpPrefix(store, f.publicIPPrefix, 'loadBalancerFrontendIpConfiguration', f.id, lb.id, lb.location);
      if (prefix.sku.name !== lb.sku) throw differentSkuLoadBalancerAndPublicIp(lb.id, lb.sku, prefix.id, prefix.sku.name);
      f.publicIPPrefix = prefix.id;
    }
  }
}

function buildProbes(lbId: string, input: LoadBalancerInput, state: ProvisioningState): Probe[] {
  return named(lbId, 'probes', input.properties?.probes).map(({ id, name, input: c }) => {
    const p = c.properties ?? {};
    const protocol = required(enumMember(p.protocol, PROBE_PROTOCOLS, 'properties.protocol'), id, 'protocol', PROBE_PROTOCOLS.join(', '));
    const port = inRange(required(p.port, id, 'port', '1–65535'), 1, 65535, id, 'port');
    if (protocol !== 'Tcp' && !p.requestPath) throw invalidLoadBalancerMember(id, 'requestPath', p.requestPath, `a path for an ${protocol} probe`);
    if (protocol === 'Tcp' && p.requestPath) throw invalidLoadBalancerMember(id, 'requestPath', p.requestPath, 'none for a Tcp probe');
    return child(id, name, 'probes', {
      provisioningState: state,
      protocol,
      port,
      requestPath: p.requestPath ?? undefined,
      intervalInSeconds: inRange(p.intervalInSeconds ?? 15, 5, 2147483647, id, 'intervalInSeconds'),
      numberOfProbes: inRange(p.numberOfProbes ?? 2, 1, 2147483647, id, 'numberOfProbes'),
      probeThreshold: inRange(p.probeThreshold ?? 1, 1, 2147483647, id, 'probeThreshold'),
    });
  });
}

interface Siblings {
  frontends: string[];
  pools: string[];
  probes: string[];
}

function buildRules(lbId: string, input: LoadBalancerInput, ids: Siblings, state: ProvisioningState): LoadBalancingRule[] {
  const rules = named(lbId, 'loadBalancingRules', input.properties?.loadBalancingRules).map(({ id, name, input: c }, i) => {
    const p = c.properties ?? {};
    const path = `properties.loadBalancingRules[${i}].properties`;
    const frontend = siblingRef(ids.frontends, p.frontendIPConfiguration, `${path}.frontendIPConfiguration`, id);
    if (!frontend) throw invalidLoadBalancerMember(id, 'frontendIPConfiguration', null, 'a frontend IP configuration of the load balancer');
    const pool = siblingRef(ids.pools, p.backendAddressPool, `${path}.backendAddressPool`, id);
    const pools = (p.backendAddressPools ?? []).map((r, k) => siblingRef(ids.pools, r, `${path}.backendAddressPools[${k}]`, id)!).filter(Boolean);
    const probe = siblingRef(ids.probes, p.probe, `${path}.probe`, id);
    const protocol = required(enumMember(p.protocol, RULE_PROTOCOLS, 'properties.protocol'), id, 'protocol', RULE_PROTOCOLS.join(', '));
    // Port 0 is the HA-ports rule (protocol All) of an internal Standard load balancer.
    const frontendPort = inRange(required(p.frontendPort, id, 'frontendPort', '0–65534'), 0, 65534, id, 'frontendPort');
    const backendPort = inRange(p.backendPort ?? frontendPort, 0, 65535, id, 'backendPort');
    const idle = p.idleTimeoutInMinutes ?? 4;
    if (idle < 4 || idle > 30) throw idleTimeoutOutOfRange(id, idle, 30, `${path}.idleTimeoutInMinutes`);
    return child(id, name, 'loadBalancingRules', {
      provisioningState: state,
      frontendIPConfiguration: { id: frontend },
      backendAddressPool: pool ? { id: pool } : pools[0] ? { id: pools[0] } : undefined,
      backendAddressPools: pools.length > 0 ? pools.map((x) => ({ id: x })) : pool ? [{ id: pool }] : undefined,
      probe: probe ? { id: probe } : undefined,
      protocol,
      loadDistribution: enumMember(p.loadDistribution, DISTRIBUTIONS, 'properties.loadDistribution') ?? 'Default',
      frontendPort,
      backendPort,
      idleTimeoutInMinutes: idle,
      enableFloatingIP: p.enableFloatingIP ?? false,
      enableTcpReset: p.enableTcpReset ?? false,
      disableOutboundSnat: p.disableOutboundSnat ?? false,
    });
  });
  rules.forEach((r, i) => {
    const clash = rules
      .slice(0, i)
      .find(
        (o) =>
          sameId(o.properties.frontendIPConfiguration.id, r.properties.frontendIPConfiguration.id) &&
          o.properties.frontendPort === r.properties.frontendPort &&
          (o.properties.protocol === r.properties.protocol || o.properties.protocol === 'All' || r.properties.protocol === 'All'),
      );
    if (clash) throw loadBalancingRuleConflict(r.id, clash.id);
  });
  return rules;
}

function buildOutboundRules(lbId: string, input: LoadBalancerInput, ids: Siblings, state: ProvisioningState): OutboundRule[] {
  return named(lbId, 'outboundRules', input.properties?.outboundRules).map(({ id, name, input: c }, i) => {
    const p = c.properties ?? {};
    const path = `properties.outboundRules[${i}].properties`;
    const frontends = (p.frontendIPConfigurations ?? []).map((r, k) => siblingRef(ids.frontends, r, `${path}.frontendIPConfigurations[${k}]`, id)!);
    if (frontends.length === 0)
      throw invalidLoadBalancerMember(id, 'frontendIPConfigurations', [], 'at least one frontend IP configuration of the load balancer');
    const pool = siblingRef(ids.pools, p.backendAddressPool, `${path}.backendAddressPool`, id);
    if (!pool) throw invalidLoadBalancerMember(id, 'backendAddressPool', null, 'a backend address pool of the load balancer');
    const ports = p.allocatedOutboundPorts ?? 0;
    if (!Number.isInteger(ports) || ports < 0 || ports > 64000 || ports % 8 !== 0)
      throw invalidLoadBalancerMember(id, 'allocatedOutboundPorts', ports, 'a multiple of 8 from 0 to 64000');
    const idle = p.idleTimeoutInMinutes ?? 4;
    if (idle < 4 || idle > 120) throw idleTimeoutOutOfRange(id, idle, 120, `${path}.idleTimeoutInMinutes`);
    return child(id, name, 'outboundRules', {
      provisioningState: state,
      frontendIPConfigurations: frontends.map((x) => ({ id: x })),
      backendAddressPool: { id: pool },
      protocol: required(enumMember(p.protocol, RULE_PROTOCOLS, 'properties.protocol'), id, 'protocol', RULE_PROTOCOLS.join(', ')),
      allocatedOutboundPorts: ports,
      idleTimeoutInMinutes: idle,
      enableTcpReset: p.enableTcpReset ?? false,
    });
  });
}

/** Creates or replaces a load balancer with all its children, validated; addresses held, public IPs attached. */
export function writeLoadBalancer(store: Store, id: string, input: LoadBalancerInput, state: ProvisioningState): { record: LoadBalancer; created: boolean } {
  const existing = findLoadBalancer(store, id);
  const location = putLocation(input.location, existing, TYPES.loadBalancer);
  const lbId = existing?.id ?? id;
  const skuName = enumMember(input.sku?.name, ['Basic', 'Standard', 'Gateway'], 'sku.name') ?? existing?.sku.name ?? 'Standard';
  if (existing && existing.sku.name !== skuName)
    throw invalidRequestFormat(`The sku of load balancer ${lbId} cannot change from ${existing.sku.name} to ${skuName}.`, 'sku.name');
  const lb = { id: lbId, location, sku: skuName };
  const plans = planFrontends(store, lb, input);
  const pools = named(lbId, 'backendAddressPools', input.properties?.backendAddressPools);
  const probes = buildProbes(lbId, input, state);
  const ids: Siblings = { frontends: plans.map((f) => f.id), pools: pools.map((x) => x.id), probes: probes.map((x) => x.id) };
  const rules = buildRules(lbId, input, ids, state);
  const outboundRules = buildOutboundRules(lbId, input, ids, state);
  attachPublic(store, lb, plans, existing);
  const addresses = holdPrivateAddresses(store, lbId, plans, existing);
  const frontendIPConfigurations: FrontendIpConfiguration[] = plans.map((f) => ({
    ...child(f.id, f.name, 'frontendIPConfigurations', {
      provisioningState: state,
      privateIPAddress: addresses.get(f.id),
      privateIPAllocationMethod: f.subnetId ? f.method : undefined,
      privateIPAddressVersion: f.subnetId ? (addresses.get(f.id)!.includes(':') ? ('IPv6' as const) : ('IPv4' as const)) : undefined,
      subnet: f.subnetId ? { id: f.subnetId } : undefined,
      publicIPAddress: f.publicIPAddress ? { id: f.publicIPAddress } : undefined,
      publicIPPrefix: f.publicIPPrefix ? { id: f.publicIPPrefix } : undefined,
    }),
    ...(f.zones ? { zones: f.zones } : {}),
  }));
  const record: LoadBalancer = compact({
    ...trackedHead(existing, lbId, TYPES.loadBalancer, location, input.tags),
    sku: { name: skuName, tier: enumMember(input.sku?.tier, ['Regional', 'Global'], 'sku.tier') ?? existing?.sku.tier ?? 'Regional' },
    properties: {
      ...trackedProperties(existing, state),
      frontendIPConfigurations,
      backendAddressPools: pools.map(({ id: poolId, name }) => child(poolId, name, 'backendAddressPools', { provisioningState: state })),
      loadBalancingRules: rules,
      probes,
      outboundRules,
      inboundNatRules: [],
      inboundNatPools: [],
    },
  });
  store.put(record.id, record);
  return { record, created: !existing };
}

const usersOf = (childId: string, list: ReadonlyArray<{ id: string }>, refs: (x: never) => Array<SubResource | undefined>): SubResource[] =>
  list.filter((x) => refs(x as never).some((r) => sameId(r?.id, childId))).map((x) => ({ id: x.id }));

const nonEmpty = (list: SubResource[]): SubResource[] | undefined => (list.length > 0 ? list : undefined);

/** The load balancer as ARM returns it: children with the parent's etag and the lists of who uses them. */
export function renderLoadBalancer(lb: LoadBalancer): unknown {
  const { loadBalancingRules: rules, outboundRules: outbound, probes } = lb.properties;
  const ruleRefs = (r: LoadBalancingRule) => [
    r.properties.frontendIPConfiguration,
    ...(r.properties.backendAddressPools ?? [r.properties.backendAddressPool]),
    r.properties.probe,
  ];
  const outRefs = (r: OutboundRule) => [...r.properties.frontendIPConfigurations, r.properties.backendAddressPool];
  const withEtag = <T extends { etag: string }>(c: T): T => ({ ...c, etag: lb.etag });
  return compact({
    ...lb,
    properties: {
      ...lb.properties,
      frontendIPConfigurations: lb.properties.frontendIPConfigurations.map((f) =>
        withEtag({
          ...f,
          properties: {
            ...f.properties,
            loadBalancingRules: nonEmpty(usersOf(f.id, rules, ruleRefs)),
            outboundRules: nonEmpty(usersOf(f.id, outbound, outRefs)),
          },
        }),
      ),
      backendAddressPools: lb.properties.backendAddressPools.map((p: BackendAddressPool) => {
        const out = usersOf(p.id, outbound, outRefs);
        return withEtag({
          ...p,
          properties: { ...p.properties, loadBalancingRules: nonEmpty(usersOf(p.id, rules, ruleRefs)), outboundRule: out[0], outboundRules: nonEmpty(out) },
        });
      }),
      loadBalancingRules: rules.map(withEtag),
      probes: probes.map((p) => withEtag({ ...p, properties: { ...p.properties, loadBalancingRules: nonEmpty(usersOf(p.id, rules, ruleRefs)) } })),
      outboundRules: outbound.map(withEtag),
    },
  });
}

/** Deletes a load balancer: its private addresses go back to their subnets, its public IPs are free again. */
export function removeLoadBalancer(store: Store, lb: LoadBalancer): void {
  for (const subnetId of subnetsOfOwner(store, lb.id)) {
    const subnet = findSubnet(store, subnetId);
    if (subnet) releaseIn(store, subnetRef(subnet), lb.id);
  }
  for (const f of lb.properties.frontendIPConfigurations) {
    if (f.properties.publicIPAddress) detachPublicIp(store, f.properties.publicIPAddress.id, 'ipConfiguration', f.id);
    if (f.properties.publicIPPrefix) detachPublicIpPrefix(store, f.properties.publicIPPrefix.id, 'loadBalancerFrontendIpConfiguration', f.id);
  }
  store.delete(lb.id);
}
