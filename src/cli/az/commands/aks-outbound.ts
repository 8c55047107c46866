// az aks create/update's outbound flags (azure-cli 2.45 acs: the load balancer profile and NAT gateway profile
// builders): --load-balancer-managed-outbound-ip-count, --load-balancer-outbound-ips, --load-balancer-outbound-ip-prefixes
// (comma-separated ids), --load-balancer-outbound-ports, --load-balancer-idle-timeout, --nat-gateway-managed-outbound-ip-count
// and --nat-gateway-idle-timeout. The server judges their values (docs/aks-rules.md §14.2).
import { CliUsageError } from '../../../aks/az-validators.js';
import { num, str, type ArgDef, type ParsedArgs } from '../args.js';

export const OUTBOUND_ARGS: ArgDef[] = [
  { dest: 'lbManagedIpCount', options: ['--load-balancer-managed-outbound-ip-count'], type: 'int', help: 'Managed outbound IPs of the load balancer' },
  { dest: 'lbOutboundIps', options: ['--load-balancer-outbound-ips'], help: 'Comma-separated public IP ids for outbound' },
  { dest: 'lbOutboundIpPrefixes', options: ['--load-balancer-outbound-ip-prefixes'], help: 'Comma-separated public IP prefix ids for outbound' },
  { dest: 'lbOutboundPorts', options: ['--load-balancer-outbound-ports'], type: 'int', help: 'SNAT ports per node (0: automatic)' },
  { dest: 'lbIdleTimeout', options: ['--load-balancer-idle-timeout'], type: 'int', help: 'Outbound idle timeout in minutes' },
  { dest: 'natManagedIpCount', options: ['--nat-gateway-managed-outbound-ip-count'], type: 'int', help: 'Managed outbound IPs of the NAT gateway' },
  { dest: 'natIdleTimeout', options: ['--nat-gateway-idle-timeout'], type: 'int', help: 'NAT gateway idle timeout in minutes' },
];

const refs = (text: string | undefined) =>
  text === undefined
    ? undefined
    : text
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
        .map((id) => ({ id }));

/**
 * The loadBalancerProfile members the flags give (undefined: none given). The outbound source replaces the one the
 * cluster had (update), as az's update_load_balancer_profile does.
 */
export function loadBalancerFlags(args: ParsedArgs): Record<string, unknown> | undefined {
  const p: Record<string, unknown> = {};
  const count = num(args, 'lbManagedIpCount');
  const ips = refs(str(args, 'lbOutboundIps'));
  const prefixes = refs(str(args, 'lbOutboundIpPrefixes'));
  if (count !== undefined) p['managedOutboundIPs'] = { count };
  if (ips) p['outboundIPs'] = { publicIPs: ips };
  if (prefixes) p['outboundIPPrefixes'] = { publicIPPrefixes: prefixes };
  if (num(args, 'lbOutboundPorts') !== undefined) p['allocatedOutboundPorts'] = num(args, 'lbOutboundPorts');
  if (num(args, 'lbIdleTimeout') !== undefined) p['idleTimeoutInMinutes'] = num(args, 'lbIdleTimeout');
  return Object.keys(p).length > 0 ? p : undefined;
}

export function natGatewayFlags(args: ParsedArgs): Record<string, unknown> | undefined {
  const p: Record<string, unknown> = {};
  const count = num(args, 'natManagedIpCount');
  if (count !== undefined) p['managedOutboundIPProfile'] = { count };
  if (num(args, 'natIdleTimeout') !== undefined) p['idleTimeoutInMinutes'] = num(args, 'natIdleTimeout');
  return Object.keys(p).length > 0 ? p : undefined;
}

/** az's argument validators (acs _validators.py), before any request (docs/clients.md §3.12). */
export function validateOutboundArgs(args: ParsedArgs): void {
  const ports = num(args, 'lbOutboundPorts');
  if (ports !== undefined && ports % 8 !== 0) throw new CliUsageError('--load-balancer-allocated-ports must be a multiple of 8');
  const idle = num(args, 'lbIdleTimeout');
  if (idle !== undefined && (idle < 4 || idle > 100)) throw new CliUsageError('--load-balancer-idle-timeout must be in the range [4,100]');
}

/** az's own check before any request: userDefinedRouting takes no load balancer outbound IPs (acs _get_outbound_type). */
export function validateOutboundFlags(outboundType: string, lb: Record<string, unknown> | undefined): void {
  if (outboundType === 'userDefinedRouting' && lb && ['managedOutboundIPs', 'outboundIPs', 'outboundIPPrefixes'].some((k) => k in lb))
    throw new CliUsageError("userDefinedRouting doesn't support customizing a standard load balancer with IP addresses");
}

const SOURCES = ['managedOutboundIPs', 'outboundIPs', 'outboundIPPrefixes'];

/** aks update: the flags merged into the cluster's network profile as the GET returned it. */
export function mergeOutboundFlags(profile: Record<string, unknown>, args: ParsedArgs): boolean {
  const lb = loadBalancerFlags(args);
  const nat = natGatewayFlags(args);
  if (lb) {
    const current = { ...((profile['loadBalancerProfile'] as Record<string, unknown> | undefined) ?? {}) };
    // effectiveOutboundIPs is read-only; a new source replaces the old one.
    delete current['effectiveOutboundIPs'];
    if (SOURCES.some((k) => k in lb)) for (const k of SOURCES) delete current[k];
    profile['loadBalancerProfile'] = { ...current, ...lb };
  }
  if (nat) {
    const current = { ...((profile['natGatewayProfile'] as Record<string, unknown> | undefined) ?? {}) };
    delete current['effectiveOutboundIPs'];
    profile['natGatewayProfile'] = { ...current, ...nat };
  }
  return lb !== undefined || nat !== undefined;
}
