// The addresses of one subnet in memory: one SubnetAllocator per address prefix (lowest free first,
// Azure's five reserved addresses never handed out), allocation ascending across the prefixes in
// their order. A subnet with an IPv4 and an IPv6 prefix hands out from the first prefix's family unless
// asked for the other (a dual-stack node's IPv6 address).
import { AZURE_RESERVED_LOW, type Cidr, type IpAddress, type IpFamily } from '../../net/ip.js';
import { SubnetAllocator } from '../../net/subnet-allocator.js';

type AddressCheck = 'ok' | 'outside' | 'reserved';

export class AddressPool {
  private readonly allocators: SubnetAllocator[];

  constructor(readonly prefixes: readonly Cidr[]) {
    this.allocators = prefixes.map((p) => new SubnetAllocator(p));
  }

  /** Free addresses in the prefixes of the allocation family. */
  get free(): number {
    return this.freeOf();
  }

  /** Free addresses of one family (default: the first prefix's). */
  freeOf(family?: IpFamily): number {
    return this.family(family).reduce((sum, a) => sum + a.free, 0);
  }

  get used(): number {
    return this.allocators.reduce((sum, a) => sum + a.used, 0);
  }

  /** Whether `ip` could be held at all: inside a prefix and not one of Azure's reserved five. */
  check(ip: IpAddress): AddressCheck {
    const cidr = this.prefixes.find((p) => p.contains(ip));
    if (!cidr) return 'outside';
    const offset = cidr.offsetOf(ip);
    return offset < BigInt(AZURE_RESERVED_LOW) || offset === cidr.size - 1n ? 'reserved' : 'ok';
  }

  /** The prefix containing ip, for messages. */
  prefixOf(ip: IpAddress): Cidr | undefined {
    return this.prefixes.find((p) => p.contains(ip));
  }

  holder(ip: IpAddress): string | undefined {
    return this.allocatorOf(ip)?.ownerOf(ip);
  }

  /** False when the address is taken (by anyone), reserved or outside. */
  claim(ip: IpAddress, owner: string): boolean {
    return this.allocatorOf(ip)?.claim(ip, owner) ?? false;
  }

  release(ip: IpAddress): boolean {
    return this.allocatorOf(ip)?.release(ip) ?? false;
  }

  /** The n lowest free addresses, all or nothing. */
  allocateMany(n: number, owner: string, family?: IpFamily): IpAddress[] | undefined {
    if (n > this.freeOf(family)) return undefined;
    const out: IpAddress[] = [];
    for (const allocator of this.family(family)) {
      const take = Math.min(n - out.length, allocator.free);
      if (take > 0) out.push(...allocator.allocateMany(take, owner)!);
      if (out.length === n) break;
    }
    return out;
  }

  /** `count` free aligned blocks of length `prefixLength` in the first family's prefixes; all or nothing. */
  allocateBlocks(count: number, prefixLength: number, owner: string): Cidr[] | undefined {
    const blocks: Cidr[] = [];
    for (const allocator of this.family()) {
      while (blocks.length < count) {
        const got = allocator.allocateBlocks(1, prefixLength, owner);
        if (!got) break;
        blocks.push(...got);
      }
      if (blocks.length === count) return blocks;
    }
    for (const b of blocks) for (let i = 0n; i < b.size; i++) this.release(b.addressAt(i));
    return undefined;
  }

  private family(wanted?: IpFamily): SubnetAllocator[] {
    const family = wanted ?? this.prefixes[0]?.family;
    return this.allocators.filter((a) => a.subnet.family === family);
  }

  private allocatorOf(ip: IpAddress): SubnetAllocator | undefined {
    return this.allocators.find((a) => a.subnet.contains(ip));
  }
}
