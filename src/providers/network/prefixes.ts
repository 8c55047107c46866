// Address prefixes as the Network RP reads them: malformed text is InvalidAddressPrefixFormat, host
// bits below the mask InvalidCIDRNotation, each naming the resource that carries the prefix.
import { Cidr, NetParseError } from '../../net/ip.js';
import { invalidAddressPrefixFormat, invalidCidrNotation } from './errors.js';

export function parsePrefix(prefix: string, resourceId: string): Cidr {
  try {
    return Cidr.parse(prefix);
  } catch (err) {
    if (err instanceof NetParseError && err.kind === 'not-canonical') {
      throw invalidCidrNotation(prefix, resourceId, Cidr.parse(prefix, { canonical: false }).toString());
    }
    throw invalidAddressPrefixFormat(prefix, resourceId);
  }
}

export function parsePrefixes(prefixes: readonly string[], resourceId: string): Cidr[] {
  return prefixes.map((p) => parsePrefix(p, resourceId));
}

/** True when some block of `outer` contains `inner` entirely. */
export function containedIn(inner: Cidr, outer: readonly Cidr[]): boolean {
  return outer.some((o) => o.containsCidr(inner));
}

export function overlapsAny(a: readonly Cidr[], b: readonly Cidr[]): boolean {
  return a.some((x) => b.some((y) => x.overlaps(y)));
}

/** Azure's smallest subnets: /29 for IPv4 (3 usable addresses), exactly /64 for IPv6. */
export function subnetSizeSupported(cidr: Cidr): boolean {
  return cidr.family === 4 ? cidr.prefix <= 29 : cidr.prefix === 64;
}
