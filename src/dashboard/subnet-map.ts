// GET /ui/api/subnet-map (docs/dashboard.md §3): every address of a subnet and who holds it, from the store's IPAM
// allocations (the same records `az network vnet subnet show` derives its ipConfigurations from), as runs of
// adjacent addresses of one kind and owner. Azure reserves 5 addresses of each subnet: the network address, .1
// (the gateway), .2 and .3 (DNS) and the broadcast address.
import { allocationsIn, type Allocation } from '../providers/network/allocations.js';
import type { LoadBalancer, NetworkInterface, Subnet } from '../providers/network/models.js';
import { findSubnet, prefixesOf } from '../providers/network/subnetModel.js';
import type { NodeRecord } from '../model/cluster-records.js';
import { NODES_PREFIX } from '../store/keys.js';
import type { Store } from '../store/store.js';
import { AZURE_RESERVED_LOW, Cidr, IpAddress } from '../net/ip.js';
import { idKey } from '../ids/compare.js';
import { badRequest, notFound } from './errors.js';
import { nameOf } from './resources.js';
// The answer's shape is declared once, in the browser code's types.ts, so both sides compile against one contract.
import type { Counts, Kind, Run, SubnetMap } from './ui/types.js';

/** The UI draws one cell per address up to a /20 (4,096 addresses), proportional bars beyond. */
const CELL_PREFIX = 20;
/** A subnet map covers at most a /8 of runs' arithmetic; AKS subnets are far smaller. */
const MIN_PREFIX = 8;

interface Holder {
  kind: Kind;
  owner: string;
  ownerId?: string;
}

/** Who holds what in the subnet: address (as text) → holder. */
function holders(store: Store, allocations: readonly Allocation[]): Map<string, Holder> {
  const nodesByNic = new Map<string, NodeRecord>();
  if (allocations.length > 0) for (const { value } of store.list<NodeRecord>(NODES_PREFIX)) nodesByNic.set(idKey(value.nicId), value);
  const vmOfNic = vmsByNic(store);
  const out = new Map<string, Holder>();
  for (const a of allocations) {
    const owner = idKey(a.owner);
    const node = nodesByNic.get(owner);
    const podsOf = owner.endsWith('/podsubnetaddresses') ? nodesByNic.get(owner.slice(0, -'/podsubnetaddresses'.length)) : undefined;
    if (node) {
      for (const address of a.addresses) out.set(address, { kind: address === node.ip ? 'node' : 'pod', owner: node.name, ownerId: node.nicId });
      continue;
    }
    if (podsOf) {
      for (const address of a.addresses) out.set(address, { kind: 'pod', owner: podsOf.name, ownerId: podsOf.nicId });
      continue;
    }
    const vm = vmOfNic(a.owner);
    if (vm) {
      for (const address of a.addresses) out.set(address, { kind: 'vm', owner: nameOf(vm), ownerId: vm });
      continue;
    }
    const lb = /\/providers\/microsoft\.network\/loadbalancers\/[^/]+$/i.test(a.owner) ? store.get<LoadBalancer>(a.owner) : undefined;
    if (lb) {
      const frontends = new Map((lb.properties.frontendIPConfigurations ?? []).map((f) => [f.properties.privateIPAddress, f.name]));
      for (const address of a.addresses) out.set(address, { kind: 'lb', owner: `${lb.name}/${frontends.get(address) ?? ''}`, ownerId: lb.id });
      continue;
    }
    const nic = store.get<NetworkInterface>(a.owner);
    for (const address of a.addresses) out.set(address, { kind: 'other', owner: nic?.name ?? nameOf(a.owner), ownerId: a.owner });
  }
  return out;
}

/** A NIC's VM, found among the VMs of the NIC's resource group (each group listed once). */
function vmsByNic(store: Store): (nicId: string) => string | undefined {
  const byGroup = new Map<string, Map<string, string>>();
  return (nicId) => {
    const group = /^\/subscriptions\/[^/]+\/resourcegroups\/[^/]+/i.exec(nicId)?.[0];
    if (!group || !/\/providers\/microsoft\.network\/networkinterfaces\/[^/]+$/i.test(nicId)) return undefined;
    let vms = byGroup.get(idKey(group));
    if (!vms) {
      vms = new Map();
      for (const { key, value } of store.list<{ properties?: { networkProfile?: { networkInterfaces?: { id: string }[] } } }>(
        `${group}/providers/Microsoft.Compute/virtualMachines/`,
        { children: true },
      )) {
        for (const ref of value.properties?.networkProfile?.networkInterfaces ?? []) vms.set(idKey(ref.id), key);
      }
      byGroup.set(idKey(group), vms);
    }
    return vms.get(idKey(nicId));
  };
}

/** The subnet's IPv4 prefix the map draws: its first (a dual-stack subnet's IPv6 prefix is not drawn). */
export function mappedPrefix(subnet: Subnet): Cidr | undefined {
  for (const text of prefixesOf(subnet)) {
    try {
      const cidr = Cidr.parse(text, { canonical: false });
      if (cidr.family === 4) return cidr;
    } catch {
      /* the provider validated it; an unparsable prefix is not drawn */
    }
  }
  return undefined;
}

export function emptyCounts(): Counts {
  return { reserved: 0, node: 0, pod: 0, vm: 0, lb: 0, other: 0, free: 0 };
}

/** A subnet's size and counts as its map has them; undefined for a subnet with no IPv4 prefix the map can draw. */
export function subnetCounts(store: Store, subnet: Subnet): { total: number; counts: Counts } | undefined {
  const cidr = mappedPrefix(subnet);
  if (!cidr || cidr.prefix < MIN_PREFIX) return undefined;
  const { total, counts } = mapOf(store, subnet, cidr);
  return { total, counts };
}

/** The map of the subnet `id`; NotFound when there is no such subnet. */
export function subnetMap(store: Store, id: string | null): SubnetMap {
  if (id === null || id === '') throw badRequest('Name the subnet: ?id=<subnet resource id>.', 'id');
  const subnet = findSubnet(store, id);
  if (!subnet) throw notFound(`No subnet ${id.slice(0, 300)}.`);
  const cidr = mappedPrefix(subnet);
  if (!cidr) throw badRequest(`The subnet ${subnet.name} has no IPv4 prefix to draw.`, 'id');
  if (cidr.prefix < MIN_PREFIX) throw badRequest(`The subnet ${subnet.name} is larger than a /${MIN_PREFIX}.`, 'id');
  return mapOf(store, subnet, cidr);
}

/** The map of a subnet whose drawn prefix (mappedPrefix) is `cidr`, a /MIN_PREFIX or smaller. */
function mapOf(store: Store, subnet: Subnet, cidr: Cidr): SubnetMap {
  const held = holders(store, allocationsIn(store, subnet.id));
  const total = Number(cidr.size);
  const counts = emptyCounts();
  const runs: Run[] = [];
  // Held addresses in order; between them, free stretches counted without visiting each address.
  const heldOffsets = [...held.keys()]
    .map((a) => IpAddress.tryParse(a))
    .filter((a): a is IpAddress => a !== undefined && cidr.contains(a))
    .map((a) => Number(cidr.offsetOf(a)))
    .sort((x, y) => x - y);
  // Azure's reserved addresses: the first AZURE_RESERVED_LOW and the broadcast address (net/ip.ts).
  const reserved = (offset: number) => offset < AZURE_RESERVED_LOW || offset === total - 1;
  const add = (offset: number, count: number, h: Holder) => {
    counts[h.kind] += count;
    const prev = runs.at(-1);
    if (prev && prev.kind === h.kind && prev.owner === h.owner) {
      prev.count += count;
      prev.last = cidr.addressAt(offset + count - 1).toString();
      return;
    }
    runs.push({
      first: cidr.addressAt(offset).toString(),
      last: cidr.addressAt(offset + count - 1).toString(),
      count,
      kind: h.kind,
      owner: h.owner,
      ...(h.ownerId === undefined ? {} : { ownerId: h.ownerId }),
    });
  };
  const RESERVED: Holder = { kind: 'reserved', owner: 'Azure' };
  const FREE: Holder = { kind: 'free', owner: '' };
  /** Addresses [from, to) that nobody holds: reserved at the ends, free between. */
  const gap = (from: number, to: number) => {
    let at = from;
    while (at < to && reserved(at)) add(at++, 1, RESERVED);
    const end = to === total && reserved(total - 1) ? total - 1 : to;
    if (end > at) add(at, end - at, FREE);
    if (end < to) add(end, 1, RESERVED);
  };
  let next = 0;
  for (const offset of heldOffsets) {
    if (offset < next) continue;
    gap(next, offset);
    add(offset, 1, held.get(cidr.addressAt(offset).toString())!);
    next = offset + 1;
  }
  gap(next, total);
  return { id: subnet.id, addressPrefix: cidr.toString(), total, counts, cells: cidr.prefix >= CELL_PREFIX, runs };
}
