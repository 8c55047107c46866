// IP addresses and CIDR blocks, IPv4 and IPv6, held as BigInt so one code path serves both families.
// ipaddr.js does the parsing (it knows every IPv6 spelling); the arithmetic is ours.
import ipaddr from 'ipaddr.js';

export type IpFamily = 4 | 6;

/** Why a string was refused; callers map the kind to their own error codes. */
type NetErrorKind = 'syntax' | 'not-canonical' | 'family';

export class NetParseError extends Error {
  constructor(
    readonly kind: NetErrorKind,
    readonly input: string,
    message: string,
  ) {
    super(message);
    this.name = 'NetParseError';
  }
}

const bitsOf = (family: IpFamily): number => (family === 4 ? 32 : 128);

export class IpAddress {
  constructor(
    readonly family: IpFamily,
    readonly value: bigint,
  ) {}

  static parse(text: string): IpAddress {
    const s = String(text).trim();
    const quad = fourPartDecimal(s);
    if (quad !== undefined) return new IpAddress(4, BigInt(quad));
    if (ipaddr.IPv4.isValidFourPartDecimal(s)) {
      return new IpAddress(4, bytesToBigInt(ipaddr.IPv4.parse(s).toByteArray()));
    }
    // isValid accepts IPv4 shorthands such as "10.1"; only the four-part form is an IPv4 address here.
    if (s.includes(':')) {
      const v6 = parseIPv6(s);
      if (v6 !== undefined) return new IpAddress(6, v6);
    }
    throw new NetParseError('syntax', s, `'${s}' is not a valid IP address`);
  }

  static tryParse(text: string): IpAddress | undefined {
    try {
      return IpAddress.parse(text);
    } catch {
      return undefined;
    }
  }

  get bits(): number {
    return bitsOf(this.family);
  }

  plus(n: bigint | number): IpAddress {
    return new IpAddress(this.family, this.value + BigInt(n));
  }

  equals(other: IpAddress): boolean {
    return this.family === other.family && this.value === other.value;
  }

  toString(): string {
    if (this.family === 4) {
      const v = Number(this.value);
      return `${v >>> 24}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`;
    }
    const bytes: number[] = [];
    for (let i = 15; i >= 0; i--) bytes.push(Number((this.value >> BigInt(i * 8)) & 255n));
    // RFC 5952 §5: IPv4-mapped addresses keep their dotted-quad tail (`::ffff:10.0.0.1`).
    if (this.value >> 32n === 0xffffn) return `::ffff:${bytes.slice(12).join('.')}`;
    return ipaddr.fromByteArray(bytes).toString();
  }
}

/**
 * IPv6 text → value, or undefined. Two ipaddr.js leniencies are refused or corrected here:
 * zone indexes (`fe80::1%eth0`) have no meaning in an Azure address and are refused rather than
 * silently dropped, and the deprecated IPv4-compatible form `::a.b.c.d` is read as written
 * (`::a.b.c.d` = `::xxxx:yyyy`, as Go's net.ParseIP does) instead of being turned into the
 * IPv4-mapped `::ffff:a.b.c.d`.
 */
function parseIPv6(s: string): bigint | undefined {
  if (s.includes('%')) return undefined;
  let text = s;
  if (s.includes('.')) {
    const colon = s.lastIndexOf(':');
    const tail = s.slice(colon + 1);
    if (!ipaddr.IPv4.isValidFourPartDecimal(tail)) return undefined;
    const b = ipaddr.IPv4.parse(tail).toByteArray();
    text = `${s.slice(0, colon + 1)}${((b[0]! << 8) | b[1]!).toString(16)}:${((b[2]! << 8) | b[3]!).toString(16)}`;
  }
  if (!ipaddr.IPv6.isValid(text)) return undefined;
  return bytesToBigInt(ipaddr.IPv6.parse(text).toByteArray());
}

const FOUR_PART = /^(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})$/;

/**
 * The common spelling of an IPv4 address (four decimal parts 0-255, no leading zeros) read without ipaddr.js,
 * whose parser is ~10 times slower (a 1,000-node Azure CNI create reads 62,000 addresses); anything else,
 * undefined, is left to ipaddr.js, which accepts the same four-part form.
 */
function fourPartDecimal(s: string): number | undefined {
  const m = FOUR_PART.exec(s);
  if (!m) return undefined;
  let value = 0;
  for (let i = 1; i <= 4; i++) {
    const part = Number(m[i]);
    if (part > 255) return undefined;
    value = value * 256 + part;
  }
  return value;
}

function bytesToBigInt(bytes: number[]): bigint {
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  return v;
}

interface CidrParseOptions {
  /** Refuse host bits below the mask (AKS rejects `10.2.0.1/24`, CHANGELOG 2019-04-15). Default true. */
  canonical?: boolean;
  /** Accept only this family. */
  family?: IpFamily;
}

export class Cidr {
  readonly network: bigint;

  private constructor(
    readonly family: IpFamily,
    network: bigint,
    readonly prefix: number,
  ) {
    this.network = network;
  }

  static of(family: IpFamily, network: bigint, prefix: number): Cidr {
    const mask = maskOf(family, prefix);
    return new Cidr(family, network & mask, prefix);
  }

  static parse(text: string, options: CidrParseOptions = {}): Cidr {
    const s = String(text).trim();
    const slash = s.indexOf('/');
    if (slash < 0 || slash !== s.lastIndexOf('/')) {
      throw new NetParseError('syntax', s, `'${s}' is not a valid CIDR: expected <address>/<prefix length>`);
    }
    const addrText = s.slice(0, slash);
    const prefixText = s.slice(slash + 1);
    const addr = IpAddress.tryParse(addrText);
    if (!addr) throw new NetParseError('syntax', s, `'${s}' is not a valid CIDR: '${addrText}' is not an IP address`);
    if (!/^(0|[1-9][0-9]{0,2})$/.test(prefixText) || Number(prefixText) > addr.bits) {
      throw new NetParseError('syntax', s, `'${s}' is not a valid CIDR: the prefix length must be 0 to ${addr.bits}`);
    }
    if (options.family && addr.family !== options.family) {
      throw new NetParseError('family', s, `'${s}' is an IPv${addr.family} CIDR; an IPv${options.family} CIDR is required`);
    }
    const cidr = Cidr.of(addr.family, addr.value, Number(prefixText));
    if (options.canonical !== false && cidr.network !== addr.value) {
      throw new NetParseError('not-canonical', s, `'${s}' is not a canonical CIDR: its host bits are set; the network is ${cidr.toString()}`);
    }
    return cidr;
  }

  get bits(): number {
    return bitsOf(this.family);
  }

  /** Number of addresses in the block, network and broadcast included. */
  get size(): bigint {
    return 1n << BigInt(this.bits - this.prefix);
  }

  get first(): IpAddress {
    return new IpAddress(this.family, this.network);
  }

  get last(): IpAddress {
    return new IpAddress(this.family, this.network + this.size - 1n);
  }

  /** The address `offset` places after the network address. */
  addressAt(offset: bigint | number): IpAddress {
    const o = BigInt(offset);
    if (o < 0n || o >= this.size) throw new RangeError(`offset ${o} is outside ${this.toString()}`);
    return new IpAddress(this.family, this.network + o);
  }

  offsetOf(addr: IpAddress): bigint {
    return addr.value - this.network;
  }

  contains(addr: IpAddress): boolean {
    return addr.family === this.family && addr.value >= this.network && addr.value < this.network + this.size;
  }

  containsCidr(other: Cidr): boolean {
    return other.family === this.family && other.prefix >= this.prefix && this.contains(other.first);
  }

  overlaps(other: Cidr): boolean {
    return other.family === this.family && (this.containsCidr(other) || other.containsCidr(this));
  }

  /** The `index`-th block of length `prefix` inside this one. */
  subnet(prefix: number, index: bigint | number): Cidr {
    const shift = BigInt(this.bits - prefix);
    return Cidr.of(this.family, this.network + (BigInt(index) << shift), prefix);
  }

  equals(other: Cidr): boolean {
    return this.family === other.family && this.network === other.network && this.prefix === other.prefix;
  }

  toString(): string {
    return `${this.first.toString()}/${this.prefix}`;
  }
}

function maskOf(family: IpFamily, prefix: number): bigint {
  const bits = BigInt(bitsOf(family));
  const all = (1n << bits) - 1n;
  return all ^ ((1n << (bits - BigInt(prefix))) - 1n);
}

/** Azure reserves the first four addresses and the last one of every subnet (VNet docs; docs/aks-rules.md §3.6, §6 X2). */
export const AZURE_RESERVED_LOW = 4;
export const AZURE_RESERVED_TOTAL = 5;

/** Addresses Azure can hand out in a subnet: 2^(bits−p) − 5; a /24 has 251. */
export function azureUsableCount(subnet: Cidr): bigint {
  const n = subnet.size - BigInt(AZURE_RESERVED_TOTAL);
  return n > 0n ? n : 0n;
}
