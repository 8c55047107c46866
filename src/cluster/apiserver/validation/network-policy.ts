// NetworkPolicy defaulting and validation as the apiserver runs them (kubernetes pkg/apis/networking/v1/defaults.go
// SetDefaults_NetworkPolicy and SetDefaults_NetworkPolicyPort; pkg/apis/networking/validation/validation.go
// ValidateNetworkPolicySpec, ValidateNetworkPolicyPort, ValidateNetworkPolicyPeer, ValidateIPBlock), with its
// field paths and words, so `kubectl apply` of a bad policy prints what a real cluster prints. The body's
// shape (types) was checked when it was decoded (shape.ts).
import { Cidr } from '../../../net/ip.js';
import type { KubeObject } from '../../apimachinery/object.js';
import type { LabelSelector } from '../../apimachinery/types.js';
import { fieldError, invalidObject, type StatusCause } from '../../apimachinery/status.js';
import { validateLabelSelector } from './label-selector.js';

interface Port {
  protocol?: string;
  port?: number | string;
  endPort?: number;
}
interface Peer {
  podSelector?: LabelSelector | null;
  namespaceSelector?: LabelSelector | null;
  ipBlock?: { cidr?: string; except?: string[] } | null;
}
interface Rule {
  ports?: Port[];
  from?: Peer[];
  to?: Peer[];
}
interface Spec {
  podSelector?: LabelSelector;
  ingress?: Rule[];
  egress?: Rule[];
  policyTypes?: string[];
}

const PROTOCOLS = ['TCP', 'UDP', 'SCTP'];
const POLICY_TYPES = ['Ingress', 'Egress'];

function specOf(policy: KubeObject): Spec {
  const spec = policy['spec'];
  return spec !== null && typeof spec === 'object' ? (spec as Spec) : {};
}

/**
 * The defaults: a port without a protocol is TCP; without policyTypes a policy is Ingress, and Egress as well
 * when it has egress rules; the podSelector is an empty selector when absent (a struct, not a pointer, in Go).
 */
export function networkPolicyDefaults(policy: KubeObject): void {
  const spec = specOf(policy);
  spec.podSelector ??= {};
  for (const rule of [...(spec.ingress ?? []), ...(spec.egress ?? [])]) for (const port of rule.ports ?? []) port.protocol ??= 'TCP';
  if (!spec.policyTypes || spec.policyTypes.length === 0) spec.policyTypes = (spec.egress ?? []).length > 0 ? ['Ingress', 'Egress'] : ['Ingress'];
  policy['spec'] = spec;
}

/** validation.IsValidPortName. */
function portNameProblems(name: string): string[] {
  const out: string[] = [];
  if (name.length > 15) out.push('must be no more than 15 characters');
  if (!/^[-a-z0-9]+$/.test(name)) out.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(name)) out.push('must contain at least one letter (a-z)');
  if (name.includes('--')) out.push('must not contain consecutive hyphens');
  if (name.startsWith('-') || name.endsWith('-')) out.push('must not begin or end with a hyphen');
  return out;
}

const PORT_RANGE = 'must be between 1 and 65535, inclusive';
const validPort = (n: number) => n >= 1 && n <= 65535;

function validatePort(port: Port, at: string, causes: StatusCause[]): void {
  if (port.protocol !== undefined && !PROTOCOLS.includes(port.protocol)) causes.push(fieldError.unsupported(`${at}.protocol`, port.protocol, PROTOCOLS));
  const end = port.endPort;
  if (port.port === undefined) {
    if (end !== undefined) causes.push(fieldError.invalid(`${at}.endPort`, end, 'may not be specified when `port` is not specified'));
  } else if (typeof port.port === 'number') {
    if (!validPort(port.port)) causes.push(fieldError.invalid(`${at}.port`, port.port, PORT_RANGE));
    if (end !== undefined) {
      if (end < port.port) causes.push(fieldError.invalid(`${at}.endPort`, end, 'must be greater than or equal to `port`'));
      if (!validPort(end)) causes.push(fieldError.invalid(`${at}.endPort`, end, PORT_RANGE));
    }
  } else {
    if (end !== undefined) causes.push(fieldError.invalid(`${at}.endPort`, end, 'may not be specified when `port` is non-numeric'));
    for (const m of portNameProblems(port.port)) causes.push(fieldError.invalid(`${at}.port`, port.port, m));
  }
}

/** A CIDR as netutils.ParseCIDRSloppy reads it (an address with host bits is fine), or undefined. */
function parseCidr(text: string): Cidr | undefined {
  if (text !== text.trim()) return undefined;
  try {
    return Cidr.parse(text, { canonical: false });
  } catch {
    return undefined;
  }
}

/** ValidateIPBlock; the words for a value that is no CIDR changed in 1.33 (IsValidCIDRForLegacyField). */
function validateIpBlock(block: NonNullable<Peer['ipBlock']>, at: string, minor: number, causes: StatusCause[]): void {
  const notCidr = minor >= 33 ? 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)' : 'not a valid CIDR';
  if (!block.cidr) return void causes.push(fieldError.required(`${at}.cidr`));
  const cidr = parseCidr(block.cidr);
  if (!cidr) return void causes.push(fieldError.invalid(`${at}.cidr`, block.cidr, notCidr));
  for (const [i, text] of (block.except ?? []).entries()) {
    const except = parseCidr(text);
    if (!except) {
      causes.push(fieldError.invalid(`${at}.except[${i}]`, text, notCidr));
      // Before 1.33 the first bad `except` ended the block's checks.
      if (minor < 33) return;
      continue;
    }
    if (!cidr.contains(except.first) || cidr.prefix >= except.prefix)
      causes.push(fieldError.invalid(`${at}.except[${i}]`, text, 'must be a strict subset of `cidr`'));
  }
}

function validatePeer(peer: Peer, at: string, minor: number, causes: StatusCause[]): void {
  let peers = 0;
  if (peer.podSelector) {
    peers++;
    causes.push(...validateLabelSelector(peer.podSelector, `${at}.podSelector`));
  }
  if (peer.namespaceSelector) {
    peers++;
    causes.push(...validateLabelSelector(peer.namespaceSelector, `${at}.namespaceSelector`));
  }
  if (peer.ipBlock) {
    peers++;
    validateIpBlock(peer.ipBlock, `${at}.ipBlock`, minor, causes);
  }
  if (peers === 0) causes.push(fieldError.required(at, 'must specify a peer'));
  else if (peers > 1 && peer.ipBlock) causes.push(fieldError.forbidden(at, 'may not specify both ipBlock and another peer'));
}

/** Throws the apiserver's 422 for a (defaulted) NetworkPolicy it refuses; `minor` is the cluster's Kubernetes minor. */
export function validateNetworkPolicy(policy: KubeObject, group: string, minor: number): void {
  const spec = specOf(policy);
  const causes = validateLabelSelector(spec.podSelector, 'spec.podSelector');
  for (const [direction, peersKey] of [
    ['ingress', 'from'],
    ['egress', 'to'],
  ] as const) {
    for (const [i, rule] of (spec[direction] ?? []).entries()) {
      const at = `spec.${direction}[${i}]`;
      for (const [j, port] of (rule.ports ?? []).entries()) validatePort(port, `${at}.ports[${j}]`, causes);
      for (const [j, peer] of (rule[peersKey] ?? []).entries()) validatePeer(peer, `${at}.${peersKey}[${j}]`, minor, causes);
    }
  }
  const types = spec.policyTypes ?? [];
  if (types.length > POLICY_TYPES.length)
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'spec.policyTypes',
      // Go prints the bad value, a *[]PolicyType, with %#v.
      message: `Invalid value: []networking.PolicyType{${types.map((t) => JSON.stringify(t)).join(', ')}}: may not specify more than two policyTypes`,
    });
  else for (const [i, t] of types.entries()) if (!POLICY_TYPES.includes(t)) causes.push(fieldError.unsupported(`spec.policyTypes[${i}]`, t, POLICY_TYPES));
  if (causes.length > 0) throw invalidObject('NetworkPolicy', group, policy.metadata.name, causes);
}
