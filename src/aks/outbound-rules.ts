// The outbound-type rules (docs/aks-rules.md §14.2): the loadBalancerProfile's outbound IPs, ports and idle timeout,
// the NAT gateway outbound types and userDefinedRouting's route table, with AKS's codes and, where published, messages.
import { createNodes } from './capacity.js';
import { surgeNodes } from './defaults.js';
import { managedSubnet, subnetOfPool, type SubnetInfo } from './environment.js';
import { loadBalancerOutbound, PORTS_PER_IP } from './outbound.js';
import type { Finding, Params, Rule } from './rules.js';
import type { Phase, RuleContext } from './rule-context.js';

const SPEC: Phase[] = ['create', 'update'];
const none: Finding[] = [];
const when = (cond: boolean, params: Params, target?: string): Finding[] => (cond ? [target ? { params, target } : { params }] : none);
const outbound = (ctx: RuleContext) => ctx.cluster.network.outboundType;
const LB_PROFILE = 'networkProfile.loadBalancerProfile';
const NAT_PROFILE = 'networkProfile.natGatewayProfile';

const outOfRange = (v: unknown, min: number, max: number): boolean => v !== undefined && (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max);

/** A bounded integer member of a profile, reported as AKS reports a value outside the spec's range. */
function rangeFindings(profile: unknown, base: string, members: Array<[path: string[], min: number, max: number, multipleOf?: number]>): Finding[] {
  const out: Finding[] = [];
  for (const [path, min, max, multipleOf] of members) {
    let v: unknown = profile;
    for (const key of path) v = typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[key] : undefined;
    const bad = outOfRange(v, min, max) || (multipleOf !== undefined && typeof v === 'number' && v % multipleOf !== 0);
    if (bad) out.push({ params: { path: `${base}.${path.join('.')}`, value: String(v) }, target: `${base}.${path.join('.')}` });
  }
  return out;
}

/** The subnets the cluster's pools sit on (the managed one for pools without vnetSubnetID). */
function nodeSubnets(ctx: RuleContext): SubnetInfo[] {
  const seen = new Map<string, SubnetInfo>();
  for (const p of ctx.cluster.pools) {
    const s = subnetOfPool(ctx.env, p);
    if (s) seen.set(s.id.toLowerCase(), s);
  }
  return [...seen.values()];
}

const byoSubnets = (ctx: RuleContext): SubnetInfo[] => nodeSubnets(ctx).filter((s) => !s.managed && s.id !== managedSubnet(ctx.env).id);
const defaultRoute = (s: SubnetInfo) => s.routes?.find((r) => r.addressPrefix === '0.0.0.0/0');

/** The outbound public IPs the load balancer will have: managed count, BYO IPs, or the addresses of the prefixes. */
function outboundIpCount(ctx: RuleContext): number {
  const lb = loadBalancerOutbound(ctx.cluster.network);
  if (lb.publicIps) return lb.publicIps.length;
  if (lb.prefixes) return lb.prefixes.reduce((n, id) => n + (ctx.env.outboundResources?.[id.toLowerCase()]?.addresses ?? 1), 0);
  return lb.managedCount ?? 1;
}

export const OUTBOUND_RULES: Rule[] = [
  {
    id: 'O1',
    code: 'InvalidLoadBalancerProfile',
    message: 'Load balancer profile must specify one of ManagedOutboundIPs, OutboundIPPrefixes and OutboundIPs.',
    target: LB_PROFILE,
    severity: 'error',
    source: 'verified',
    ref: 'hashicorp/terraform-provider-azurerm#7564 (the RP\'s answer); the spec ("can only use one of")',
    note: 'Raised when more than one is given; a profile naming none gets the managed default (one IP), as a profile with only ports or an idle timeout does.',
    phases: SPEC,
    check: (ctx) => when(outbound(ctx) === 'loadBalancer' && loadBalancerOutbound(ctx.cluster.network).sourcesGiven > 1, {}),
  },
  {
    id: 'O2',
    code: 'InvalidParameter',
    message: 'The value of parameter {path} is invalid: {value}.',
    target: LB_PROFILE,
    severity: 'error',
    source: 'partial',
    ref: 'the spec: managedOutboundIPs.count 1–100, countIPv6 0–100, allocatedOutboundPorts 0–64000, idleTimeoutInMinutes 4–120; the load balancer gives ports in multiples of 8 (Microsoft.Network SpecifiedAllocatedOutboundPortsForOutboundRuleIsNotAMultipleOfEight)',
    phases: SPEC,
    check: (ctx) =>
      outbound(ctx) !== 'loadBalancer'
        ? none
        : rangeFindings(ctx.cluster.network['loadBalancerProfile'], LB_PROFILE, [
            [['managedOutboundIPs', 'count'], 1, 100],
            [['managedOutboundIPs', 'countIPv6'], 0, 100],
            [['allocatedOutboundPorts'], 0, 64000, 8],
            [['idleTimeoutInMinutes'], 4, 120],
          ]),
  },
  {
    id: 'O3',
    code: 'InvalidLoadBalancerProfileAllocatedOutboundPorts',
    message:
      'Load balancer profile allocated ports {ports} is not in an allowable range given the number of nodes and IPs provisioned. Total node count {nodes} requires {required} ports but only {available} ports are available given {ips} outbound public IPs. Refer to https://aka.ms/aks/slb-ports for more details.',
    target: `${LB_PROFILE}.allocatedOutboundPorts`,
    severity: 'error',
    source: 'verified',
    ref: 'Azure/azure-cli#22374 (3 nodes count as 4: one surge node), jenkins-infra/azure PR #580 (pools of 10, 10 and 2 count as 25: the autoscaler maximum plus one surge node per pool)',
    note: 'The node count is every pool at its size (maxCount under the autoscaler) plus its upgrade surge.',
    phases: ['create', 'update', 'scale', 'pool-add'],
    check: (ctx) => {
      if (outbound(ctx) !== 'loadBalancer') return none;
      const ports = loadBalancerOutbound(ctx.cluster.network).allocatedOutboundPorts;
      if (!Number.isInteger(ports) || ports <= 0 || ports > 64000) return none;
      const nodes = ctx.cluster.pools.reduce((n, p) => n + Math.max(createNodes(p), 0) + Math.max(surgeNodes(p) ?? 1, 1), 0);
      const ips = outboundIpCount(ctx);
      const available = ips * PORTS_PER_IP;
      return when(nodes * ports > available, { ports, nodes, required: nodes * ports, available, ips });
    },
  },
  {
    id: 'O4',
    code: 'InvalidResourceReference',
    message:
      'Resource {id} referenced by resource {lb} was not found. Please make sure that the referenced resource exists, and that both resources are in the same region.',
    target: LB_PROFILE,
    severity: 'error',
    source: 'ours',
    ref: "the Network RP's wording for a missing reference (S3); AKS checks the outbound IPs and prefixes it is given",
    phases: SPEC,
    check: (ctx) => {
      if (outbound(ctx) !== 'loadBalancer' || !ctx.env.outboundResources) return none;
      const lb = loadBalancerOutbound(ctx.cluster.network);
      const lbId = `${ctx.env.nodeResourceGroupId ?? ''}/providers/Microsoft.Network/loadBalancers/kubernetes`;
      return [...(lb.publicIps ?? []), ...(lb.prefixes ?? [])]
        .filter((id) => ctx.env.outboundResources![id.toLowerCase()] === undefined)
        .map((id) => ({ params: { id, lb: lbId } }));
    },
  },
  {
    id: 'O5',
    code: 'InvalidUserDefinedRoutingWithLoadBalancerProfile',
    message:
      'Outbound type {outbound} does not use the load balancer for egress: loadBalancerProfile must not name outbound IPs, prefixes or a managed IP count.',
    target: LB_PROFILE,
    severity: 'error',
    source: 'partial',
    ref: 'RP-ENUM InvalidUserDefinedRoutingWithLoadBalancerProfile; hashicorp/terraform-provider-azurerm#28541 (the two are mutually exclusive)',
    note: 'Raised for userDefinedRouting only: with the NAT gateway types AKS accepts and drops such a profile (Azure/azure-rest-api-specs#22469).',
    phases: SPEC,
    check: (ctx) => {
      const o = outbound(ctx);
      return when(o === 'userDefinedRouting' && loadBalancerOutbound(ctx.cluster.network).sourcesGiven > 0, { outbound: o });
    },
  },
  {
    id: 'O6',
    code: 'ManagedNATGatewayWithCustomVNetNotAllowed',
    message: 'Outbound type managedNATGateway is not allowed with a custom virtual network: the agent pool {pool} uses subnet {subnet}.',
    target: 'networkProfile.outboundType',
    severity: 'error',
    source: 'partial',
    ref: 'RP-ENUM; AKSDOCS nat-gateway ("Managed NAT gateway is incompatible with custom virtual networks")',
    phases: ['create', 'update', 'pool-add'],
    check: (ctx) => {
      const p = outbound(ctx) === 'managedNATGateway' ? ctx.cluster.pools.find((x) => x.vnetSubnetID) : undefined;
      return when(!!p, { pool: p?.name ?? '', subnet: p?.vnetSubnetID ?? '' });
    },
  },
  {
    id: 'O7',
    code: 'UserAssignedNATGatewayWithManagedVNetNotAllowed',
    message: 'Outbound type userAssignedNATGateway needs a custom virtual network: the agent pool {pool} has no vnetSubnetID.',
    target: 'networkProfile.outboundType',
    severity: 'error',
    source: 'partial',
    ref: "RP-ENUM; AKSDOCS nat-gateway (the user-assigned gateway is associated with the cluster's own subnet)",
    phases: ['create', 'update', 'pool-add'],
    check: (ctx) => {
      const p = outbound(ctx) === 'userAssignedNATGateway' ? ctx.cluster.pools.find((x) => !x.vnetSubnetID) : undefined;
      return when(!!p, { pool: p?.name ?? '' });
    },
  },
  {
    id: 'O8',
    code: 'SubnetNotAssociatedWithNATGateway',
    message: 'Subnet {subnet} must be associated with a NAT gateway for outbound type userAssignedNATGateway.',
    target: 'agentPoolProfile.vnetSubnetID',
    severity: 'error',
    source: 'partial',
    ref: 'RP-ENUM SubnetNotAssociatedWithNATGateway; AKSDOCS nat-gateway (associate the gateway with the subnet before creating the cluster)',
    phases: ['create', 'update', 'pool-add'],
    check: (ctx) =>
      outbound(ctx) === 'userAssignedNATGateway'
        ? byoSubnets(ctx)
            .filter((s) => !s.natGatewayId)
            .map((s) => ({ params: { subnet: s.id } }))
        : none,
  },
  {
    id: 'O9',
    code: 'ExistingRouteTableNotAssociatedWithSubnet',
    message:
      'Subnet {subnet} has no route table: outbound type userDefinedRouting needs a route table on the subnet with a default route (0.0.0.0/0) to a virtual appliance or gateway. Please see http://aka.ms/aks/outboundtype for more details.',
    target: 'agentPoolProfile.vnetSubnetID',
    severity: 'error',
    source: 'partial',
    ref: 'RP-ENUM ExistingRouteTableNotAssociatedWithSubnet; Azure/AKS#1842 (AKS validates the subnet and its route table for UDR); MicrosoftDocs/azure-docs#52060 ("Please update the route table association")',
    phases: ['create', 'update', 'pool-add'],
    check: (ctx) =>
      outbound(ctx) === 'userDefinedRouting'
        ? byoSubnets(ctx)
            .filter((s) => !s.routeTableId)
            .map((s) => ({ params: { subnet: s.id } }))
        : none,
  },
  {
    id: 'O10',
    code: 'RouteTableMissingDefaultRouteError',
    message: 'Default route 0.0.0.0/0 missing from route table {table}',
    target: 'agentPoolProfile.vnetSubnetID',
    severity: 'error',
    source: 'verified',
    ref: 'MicrosoftDocs/azure-docs#108240 (a route propagated by Virtual WAN does not count: the route must be in the table)',
    phases: ['create', 'update', 'pool-add'],
    check: (ctx) =>
      outbound(ctx) === 'userDefinedRouting'
        ? byoSubnets(ctx)
            .filter((s) => s.routeTableId && !defaultRoute(s))
            .map((s) => ({ params: { table: s.routeTableId! } }))
        : none,
  },
  {
    id: 'O11',
    code: 'RouteTableInvalidNextHop',
    message:
      'Default route 0.0.0.0/0 has a next hop of {hop} but only next hops of VirtualAppliance or VirtualNetworkGateway are allowed. Please see http://aka.ms/aks/outboundtype for more details.',
    target: 'agentPoolProfile.vnetSubnetID',
    severity: 'error',
    source: 'verified',
    ref: 'hashicorp/terraform-provider-azurerm#8609',
    phases: ['create', 'update', 'pool-add'],
    check: (ctx) => {
      if (outbound(ctx) !== 'userDefinedRouting') return none;
      return byoSubnets(ctx).flatMap((s) => {
        const hop = defaultRoute(s)?.nextHopType;
        return hop && hop !== 'VirtualAppliance' && hop !== 'VirtualNetworkGateway' ? [{ params: { hop } }] : [];
      });
    },
  },
  {
    id: 'O12',
    code: 'InvalidParameter',
    message: 'The value of parameter {path} is invalid: {value}.',
    target: NAT_PROFILE,
    severity: 'error',
    source: 'partial',
    ref: 'the spec: managedOutboundIPProfile.count 1–16, idleTimeoutInMinutes 4–120; AKSDOCS nat-gateway (at most 16 IP addresses)',
    phases: SPEC,
    check: (ctx) =>
      outbound(ctx) !== 'managedNATGateway'
        ? none
        : rangeFindings(ctx.cluster.network['natGatewayProfile'], NAT_PROFILE, [
            [['managedOutboundIPProfile', 'count'], 1, 16],
            [['idleTimeoutInMinutes'], 4, 120],
          ]),
  },
];
