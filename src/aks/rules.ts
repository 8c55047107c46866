// THE rule table: every AKS networking rule aksemu enforces, once. Each row holds its condition, error code,
// message template, target, and where it comes from (docs/aks-rules.md §2; tags: verified = published
// text, partial = code or rule published but not the message, ours = we wrote the message or chose the code).
// Placeholders in `message` are `{name}`; `check` returns the placeholder values, one entry per violation.
import { Cidr, type IpAddress } from '../net/ip.js';
import { createNodes, MAX_CLUSTER_NODES, podCidrDemand, podSubnetDemands, subnetDemands, totalNodes } from './capacity.js';
import { POD_IP_ALLOCATION_MODES, podSubnetOfPool } from './pod-subnet.js';
import { isDualStack, surgeNodes, type ResolvedPool } from './defaults.js';
import { connectedOverlaps } from './connected-networks.js';
import { subnetOfPool, vmssId, type ConnectedKind, type SubnetInfo } from './environment.js';
import { compareVersions, isOfferedVersion, maxPoolMinorSkew, minorOf } from './kubernetes-versions.js';
import { parseCidrField, subnetCidr, subnetCidrIPv6, vnetCidrs, type FieldParse } from './parsed-network.js';
import { modelOfMode, NETWORK_PLUGIN_MODES, NODE_POD_CIDR_MASK_IPV6, networkModelOf } from './network-models/index.js';
import { newNodeCounter, poolsInScope, previousPool, type Phase, type RuleContext } from './rule-context.js';
import { vmSize } from './vm-sizes.js';
import { OUTBOUND_RULES } from './outbound-rules.js';
import { sameId } from '../ids/compare.js';

export type Source = 'verified' | 'partial' | 'ours';
export type Params = Record<string, string | number>;

export interface Finding {
  params: Params;
  /** Overrides the rule's target (one rule, several fields). */
  target?: string;
}

export interface Rule {
  /** The rule's id in docs/aks-rules.md (C1…C17, N1…N14, S1…S7, M1…M10, K = capacity §2.5, U = mutability §2.6, V = Kubernetes versions §2.4). */
  id: string;
  code: string;
  message: string;
  target: string;
  severity: 'error' | 'warning';
  /** Where the code and message come from. */
  source: Source;
  ref: string;
  /** When AKS checks it. */
  phases: Phase[];
  /** Runs only for the network models that list the rule in their `rules.enables` (src/aks/network-models/). */
  perModel?: true;
  check(ctx: RuleContext): Finding[];
  /** How a contradiction in the sources was resolved, or why the rule is shaped as it is. */
  note?: string;
}

const _ALL: Phase[] = ['create', 'update', 'scale', 'upgrade', 'pool-add'];
const SPEC: Phase[] = ['create', 'update'];
const POOLS: Phase[] = ['create', 'update', 'pool-add', 'scale'];
/** When a pool's version is judged: whenever a pool is created, written or upgraded. */
const POOL_VERSION_PHASES: Phase[] = ['create', 'update', 'upgrade', 'pool-add'];

/** V1 and V1b: the same answer for a cluster's and a pool's version. */
const VERSION_NOT_SUPPORTED =
  'Version {version} is not supported in this region. Please use [az aks get-versions] command to get the supported version list in this region. For more information, please check https://aka.ms/supported-version-list';

/** U1 and D13: the RP's answer to a change of an immutable property. */
const CHANGE_NOT_ALLOWED = "Changing property '{path}' is not allowed.";

/** The first api-version in which the RP lets a pool's vmSize change (U5; Azure/bicep-registry-modules#7130). */
const VM_SIZE_CHANGE_API = '2026-01-02-preview';

const one = (params: Params, target?: string): Finding[] => [target ? { params, target } : { params }];
const none: Finding[] = [];
const when = (cond: boolean, params: Params, target?: string): Finding[] => (cond ? one(params, target) : none);

/** The CIDR fields of networkProfile that the parse rules cover, with their wire targets. */
const CIDR_FIELDS = [
  { key: 'podCidr', target: 'networkProfile.podCIDR', label: 'pod CIDR' },
  { key: 'serviceCidr', target: 'networkProfile.serviceCIDR', label: 'service CIDR' },
] as const;

/** The pod CIDR is the cluster's: carved into node /24s, or the user's CNI's range when given. */
const usesPodCidr = (ctx: RuleContext): boolean =>
  ctx.model?.podCidr === 'per-node' || (ctx.model?.podCidr === 'user' && ctx.parsed.podCidr.value !== undefined);

/** Reserved ranges AKS refuses for service, pod and VNet ranges (concepts-network-cni-overview.md; C13). */
const RESERVED = ['169.254.0.0/16', '172.30.0.0/16', '172.31.0.0/16', '192.0.2.0/24'].map((c) => Cidr.parse(c));
/** Private ranges a service CIDR may use (C14): RFC 1918 and the RFC 6598 shared space. */
const PRIVATE = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10'].map((c) => Cidr.parse(c));
const MULTICAST = Cidr.parse('224.0.0.0/4');

function subnetsOfCluster(ctx: RuleContext): Array<{ pool: ResolvedPool; subnet: SubnetInfo }> {
  const out: Array<{ pool: ResolvedPool; subnet: SubnetInfo }> = [];
  for (const pool of ctx.cluster.pools) {
    const subnet = subnetOfPool(ctx.env, pool);
    if (subnet) out.push({ pool, subnet });
  }
  return out;
}

/** S3 and PS2: AKS's answer for a subnet it cannot find in the cluster's region. */
const RESOURCE_NOT_FOUND =
  'Resource {subnet} referenced by resource {vmss} was not found. Please make sure that the referenced resource exists, and that both resources are in the same region.';

/** S3, PS2: the subnet a pool names does not exist, or lies in another region than the cluster. */
function missingOrElsewhere(ctx: RuleContext, s: SubnetInfo | undefined): boolean {
  const loc = s?.vnet.location ?? s?.location;
  return !s || (loc !== undefined && ctx.env.location !== undefined && !sameId(loc, ctx.env.location));
}

function uniqueSubnets(ctx: RuleContext): SubnetInfo[] {
  const seen = new Map<string, SubnetInfo>();
  for (const { subnet } of subnetsOfCluster(ctx)) seen.set(subnet.id.toLowerCase(), subnet);
  return [...seen.values()];
}

/** C18, C19: the cluster's ranges against the networks its VNet is joined to. */
function connectedFindings(ctx: RuleContext, kind: ConnectedKind): Finding[] {
  const networks = ctx.env.connectedNetworks ?? [];
  if (networks.length === 0) return none;
  return connectedOverlaps(kind, networks, uniqueSubnets(ctx), ctx.model, ctx.parsed).map((o) => ({
    params: { range: o.range.label, cidr: String(o.range.cidr), prefix: String(o.prefix), name: o.network.name, effect: o.range.effect[kind] },
    target: o.range.target,
  }));
}

function parseFindings(f: FieldParse<unknown>, kind: 'syntax' | 'not-canonical' | 'family', params: (raw: string) => Params, target: string): Finding[] {
  return f.error?.kind === kind ? one(params(f.raw ?? ''), target) : none;
}

const isInt = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n);

/** A DNS-service-IP rule: fires when both fields parsed and `bad` holds. */
const dnsCheck =
  (bad: (dns: IpAddress, svc: Cidr) => boolean) =>
  ({ parsed: { dnsServiceIP: d, serviceCidr: s } }: RuleContext): Finding[] =>
    when(!!d.value && !!s.value && bad(d.value, s.value), { dns: String(d.value), svc: String(s.value) });

/** A parse rule over the CIDR fields: one finding per field whose parse failed with `kind`. */
const cidrParseCheck =
  (kind: 'syntax' | 'not-canonical' | 'family', extra: (raw: string) => Params = () => ({})) =>
  (ctx: RuleContext): Finding[] =>
    CIDR_FIELDS.flatMap((f) => parseFindings(ctx.parsed[f.key], kind, (value) => ({ field: f.label, value, ...extra(value) }), f.target));

export const RULES: Rule[] = [
  // ---- docs/aks-rules.md §2.1 CIDR and address rules -------------------------------------------------------
  {
    id: 'C7a',
    code: 'CidrStringParseError',
    message: "The {field} '{value}' is not a valid CIDR: expected an IPv4 address and a prefix length, such as 10.0.0.0/16.",
    target: 'networkProfile',
    severity: 'error',
    source: 'partial',
    ref: 'RP-ENUM CidrStringParseError; docs/aks-rules.md §1.1 CIDR regex',
    phases: SPEC,
    check: cidrParseCheck('syntax'),
  },
  {
    id: 'C7b',
    code: 'UnexpectedIPVersionCIDR',
    message: "The {field} '{value}' is IPv6; this field takes an IPv4 CIDR.",
    target: 'networkProfile',
    severity: 'error',
    source: 'partial',
    ref: 'RP-ENUM UnexpectedIPVersionCIDR; docs/aks-rules.md §1.1 (IPv4 regex)',
    phases: SPEC,
    check: cidrParseCheck('family'),
  },
  {
    id: 'C7',
    code: 'InvalidIPRangeCIDR',
    message: "The {field} '{value}' is not a valid network address: its host bits are set. Did you mean {canonical}?",
    target: 'networkProfile',
    severity: 'error',
    source: 'partial',
    ref: 'CHANGELOG 2019-04-15 ("10.2.0.1/24 instead of 10.2.0.0/24 ... now validated"); code from RP-ENUM',
    phases: SPEC,
    check: cidrParseCheck('not-canonical', (value) => ({ canonical: String(parseCidrField(value, { canonical: false }).value) })),
  },
  {
    id: 'C7c',
    code: 'SingleIPAddressCIDR',
    message: "The {field} '{value}' holds a single address; it must be a range.",
    target: 'networkProfile',
    severity: 'error',
    source: 'partial',
    ref: 'RP-ENUM SingleIPAddressCIDR',
    phases: SPEC,
    check: (ctx) =>
      CIDR_FIELDS.flatMap((f) => {
        const c = ctx.parsed[f.key].value;
        return when(c !== undefined && c.prefix === c.bits, { field: f.label, value: String(c) }, f.target);
      }),
  },
  {
    id: 'C5',
    code: 'DnsServiceIpParseError',
    message: "The DNS service IP '{value}' is not a valid IPv4 address.",
    target: 'networkProfile.dnsServiceIP',
    severity: 'error',
    source: 'partial',
    ref: 'RP-ENUM DnsServiceIpParseError; docs/aks-rules.md §1.1 dnsServiceIP regex',
    phases: SPEC,
    check: (ctx) => when(ctx.parsed.dnsServiceIP.error !== undefined, { value: ctx.parsed.dnsServiceIP.raw ?? '' }),
  },
  {
    id: 'C1',
    code: 'DnsServiceIpOutOfServiceCidr',
    message: 'The DNS service IP {dns} is out of the range defined by service CIDR {svc}.',
    target: 'networkProfile.dnsServiceIP',
    severity: 'error',
    source: 'verified',
    ref: 'SUPPORT error-code-dnsserviceIpoutofservicecidr.md',
    phases: SPEC,
    check: dnsCheck((dns, svc) => !svc.contains(dns)),
  },
  {
    id: 'C4',
    code: 'DnsServiceIpConflicting',
    message: 'The DNS service IP {dns} is the network address of service CIDR {svc}; choose an address inside the range.',
    target: 'networkProfile.dnsServiceIP',
    severity: 'error',
    source: 'ours',
    ref: 'CHANGELOG 2021-10-08 "Validation that DNS service IP is not on subnet boundary"; Azure/AKS#2579',
    note: 'No code or message is published; we reuse the conflict code of C2.',
    phases: SPEC,
    check: dnsCheck((dns, svc) => dns.value === svc.network),
  },
  {
    id: 'C2',
    code: 'DnsServiceIpConflicting',
    message: 'The DNS service IP {dns} cannot be the first IP address of service CIDR {svc}: that address belongs to the kubernetes API service.',
    target: 'networkProfile.dnsServiceIP',
    severity: 'error',
    source: 'partial',
    ref: 'use-byo-cni.md, concepts-network-legacy-cni.md; RP-ENUM DnsServiceIpConflicting; aks-engine wording',
    phases: SPEC,
    check: dnsCheck((dns, svc) => svc.size > 2n && dns.value === svc.network + 1n),
  },
  {
    id: 'C3',
    code: 'DnsBroadcastAddressConflicting',
    message: 'The DNS service IP {dns} cannot be the broadcast address of service CIDR {svc}.',
    target: 'networkProfile.dnsServiceIP',
    severity: 'error',
    source: 'partial',
    ref: 'RP-ENUM DnsBroadcastAddressConflicting; aks-engine validate.go',
    phases: SPEC,
    check: dnsCheck((dns, svc) => svc.size > 1n && dns.equals(svc.last)),
  },
  {
    id: 'C6',
    code: 'ServiceCidrTooLarge',
    message: 'The service CIDR {svc} is too large: the prefix length must be 12 or more (at most 2^20 service addresses).',
    target: 'networkProfile.serviceCIDR',
    severity: 'error',
    source: 'ours',
    ref: 'concepts-network-ip-address-planning.md ("smaller than /12"); kube-apiserver "mask must be >= 12"',
    note: 'docs/aks-rules.md §6 X4: the docs say "smaller than /12" but kube-apiserver and the 2018 model accept /12; we accept /12 and refuse /11 and shorter.',
    phases: SPEC,
    check: ({ parsed: { serviceCidr: s } }) => when(!!s.value && s.value.prefix < 12, { svc: String(s.value) }),
  },
  {
    id: 'C13',
    code: 'CidrOverlapsReservedRange',
    message: 'The {field} {cidr} overlaps the reserved range {reserved}. AKS clusters cannot use 169.254.0.0/16, 172.30.0.0/16, 172.31.0.0/16 or 192.0.2.0/24.',
    target: 'networkProfile',
    severity: 'error',
    source: 'ours',
    ref: 'concepts-network-cni-overview.md; CHANGELOG 2019-05-20, 2025-01-30, 2026-05-29',
    note: 'docs/aks-rules.md §6 X7: enforced for every plugin. No code or message is published.',
    phases: SPEC,
    check: (ctx) => {
      const out: Finding[] = [];
      const candidates: Array<{ field: string; cidr: Cidr | undefined; target: string }> = [
        { field: 'service CIDR', cidr: ctx.parsed.serviceCidr.value, target: 'networkProfile.serviceCIDR' },
      ];
      if (usesPodCidr(ctx)) candidates.push({ field: 'pod CIDR', cidr: ctx.parsed.podCidr.value, target: 'networkProfile.podCIDR' });
      for (const subnet of uniqueSubnets(ctx)) {
        for (const v of vnetCidrs(subnet)) {
          candidates.push({ field: 'virtual network address space', cidr: v, target: 'agentPoolProfile.vnetSubnetID' });
        }
      }
      for (const c of candidates) {
        const hit = c.cidr && RESERVED.find((r) => r.overlaps(c.cidr!));
        if (hit) out.push({ params: { field: c.field, cidr: String(c.cidr), reserved: String(hit) }, target: c.target });
      }
      return out;
    },
  },
  {
    id: 'C14',
    code: 'ServiceCidrNotPrivate',
    message: 'The service CIDR {svc} lies in a public or multicast range; use a private range such as 10.0.0.0/16.',
    target: 'networkProfile.serviceCIDR',
    severity: 'error',
    source: 'ours',
    ref: 'CHANGELOG 2023-10 "validate, and block if necessary, service CIDRs placed in public and multicast IP address ranges"',
    note: 'Private means RFC 1918 or the RFC 6598 shared space 100.64.0.0/10.',
    phases: SPEC,
    check: ({ parsed: { serviceCidr: s } }) =>
      when(!!s.value && !RESERVED.some((r) => r.overlaps(s.value!)) && (MULTICAST.overlaps(s.value) || !PRIVATE.some((p) => p.containsCidr(s.value!))), {
        svc: String(s.value),
      }),
  },
  {
    id: 'C10',
    code: 'PodCidrOverlapServiceCidr',
    message: 'The pod CIDR {pod} overlaps with the service CIDR {svc}.',
    target: 'networkProfile.podCIDR',
    severity: 'error',
    source: 'partial',
    ref: 'RP-ENUM PodCidrOverlapServiceCidr',
    phases: SPEC,
    check: (ctx) => {
      const { podCidr: p, serviceCidr: s } = ctx.parsed;
      return when(usesPodCidr(ctx) && !!p.value && !!s.value && p.value.overlaps(s.value), {
        pod: String(p.value),
        svc: String(s.value),
      });
    },
  },
  {
    id: 'C11',
    code: 'SubnetCidrOverlapServiceCidr',
    message: 'The subnet {subnet} ({cidr}) of agent pool {pool} overlaps with the service CIDR {svc}.',
    target: 'networkProfile.serviceCIDR',
    severity: 'error',
    source: 'partial',
    ref: 'RP-ENUM SubnetCidrOverlapServiceCidr',
    note: 'C11 covers the node subnets themselves; C8 the other subnets of the VNet, so one overlap is reported once.',
    phases: ['create', 'update', 'pool-add'],
    check: (ctx) => {
      const svc = ctx.parsed.serviceCidr.value;
      if (!svc) return none;
      const seen = new Set<string>();
      return subnetsOfCluster(ctx).flatMap(({ pool, subnet }) => {
        const cidr = subnetCidr(subnet);
        if (!cidr || seen.has(subnet.id) || !cidr.overlaps(svc)) return none;
        seen.add(subnet.id);
        return one({ subnet: subnet.name, cidr: String(cidr), pool: pool.name, svc: String(svc) });
      });
    },
  },
  {
    id: 'C8',
    code: 'ServiceCidrOverlapExistingSubnetsCidr',
    message: 'The specified service CIDR {svc} is conflicted with an existing subnet CIDR {subnet}',
    target: 'networkProfile.serviceCIDR',
    severity: 'error',
    source: 'verified',
    ref: 'SUPPORT error-code-servicecidroverlapexistingsubnetscidr.md; Azure/AKS#1117',
    phases: ['create', 'update', 'upgrade', 'pool-add'],
    check: (ctx) => {
      const svc = ctx.parsed.serviceCidr.value;
      if (!svc) return none;
      const nodeSubnets = new Set(uniqueSubnets(ctx).map((s) => s.id.toLowerCase()));
      const seen = new Set<string>();
      const out: Finding[] = [];
      for (const s of uniqueSubnets(ctx)) {
        for (const other of s.vnet.subnets) {
          if (nodeSubnets.has(other.id.toLowerCase()) || seen.has(other.id.toLowerCase())) continue;
          seen.add(other.id.toLowerCase());
          for (const prefix of other.addressPrefixes) {
            const c = parseCidrField(prefix).value;
            if (c && c.overlaps(svc)) out.push({ params: { svc: String(svc), subnet: String(c) } });
          }
        }
      }
      return out;
    },
  },
  {
    id: 'C12',
    code: 'ServiceCidrOverlapping',
    message: 'Kubernetes service address range: {svc} is overlapping virtual network address ranges: {vnet}.',
    target: 'networkProfile.serviceCIDR',
    severity: 'error',
    source: 'partial',
    ref: 'Azure/AKS#2727 (portal text); MicrosoftDocs/azure-docs PR #92253; code from RP-ENUM',
    note: 'Applies to the managed VNet (10.224.0.0/12); for a BYO VNet AKS checks subnets (C8, C11), not the address space.',
    phases: SPEC,
    check: (ctx) => {
      const svc = ctx.parsed.serviceCidr.value;
      if (!svc) return none;
      return uniqueSubnets(ctx)
        .filter((s) => s.managed)
        .flatMap((s) => vnetCidrs(s).filter((v) => v.overlaps(svc)))
        .map((v) => ({ params: { svc: String(svc), vnet: String(v) } }));
    },
  },
  {
    id: 'C9',
    code: 'NetworkProfileCIDROverlapVNET',
    message: 'NetworkProfile CIDR {pod} overlaps with reserved VNET CIDR {vnet}',
    target: 'networkProfile.podCIDR',
    severity: 'error',
    source: 'verified',
    ref: 'Azure/AKS-Construction#403; Azure-Samples/graphrag-accelerator#211',
    note: 'kubenet: the pod CIDR must not overlap the VNet address space. Overlay checks subnets instead (C9b).',
    phases: SPEC,
    perModel: true,
    check: (ctx) => {
      const pod = ctx.parsed.podCidr.value;
      if (!pod) return none;
      return uniqueSubnets(ctx)
        .flatMap((s) => vnetCidrs(s).filter((v) => v.overlaps(pod)))
        .map((v) => ({ params: { pod: String(pod), vnet: String(v) } }));
    },
  },
  {
    id: 'C9b',
    code: 'PodCidrOverlapExistingSubnetsCidr',
    message: 'The overlay pod CIDR {pod} overlaps with the existing subnet {subnet} ({cidr}) of the virtual network.',
    target: 'networkProfile.podCIDR',
    severity: 'error',
    source: 'partial',
    ref: 'CHANGELOG 2024-10-25 (overlay checks subnets, not the address space); RP-ENUM PodCidrOverlapExistingSubnetsCidr',
    phases: SPEC,
    perModel: true,
    check: (ctx) => {
      const pod = ctx.parsed.podCidr.value;
      if (!pod) return none;
      const seen = new Set<string>();
      const out: Finding[] = [];
      for (const s of uniqueSubnets(ctx)) {
        for (const sub of s.vnet.subnets) {
          if (seen.has(sub.id.toLowerCase())) continue;
          seen.add(sub.id.toLowerCase());
          const c = parseCidrField(sub.addressPrefixes[0]).value;
          if (c && c.overlaps(pod)) out.push({ params: { pod: String(pod), subnet: sub.name, cidr: String(c) } });
        }
      }
      return out;
    },
  },
  {
    id: 'C15',
    code: 'DockerBridgeCidrInvalid',
    message: "The docker bridge CIDR '{value}' is not a valid CIDR.",
    target: 'networkProfile.dockerBridgeCIDR',
    severity: 'error',
    source: 'partial',
    ref: 'RP-ENUM DockerBridgeCidrInvalid; Azure/AKS#3534',
    note: 'docs/aks-rules.md §6 X12: the field is "ignored by default and not validated" since containerd, so only its format is checked; no overlap errors.',
    phases: SPEC,
    check: (ctx) =>
      when(ctx.api.hasDockerBridgeCidr && ctx.parsed.dockerBridgeCidr.error !== undefined, {
        value: ctx.parsed.dockerBridgeCidr.raw ?? '',
      }),
  },
  {
    id: 'C16',
    code: 'MultipleAddressPrefixesSubnetNotSupported',
    message: 'The subnet {subnet} has {count} address prefixes; AKS supports node subnets with a single address prefix per IP family.',
    target: 'agentPoolProfile.vnetSubnetID',
    severity: 'error',
    source: 'partial',
    ref: 'RP-ENUM MultipleAddressPrefixesSubnetNotSupported',
    note: 'One IPv4 and one IPv6 prefix is a dual-stack subnet (docs/aks-rules.md §9.3), not several prefixes.',
    phases: ['create', 'update', 'pool-add'],
    check: (ctx) =>
      uniqueSubnets(ctx)
        .filter((s) => s.addressPrefixes.length > 1 && !isDualStackSubnet(s))
        .map((s) => ({ params: { subnet: s.id, count: s.addressPrefixes.length } })),
  },
  {
    id: 'C16b',
    code: 'InvalidIPRangeCIDR',
    message: "The address prefix '{value}' of subnet {subnet} is not a valid canonical IPv4 CIDR.",
    target: 'agentPoolProfile.vnetSubnetID',
    severity: 'error',
    source: 'ours',
    ref: 'same canonical check as C7, applied to node subnets',
    phases: ['create', 'update', 'pool-add'],
    check: (ctx) =>
      uniqueSubnets(ctx).flatMap((s) => {
        // The IPv4 prefix of a dual-stack subnet; the first prefix otherwise.
        const prefix = isDualStackSubnet(s) ? s.addressPrefixes.find((p) => parseCidrField(p).value?.family === 4) : s.addressPrefixes[0];
        const f = parseCidrField(prefix);
        const bad = s.addressPrefixes.length > 0 && (f.error !== undefined || f.value?.family !== 4);
        return when(bad, { value: prefix ?? '', subnet: s.name });
      }),
  },
  {
    id: 'C17',
    code: '(none)',
    message: 'ServiceCidr, DNSServiceIP and DockerBridgeCidr should all be empty or neither should be empty.',
    target: 'networkProfile',
    severity: 'error',
    source: 'verified',
    ref: 'acs-engine 2018 model (V-old); terraform-provider-azurerm PR #20952',
    note: 'Historic only: the current RP defaults each field on its own, so aksemu never raises it. Kept so the table is complete.',
    phases: [],
    check: () => none,
  },
  {
    id: 'C18',
    code: 'VnetPeerCidrOverlapping',
    message: "The {range} {cidr} overlaps {prefix} of peered virtual network '{name}': {effect}.",
    target: 'networkProfile',
    severity: 'warning',
    source: 'ours',
    ref: 'RP-ENUM names the code, no message; AKSDOCS configure-azure-cni and configure-kubenet (the service CIDR must not overlap peered VNets); azure-cni-overlay (the pod CIDR must not overlap directly connected networks)',
    note: 'Only `aksemu plan --peered-cidr` knows the peered ranges here; AKS does not refuse a create for it, so a warning (docs/aks-rules.md §2.1).',
    phases: ['create'],
    check: (ctx) => connectedFindings(ctx, 'peered'),
  },
  {
    id: 'C19',
    code: 'OnPremisesCidrOverlapping',
    message: "The {range} {cidr} overlaps {prefix} of on-premises network '{name}': {effect}.",
    target: 'networkProfile',
    severity: 'warning',
    source: 'ours',
    ref: 'the seed article on the legacy models ("Virtual network peering and ExpressRoute connections": plan addresses so they do not overlap; many on-premises networks advertise 10.0.0.0/8); AKSDOCS configure-kubenet (--pod-cidr not in use elsewhere, on-premises included)',
    note: 'AKS cannot see on-premises ranges; `aksemu plan --on-premises-cidr` names them (docs/aks-rules.md §2.1).',
    phases: ['create'],
    check: (ctx) => connectedFindings(ctx, 'on-premises'),
  },

  // ---- docs/aks-rules.md §2.2 Rules by network plugin ------------------------------------------------------
  {
    id: 'N1',
    code: 'UnknownNetworkPlugin',
    message: "Network plugin '{plugin}' is not supported. Supported values are 'azure', 'kubenet' and 'none'.",
    target: 'networkProfile.networkPlugin',
    severity: 'error',
    source: 'partial',
    ref: 'RP-ENUM UnknownNetworkPlugin; docs/aks-rules.md §1.1 enum',
    phases: SPEC,
    check: (ctx) => when(!ctx.model, { plugin: ctx.cluster.network.networkPlugin }),
  },
  {
    id: 'N1m',
    code: 'UnsupportedNetworkPluginModeWithNetworkPlugin',
    message: "Network plugin mode '{mode}' is not supported with network plugin '{plugin}'{why}.",
    target: 'networkProfile.networkPluginMode',
    severity: 'error',
    source: 'ours',
    ref: 'docs/aks-rules.md §1.2 (networkPluginMode: enum [overlay], used with networkPlugin=azure, from 2023-02-01)',
    phases: SPEC,
    check: (ctx) => {
      const { networkPluginMode: mode, networkPlugin: plugin } = ctx.cluster.network;
      if (mode === undefined || mode === '') return none;
      if (!ctx.api.hasNetworkPluginMode) {
        return one({ mode, plugin, why: ` in api-version ${ctx.api.version} (networkPluginMode exists from 2023-02-01)` });
      }
      const named = modelOfMode(mode);
      if (!named) return one({ mode, plugin, why: `: the only mode is ${NETWORK_PLUGIN_MODES.map((m) => `'${m}'`).join(', ')}` });
      return when(named !== ctx.model, { mode, plugin, why: `: '${mode}' is a mode of the '${named.plugin}' plugin` });
    },
  },
  {
    id: 'N2',
    code: 'PodCidrIgnoredWithAzureCni',
    message:
      'The provided pod CIDR "{pod}" will be overwritten with the node subnet CIDR. To use a pod CIDR, please specify network plugin mode `overlay` or use network plugin `kubenet`. For more information about Azure CNI Overlay please see https://aka.ms/aks/azure-cni-overlay.',
    target: 'networkProfile.podCIDR',
    severity: 'warning',
    source: 'verified',
    ref: 'azure-cli PR #25932 (warning text); hashicorp/terraform-provider-azurerm#1723',
    note: "docs/aks-rules.md §6 X11: the API accepts the field with Azure CNI node subnet and ignores it; we warn with the CLI's words.",
    phases: SPEC,
    perModel: true,
    check: (ctx) => when(ctx.raw.networkProfile?.podCidr !== undefined, { pod: String(ctx.raw.networkProfile?.podCidr) }),
  },
  {
    id: 'N3',
    code: 'PodCidrMissingForByoCni',
    message: 'No pod CIDR was given for network plugin none. If no pod CIDR is provided, control plane to pod communication might fail or be misrouted.',
    target: 'networkProfile.podCIDR',
    severity: 'warning',
    source: 'verified',
    ref: 'use-byo-cni.md ("You must specify a Pod CIDR ... might fail or be misrouted"); CHANGELOG 2024-02-26',
    note: 'docs/aks-rules.md §6 X13: the API accepts a missing pod CIDR, so this is a warning, not an error.',
    phases: ['create'],
    perModel: true,
    check: (ctx) => when(ctx.cluster.network.podCidr === undefined, {}),
  },
  {
    id: 'N4',
    code: 'NetworkPolicyNotSupportedForNone',
    message: "Network policy '{policy}' is not supported with network plugin 'none': no network policy is allowed, bring a CNI that enforces it.",
    target: 'networkProfile.networkPolicy',
    severity: 'error',
    source: 'partial',
    ref: 'RP-ENUM NetworkPolicyNotSupportedForNone',
    phases: SPEC,
    perModel: true,
    check: (ctx) => {
      const p = ctx.cluster.network.networkPolicy;
      return when(p !== undefined && p !== '' && p !== 'none', { policy: p! });
    },
  },
  {
    id: 'N5',
    code: 'NetworkPolicyAzureNotSupportedForKubenet',
    message: "Network policy 'azure' is not supported with network plugin 'kubenet'; use 'calico'.",
    target: 'networkProfile.networkPolicy',
    severity: 'error',
    source: 'partial',
    ref: 'configure-kubenet.md; RP-ENUM NetworkPolicyAzureNotSupportedForKubenet',
    phases: SPEC,
    perModel: true,
    check: (ctx) => when(ctx.cluster.network.networkPolicy === 'azure', {}),
  },
  {
    id: 'N5b',
    code: 'NetworkPolicyNotSupported',
    message: "Network policy '{policy}' is not supported{why}. Supported values are {allowed}.",
    target: 'networkProfile.networkPolicy',
    severity: 'error',
    source: 'partial',
    ref: 'docs/aks-rules.md §1.1, §1.2 (enum by api-version; cilium requires networkDataplane cilium); RP-ENUM NetworkPolicyNotSupported',
    phases: SPEC,
    check: (ctx) => {
      const policy = ctx.cluster.network.networkPolicy;
      if (policy === undefined || policy === '') return none;
      // The version's own enum: cilium from 2023-02-01, none from 2024-07-01 (docs/aks-rules.md §1.2).
      const allowed = ctx.api.networkPolicies;
      const list = allowed.map((a) => `'${a}'`).join(', ');
      if (!allowed.includes(policy)) return one({ policy, why: ` in api-version ${ctx.api.version}`, allowed: list });
      return when(policy === 'cilium' && ctx.cluster.network.networkDataplane !== 'cilium', {
        policy,
        why: " unless networkDataplane is 'cilium'",
        allowed: list,
      });
    },
  },
  {
    id: 'N5c',
    code: 'CiliumDataplaneRequiresNetworkPolicyCilium',
    message: 'Cilium dataplane requires network policy cilium.',
    target: 'networkProfile.networkPolicy',
    severity: 'error',
    source: 'verified',
    ref: "the RP's answer quoted in Azure/AKS-Construction#535 (no policy given) and Azure/bicep-registry-modules#3361 (policy azure), subcode CiliumDataplaneRequiresNetworkPolicyCilium; kubernetes-sigs/cluster-api-provider-azure validates the same (a missing policy included)",
    note: 'Cilium is the only engine of the cilium dataplane: azure, calico or none is refused; no policy at all is set to cilium before the rules run (defaults.ts; docs/aks-rules.md §2.2, §3.7).',
    phases: SPEC,
    check: (ctx) => when(ciliumDataplane(ctx) && String(ctx.cluster.network.networkPolicy ?? '').toLowerCase() !== 'cilium', {}),
  },
  {
    id: 'N5d',
    code: 'BadRequest',
    message: 'Cilium dataplane requires either network plugin mode overlay or pod subnet',
    target: 'networkProfile.networkPluginMode',
    severity: 'error',
    source: 'partial',
    ref: 'the RP\'s answer quoted in Azure/AKS#3484 (2023); hashicorp/terraform-provider-azurerm docs ("network_plugin can only be azure" with the cilium dataplane, PR #19639)',
    note: 'Since April 2025 Azure CNI Powered by Cilium also runs on a node subnet, so of the 2023 check only kubenet and BYO CNI (no Azure CNI at all) remain refused; the wording is the 2023 one.',
    phases: SPEC,
    check: (ctx) => when(ciliumDataplane(ctx) && String(ctx.cluster.network.networkPlugin ?? '').toLowerCase() !== 'azure', {}),
  },
  {
    id: 'N6',
    code: 'NetworkModeNotSupported',
    message: "networkMode '{mode}' can only be specified with network plugin 'azure'.",
    target: 'networkProfile.networkMode',
    severity: 'error',
    source: 'partial',
    ref: 'docs/aks-rules.md §1.1 networkMode description; RP-ENUM NetworkModeNotSupported',
    phases: SPEC,
    check: (ctx) => {
      const mode = ctx.cluster.network.networkMode;
      return when(mode !== undefined && !ctx.model?.rules.networkModes, { mode: String(mode) });
    },
  },
  {
    id: 'N6b',
    code: 'NetworkModeInvalid',
    message: "networkMode '{mode}' is invalid: 'bridge' is no longer supported; use 'transparent'.",
    target: 'networkProfile.networkMode',
    severity: 'error',
    source: 'partial',
    ref: 'docs/aks-rules.md §1.1 ("bridge: This is no longer supported"); RP-ENUM NetworkModeInvalid',
    phases: SPEC,
    check: (ctx) => {
      const mode = ctx.cluster.network.networkMode;
      return when(ctx.model?.rules.networkModes === true && mode !== undefined && mode !== 'transparent', {
        mode: String(mode),
      });
    },
  },
  {
    id: 'N7',
    code: 'AzureCNIOnlyForWindows',
    message: 'Windows agent pools can only be added to AKS clusters using Azure-CNI.',
    target: 'agentPoolProfile.osType',
    severity: 'error',
    source: 'verified',
    ref: 'jenkins-infra/azure PR #108; Azure/AKS#2839',
    phases: ['create', 'update', 'pool-add'],
    check: (ctx) => when(!ctx.model?.rules.windowsPools && poolsInScope(ctx).some((p) => p.osType === 'Windows'), {}),
  },
  {
    id: 'N8',
    code: 'WindowsProfileMissing',
    message: 'Windows profile definition is missing for the cluster.',
    target: 'windowsProfile',
    severity: 'error',
    source: 'verified',
    ref: 'Azure/AKS#2839',
    phases: ['create', 'update', 'pool-add'],
    check: (ctx) => when(!ctx.cluster.windowsProfile && poolsInScope(ctx).some((p) => p.osType === 'Windows'), {}),
  },
  {
    id: 'N15',
    code: 'WindowsAgentPoolNameTooLong',
    message: 'Windows agent pool name can not be longer than 6 characters.',
    target: 'agentPoolProfile.name',
    severity: 'error',
    source: 'verified',
    ref: "jenkins-infra/azure PR #284 (the RP's answer); Azure/AKS#2742, #2929; create-node-pools.md limitations (1–6 characters)",
    phases: ['create', 'update', 'pool-add'],
    check: (ctx) =>
      poolsInScope(ctx)
        .filter((p) => p.osType === 'Windows' && p.name.length > 6)
        .map(() => ({ params: {} })),
  },
  {
    id: 'N16',
    code: 'Windows2019NotSupportedWithOrchestratorVersion',
    message:
      'Cannot create Windows2019 node pools with the current Kubernetes version "{version}" because Windows2019 was deprecated after Kubernetes version "1.33.0". Please create Windows2022 node pools instead.',
    target: 'agentPoolProfile.osSKU',
    severity: 'error',
    source: 'verified',
    ref: "Azure/azure-container-networking PR #3870 (the RP's answer); Azure/AKS#4268; CHANGELOG 2025-01-06 (1.32 is the last version with Windows Server 2019)",
    note: 'Also on upgrade: AKS refuses to move a Windows2019 pool past 1.32 (CHANGELOG 2025-01-06).',
    phases: ['create', 'update', 'upgrade', 'pool-add'],
    check: (ctx) =>
      poolsInScope(ctx)
        .filter(
          (p) => p.osSKU?.toLowerCase() === 'windows2019' && isOfferedVersion(p.orchestratorVersion) && compareVersions(p.orchestratorVersion, '1.33.0') >= 0,
        )
        .map((p) => ({ params: { version: p.orchestratorVersion } })),
  },
  {
    id: 'N9',
    code: 'KubenetNodeCountExceedsRouteLimit',
    message: 'A kubenet cluster can have at most 400 nodes: Azure supports a maximum of 400 routes in a route table. This operation needs {nodes} nodes.',
    target: 'agentPoolProfile.count',
    severity: 'error',
    source: 'ours',
    ref: 'configure-kubenet.md; CHANGELOG 2023-06-25 (create), 2023-09-10 (upgrade)',
    phases: ['create', 'update', 'scale', 'upgrade', 'pool-add'],
    check: (ctx) => {
      const cap = ctx.model?.nodes.maxClusterNodes;
      if (cap === undefined) return none;
      const nodes = clusterNodes(ctx);
      return when(nodes > cap, { nodes });
    },
  },
  {
    id: 'N10',
    code: 'SubnetUsedByAnotherKubenetCluster',
    message:
      "Subnet {subnet} already hosts the kubenet cluster {other}. Don't create more than one AKS cluster in the same subnet: each kubenet cluster needs its own route table.",
    target: 'agentPoolProfile.vnetSubnetID',
    severity: 'error',
    source: 'ours',
    ref: 'configure-kubenet.md ("Don\'t create more than one AKS cluster in the same subnet")',
    phases: ['create', 'pool-add'],
    perModel: true,
    check: (ctx) =>
      uniqueSubnets(ctx)
        .filter((s) => (s.kubenetClusterIds?.length ?? 0) > 0)
        .map((s) => ({ params: { subnet: s.id, other: s.kubenetClusterIds![0]! } })),
  },
  {
    id: 'N11',
    code: 'AzureCNISubnetNotDefined',
    message: 'Agent pool {pool} has a pod subnet but no node subnet: Azure CNI needs vnetSubnetID to be defined.',
    target: 'agentPoolProfile.vnetSubnetID',
    severity: 'error',
    source: 'partial',
    ref: 'RP-ENUM AzureCNISubnetNotDefined ("a subnet is not defined when Azure CNI network plugin is used")',
    note: 'The managed VNet counts as a subnet, so only a pod subnet without a node subnet triggers it.',
    phases: ['create', 'update', 'pool-add'],
    perModel: true,
    check: (ctx) =>
      poolsInScope(ctx)
        .filter((p) => p.podSubnetID && !p.vnetSubnetID)
        .map((p) => ({ params: { pool: p.name } })),
  },
  {
    id: 'N12',
    code: 'AgentPoolsWithEmptySubnetError',
    message: 'The Agentpool {pool} does not have subnet defined.',
    target: 'agentPoolProfile.vnetSubnetID',
    severity: 'error',
    source: 'verified',
    ref: 'Azure/AKS#2927; RP-ENUM AgentPoolsWithEmptySubnetError',
    phases: ['create', 'update', 'pool-add'],
    check: (ctx) => {
      const withSubnet = ctx.cluster.pools.filter((p) => p.vnetSubnetID);
      if (withSubnet.length === 0 || withSubnet.length === ctx.cluster.pools.length) return none;
      return ctx.cluster.pools.filter((p) => !p.vnetSubnetID).map((p) => ({ params: { pool: p.name } }));
    },
  },
  {
    id: 'N12b',
    code: 'AgentPoolsInDifferentVnets',
    message: 'Vnet for subnet {subnet} does not match with other subnet: all agent pools must use subnets of one virtual network ({vnet}).',
    target: 'agentPoolProfile.vnetSubnetID',
    severity: 'error',
    source: 'ours',
    ref: 'acs-engine 2018 text "Vnet for subnet does not match with other subnet" (V-old)',
    phases: ['create', 'update', 'pool-add'],
    check: (ctx) => {
      const subnets = uniqueSubnets(ctx).filter((s) => !s.managed);
      const vnet = subnets[0]?.vnet.id.toLowerCase();
      return subnets.filter((s) => s.vnet.id.toLowerCase() !== vnet).map((s) => ({ params: { subnet: s.id, vnet: subnets[0]!.vnet.id } }));
    },
  },
  {
    id: 'N13',
    code: '(behaviour)',
    message: "With network plugin 'none' AKS doesn't create a route table, allocate pod IPs or preassign per-node pod CIDRs.",
    target: 'networkProfile.networkPlugin',
    severity: 'error',
    source: 'verified',
    ref: 'use-byo-cni.md; CHANGELOG 2025-08-08',
    note: 'A behaviour, not a check: the BYO CNI network model carves no pod CIDR, assigns no pod IP and keeps no route table.',
    phases: [],
    check: () => none,
  },
  {
    id: 'N14',
    code: 'InvalidNodeCountForNPM',
    message: "Azure Network Policy Manager supports at most 250 Linux nodes; this cluster would have {nodes}. Use 'calico' or 'cilium' for larger clusters.",
    target: 'agentPoolProfile.count',
    severity: 'error',
    source: 'partial',
    ref: 'use-network-policies.md; MicrosoftDocs/azure-docs PR #111281; RP-ENUM InvalidNodeCountForNPM',
    phases: ['create', 'update', 'scale', 'pool-add'],
    check: (ctx) => {
      if (ctx.cluster.network.networkPolicy !== 'azure') return none;
      const nodes = totalNodes(
        ctx.cluster.pools.filter((p) => p.osType !== 'Windows'),
        createNodes,
      );
      return when(nodes > 250, { nodes });
    },
  },

  // ---- docs/aks-rules.md §2.9 Azure CNI with a pod subnet ----------------------------------------------------
  {
    id: 'PS1',
    code: 'InvalidParameter',
    message: 'The value of parameter agentPoolProfile.podIPAllocationMode is invalid: {why}',
    target: 'agentPoolProfile.podIPAllocationMode',
    severity: 'error',
    source: 'partial',
    ref: 'SPEC podIPAllocationMode ("Must be used with podSubnetId. The default is \'DynamicIndividual\'."; enum DynamicIndividual, StaticBlock)',
    note: "The code is the RP's for a bad parameter value (M4); the wording after the colon is ours.",
    phases: POOLS,
    check: (ctx) =>
      poolsInScope(ctx).flatMap((p) => {
        const given = p.podIPAllocationMode;
        if (given === undefined) return none;
        if (!p.podSubnetID) return one({ why: `${given} must be used with podSubnetID.` });
        const known = POD_IP_ALLOCATION_MODES.some((m) => m.toLowerCase() === String(given).toLowerCase());
        return when(!known, { why: `'${String(given)}' is not one of ${POD_IP_ALLOCATION_MODES.join(', ')}.` });
      }),
  },
  {
    id: 'PS2',
    code: 'InvalidResourceReference',
    message: RESOURCE_NOT_FOUND,
    target: 'agentPoolProfile.podSubnetID',
    severity: 'error',
    source: 'partial',
    ref: "S3's answer for the pod subnet (SUPPORT error-code-invalidresourcereference.md)",
    phases: ['create', 'update', 'pool-add'],
    check: (ctx) =>
      poolsInScope(ctx)
        .filter((p) => p.podSubnetID && missingOrElsewhere(ctx, podSubnetOfPool(ctx.env, p)))
        .map((p) => ({ params: { subnet: p.podSubnetID!, vmss: vmssId(ctx.env, p.name) } })),
  },
  {
    id: 'PS3',
    code: 'PodSubnetNotInNodeSubnetVnet',
    message:
      'Pod subnet {pod} of agent pool {pool} is not in virtual network {vnet} of its node subnet: the pod subnet must be in the same virtual network as the cluster.',
    target: 'agentPoolProfile.podSubnetID',
    severity: 'error',
    source: 'ours',
    ref: 'MicrosoftDocs/azure-docs#94229 (the FAQ: "The pod subnet should be from the same VNet as the cluster.")',
    phases: ['create', 'update', 'pool-add'],
    check: (ctx) =>
      poolsInScope(ctx).flatMap((p) => {
        const pod = podSubnetOfPool(ctx.env, p);
        const node = p.vnetSubnetID ? subnetOfPool(ctx.env, p) : undefined;
        return pod && node && !sameId(pod.vnet.id, node.vnet.id) ? one({ pod: pod.id, pool: p.name, vnet: node.vnet.id }) : none;
      }),
  },
  {
    id: 'PS4',
    code: 'PodSubnetSameAsNodeSubnet',
    message: 'Agent pool {pool} uses subnet {subnet} for both nodes and pods: with a pod subnet, pods and nodes (VMs) need subnets of their own.',
    target: 'agentPoolProfile.podSubnetID',
    severity: 'error',
    source: 'ours',
    ref: 'AKSDOCS concepts-network-legacy-cni FAQ ("for Azure CNI for dynamic IP allocation, VMs cannot be deployed in the pod\'s subnet")',
    phases: ['create', 'update', 'pool-add'],
    check: (ctx) =>
      poolsInScope(ctx)
        .filter((p) => p.podSubnetID && p.vnetSubnetID && sameId(p.podSubnetID, p.vnetSubnetID))
        .map((p) => ({ params: { pool: p.name, subnet: p.podSubnetID! } })),
  },
  {
    id: 'PS5',
    code: 'SubnetIsDelegated',
    message:
      "AgentPoolProfile subnet with id {subnet} cannot be used as it's a delegated subnet. Please check https://aka.ms/adv-network-prerequest for more details.",
    target: 'agentPoolProfile.podSubnetID',
    severity: 'error',
    source: 'partial',
    ref: "S1's answer for the pod subnet (SUPPORT error-codes/subnetisdelegated-error.md)",
    note: 'As S1 (X5): a delegation to Microsoft.ContainerService/managedClusters is accepted, any other refused.',
    phases: ['create', 'update', 'pool-add'],
    check: (ctx) => {
      const seen = new Set<string>();
      return poolsInScope(ctx).flatMap((p) => {
        const s = podSubnetOfPool(ctx.env, p);
        if (!s || seen.has(s.id.toLowerCase())) return none;
        seen.add(s.id.toLowerCase());
        const foreign = (s.delegations ?? []).some((d) => d.toLowerCase() !== 'microsoft.containerservice/managedclusters');
        return when(foreign, { subnet: s.id });
      });
    },
  },
  {
    id: 'PS6',
    code: 'InsufficientSubnetSize',
    message:
      'Pre-allocated IPs {required} exceeds IPs available {available} in Subnet Cidr {cidr}, Subnet Name {name}. http://aka.ms/aks/insufficientsubnetsize',
    target: 'agentPoolProfile.podSubnetID',
    severity: 'error',
    source: 'partial',
    ref: "K1's template (Azure/AKS#3653) against the pod subnet; 16 addresses per new node in dynamic mode (MicrosoftDocs/azure-docs#97370: a /24 holds 15 nodes), ⌈maxPods / 16⌉ /28 blocks in static mode (SPEC PodIPAllocationMode)",
    note: 'Counts the nodes K1 counts (maxCount under the autoscaler at create, the added nodes on scale, the surge on upgrade).',
    phases: ['create', 'update', 'scale', 'upgrade', 'pool-add'],
    check: (ctx) =>
      podSubnetDemands(ctx.cluster, ctx.env, newNodeCounter(ctx))
        .filter((d) => d.required > d.available)
        .map((d) => ({ params: { required: d.required, available: d.available, cidr: String(d.cidr), name: d.subnet.name } })),
  },
  {
    id: 'PS7',
    code: 'SubnetIsFull',
    message: 'Subnet {name} with address prefix {cidr} does not have enough capacity for {count} IP addresses.',
    target: 'agentPoolProfile.podSubnetID',
    severity: 'error',
    source: 'partial',
    ref: "K4's answer for the pod subnet (SUPPORT error-code-subnetisfull.md)",
    note: 'Raised by the planner when a new node finds no batch or block left in its pod subnet (src/aks/planner.ts).',
    phases: [],
    check: () => none,
  },

  // ---- docs/aks-rules.md §2.3 Subnet properties and permissions --------------------------------------------
  {
    id: 'S3',
    code: 'InvalidResourceReference',
    message: RESOURCE_NOT_FOUND,
    target: 'agentPoolProfile.vnetSubnetID',
    severity: 'error',
    source: 'verified',
    ref: 'SUPPORT error-code-invalidresourcereference.md',
    phases: ['create', 'update', 'pool-add'],
    check: (ctx) =>
      poolsInScope(ctx)
        .filter((p) => p.vnetSubnetID && missingOrElsewhere(ctx, subnetOfPool(ctx.env, p)))
        .map((p) => ({ params: { subnet: p.vnetSubnetID!, vmss: vmssId(ctx.env, p.name) } })),
  },
  {
    id: 'S7',
    code: 'VirtualNetworkNotInSucceededState',
    message: "The virtual network {vnet} is in provisioning state '{state}'; it must be 'Succeeded' before a cluster can use it.",
    target: 'agentPoolProfile.vnetSubnetID',
    severity: 'error',
    source: 'partial',
    ref: 'RP-ENUM VirtualNetworkNotInSucceededState',
    phases: ['create', 'update', 'pool-add'],
    check: (ctx) =>
      uniqueSubnets(ctx)
        .filter((s) => s.vnet.provisioningState !== undefined && s.vnet.provisioningState !== 'Succeeded')
        .map((s) => ({ params: { vnet: s.vnet.id, state: s.vnet.provisioningState! } })),
  },
  {
    id: 'S1',
    code: 'SubnetIsDelegated',
    message:
      "AgentPoolProfile subnet with id {subnet} cannot be used as it's a delegated subnet. Please check https://aka.ms/adv-network-prerequest for more details.",
    target: 'agentPoolProfile.vnetSubnetID',
    severity: 'error',
    source: 'verified',
    ref: 'SUPPORT error-codes/subnetisdelegated-error.md; MicrosoftDocs/azure-docs#69774',
    note: 'docs/aks-rules.md §6 X5: a delegation to Microsoft.ContainerService/managedClusters is accepted (the 2025 support article); any other is refused.',
    phases: ['create', 'update', 'pool-add'],
    check: (ctx) =>
      uniqueSubnets(ctx)
        .filter((s) => (s.delegations ?? []).some((d) => d.toLowerCase() !== 'microsoft.containerservice/managedclusters'))
        .map((s) => ({ params: { subnet: s.id } })),
  },
  {
    id: 'S2',
    code: 'SubnetWithExternalResourcesCannotBeUsedByOtherResources',
    message:
      'Subnet {subnet} referenced by {cluster} cannot be used because it contains external resources. The external resources in this subnet are {resources}. You need to delete these external resources before deploying into this subnet.',
    target: 'agentPoolProfile.vnetSubnetID',
    severity: 'error',
    source: 'verified',
    ref: 'SUPPORT subnet-with-external-resources-cannot-be-used-by-other-resources.md',
    phases: ['create', 'update', 'pool-add'],
    check: (ctx) =>
      uniqueSubnets(ctx)
        .filter((s) => (s.externalResources?.length ?? 0) > 0)
        .map((s) => ({
          params: {
            subnet: s.id,
            cluster: vmssId(ctx.env, ctx.cluster.pools[0]?.name ?? 'nodepool1'),
            resources: s.externalResources!.join(', '),
          },
        })),
  },
  {
    id: 'S4',
    code: 'LinkedAuthorizationFailed',
    message:
      "The client '{clientId}' with object id '{objectId}' has permission to perform action 'Microsoft.Compute/virtualMachineScaleSets/write' on scope '{vmss}'; however, it does not have permission to perform action '{action}' on the linked scope(s) '{scope}' or the linked scope(s) are invalid.",
    target: 'agentPoolProfile.vnetSubnetID',
    severity: 'error',
    source: 'verified',
    ref: 'Azure/AKS#27; Azure/aad-pod-identity#511; concepts-network-legacy-cni.md (required actions)',
    note: 'docs/aks-rules.md §6 X6: subnets/join/action and subnets/read are required; roleAssignments/write is not.',
    phases: ['create', 'update', 'pool-add'],
    check: (ctx) =>
      subnetsOfCluster(ctx)
        .flatMap(({ pool, subnet }) => {
          const a = subnet.access;
          if (!a || subnet.managed) return none;
          const missing = ['Microsoft.Network/virtualNetworks/subnets/join/action', 'Microsoft.Network/virtualNetworks/subnets/read'].find(
            (action) => !a.actions.includes(action),
          );
          return when(missing !== undefined, {
            clientId: a.clientId,
            objectId: a.objectId,
            vmss: vmssId(ctx.env, pool.name),
            action: missing ?? '',
            scope: subnet.id,
          });
        })
        .slice(0, 1),
  },
  {
    id: 'S5',
    code: 'LinkedAuthorizationFailed',
    message:
      "The client '{clientId}' with object id '{objectId}' has permission to perform action 'Microsoft.Compute/virtualMachineScaleSets/write' on scope '{vmss}'; however, it does not have permission to perform action 'Microsoft.Network/routeTables/join/action' on the linked scope(s) '{scope}' or the linked scope(s) are invalid.",
    target: 'agentPoolProfile.vnetSubnetID',
    severity: 'error',
    source: 'verified',
    ref: 'microsoft/planetary-computer-hub#25',
    phases: ['create', 'pool-add'],
    perModel: true,
    check: (ctx) =>
      uniqueSubnets(ctx)
        .filter((s) => s.routeTableId && s.routeTableAccess && !s.routeTableAccess.actions.includes('Microsoft.Network/routeTables/join/action'))
        .map((s) => ({
          params: {
            clientId: s.routeTableAccess!.clientId,
            objectId: s.routeTableAccess!.objectId,
            vmss: vmssId(ctx.env, ctx.cluster.pools[0]?.name ?? 'nodepool1'),
            scope: s.routeTableId!,
          },
        })),
  },
  {
    id: 'S6',
    code: '(cli warning)',
    message: 'Could not create a role assignment for subnet. Are you an Owner on this subscription?',
    target: 'vnetSubnetID',
    severity: 'warning',
    source: 'verified',
    ref: 'Azure/AKS#614',
    note: 'Printed by the CLI when it cannot assign Network Contributor on a BYO subnet; raised by `aksemu az`, never by the API.',
    phases: [],
    check: () => none,
  },

  // ---- docs/aks-rules.md §2.4 maxPods, count and autoscaler ------------------------------------------------
  {
    id: 'M11',
    code: 'InvalidParameter',
    message: 'The value of parameter agentPoolProfile.name is invalid. Please see https://aka.ms/aks-naming-rules for more details.',
    target: 'agentPoolProfile.name',
    severity: 'error',
    source: 'partial',
    ref: 'docs/aks-rules.md §1.3 name pattern ^[a-z][a-z0-9]{0,11}$ (a Windows name over 6 characters is N15); message template as M4',
    phases: ['create', 'update', 'pool-add'],
    check: (ctx) =>
      poolsInScope(ctx)
        .filter((p) => !/^[a-z][a-z0-9]{0,11}$/.test(p.name))
        .map(() => ({ params: {} })),
  },
  {
    id: 'M6',
    code: 'InvalidParameter',
    message: 'Required parameter properties.count is missing (null).',
    target: 'properties.count',
    severity: 'error',
    source: 'verified',
    ref: 'pulumi/pulumi-kubernetes#2704',
    note: 'Agent pool PUT only; a cluster PUT defaults count to 1 (docs/aks-rules.md §1.3).',
    phases: ['pool-add'],
    check: (ctx) => {
      const raw = ctx.raw.agentPoolProfiles?.find((p) => p.name === ctx.poolName);
      return when(raw !== undefined && (raw.count === undefined || raw.count === null), {});
    },
  },
  {
    id: 'M4',
    code: 'InvalidParameter',
    message: 'The value of parameter agentPoolProfile.count is invalid. Please see https://aka.ms/aks-naming-rules for more details.',
    target: 'agentPoolProfile.count',
    severity: 'error',
    source: 'verified',
    ref: 'docs/aks-rules.md §1.3 (0..1000 user, 1..1000 system); azure-cli PR #22442',
    phases: POOLS,
    check: (ctx) =>
      poolsInScope(ctx)
        .filter((p) => !isInt(p.count) || p.count < (p.mode === 'System' ? 1 : 0) || p.count > 1000)
        .map(() => ({ params: {} })),
  },
  {
    id: 'M1',
    code: 'InsufficientMaxPods',
    message: 'The value of parameter agentPoolProfile.maxPods is invalid: {maxPods} is below the minimum of 10 pods per node.',
    target: 'agentPoolProfile.maxPods',
    severity: 'error',
    source: 'partial',
    ref: 'concepts-network-ip-address-planning.md; CHANGELOG 2019-10-28; Azure/AKS#931; RP-ENUM InsufficientMaxPods',
    phases: ['create', 'update', 'pool-add'],
    check: (ctx) =>
      poolsInScope(ctx)
        .filter((p) => !isInt(p.maxPods) || p.maxPods < 10)
        .map((p) => ({ params: { maxPods: String(p.maxPods) } })),
  },
  {
    id: 'M3',
    code: 'MaxPodsLimitExceeded',
    message: 'The value of parameter agentPoolProfile.maxPods is invalid: {maxPods} is above the maximum of 250 pods per node.',
    target: 'agentPoolProfile.maxPods',
    severity: 'error',
    source: 'partial',
    ref: 'MicrosoftDocs/azure-docs PR #108215 ("Beyond 250 hits RP validation"); configure-kubenet.md; RP-ENUM MaxPodsLimitExceeded',
    note: 'docs/aks-rules.md §6 X10: 250 for every plugin, kubenet included (a 2023 doc PR claiming 110 for kubenet was wrong).',
    phases: ['create', 'update', 'pool-add'],
    check: (ctx) =>
      poolsInScope(ctx)
        .filter((p) => isInt(p.maxPods) && p.maxPods > 250)
        .map((p) => ({ params: { maxPods: p.maxPods } })),
  },
  {
    id: 'M1b',
    code: 'InsufficientAgentPoolMaxPodsPerAgentPool',
    message:
      'Agent pool {pool} has room for {total} pods ({count} nodes × {maxPods} max pods); a pool using fewer than 30 max pods per node must have room for at least 30 pods.',
    target: 'agentPoolProfile.maxPods',
    severity: 'error',
    source: 'partial',
    ref: 'CHANGELOG 2019-10-28 ("30 per Nodepool"); Azure/AKS#931 (maxPods 10 needs 3 nodes); RP-ENUM',
    note: 'Applies only below 30 max pods, so user pools scaled to 0 with the default maxPods stay valid.',
    phases: POOLS,
    check: (ctx) =>
      poolsInScope(ctx)
        .filter((p) => isInt(p.maxPods) && isInt(p.count) && p.maxPods >= 10 && p.maxPods < 30 && p.count * p.maxPods < 30)
        .map((p) => ({ params: { pool: p.name, total: p.count * p.maxPods, count: p.count, maxPods: p.maxPods } })),
  },
  {
    id: 'M5',
    code: 'InvalidParameter',
    message: 'The value of parameter agentPoolProfile.{field} is invalid. Please see https://aka.ms/aks-naming-rules for more details.',
    target: 'agentPoolProfile.minCount',
    severity: 'error',
    source: 'verified',
    ref: 'Azure/AKS#2670 (minCount text); the maxCount and count-in-range variants follow the same template (ours)',
    phases: POOLS,
    check: (ctx) =>
      poolsInScope(ctx).flatMap((p) => {
        if (!p.enableAutoScaling) {
          return when(p.minCount !== undefined || p.maxCount !== undefined, { field: 'enableAutoScaling' }, 'agentPoolProfile.enableAutoScaling');
        }
        const lo = p.mode === 'System' ? 1 : 0;
        if (!isInt(p.minCount) || p.minCount < lo || p.minCount > 1000) return one({ field: 'minCount' });
        if (!isInt(p.maxCount) || p.maxCount < p.minCount || p.maxCount > 1000) {
          return one({ field: 'maxCount' }, 'agentPoolProfile.maxCount');
        }
        return when(isInt(p.count) && (p.count < p.minCount || p.count > p.maxCount), { field: 'count' }, 'agentPoolProfile.count');
      }),
  },
  {
    id: 'M7',
    code: 'MustDefineAtLeastOneSystemPool',
    message: 'There has to be at least one system agent pool.',
    target: 'agentPoolProfile.mode',
    severity: 'error',
    source: 'verified',
    ref: 'Azure/azure-cli#13420; docs/aks-rules.md §1.3 mode',
    phases: ['create', 'update', 'pool-delete', 'pool-add'],
    check: (ctx) => {
      const remaining = ctx.phase === 'pool-delete' ? ctx.cluster.pools.filter((p) => p.name !== ctx.poolName) : ctx.cluster.pools;
      return when(!remaining.some((p) => p.mode === 'System'), {});
    },
  },
  {
    id: 'M7b',
    code: 'SystemPoolMustBeLinux',
    message: 'System agent pool {pool} must use osType Linux.',
    target: 'agentPoolProfile.osType',
    severity: 'error',
    source: 'partial',
    ref: 'docs/aks-rules.md §1.3 ("System agent pools osType must be Linux"); RP-ENUM SystemPoolMustBeLinux',
    phases: ['create', 'update', 'pool-add'],
    check: (ctx) =>
      poolsInScope(ctx)
        .filter((p) => p.mode === 'System' && p.osType !== 'Linux')
        .map((p) => ({ params: { pool: p.name } })),
  },
  {
    id: 'M7c',
    code: 'SystemPoolSkuTooLow',
    message: 'System agent pool {pool} uses VM size {vmSize} ({vcpus} vCPU, {memory} GiB); system pools need at least 2 vCPUs and 4 GiB of memory.',
    target: 'agentPoolProfile.vmSize',
    severity: 'error',
    source: 'partial',
    ref: 'docs/aks-rules.md §1.3 ("System agent pools VM SKU must have at least 2vCPUs and 4GB of memory"); RP-ENUM SystemPoolSkuTooLow',
    phases: ['create', 'update', 'pool-add'],
    check: (ctx) =>
      poolsInScope(ctx).flatMap((p) => {
        const size = p.mode === 'System' ? vmSize(p.vmSize) : undefined;
        return when(!!size && (size.vcpus < 2 || size.memoryGiB < 4), {
          pool: p.name,
          vmSize: p.vmSize,
          vcpus: size?.vcpus ?? 0,
          memory: size?.memoryGiB ?? 0,
        });
      }),
  },
  {
    id: 'M8',
    code: '(cli)',
    message:
      '--min-count must be in the range [0,1000]; --max-count must be in the range [0,1000]; --max-surge must be positive; --max-surge should be an int or percentage; --nodepool-name can contain at most 12 characters; --nodepool-name should contain only alphanumeric characters',
    target: 'cli',
    severity: 'error',
    source: 'verified',
    ref: 'azure-cli acs/_validators.py @010cc060',
    note: 'Client-side checks: raised by `aksemu plan` and `aksemu az` flag parsing (src/aks/az-validators.ts), never by the API.',
    phases: [],
    check: () => none,
  },
  {
    id: 'M9',
    code: 'MaxAgentPoolCountReached',
    message: 'A cluster can have at most 100 agent pools; this one would have {pools}.',
    target: 'agentPoolProfiles',
    severity: 'error',
    source: 'partial',
    ref: 'container-service-limits.md; RP-ENUM MaxAgentPoolCountReached',
    phases: ['create', 'update', 'pool-add'],
    check: (ctx) => when(ctx.cluster.pools.length > 100, { pools: ctx.cluster.pools.length }),
  },
  {
    id: 'M9b',
    code: 'AgentPoolMaxCountExceeded',
    message: 'A cluster can have at most 5000 nodes across all agent pools; this operation needs {nodes}.',
    target: 'agentPoolProfile.count',
    severity: 'error',
    source: 'partial',
    ref: 'container-service-limits.md (5,000 nodes per cluster); RP-ENUM AgentPoolMaxCountExceeded',
    phases: ['create', 'update', 'scale', 'pool-add'],
    check: (ctx) => {
      const nodes = totalNodes(ctx.cluster.pools, createNodes);
      return when(nodes > MAX_CLUSTER_NODES, { nodes });
    },
  },
  {
    id: 'M10',
    code: 'InvalidMaxSurge',
    message: "The maxSurge value '{value}' of agent pool {pool} is invalid: it must be a positive integer (e.g. '5') or a positive percentage (e.g. '33%').",
    target: 'agentPoolProfile.upgradeSettings.maxSurge',
    severity: 'error',
    source: 'ours',
    ref: 'CHANGELOG 2023-11-05 ("max_surge must be > 0"); docs/aks-rules.md §1.3 upgradeSettings.maxSurge',
    phases: ['create', 'update', 'upgrade', 'pool-add'],
    check: (ctx) =>
      poolsInScope(ctx)
        .filter((p) => !/^([1-9]\d*|[1-9]\d?%|100%)$/.test(String(p.maxSurge).trim()))
        .map((p) => ({ params: { value: String(p.maxSurge), pool: p.name } })),
  },
  {
    id: 'V1',
    code: 'AgentPoolK8sVersionNotSupported',
    message: VERSION_NOT_SUPPORTED,
    target: 'properties.kubernetesVersion',
    severity: 'error',
    source: 'ours',
    ref: 'the AKS version error as commonly reported; the catalogue is src/aks/kubernetes-versions.ts',
    phases: ['create', 'update', 'upgrade'],
    check: (ctx) => when(!ctx.cluster.kubernetesVersionKnown, { version: ctx.cluster.kubernetesVersion }),
  },
  {
    id: 'V1b',
    code: 'AgentPoolK8sVersionNotSupported',
    message: VERSION_NOT_SUPPORTED,
    target: 'agentPoolProfile.orchestratorVersion',
    severity: 'error',
    source: 'ours',
    ref: "V1's code and message for a pool's orchestratorVersion: a pool runs a version the location offers, as the cluster does",
    note: "A pool that takes the cluster's version (none of its own) is left to V1, so one bad version is reported once.",
    phases: POOL_VERSION_PHASES,
    check: (ctx) =>
      poolsInScope(ctx)
        .filter((p) => !isOfferedVersion(p.orchestratorVersion) && p.orchestratorVersion !== ctx.cluster.kubernetesVersion)
        .map((p) => ({ params: { version: p.orchestratorVersion } })),
  },
  {
    id: 'V2',
    code: 'NodePoolMcVersionIncompatible',
    message:
      'Node pool version {pool} and control plane version {cp} are incompatible. Minor version of node pool version {poolMinor} is bigger than control plane version {cpMinor}. For more information, please check https://aka.ms/aks/UpgradeVersionRules',
    target: 'agentPoolProfile.orchestratorVersion',
    severity: 'error',
    source: 'verified',
    ref: 'Azure/terraform-azurerm-aks#465 (2023 paste, this link); rancher/rancher#33426 (2021, aka.ms/version-skew-policy); SUPPORT nodepoolmcversionincompatible-error.md',
    phases: POOL_VERSION_PHASES,
    check: (ctx) =>
      poolSkews(ctx)
        .filter((s) => s.ahead > 0)
        .map((s) => ({ params: s.params })),
  },
  {
    id: 'V3',
    code: 'NodePoolMcVersionIncompatible',
    message:
      "Node pool version {pool} and control plane version {cp} is incompatible. Minor version of node pool cannot be more than {skew} versions less than control plane's version. Minor version of node pool is {poolMinor} and control plane is {cpMinor}. For more information, please check https://aka.ms/aks/UpgradeVersionRules",
    target: 'agentPoolProfile.orchestratorVersion',
    severity: 'error',
    source: 'verified',
    ref: 'SUPPORT aks-upgrade-blocked.md (2025: this text with 3, "Starting with Kubernetes 1.28, AKS allows the control plane to be up to three minor versions ahead of node pools"); SUPPORT nodepoolmcversionincompatible-error.md (2024: the same with 2); spec orchestratorVersion ("within two minor versions")',
    note: 'Three minors from control plane 1.28 on, two before (kubernetes-versions.ts maxPoolMinorSkew). The published texts differ in "is"/"are" and the link; we keep the newer article\'s words with the link of the verified V2 paste.',
    phases: POOL_VERSION_PHASES,
    check: (ctx) =>
      poolSkews(ctx)
        .filter((s) => s.behind > s.skew)
        .map((s) => ({ params: { ...s.params, skew: s.skew } })),
  },
  {
    id: 'L1',
    code: 'NodeLabelKeyNotAllowed',
    message: "Node label key '{key}' of agent pool {pool} is not allowed: the prefixes kubernetes.azure.com/ and kubernetes.io/ are reserved for AKS.",
    target: 'agentPoolProfile.nodeLabels',
    severity: 'error',
    source: 'partial',
    ref: 'use-labels.md (reserved prefixes, 2021-08-19); RP-ENUM-style code',
    phases: ['create', 'update', 'pool-add'],
    check: (ctx) =>
      (ctx.raw.agentPoolProfiles ?? []).flatMap((p) =>
        Object.keys(p.nodeLabels ?? {})
          .filter((k) => /^([^/]*\.)?(kubernetes\.azure\.com|kubernetes\.io)\//.test(k))
          .map((key) => ({ params: { key, pool: String(p.name ?? '') } })),
      ),
  },

  // ---- docs/aks-rules.md §2.5 IP capacity --------------------------------------------------------------------
  {
    id: 'K1',
    code: 'InsufficientSubnetSize',
    message:
      'Pre-allocated IPs {required} exceeds IPs available {available} in Subnet Cidr {cidr}, Subnet Name {name}. http://aka.ms/aks/insufficientsubnetsize',
    target: 'agentPoolProfile.count',
    severity: 'error',
    source: 'verified',
    ref: 'Azure/AKS#3653 (2023-05 template); counts: nodes × (maxPods+1) for Azure CNI node subnet, 1 per node otherwise (docs/aks-rules.md §2.5, §6 X9)',
    note: 'Create counts maxCount under the autoscaler and no surge; scale counts the added nodes; upgrade the surge nodes.',
    phases: ['create', 'update', 'scale', 'upgrade', 'pool-add'],
    check: (ctx) => {
      if (!ctx.model) return none;
      return subnetDemands(ctx.cluster, ctx.env, ctx.model, newNodeCounter(ctx))
        .filter((d) => d.required > d.available)
        .map((d) => ({ params: { required: d.required, available: d.available, cidr: String(d.cidr), name: d.subnet.name } }));
    },
  },
  {
    id: 'K2',
    code: 'InsufficientPodCidr',
    message: 'Pre-allocated IPs {required} exceeds IPs available {available} in Pod Cidr {cidr}',
    target: 'agentPoolProfile.count',
    severity: 'error',
    source: 'verified',
    ref: 'Azure/AKS-Construction#357 (768 = 3 × 256 against a /24)',
    phases: ['create', 'update', 'scale', 'upgrade', 'pool-add'],
    perModel: true,
    check: (ctx) => podCidrShortfall(ctx),
  },
  {
    id: 'K3',
    code: 'InsufficientSubnetSize',
    message:
      'Pre-allocated IPs {required} exceeds IPs available {available} in Subnet Cidr {cidr}, Subnet Name networkProfile.podCIDR. If Autoscaler is enabled, the max-count from each nodepool is counted towards this total (which means that pre-allocated IPs count represents a theoretical max value, not the actual number of IPs requested). http://aka.ms/aks/insufficientsubnetsize',
    target: 'networkProfile.podCIDR',
    severity: 'error',
    source: 'verified',
    ref: 'Azure/AKS-Construction#701 (1280 = 5 × 256 against a /22); CHANGELOG 2023-05-07',
    phases: ['create', 'update', 'scale', 'upgrade', 'pool-add'],
    perModel: true,
    check: (ctx) => podCidrShortfall(ctx),
  },
  {
    id: 'K4',
    code: 'SubnetIsFull',
    message: 'Subnet {name} with address prefix {cidr} does not have enough capacity for {count} IP addresses.',
    target: 'agentPoolProfile.vnetSubnetID',
    severity: 'error',
    source: 'verified',
    ref: 'SUPPORT error-code-subnetisfull.md; Azure/AKS#2531, #2119',
    note: 'Raised by the allocator when addresses run out at NIC time (src/aks/planner.ts), not by pre-flight validation.',
    phases: [],
    check: () => none,
  },

  // ---- docs/aks-rules.md §2.6 Mutability -------------------------------------------------------------------
  {
    id: 'U1',
    code: 'PropertyChangeNotAllowed',
    message: CHANGE_NOT_ALLOWED,
    target: 'networkProfile',
    severity: 'error',
    source: 'verified',
    ref: 'kubernetes/autoscaler#1051; Azure/AKS#409, #3369; azure-cli#24764',
    note: 'networkPlugin may only move kubenet → azure overlay or azure node subnet → azure overlay (update-azure-cni.md, rule U2); pod CIDR is changeable for none, and may only grow for overlay (U3).',
    phases: ['update'],
    check: (ctx) => {
      const before = ctx.previous?.network;
      if (!before) return none;
      const after = ctx.cluster.network;
      const out: Finding[] = [];
      const changed = (k: 'serviceCidr' | 'dnsServiceIP' | 'networkPlugin' | 'podCidr' | 'networkPluginMode') => (before[k] ?? '') !== (after[k] ?? '');
      const from = networkModelOf(ctx.previous!);
      if ((changed('networkPlugin') || changed('networkPluginMode')) && !migrates(ctx)) {
        out.push({
          params: { path: changed('networkPlugin') ? 'networkProfile.networkPlugin' : 'networkProfile.networkPluginMode' },
          target: 'networkProfile.networkPlugin',
        });
      }
      if (changed('serviceCidr')) out.push({ params: { path: 'networkProfile.serviceCidr' }, target: 'networkProfile.serviceCIDR' });
      if (changed('dnsServiceIP')) out.push({ params: { path: 'networkProfile.dnsServiceIP' }, target: 'networkProfile.dnsServiceIP' });
      if (changed('podCidr') && from?.rules.podCidrUpdate === 'fixed' && ctx.model === from) {
        out.push({ params: { path: 'networkProfile.podCidr' }, target: 'networkProfile.podCIDR' });
      }
      for (const pool of ctx.cluster.pools) {
        const old = previousPool(ctx, pool.name);
        if (!old) continue;
        if ((old.vnetSubnetID ?? '').toLowerCase() !== (pool.vnetSubnetID ?? '').toLowerCase()) {
          out.push({ params: { path: 'agentPoolProfile.vnetSubnetID' }, target: 'agentPoolProfile.vnetSubnetID' });
        }
        if (old.maxPods !== pool.maxPods) out.push({ params: { path: 'agentPoolProfile.maxPods' }, target: 'agentPoolProfile.maxPods' });
        if (old.osType !== pool.osType) out.push({ params: { path: 'agentPoolProfile.osType' }, target: 'agentPoolProfile.osType' });
      }
      return out;
    },
  },
  {
    id: 'U2',
    code: 'NetworkPluginMigrationNotAllowed',
    message: 'Migrating network plugin {from} to Azure CNI Overlay requires {requirement}.',
    target: 'networkProfile.networkPlugin',
    severity: 'error',
    source: 'ours',
    ref: 'update-azure-cni.md (Kubernetes ≥ 1.27, no Calico, --pod-cidr required from node subnet); CHANGELOG 2023-11-28',
    phases: ['update'],
    check: (ctx) => {
      const before = ctx.previous?.network;
      if (!before || !migrates(ctx)) return none;
      const model = networkModelOf(ctx.previous!)!;
      const from = model.label;
      const out: Finding[] = [];
      if (minorOf(ctx.cluster.kubernetesVersion) < 27) out.push({ params: { from, requirement: 'Kubernetes version 1.27 or later' } });
      if (before.networkPolicy === 'calico') out.push({ params: { from, requirement: "no Calico network policy ('networkPolicy: calico' is set)" } });
      // From a model that ignores the pod CIDR, the overlay needs one given.
      if (model.podCidr === 'ignored' && !ctx.raw.networkProfile?.podCidr) {
        out.push({ params: { from, requirement: 'a pod CIDR (networkProfile.podCidr)' }, target: 'networkProfile.podCIDR' });
      }
      return out;
    },
  },
  {
    id: 'U3',
    code: 'PodCidrShrinkNotAllowed',
    message: 'The overlay pod CIDR can only be expanded to a range that contains the current one: {after} does not contain {before}.',
    target: 'networkProfile.podCIDR',
    severity: 'error',
    source: 'ours',
    ref: 'azure-cni-overlay-pod-expand.md (superset only)',
    phases: ['update'],
    check: (ctx) => {
      const before = ctx.previous?.network;
      const after = ctx.cluster.network;
      // Judged on the modes alone: both name a model whose pod CIDR may only grow.
      const growOnly = (mode: string | undefined) => modelOfMode(mode)?.rules.podCidrUpdate === 'grow-only';
      if (!before || !growOnly(before.networkPluginMode) || !growOnly(after.networkPluginMode)) return none;
      const b = parseCidrField(before.podCidr).value;
      const a = ctx.parsed.podCidr.value;
      return when(!!a && !!b && !a.containsCidr(b), { before: String(b), after: String(a) });
    },
  },
  {
    id: 'U4',
    code: 'UpdatingOutboundTypeNotAllowed',
    message: "Changing outboundType from '{from}' to '{to}' is not allowed: it can only be set at cluster creation time.",
    target: 'networkProfile.outboundType',
    severity: 'error',
    source: 'partial',
    ref: 'spec 2022-06-01 outboundType ("cannot be changed later"); RP-ENUM UpdatingOutboundTypeNotAllowed',
    phases: ['update'],
    check: (ctx) => {
      const from = ctx.previous?.network.outboundType;
      const to = ctx.cluster.network.outboundType;
      return when(from !== undefined && from !== to && !ctx.api.networkPolicyNoneDefault, { from: from ?? '', to });
    },
  },
  {
    id: 'U5',
    code: 'PropertyChangeNotAllowed',
    message: 'Changing property "agentPoolProfile.vmSize" is not allowed{why}.',
    target: 'agentPoolProfile.vmSize',
    severity: 'error',
    source: 'verified',
    ref: 'Azure/bicep-registry-modules#7130 (the RP\'s text and target, 2026); AKSDOCS manage-node-pools ("You can\'t change the VM size of a node pool after you create it"), resize-node-pool (in-place resize is a preview)',
    note: `The RP refuses the change in api-versions before ${VM_SIZE_CHANGE_API} with the verified text. From that version a VMSS pool resizes in place only with the preview feature AgentPoolVMSSResize registered (azure-cli-extensions PR #9732), which aksemu does not offer: 2026-04-01 refuses it too, with our ending. VM sizes compare without case.`,
    phases: ['update'],
    check: (ctx) =>
      ctx.cluster.pools.flatMap((pool) => {
        const old = previousPool(ctx, pool.name);
        const why =
          ctx.api.version < VM_SIZE_CHANGE_API ? ` in an api-version before "${VM_SIZE_CHANGE_API}"` : " without the preview feature 'AgentPoolVMSSResize'";
        return when(!!old && old.vmSize.toLowerCase() !== pool.vmSize.toLowerCase(), { why });
      }),
  },
  // ---- docs/aks-rules.md §9 Dual-stack ----------------------------------------------------------------------
  {
    id: 'D1',
    code: 'InvalidNetworkingConfig',
    message: 'ipFamilies {families} is not supported: use [IPv4] for single-stack or [IPv4, IPv6] for dual-stack, in that order.',
    target: 'networkProfile.ipFamilies',
    severity: 'error',
    source: 'ours',
    ref: 'configure-kubenet-dual-stack.md, azure-cni-overlay.md ("Only ipv4 or ipv4,ipv6 are supported"); RP-ENUM InvalidNetworkingConfig',
    note: 'Values compare without case (the enum is modelAsString; az sends what the user typed). An empty list is no list.',
    phases: SPEC,
    check: (ctx) => {
      const f = ctx.cluster.network.ipFamilies ?? [];
      const ok = f.join(',') === 'IPv4' || f.join(',') === 'IPv4,IPv6' || f.join(',') === 'IPv6';
      return when(!ok, { families: `[${f.join(', ')}]` });
    },
  },
  {
    id: 'D1b',
    code: 'IPv6NotSupported',
    message: 'IPv6 single-stack clusters are not supported. Use ipFamilies [IPv4, IPv6] for a dual-stack cluster.',
    target: 'networkProfile.ipFamilies',
    severity: 'error',
    source: 'partial',
    ref: 'RP-ENUM IPv6NotSupported; configure-kubenet-dual-stack.md ("Single stack IPv6-only isn\'t supported for node or pod IP addresses")',
    phases: SPEC,
    check: (ctx) => when((ctx.cluster.network.ipFamilies ?? []).join(',') === 'IPv6', {}),
  },
  {
    id: 'D2',
    code: 'UnsupportedDualStackNetworkPlugin',
    message:
      "Dual-stack networking is not supported with {model}. Use network plugin 'kubenet', network plugin 'azure' with network plugin mode 'overlay', or network plugin 'none'.",
    target: 'networkProfile.networkPlugin',
    severity: 'error',
    source: 'partial',
    ref: 'RP-ENUM UnsupportedDualStackNetworkPlugin; configure-kubenet-dual-stack.md, azure-cni-overlay.md (dual-stack is documented for kubenet and overlay only)',
    note: 'The models declare it (network-models/*.ts `dualStack`): Azure CNI node subnet has none.',
    phases: SPEC,
    check: (ctx) => when(dualStack(ctx) && !!ctx.model && !ctx.model.dualStack, { model: ctx.model?.label ?? '' }),
  },
  {
    id: 'D3',
    code: 'InvalidNetworkingConfig',
    message: '{field} {problem}: give one CIDR per IP family, in the order of ipFamilies [{families}].',
    target: 'networkProfile',
    severity: 'error',
    source: 'ours',
    ref: 'spec podCidrs/serviceCidrs ("One IPv4 CIDR is expected for single-stack networking. Two CIDRs, one for each IP family (IPv4/IPv6), is expected for dual-stack networking."); az --pod-cidrs/--service-cidrs ("The count and order of ranges in this list must match the value provided to --ip-families")',
    phases: SPEC,
    check: (ctx) => cidrListProblems(ctx),
  },
  {
    id: 'D4',
    code: 'InvalidServiceCidrIPv6MaskSize',
    message: "The IPv6 service CIDR '{value}' is too large: its mask must be /108 or longer.",
    target: 'networkProfile.serviceCidrs',
    severity: 'error',
    source: 'partial',
    ref: 'RP-ENUM InvalidServiceCidrIPv6MaskSize; configure-kubenet-dual-stack.md ("can be no larger than a /108")',
    phases: SPEC,
    check: (ctx) => {
      const v = ctx.parsed.serviceCidrIPv6.value;
      return when(!!v && v.prefix < SERVICE_CIDR_IPV6_MIN_MASK, { value: String(v) });
    },
  },
  {
    id: 'D5',
    code: 'InvalidNetworkingConfig',
    message:
      "The IPv6 pod CIDR '{value}' must have a mask from /{min} to /{max}: each node gets a /{max} of it, and kube-controller-manager allows at most 16 bits between the two.",
    target: 'networkProfile.podCidrs',
    severity: 'error',
    source: 'ours',
    ref: 'configure-kubenet-dual-stack.md (nodes get /80s of fd12:3456:789a::/64); kube-controller-manager cidrset ErrCIDRSetSubNetTooBig',
    phases: SPEC,
    check: (ctx) => {
      const v = ctx.parsed.podCidrIPv6.value;
      const min = NODE_POD_CIDR_MASK_IPV6 - 16;
      const bad = !!v && ctx.model?.nodes.carvesPodCidr === true && (v.prefix < min || v.prefix > NODE_POD_CIDR_MASK_IPV6);
      return when(bad, { value: String(v), min, max: NODE_POD_CIDR_MASK_IPV6 });
    },
  },
  {
    id: 'D5b',
    code: 'PodCidrOverlapServiceCidr',
    message: 'The IPv6 pod CIDR {pod} overlaps with the IPv6 service CIDR {svc}.',
    target: 'networkProfile.podCidrs',
    severity: 'error',
    source: 'partial',
    ref: 'RP-ENUM PodCidrOverlapServiceCidr; C10 for the IPv6 ranges',
    phases: SPEC,
    check: (ctx) => {
      const { podCidrIPv6: p, serviceCidrIPv6: s } = ctx.parsed;
      return when(!!p.value && !!s.value && p.value.overlaps(s.value), { pod: String(p.value), svc: String(s.value) });
    },
  },
  {
    id: 'D6',
    code: 'UnsupportedDualStackKubernetesVersion',
    message: 'Dual-stack networking with {model} requires Kubernetes version {min} or later; the cluster asks for {version}.',
    target: 'kubernetesVersion',
    severity: 'error',
    source: 'partial',
    ref: 'RP-ENUM UnsupportedDualStackKubernetesVersion; configure-kubenet-dual-stack.md ("v1.21.2 or greater"), azure-cni-overlay.md ("Kubernetes version 1.26.3 or greater")',
    phases: SPEC,
    check: (ctx) => {
      const min = ctx.model?.dualStack?.minKubernetesVersion;
      const version = ctx.cluster.kubernetesVersion;
      const known = ctx.cluster.kubernetesVersionKnown;
      return when(dualStack(ctx) && !!min && known && compareVersions(version, min) < 0, { model: ctx.model?.label ?? '', min: min ?? '', version });
    },
  },
  {
    id: 'D7',
    code: 'UnsupportedDualStackNetworkPolicy',
    message: "Network policy '{policy}' is not supported with dual-stack networking. Use 'cilium' (with network dataplane 'cilium') or no network policy.",
    target: 'networkProfile.networkPolicy',
    severity: 'error',
    source: 'partial',
    ref: 'RP-ENUM UnsupportedDualStackNetworkPolicy; configure-kubenet-dual-stack.md, azure-cni-overlay.md limitations ("Azure network policies", "Calico network policies")',
    phases: SPEC,
    check: (ctx) => {
      const policy = String(ctx.cluster.network.networkPolicy ?? '').toLowerCase();
      return when(dualStack(ctx) && DUAL_STACK_REFUSED_POLICIES.includes(policy), { policy });
    },
  },
  {
    id: 'D8',
    code: 'InvalidNetworkingConfig',
    message: 'Windows agent pools are not supported on dual-stack clusters.',
    target: 'agentPoolProfile.osType',
    severity: 'error',
    source: 'ours',
    ref: 'configure-kubenet-dual-stack.md, azure-cni-overlay.md limitations ("Windows Nodepools")',
    note: 'Only where the model admits Windows pools at all: elsewhere N7 already refuses them.',
    phases: ['create', 'update', 'pool-add'],
    check: (ctx) => when(dualStack(ctx) && ctx.model?.rules.windowsPools === true && poolsInScope(ctx).some((p) => p.osType === 'Windows'), {}),
  },
  {
    id: 'D9',
    code: 'InvalidNetworkingConfig',
    message: "Outbound type '{outbound}' is not supported with dual-stack networking.",
    target: 'networkProfile.outboundType',
    severity: 'error',
    source: 'ours',
    ref: 'configure-kubenet-dual-stack.md, azure-cni-overlay.md limitations ("NAT Gateway")',
    phases: SPEC,
    check: (ctx) => {
      const outbound = ctx.cluster.network.outboundType;
      return when(dualStack(ctx) && /natgateway$/i.test(outbound), { outbound });
    },
  },
  {
    id: 'D10',
    code: 'VnetSubnetMissingIPv6',
    message: 'The subnet {subnet} has no IPv6 address prefix; the nodes of a dual-stack cluster need an IPv4 and an IPv6 address from their subnet.',
    target: 'agentPoolProfile.vnetSubnetID',
    severity: 'error',
    source: 'partial',
    ref: 'RP-ENUM VnetSubnetMissingIPv6; configure-kubenet-dual-stack.md ("nodes receive both an IPv4 and IPv6 address from the Azure virtual network subnet")',
    phases: SPEC,
    check: (ctx) => (dualStack(ctx) ? singleStackSubnets(ctx) : none),
  },
  {
    id: 'D10b',
    code: 'SingleStackVnetSubnetWithDualStackCluster',
    message: 'The subnet {subnet} has no IPv6 address prefix and cannot hold the nodes of a pool of the dual-stack cluster.',
    target: 'agentPoolProfile.vnetSubnetID',
    severity: 'error',
    source: 'partial',
    ref: 'RP-ENUM SingleStackVnetSubnetWithDualStackCluster',
    note: 'D10 at cluster create and update, this code when a pool is added to a dual-stack cluster (docs/aks-rules.md §9.3).',
    phases: ['pool-add'],
    check: (ctx) => (dualStack(ctx) ? singleStackSubnets(ctx) : none),
  },
  {
    id: 'D11',
    code: 'KubenetNodeCountExceedsRouteLimit',
    message:
      'A dual-stack kubenet cluster can have at most {cap} nodes: each node needs a route for each IP family, and Azure supports a maximum of 400 routes in a route table. This operation needs {nodes} nodes.',
    target: 'agentPoolProfile.count',
    severity: 'error',
    source: 'ours',
    ref: 'configure-kubenet-dual-stack.md ("dual-stack clusters are limited to 200 nodes"); code of N9',
    phases: ['create', 'update', 'scale', 'upgrade', 'pool-add'],
    check: (ctx) => {
      const routes = ctx.model?.nodes.maxClusterNodes;
      if (!dualStack(ctx) || routes === undefined) return none;
      const cap = Math.floor(routes / 2);
      const nodes = clusterNodes(ctx);
      // Beyond 400 N9 speaks for itself.
      return when(nodes > cap && nodes <= routes, { cap, nodes });
    },
  },
  {
    id: 'D12',
    code: 'InsufficientPodCidr',
    message: 'The IPv6 pod CIDR {cidr} holds {available} node ranges of /{mask}; this operation needs {required}.',
    target: 'networkProfile.podCidrs',
    severity: 'error',
    source: 'ours',
    ref: 'K2 for the IPv6 pod CIDR: one /80 per node (docs/aks-rules.md §9.2)',
    note: 'Also raised by the planner when the /80s run out at node time (src/aks/planner.ts).',
    phases: ['create', 'update', 'scale', 'upgrade', 'pool-add'],
    check: (ctx) => {
      const v6 = ctx.parsed.podCidrIPv6.value;
      if (!v6 || ctx.model?.nodes.carvesPodCidr !== true || v6.prefix > NODE_POD_CIDR_MASK_IPV6 || v6.prefix < NODE_POD_CIDR_MASK_IPV6 - 16) return none;
      const available = 2 ** (NODE_POD_CIDR_MASK_IPV6 - v6.prefix);
      const required = clusterNodes(ctx);
      return when(required > available, { cidr: String(v6), available, mask: NODE_POD_CIDR_MASK_IPV6, required });
    },
  },
  {
    id: 'D13',
    code: 'PropertyChangeNotAllowed',
    message: CHANGE_NOT_ALLOWED,
    target: 'networkProfile.ipFamilies',
    severity: 'error',
    source: 'ours',
    ref: 'U1 for the dual-stack members: no article documents moving a cluster between single-stack and dual-stack (docs/aks-rules.md §9.6)',
    note: "A PUT that leaves ipFamilies out keeps the cluster's (clusters.ts keepUnexpressible); the IPv6 pod and service ranges are as fixed as the IPv4 service range.",
    phases: ['update'],
    check: (ctx) => {
      const before = ctx.previous?.network;
      if (!before) return none;
      const after = ctx.cluster.network;
      const differ = (a: string[] | undefined, b: string[] | undefined) => (a ?? []).join(',') !== (b ?? []).join(',');
      const out: Finding[] = [];
      if (differ(before.ipFamilies, after.ipFamilies)) out.push({ params: { path: 'networkProfile.ipFamilies' } });
      if (isDualStack(before) && isDualStack(after)) {
        for (const list of ['podCidrs', 'serviceCidrs'] as const) {
          if ((before[list]?.[1] ?? '') !== (after[list]?.[1] ?? ''))
            out.push({ params: { path: `networkProfile.${list}` }, target: `networkProfile.${list}` });
        }
      }
      return out;
    },
  },
  ...OUTBOUND_RULES,
];

/** D4: the IPv6 service CIDR is a /108 or smaller (kube-apiserver allows at most 20 host bits). */
const SERVICE_CIDR_IPV6_MIN_MASK = 108;
/** D7: the policies dual-stack refuses; cilium and none are allowed. */
const DUAL_STACK_REFUSED_POLICIES = ['azure', 'calico'];

/** Exactly one IPv4 and one IPv6 prefix. */
function isDualStackSubnet(s: SubnetInfo): boolean {
  const families = s.addressPrefixes.map((p) => parseCidrField(p).value?.family);
  return families.length === 2 && families.includes(4) && families.includes(6);
}

/** The cluster's nodes after this operation: every pool's, plus the surge nodes of an upgrade (N9, D11, D12). */
function clusterNodes(ctx: RuleContext): number {
  const nodes = totalNodes(ctx.cluster.pools, createNodes);
  return ctx.phase === 'upgrade' ? nodes + totalNodes(poolsInScope(ctx), (p) => surgeNodes(p) ?? 0) : nodes;
}

const dualStack = (ctx: RuleContext): boolean => isDualStack(ctx.cluster.network);
/** N5c, N5d: Azure CNI Powered by Cilium. */
const ciliumDataplane = (ctx: RuleContext): boolean => String(ctx.cluster.network.networkDataplane ?? '').toLowerCase() === 'cilium';

/** D3: each CIDR list given holds one CIDR per family, of that family, in order; podCidr agrees with the list. */
function cidrListProblems(ctx: RuleContext): Finding[] {
  const families = ctx.cluster.network.ipFamilies ?? ['IPv4'];
  const raw = ctx.raw.networkProfile ?? {};
  const out: Finding[] = [];
  for (const field of ['podCidrs', 'serviceCidrs'] as const) {
    const list = raw[field];
    if (!Array.isArray(list) || list.length === 0) continue;
    const params = (problem: string): Finding => ({
      params: { field: `networkProfile.${field}`, problem, families: families.join(', ') },
      target: `networkProfile.${field}`,
    });
    if (list.length !== families.length) {
      out.push(params(`has ${list.length} CIDR${list.length === 1 ? '' : 's'} for ${families.length} IP famil${families.length === 1 ? 'y' : 'ies'}`));
      continue;
    }
    list.forEach((text, i) => {
      // The first entry is the single-valued field's (C7a, C7 report it); the others are judged here.
      const f = parseCidrField(text);
      const want = families[i] === 'IPv6' ? 6 : 4;
      if (i > 0 && f.error) out.push(params(`entry ${i} '${String(text)}' is not a valid canonical CIDR`));
      else if (f.value && f.value.family !== want) out.push(params(`entry ${i} '${String(text)}' is not an ${families[i]} CIDR`));
    });
  }
  for (const [single, list] of [
    ['podCidr', 'podCidrs'],
    ['serviceCidr', 'serviceCidrs'],
  ] as const) {
    const a = raw[single];
    const first = Array.isArray(raw[list]) ? raw[list][0] : undefined;
    if (a !== undefined && first !== undefined && String(a) !== String(first)) {
      out.push({
        params: { field: `networkProfile.${single}`, problem: `'${String(a)}' differs from ${list}[0] '${String(first)}'`, families: families.join(', ') },
        target: `networkProfile.${single}`,
      });
    }
  }
  return out;
}

/** D10, D10b: BYO node subnets of the pools in scope without an IPv6 prefix (the managed VNet gets one). */
function singleStackSubnets(ctx: RuleContext): Finding[] {
  const seen = new Set<string>();
  const out: Finding[] = [];
  for (const pool of poolsInScope(ctx)) {
    const subnet = subnetOfPool(ctx.env, pool);
    if (!subnet || subnet.managed || seen.has(subnet.id.toLowerCase())) continue;
    seen.add(subnet.id.toLowerCase());
    if (!subnetCidrIPv6(subnet)) out.push({ params: { subnet: subnet.id } });
  }
  return out;
}

/** How far each in-scope pool with an offered version stands from an offered control plane version (V2, V3). */
function poolSkews(ctx: RuleContext): Array<{ ahead: number; behind: number; skew: number; params: Params }> {
  const cp = ctx.cluster.kubernetesVersion;
  if (!ctx.cluster.kubernetesVersionKnown) return [];
  return poolsInScope(ctx)
    .filter((p) => isOfferedVersion(p.orchestratorVersion))
    .map((p) => ({
      ahead: compareVersions(p.orchestratorVersion, cp),
      behind: minorOf(cp) - minorOf(p.orchestratorVersion),
      skew: maxPoolMinorSkew(cp),
      params: { pool: p.orchestratorVersion, cp, poolMinor: minorOf(p.orchestratorVersion), cpMinor: minorOf(cp) },
    }));
}

/** An update that moves the cluster to a model its stored model may migrate to in place (kubenet or node subnet → overlay). */
function migrates(ctx: RuleContext): boolean {
  const from = ctx.previous && networkModelOf(ctx.previous);
  return !!from && !!ctx.model && from.rules.migratesTo.includes(ctx.model.id);
}

/** K2 (kubenet) and K3 (overlay): the pod CIDR holds a /24 for every node; each model enables its own wording. */
function podCidrShortfall(ctx: RuleContext): Finding[] {
  const pod = ctx.parsed.podCidr.value;
  if (!pod) return none;
  // Blocks held now: every node the cluster had before this operation.
  const held = ctx.phase === 'create' ? 0 : totalNodes(ctx.previous?.pools ?? [], createNodes);
  const d = podCidrDemand(pod, totalNodes(ctx.cluster.pools, newNodeCounter(ctx)), held);
  return when(d.required > d.available, { required: d.required, available: d.available, cidr: String(pod) });
}

/** Fills a template's `{name}` placeholders. */
export function formatMessage(template: string, params: Params): string {
  return template.replace(/\{(\w+)\}/g, (m, k: string) => (k in params ? String(params[k]) : m));
}

export function ruleById(id: string): Rule | undefined {
  return RULES.find((r) => r.id === id);
}
