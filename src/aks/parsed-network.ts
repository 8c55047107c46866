// The cluster's address fields parsed once. A field that fails to parse is left undefined here and
// reported by the parse rules (C5, C7, C7a, C7b, C7c), so later rules never see garbage.
import { Cidr, IpAddress, NetParseError } from '../net/ip.js';
import { isDualStack, type ResolvedCluster } from './defaults.js';
import type { SubnetInfo } from './environment.js';

export interface FieldParse<T> {
  value?: T;
  error?: NetParseError;
  raw?: string;
}

export interface ParsedNetwork {
  podCidr: FieldParse<Cidr>;
  serviceCidr: FieldParse<Cidr>;
  dnsServiceIP: FieldParse<IpAddress>;
  dockerBridgeCidr: FieldParse<Cidr>;
  /** Dual-stack only: the IPv6 entries of podCidrs and serviceCidrs (D3 reports one of the wrong family). */
  podCidrIPv6: FieldParse<Cidr>;
  serviceCidrIPv6: FieldParse<Cidr>;
}

export function parseCidrField(raw: unknown, options: { canonical?: boolean } = {}): FieldParse<Cidr> {
  if (raw === undefined || raw === null) return {};
  const text = String(raw);
  try {
    const cidr = Cidr.parse(text, { canonical: options.canonical ?? true });
    return { value: cidr, raw: text };
  } catch (e) {
    if (e instanceof NetParseError) return { error: e, raw: text };
    throw e;
  }
}

function parseIpField(raw: unknown): FieldParse<IpAddress> {
  if (raw === undefined || raw === null) return {};
  const text = String(raw);
  try {
    return { value: IpAddress.parse(text), raw: text };
  } catch (e) {
    if (e instanceof NetParseError) return { error: e, raw: text };
    throw e;
  }
}

/** One family only: IPv4 for the single-valued fields, IPv6 for the second entry of a dual-stack list. */
function familyOnly<T extends { family: number }>(f: FieldParse<T>, family: 4 | 6): FieldParse<T> {
  if (f.value && f.value.family !== family) {
    return { raw: f.raw, error: new NetParseError('family', f.raw ?? '', `'${f.raw}' is not IPv${family}; an IPv${family} value is required`) };
  }
  return f;
}

/** IPv4 only: the single-valued networkProfile fields are IPv4 by the spec's regexes (docs/aks-rules.md §1.1). */
function ipv4Only<T extends { family: number }>(f: FieldParse<T>): FieldParse<T> {
  return familyOnly(f, 4);
}

export function parseNetwork(cluster: ResolvedCluster): ParsedNetwork {
  const n = cluster.network;
  const dual = isDualStack(n);
  return {
    podCidr: ipv4Only(parseCidrField(n.podCidr)),
    serviceCidr: ipv4Only(parseCidrField(n.serviceCidr)),
    dnsServiceIP: ipv4Only(parseIpField(n.dnsServiceIP)),
    // dockerBridgeCidr is the bridge's own address (172.17.0.1/16), never canonical: format only (docs/aks-rules.md §6 X12).
    dockerBridgeCidr: ipv4Only(parseCidrField(n.dockerBridgeCidr, { canonical: false })),
    podCidrIPv6: dual ? familyOnly(parseCidrField(n.podCidrs?.[1]), 6) : {},
    serviceCidrIPv6: dual ? familyOnly(parseCidrField(n.serviceCidrs?.[1]), 6) : {},
  };
}

/**
 * A subnet's IPv4 prefix parsed: its first, or the first IPv4 one of a dual-stack subnet (one prefix per family;
 * C16 refuses more). The first prefix when none is IPv4, so that C16b can name it.
 */
export function subnetCidr(subnet: SubnetInfo): Cidr | undefined {
  const all = subnet.addressPrefixes.map((p) => parseCidrField(p).value);
  return all.find((c) => c?.family === 4) ?? all[0];
}

/** A dual-stack subnet's IPv6 prefix parsed (docs/aks-rules.md §9.3); undefined when it has none. */
export function subnetCidrIPv6(subnet: SubnetInfo): Cidr | undefined {
  return subnet.addressPrefixes.map((p) => parseCidrField(p).value).find((c) => c?.family === 6);
}

export function vnetCidrs(subnet: SubnetInfo): Cidr[] {
  return subnet.vnet.addressSpace.map((p) => parseCidrField(p).value).filter((c): c is Cidr => c !== undefined);
}
