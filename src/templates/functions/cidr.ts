// CIDR functions (https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-cidr):
// parseCidr, cidrSubnet, cidrHost, IPv4 and IPv6, on the project's address arithmetic (src/net/ip.ts).
// A host address's bits below the prefix are allowed and masked away, as the functions do. Usable
// hosts leave out an IPv4 block's network and broadcast addresses (not a /31's or /32's), and an IPv6
// block's last address is usable while its first is the network's own.
import { Cidr, IpAddress, NetParseError } from '../../net/ip.js';
import { arity, fail, int, str, type FunctionTable } from './types.js';

function cidrOf(name: string, value: unknown): Cidr {
  const text = str(name, value, 'its first parameter');
  try {
    return Cidr.parse(text, { canonical: false });
  } catch (err) {
    if (err instanceof NetParseError)
      return fail(
        `The template language function '${name}' expects its first parameter to be an IP address range in CIDR notation. The provided value '${text}' is not valid.`,
      );
    throw err;
  }
}

/** The first and last usable addresses of a block. */
function usable(c: Cidr): [IpAddress, IpAddress] {
  if (c.family === 6) return [c.first, c.last];
  if (c.prefix >= 31) return [c.first, c.last];
  return [c.first.plus(1), c.last.plus(-1)];
}

/** The IPv4 netmask or IPv6 prefix mask, as an address. */
function maskAddress(c: Cidr): IpAddress {
  const bits = BigInt(c.bits);
  const all = (1n << bits) - 1n;
  return new IpAddress(c.family, all ^ ((1n << (bits - BigInt(c.prefix))) - 1n));
}

export const cidrFunctions: FunctionTable = {
  parsecidr: {
    eager: (a, _e, n) => {
      arity(n, a, 1);
      const c = cidrOf(n, a[0]);
      const [firstUsable, lastUsable] = usable(c);
      return {
        network: c.first.toString(),
        netmask: maskAddress(c).toString(),
        ...(c.family === 4 ? { broadcast: c.last.toString() } : {}),
        firstUsable: firstUsable.toString(),
        lastUsable: lastUsable.toString(),
        cidr: c.prefix,
      };
    },
  },
  cidrsubnet: {
    eager: (a, _e, n) => {
      arity(n, a, 3);
      const c = cidrOf(n, a[0]);
      const prefix = int(n, a[1], 'its second parameter');
      if (prefix < c.prefix || prefix > c.bits)
        fail(
          `The template language function '${n}' expects its second parameter, the new CIDR, to be from ${c.prefix} to ${c.bits}. The provided value is '${prefix}'.`,
        );
      const index = BigInt(int(n, a[2], 'its third parameter'));
      const count = 1n << BigInt(prefix - c.prefix);
      if (index < 0n || index >= count)
        fail(
          `The template language function '${n}' expects its third parameter, the subnet index, to be from 0 to ${count - 1n}. The provided value is '${index}'.`,
        );
      return c.subnet(prefix, index).toString();
    },
  },
  cidrhost: {
    eager: (a, _e, n) => {
      arity(n, a, 2);
      const c = cidrOf(n, a[0]);
      const index = BigInt(int(n, a[1], 'its second parameter'));
      const [, last] = usable(c);
      // The host index counts from the first address after the network's own.
      const start = c.family === 4 && c.prefix >= 31 ? c.first : c.first.plus(1);
      const count = last.value - start.value + 1n;
      if (index < 0n || index >= count)
        fail(
          `The template language function '${n}' expects its second parameter, the host index, to be from 0 to ${count - 1n} for '${c.toString()}'. The provided value is '${index}'.`,
        );
      return start.plus(index).toString();
    },
  },
};
