// host-local's allocator, in memory: one range set (the ranges of `ipam.ranges[0]`, or the legacy
// `ipam.subnet` form), canonicalised as host-local does (start = network+1, end = broadcast-1, gateway =
// network+1 unless given) and walked the way host-local walks it: from the address after the last one given,
// through every range of the set, wrapping once; the gateway and taken addresses are skipped. So a released
// address is reused only after the walk wraps, and exhaustion reads exactly as host-local's error. kubenet and
// overlay nodes use it over their podCIDR; `none` nodes use it when the network's IPAM plugin is not installed.
import { Cidr, IpAddress } from '../../net/ip.js';
import { MAX_OFFSET_ALLOCATOR_SIZE, OffsetAllocator } from '../../net/offset-allocator.js';

export interface IpRange {
  start: IpAddress;
  end: IpAddress;
  gateway: IpAddress;
}

/** One range as host-local's Range.Canonicalize leaves it; throws host-local's reason when it cannot. */
export function canonicalRange(spec: { subnet: string; rangeStart?: string; rangeEnd?: string; gateway?: string }): IpRange {
  const subnet = Cidr.parse(spec.subnet, { family: 4 });
  if (subnet.prefix > 30) throw new Error(`Network ${subnet.toString()} too small to allocate from`);
  const inside = (field: string, text: string | undefined, fallback: IpAddress): IpAddress => {
    if (text === undefined) return fallback;
    const ip = IpAddress.parse(text);
    if (!subnet.contains(ip)) throw new Error(`${field} ${text} not in network ${subnet.toString()}`);
    return ip;
  };
  const first = subnet.first.plus(1);
  const range = {
    start: inside('RangeStart', spec.rangeStart, first),
    end: inside('RangeEnd', spec.rangeEnd, subnet.last.plus(-1)),
    gateway: spec.gateway === undefined ? first : IpAddress.parse(spec.gateway),
  };
  if (range.start.value > range.end.value) throw new Error(`RangeStart ${range.start.toString()} not before RangeEnd ${range.end.toString()}`);
  return range;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/**
 * The first range set of a host-local-style `ipam` section (host-local puts the legacy top-level `subnet` first),
 * with `usePodCidr` (Calico's host-local convention) read as the node's podCIDR. Undefined when there is none
 * or it does not canonicalise.
 */
export function rangesOfIpam(ipam: Record<string, unknown>, podCidr: string | undefined): IpRange[] | undefined {
  const subnetOf = (s: string | undefined) => (s === 'usePodCidr' ? podCidr : s);
  const specs: Array<Record<string, unknown>> = [];
  const legacy = subnetOf(str(ipam['subnet']));
  if (legacy) specs.push({ ...ipam, subnet: legacy });
  else if (Array.isArray(ipam['ranges']) && Array.isArray(ipam['ranges'][0])) specs.push(...(ipam['ranges'][0] as Array<Record<string, unknown>>));
  if (specs.length === 0) return undefined;
  try {
    return specs.map((r) => {
      const subnet = subnetOf(str(r?.['subnet']));
      if (!subnet) throw new Error('no subnet');
      const [rangeStart, rangeEnd, gateway] = [str(r['rangeStart']), str(r['rangeEnd']), str(r['gateway'])];
      return canonicalRange({ subnet, ...(rangeStart ? { rangeStart } : {}), ...(rangeEnd ? { rangeEnd } : {}), ...(gateway ? { gateway } : {}) });
    });
  } catch {
    return undefined;
  }
}

export class RangeSetPool {
  private readonly bases: number[] = [];
  private readonly slots: OffsetAllocator;
  /** Offset of the last address given (host-local's last_reserved_ip), or -1. */
  private last = -1;
  /** host-local's RangeSet.String(): what its exhaustion error names. */
  readonly text: string;

  constructor(private readonly ranges: IpRange[]) {
    let size = 0;
    for (const r of ranges) {
      this.bases.push(size);
      size += Number(r.end.value - r.start.value) + 1;
    }
    if (size > MAX_OFFSET_ALLOCATOR_SIZE) throw new Error(`range set of ${size} addresses is larger than the emulator holds`);
    this.slots = new OffsetAllocator(size);
    // The gateways are never handed out: taking them once keeps every walk simple.
    for (const r of ranges) {
      const gw = this.offsetOf(r.gateway);
      if (gw !== undefined) this.slots.claim(gw);
    }
    this.text = ranges.map((r) => `${r.start.toString()}-${r.end.toString()}`).join(',');
  }

  get free(): number {
    return this.slots.free;
  }

  private offsetOf(ip: IpAddress): number | undefined {
    for (const [i, r] of this.ranges.entries()) {
      if (ip.family === r.start.family && ip.value >= r.start.value && ip.value <= r.end.value) return this.bases[i]! + Number(ip.value - r.start.value);
    }
    return undefined;
  }

  private addressAt(offset: number): IpAddress {
    let i = this.bases.length - 1;
    while (this.bases[i]! > offset) i--;
    return this.ranges[i]!.start.plus(offset - this.bases[i]!);
  }

  /** The next address after the last one given (wrapping), or undefined when every address is taken. */
  allocate(): string | undefined {
    let offset = this.slots.nextFree(this.last + 1);
    if (offset < 0) offset = this.slots.nextFree(0);
    if (offset < 0) return undefined;
    this.slots.claim(offset);
    this.last = offset;
    return this.addressAt(offset).toString();
  }

  /** Marks an address taken (a restored pod's); false when it is outside the set or already taken. */
  claim(ip: string): boolean {
    const addr = IpAddress.tryParse(ip);
    const offset = addr && this.offsetOf(addr);
    if (offset === undefined || !this.slots.claim(offset)) return false;
    // After a restart host-local would still know its last reservation; the highest restored one stands in.
    this.last = Math.max(this.last, offset);
    return true;
  }

  release(ip: string): void {
    const addr = IpAddress.tryParse(ip);
    const offset = addr && this.offsetOf(addr);
    if (offset !== undefined && !this.ranges.some((r) => r.gateway.equals(addr!))) this.slots.release(offset);
  }

  /** host-local's message when the walk finds nothing (range set 0). */
  exhausted(): string {
    return `failed to allocate for range 0: no IP addresses available in range set: ${this.text}`;
  }
}

/** An ordered list of addresses, lowest free first: Azure CNI's secondary IPs on the node's NIC. */
export class AddressListPool {
  private readonly slots: OffsetAllocator;
  private readonly index = new Map<string, number>();

  constructor(private readonly addresses: string[]) {
    this.slots = new OffsetAllocator(addresses.length);
    addresses.forEach((a, i) => this.index.set(a, i));
  }

  allocate(): string | undefined {
    const offset = this.slots.allocateNext();
    return offset < 0 ? undefined : this.addresses[offset];
  }

  claim(ip: string): boolean {
    const offset = this.index.get(ip);
    return offset !== undefined && this.slots.claim(offset);
  }

  release(ip: string): void {
    const offset = this.index.get(ip);
    if (offset !== undefined) this.slots.release(offset);
  }
}

/**
 * A node's pod-subnet addresses (Azure CNI with a pod subnet): like AddressListPool, lowest-listed free first, but
 * the list grows when CNS gets the node another batch (src/aks/pod-subnet.ts).
 */
export class GrowingAddressPool {
  private readonly addresses: string[] = [];
  private readonly known = new Set<string>();
  private readonly used = new Set<string>();

  constructor(addresses: readonly string[]) {
    this.add(addresses);
  }

  /** Adds the addresses not yet known, after the others. */
  add(addresses: readonly string[]): void {
    for (const a of addresses) {
      if (this.known.has(a)) continue;
      this.known.add(a);
      this.addresses.push(a);
    }
  }

  allocate(): string | undefined {
    const ip = this.addresses.find((a) => !this.used.has(a));
    if (ip !== undefined) this.used.add(ip);
    return ip;
  }

  claim(ip: string): boolean {
    if (!this.known.has(ip) || this.used.has(ip)) return false;
    this.used.add(ip);
    return true;
  }

  release(ip: string): void {
    this.used.delete(ip);
  }
}
