// The network flags of `az aks create` as aksemu's CLI parses them: `aksemu az aks create` turns them into a
// request body, `aksemu plan` into a plan, so both read the same names.
import type { NetworkProfile } from './types.js';

export interface AzNetworkFlags {
  networkPlugin?: string;
  networkPluginMode?: string;
  networkPolicy?: string;
  podCidr?: string;
  serviceCidr?: string;
  dnsServiceIp?: string;
  /** Dual-stack (newer az; not in az 2.45): comma-separated, as az takes them (docs/aks-rules.md §9.5). */
  ipFamilies?: string;
  podCidrs?: string;
  serviceCidrs?: string;
}

/** The dual-stack flags' option names, help texts and request members, shared by `aksemu az aks create` and `aksemu plan`. */
export const DUAL_STACK_FLAGS = [
  { dest: 'podCidrs', option: '--pod-cidrs', help: 'Comma-separated pod CIDRs, one per IP family (dual-stack)' },
  { dest: 'serviceCidrs', option: '--service-cidrs', help: 'Comma-separated service CIDRs, one per IP family (dual-stack)' },
  { dest: 'ipFamilies', option: '--ip-families', help: 'Comma-separated IP families: ipv4, or ipv4,ipv6 for dual-stack' },
] as const;

/**
 * The list members the dual-stack flags send, in the SDK's attribute order (podCidrs, serviceCidrs, ipFamilies).
 * az (extract_comma_separated_string) splits on commas without trimming or checking anything: "" is an empty
 * list, and the values are the server's to judge.
 */
export function dualStackMembers(
  f: Pick<AzNetworkFlags, 'ipFamilies' | 'podCidrs' | 'serviceCidrs'>,
): Pick<NetworkProfile, 'podCidrs' | 'serviceCidrs' | 'ipFamilies'> {
  const out: Pick<NetworkProfile, 'podCidrs' | 'serviceCidrs' | 'ipFamilies'> = {};
  for (const { dest } of DUAL_STACK_FLAGS) {
    const raw = f[dest];
    if (raw !== undefined) out[dest] = raw === '' ? [] : raw.split(',');
  }
  return out;
}
