// The persistent record of who holds which addresses of a subnet: one entry per (subnet, owner),
// indexed both ways so a subnet's users and an owner's subnets are one prefix scan each. This is
// the truth the in-memory allocators are rebuilt from; NICs are written in the same transaction.
import { randomUUID } from 'node:crypto';
import { IPAM_BY_OWNER_PREFIX as BY_OWNER, IPAM_BY_SUBNET_PREFIX as BY_SUBNET, IPAM_GENERATION_PREFIX as GENERATION } from '../../store/keys.js';
import type { Store } from '../../store/store.js';
import { idKey } from '../../ids/compare.js';
import { trimTrailingSlashes } from '../../ids/trim.js';

export interface Allocation {
  /** The subnet id with its stored casing. */
  subnetId: string;
  /** Whoever holds the addresses; a NIC id for NICs (Azure CNI's pod IPs sit on the node's NIC). */
  owner: string;
  /** In the order they were handed out (a NIC's primary first). */
  addresses: string[];
  /** Ids of the NIC ip configurations using them: the subnet's `ipConfigurations` back-references. */
  ipConfigurations?: string[];
  /** tags['aksemu-kubenet-cluster'] of the owning NIC, for the kubenet subnet-sharing rule. */
  kubenetCluster?: string;
}

/**
 * An allocation as stored: a NIC's ip configurations named `ipconfig1…n` in address order (every node NIC's: 1 +
 * maxPods of them, ~200 characters each) are kept as a flag instead of n ids; other lists as they are.
 */
type StoredAllocation = Omit<Allocation, 'ipConfigurations'> & { ipConfigurations?: string[]; nicConfigurations?: true };

const nicConfigurationId = (owner: string, i: number) => `${owner}/ipConfigurations/ipconfig${i + 1}`;

function stored(allocation: Allocation): StoredAllocation {
  const { ipConfigurations, ...rest } = allocation;
  if (!ipConfigurations) return allocation;
  const named = ipConfigurations.length === allocation.addresses.length && ipConfigurations.every((id, i) => id === nicConfigurationId(allocation.owner, i));
  return named ? { ...rest, nicConfigurations: true } : allocation;
}

function expanded(value: StoredAllocation): Allocation {
  if (!value.nicConfigurations) return value;
  const { nicConfigurations: _, ...rest } = value;
  return { ...rest, ipConfigurations: value.addresses.map((_, i) => nicConfigurationId(value.owner, i)) };
}

interface OwnerIndexEntry {
  owner: string;
  subnetId: string;
}

// '|' never occurs in an ARM id, so it ends the subnet (or owner) part of a key unambiguously.
function subnetKey(subnetId: string, owner: string): string {
  return `${BY_SUBNET}${subnetId}|${owner}`;
}

function ownerKey(owner: string, subnetId: string): string {
  return `${BY_OWNER}${owner}|${subnetId}`;
}

export function allocationsIn(store: Store, subnetId: string): Allocation[] {
  return store.list<StoredAllocation>(`${BY_SUBNET}${subnetId}|`).map((e) => expanded(e.value));
}

export function allocationOf(store: Store, subnetId: string, owner: string): Allocation | undefined {
  const value = store.get<StoredAllocation>(subnetKey(subnetId, owner));
  return value && expanded(value);
}

/** Writes (or, with no addresses, removes) one owner's holding in one subnet. */
export function writeAllocation(store: Store, allocation: Allocation): void {
  if (allocation.addresses.length === 0) {
    store.delete(subnetKey(allocation.subnetId, allocation.owner));
    store.delete(ownerKey(allocation.owner, allocation.subnetId));
    return;
  }
  store.put(subnetKey(allocation.subnetId, allocation.owner), stored(allocation));
  const index: OwnerIndexEntry = { owner: allocation.owner, subnetId: allocation.subnetId };
  store.put(ownerKey(allocation.owner, allocation.subnetId), index);
}

/** Rewrites the record of a holding that exists and keeps its addresses: the owner's index entry stays as it is. */
export function rewriteAllocation(store: Store, allocation: Allocation): void {
  store.put(subnetKey(allocation.subnetId, allocation.owner), stored(allocation));
}

/** The subnets an owner holds addresses in. */
export function subnetsOfOwner(store: Store, owner: string): string[] {
  return store.list<OwnerIndexEntry>(`${BY_OWNER}${owner}|`).map((e) => e.value.subnetId);
}

/**
 * subnetsOfOwner for each of owners, read in one scan of the owner index: the range of the owners' longest common
 * prefix (an operation's node NICs: one pool's NICs in one group). Undefined when the owners share no more than the
 * index's prefix itself (the scan would read every owner's).
 */
export function subnetsOfOwners(store: Store, owners: readonly string[]): Map<string, string[]> | undefined {
  if (owners.length === 0) return new Map();
  let common = idKey(`${owners[0]}|`);
  for (const owner of owners) {
    const key = idKey(`${owner}|`);
    let i = 0;
    while (i < common.length && i < key.length && common.charCodeAt(i) === key.charCodeAt(i)) i++;
    common = common.slice(0, i);
  }
  // An ARM id's group at least (/subscriptions/<id>/resourcegroups/<name>/…): a wider scan is not worth it.
  if (common.split('/').length < 6) return undefined;
  const wanted = new Set(owners.map(idKey));
  const found = new Map<string, string[]>();
  for (const owner of wanted) found.set(owner, []);
  store.each<OwnerIndexEntry>(`${BY_OWNER}${common}`, {}, (_, value) => found.get(idKey(value.owner))?.push(value.subnetId));
  return found;
}

/** Every owner whose name is `prefix` or starts with `prefix/` (e.g. all NICs of a resource group). */
export function ownersUnder(store: Store, prefix: string): string[] {
  const base = trimTrailingSlashes(prefix);
  const owners = new Map<string, string>();
  for (const { value } of [...store.list<OwnerIndexEntry>(`${BY_OWNER}${base}/`), ...store.list<OwnerIndexEntry>(`${BY_OWNER}${base}|`)]) {
    owners.set(idKey(value.owner), value.owner);
  }
  return [...owners.values()];
}

/**
 * A token that changes with every write of a subnet's allocations. An in-memory allocator built at
 * one token is valid exactly while the store still holds that token: a rolled-back transaction
 * brings the old token back, and the cache sees it no longer matches.
 */
export function generationOf(store: Store, subnetId: string): string | undefined {
  return store.get<string>(`${GENERATION}${subnetId}`);
}

export function bumpGeneration(store: Store, subnetId: string): string {
  const token = randomUUID();
  store.put(`${GENERATION}${subnetId}`, token);
  return token;
}

/** Forgets a subnet's allocations entirely (the subnet is gone). */
export function dropSubnetAllocations(store: Store, subnetId: string): void {
  for (const a of allocationsIn(store, subnetId)) writeAllocation(store, { ...a, addresses: [] });
  store.delete(`${GENERATION}${subnetId}`);
}
