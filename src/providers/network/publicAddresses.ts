// The emulated public address space (aks/azure-dns.ts PUBLIC_IP_RANGES; docs/aks-rules.md §11): one store key per
// address held, `aksemu:publicip/<address>` → its holder (a public IP address or a public IP prefix), written in
// the request's transaction, so a rolled-back request holds nothing and a restart finds every holding. Addresses
// are handed out lowest free first; a prefix takes the lowest aligned block whose addresses are all free.
import { PUBLIC_IP_RANGES } from '../../aks/azure-dns.js';
import { Cidr, IpAddress, type IpFamily } from '../../net/ip.js';
import { PUBLIC_IP_PREFIX } from '../../store/keys.js';
import type { Store } from '../../store/store.js';

interface Holding {
  holder: string;
}

const keyOf = (address: string): string => `${PUBLIC_IP_PREFIX}${address}`;

export function publicRange(family: IpFamily): Cidr {
  return Cidr.parse(PUBLIC_IP_RANGES[family]);
}

/** Every address held in the range of one family, as numbers. */
function heldIn(store: Store, family: IpFamily): Set<bigint> {
  const out = new Set<bigint>();
  for (const { key } of store.list<Holding>(PUBLIC_IP_PREFIX)) {
    const ip = IpAddress.tryParse(key.slice(PUBLIC_IP_PREFIX.length));
    if (ip && ip.family === family) out.add(ip.value);
  }
  return out;
}

function holdAll(store: Store, addresses: readonly IpAddress[], holder: string): void {
  for (const ip of addresses) store.put(keyOf(ip.toString()), { holder } satisfies Holding);
}

/**
 * The lowest free address of the range (never its first or last), now held by `holder`; undefined when the
 * range is exhausted (65534 IPv4 addresses: an emulator's bound, not Azure's).
 */
export function allocatePublicAddress(store: Store, family: IpFamily, holder: string): string | undefined {
  const range = publicRange(family);
  const held = heldIn(store, family);
  const limit = range.size - 1n < 1_000_000n ? range.size - 1n : 1_000_000n;
  for (let offset = 1n; offset < limit; offset++) {
    const ip = range.addressAt(offset);
    if (!held.has(ip.value)) {
      holdAll(store, [ip], holder);
      return ip.toString();
    }
  }
  return undefined;
}

/** The lowest aligned block of `/length` whose addresses are all free, now held by `holder`. */
export function allocatePublicBlock(store: Store, family: IpFamily, length: number, holder: string): Cidr | undefined {
  const range = publicRange(family);
  const held = heldIn(store, family);
  const blocks = 1n << BigInt(length - range.prefix);
  const limit = blocks < 100_000n ? blocks : 100_000n;
  // Block 0 holds the range's first address, never handed out.
  for (let i = 1n; i < limit; i++) {
    const block = range.subnet(length, i);
    const addresses: IpAddress[] = [];
    for (let k = 0n; k < block.size; k++) addresses.push(block.addressAt(k));
    if (addresses.some((a) => held.has(a.value)) || block.last.equals(range.last)) continue;
    holdAll(store, addresses, holder);
    return block;
  }
  return undefined;
}

/** Gives addresses back (a deleted public IP address, or every address of a deleted prefix). */
export function releasePublicAddresses(store: Store, addresses: readonly string[]): void {
  for (const a of addresses) store.delete(keyOf(a));
}

/** Every address of a block, as text. */
export function addressesOf(block: Cidr): string[] {
  const out: string[] = [];
  for (let k = 0n; k < block.size; k++) out.push(block.addressAt(k).toString());
  return out;
}
