// The cluster's address fields parsed once. A field that fails to parse is left undefined here and
// reported by the parse rules (C5, C7, C7a, C7b, C7c), so later rules never see garbage.
import { Cidr, IpAddress, NetParseError } from '../net/ip.js';
import type { ResolvedCluster } from './defaults.js';
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

/** IPv4 only: the single-valued networkProfile fields are IPv4 by the spec's regexes (docs/aks-rules.md §1.1). */
function ipv4Only<T extends { family: number }>(f: FieldParse<T>): FieldParse<T> {
  if (f.value && f.value.family !== 4) {
    return { raw: f.raw, error: new NetParseError('family', f.raw ?? '', `'${f.raw}' is IPv6; an IPv4 value is required`) };
  }
  return f;
}

export function parseNetwork(cluster: ResolvedCluster): ParsedNetwork {
  const n = cluster.network;
  return {
    podCidr: ipv4Only(parseCidrField(n.podCidr)),
    serviceCidr: ipv4Only(parseCidrField(n.serviceCidr)),
    dnsServiceIP: ipv4Only(parseIpField(n.dnsServiceIP)),
    // dockerBridgeCidr is the bridge's own address (172.17.0.1/16), never canonical: format only (docs/aks-rules.md §6 X12).
    dockerBridgeCidr: ipv4Only(parseCidrField(n.dockerBridgeCidr, { canonical: false })),
  };
}

/** A subnet's first prefix parsed; several prefixes are refused by C16, so the first is the one that counts. */
export function subnetCidr(subnet: SubnetInfo): Cidr | undefined {
  return parseCidrField(subnet.addressPrefixes[0]).value;
}

export function vnetCidrs(subnet: SubnetInfo): Cidr[] {
  return subnet.vnet.addressSpace.map((p) => parseCidrField(p).value).filter((c): c is Cidr => c !== undefined);
}
