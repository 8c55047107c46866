// The one place a subnet's addresses change. Each change runs inside the caller's store transaction
// against an in-memory AddressPool cached per subnet; the pool is trusted only while the store still
// holds the generation token it was built at (see allocations.ts), and is dropped when a change
// throws, so a rolled-back transaction can never leave an address taken in memory but free on disk,
// or the other way round. After a restart the pools are rebuilt from the stored allocations.
import { ArmError } from '../../arm/errors.js';
import { IpAddress, type Cidr, type IpFamily } from '../../net/ip.js';
import type { Store } from '../../store/store.js';
import { AddressPool } from './addressPool.js';
import { allocationOf, allocationsIn, bumpGeneration, generationOf, rewriteAllocation, writeAllocation, type Allocation } from './allocations.js';
import { invalidPrivateIpAddress, privateIpAddressInReservedRange, privateIpAddressIsAllocated, privateIpAddressNotInSubnet, subnetIsFull } from './errors.js';
import { idKey, sameId } from '../../ids/compare.js';

/** A subnet as address management needs it. */
export interface SubnetRef {
  id: string;
  name: string;
  prefixes: Cidr[];
}

/** Thrown when a subnet has fewer free addresses than asked for; the Network RP's SubnetIsFull. */
export class AddressSpaceExhaustedError extends ArmError {
  constructor(
    readonly subnetId: string,
    readonly requested: number,
    readonly available: number,
    subnetName: string,
    prefix: string,
  ) {
    const e = subnetIsFull(subnetName, prefix, requested);
    super(e.status, e.code, e.message);
    this.name = 'AddressSpaceExhaustedError';
  }
}

interface CacheEntry {
  token: string | undefined;
  signature: string;
  pool: AddressPool;
}

// Per store, so two servers in one process (tests) never share pools.
const caches = new WeakMap<Store, Map<string, CacheEntry>>();

function cacheOf(store: Store): Map<string, CacheEntry> {
  let cache = caches.get(store);
  if (!cache) caches.set(store, (cache = new Map()));
  return cache;
}

function signatureOf(subnet: SubnetRef): string {
  return subnet.prefixes.map(String).join(',');
}

function rebuild(store: Store, subnet: SubnetRef): CacheEntry {
  const pool = new AddressPool(subnet.prefixes);
  for (const allocation of allocationsIn(store, subnet.id)) {
    for (const address of allocation.addresses) {
      const ip = IpAddress.tryParse(address);
      if (ip) pool.claim(ip, allocation.owner);
    }
  }
  return { token: generationOf(store, subnet.id), signature: signatureOf(subnet), pool };
}

function entryFor(store: Store, subnet: SubnetRef): CacheEntry {
  const cache = cacheOf(store);
  const key = idKey(subnet.id);
  let entry = cache.get(key);
  if (!entry || entry.token !== generationOf(store, subnet.id) || entry.signature !== signatureOf(subnet)) {
    entry = rebuild(store, subnet);
    cache.set(key, entry);
  }
  return entry;
}

/** Reads the pool (never keep it: it is only valid until the next change). */
export function readPool<T>(store: Store, subnet: SubnetRef, fn: (pool: AddressPool) => T): T {
  return fn(entryFor(store, subnet).pool);
}

/**
 * Runs a change: fn mutates the pool and writes the matching allocations. Must run inside a store
 * transaction (it opens one itself, which nests as a savepoint).
 */
function changePool<T>(store: Store, subnet: SubnetRef, fn: (pool: AddressPool) => T): T {
  return store.transaction(() => {
    const cache = cacheOf(store);
    const entry = entryFor(store, subnet);
    try {
      const result = fn(entry.pool);
      entry.token = bumpGeneration(store, subnet.id);
      return result;
    } catch (err) {
      cache.delete(idKey(subnet.id));
      throw err;
    }
  });
}

/** Forgets the pool of a subnet (its prefixes changed, or it is gone). */
export function forgetPool(store: Store, subnetId: string): void {
  cacheOf(store).delete(idKey(subnetId));
}

function firstPrefix(subnet: SubnetRef): string {
  return subnet.prefixes[0]?.toString() ?? '';
}

/**
 * The n lowest free addresses, added to what owner already holds there. All or nothing. `ipConfigurationOf`: the
 * id of the ip configuration that will use the owner's i-th address (a node NIC written next in the same
 * transaction), so that the record is written once, already as the NIC's write leaves it.
 */
export function allocate(
  store: Store,
  subnet: SubnetRef,
  owner: string,
  count: number,
  family?: IpFamily,
  ipConfigurationOf?: (index: number) => string,
): string[] {
  if (!Number.isInteger(count) || count < 0) throw new RangeError(`allocate needs a non-negative integer count, got ${count}`);
  return changePool(store, subnet, (pool) => {
    const ips = pool.allocateMany(count, owner, family);
    if (!ips) throw new AddressSpaceExhaustedError(subnet.id, count, pool.freeOf(family), subnet.name, firstPrefix(subnet));
    const addresses = ips.map(String);
    const held = allocationOf(store, subnet.id, owner);
    const all = [...(held?.addresses ?? []), ...addresses];
    writeAllocation(store, {
      ...(held ?? { subnetId: subnet.id, owner }),
      addresses: all,
      ...(ipConfigurationOf ? { ipConfigurations: all.map((_, i) => ipConfigurationOf(i)) } : {}),
    });
    return addresses;
  });
}

/**
 * `count` free aligned blocks of length `prefixLength` (Azure CNI's static /28 blocks), added to what owner holds
 * there; all or nothing: SubnetIsFull, counting the blocks' addresses, when fewer are free.
 */
export function allocateBlocks(store: Store, subnet: SubnetRef, owner: string, count: number, prefixLength: number): Cidr[] {
  return changePool(store, subnet, (pool) => {
    const blocks = pool.allocateBlocks(count, prefixLength, owner);
    const size = 2 ** ((subnet.prefixes[0]?.bits ?? 32) - prefixLength);
    if (!blocks) throw new AddressSpaceExhaustedError(subnet.id, count * size, pool.free, subnet.name, firstPrefix(subnet));
    const held = allocationOf(store, subnet.id, owner);
    const addresses = blocks.flatMap((b) => Array.from({ length: size }, (_, i) => String(b.addressAt(i))));
    writeAllocation(store, { ...(held ?? { subnetId: subnet.id, owner }), addresses: [...(held?.addresses ?? []), ...addresses] });
    return blocks;
  });
}

/** What one owner wants to hold in one subnet after a NIC write. */
export interface Holding {
  /** Addresses asked for by value (Static, or Dynamic ones kept), with the ip configuration asking. */
  explicit: Array<{ address: string; ipConfigurationId: string }>;
  /** Ip configurations that want the lowest free address. */
  dynamic: string[];
  kubenetCluster?: string;
}

/**
 * Makes owner hold exactly the explicit addresses plus one new lowest-free address per dynamic ip
 * configuration; everything else it held in the subnet is released. Returns each ip configuration's
 * address. Errors are the RP's: PrivateIPAddressNotInSubnet / InReservedRange / IsAllocated, SubnetIsFull.
 */
export function hold(store: Store, subnet: SubnetRef, owner: string, want: Holding): Map<string, string> {
  const already = heldAsWanted(store, subnet, owner, want);
  if (already) return already;
  return changePool(store, subnet, (pool) => {
    const byConfig = new Map<string, string>();
    const wanted = new Set<string>();
    const parsed = want.explicit.map(({ address, ipConfigurationId }) => {
      const ip = IpAddress.tryParse(address);
      if (!ip) throw invalidPrivateIpAddress(address, ipConfigurationId);
      const check = pool.check(ip);
      if (check === 'outside') throw privateIpAddressNotInSubnet(address, firstPrefix(subnet));
      if (check === 'reserved') throw privateIpAddressInReservedRange(address, pool.prefixOf(ip)!.toString());
      const holder = pool.holder(ip);
      if (holder !== undefined && !sameId(holder, owner)) throw privateIpAddressIsAllocated(ipConfigurationId, String(ip), holder);
      if (wanted.has(String(ip))) throw privateIpAddressIsAllocated(ipConfigurationId, String(ip), owner);
      wanted.add(String(ip));
      return { ip, ipConfigurationId };
    });
    const held = allocationOf(store, subnet.id, owner);
    for (const address of held?.addresses ?? []) {
      if (!wanted.has(address)) pool.release(IpAddress.parse(address));
    }
    const addresses: string[] = [];
    for (const { ip, ipConfigurationId } of parsed) {
      if (pool.holder(ip) === undefined) pool.claim(ip, owner);
      addresses.push(String(ip));
      byConfig.set(ipConfigurationId, String(ip));
    }
    const fresh = pool.allocateMany(want.dynamic.length, owner);
    if (!fresh) throw new AddressSpaceExhaustedError(subnet.id, want.dynamic.length, pool.free, subnet.name, firstPrefix(subnet));
    want.dynamic.forEach((ipConfigurationId, i) => {
      addresses.push(String(fresh[i]));
      byConfig.set(ipConfigurationId, String(fresh[i]));
    });
    const allocation: Allocation = {
      subnetId: subnet.id,
      owner: held?.owner ?? owner,
      addresses,
      ipConfigurations: [...want.explicit.map((e) => e.ipConfigurationId), ...want.dynamic],
    };
    if (want.kubenetCluster !== undefined) allocation.kubenetCluster = want.kubenetCluster;
    writeAllocation(store, allocation);
    return byConfig;
  });
}

/**
 * A node NIC's write: its owner already holds exactly the addresses it names, in that order (the planner
 * allocated them), and wants no new one. The addresses were checked when handed out and a used subnet's prefixes
 * cannot change, so the pool stays as it is (and its generation with it); only the record learns its ip
 * configurations, unless allocate named them already. Undefined otherwise.
 */
function heldAsWanted(store: Store, subnet: SubnetRef, owner: string, want: Holding): Map<string, string> | undefined {
  if (want.dynamic.length > 0) return undefined;
  const held = allocationOf(store, subnet.id, owner);
  if (!held || held.addresses.length !== want.explicit.length || want.explicit.some((e, i) => e.address !== held.addresses[i])) return undefined;
  const named = held.ipConfigurations?.length === want.explicit.length && want.explicit.every((e, i) => e.ipConfigurationId === held.ipConfigurations![i]);
  // Allocated with the NIC's ip configurations already named (allocate's ipConfigurationOf): nothing to write.
  if (!named || held.kubenetCluster !== want.kubenetCluster) rewrite(store, subnet, held, want);
  return new Map(want.explicit.map((e) => [e.ipConfigurationId, e.address]));
}

function rewrite(store: Store, subnet: SubnetRef, held: Allocation, want: Holding): void {
  const allocation: Allocation = {
    subnetId: subnet.id,
    owner: held.owner,
    addresses: held.addresses,
    ipConfigurations: want.explicit.map((e) => e.ipConfigurationId),
  };
  if (want.kubenetCluster !== undefined) allocation.kubenetCluster = want.kubenetCluster;
  rewriteAllocation(store, allocation);
}

/** Gives back everything owner holds in the subnet; returns how many addresses. */
export function releaseIn(store: Store, subnet: SubnetRef, owner: string): number {
  const held = allocationOf(store, subnet.id, owner);
  if (!held) return 0;
  return changePool(store, subnet, (pool) => {
    for (const address of held.addresses) {
      const ip = IpAddress.tryParse(address);
      if (ip) pool.release(ip);
    }
    writeAllocation(store, { ...held, addresses: [] });
    return held.addresses.length;
  });
}
