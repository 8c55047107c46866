// Calico's IPAM on the Kubernetes datastore (libcalico-go/lib/ipam, v3.32.1), as the objects it keeps in
// crd.projectcalico.org/v1: an IPPool is cut into blocks (/26 by default); a node claims a block by writing a
// BlockAffinity `<node>-<cidr name>` (pending, then confirmed) and the IPAMBlock `<cidr name>` with affinity
// `host:<node>`; addresses are taken from the block's `unallocated` list front first (released ordinals go to its
// back), each allocation pointing at an attribute (handle_id + the pod's namespace/node/pod/timestamp); the
// IPAMHandle `<handle id, lower case>` counts the handle's addresses per block. Every write carries the
// resourceVersion it read, so two plugins racing for a block get a 409 and retry, as Calico's CAS loop does.
//
// Where aksemu differs: the first block a node tries starts at FNV-32(node name) modulo the pool's block count
// (Calico seeds Go's math/rand with that hash, so its pick is per host too, but a different block); borrowing
// from other nodes' blocks when the pool has no free block is not done (the assignment fails with Calico's
// message instead); IPReservations and pool node selectors other than all() are not evaluated.
import { createHash } from 'node:crypto';
import type { KubeApi } from './calico-kube.js';

export const CALICO_GROUP = '/apis/crd.projectcalico.org/v1';
const RETRIES = 100;

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

export interface Pool {
  name: string;
  cidr: string;
  blockSize: number;
  ipipMode: string;
  vxlanMode: string;
}

/** One IPv4 network as numbers. */
interface Net4 {
  base: number;
  prefix: number;
}

function ipToInt(ip: string): number | undefined {
  const parts = ip.split('.');
  if (parts.length !== 4) return undefined;
  let n = 0;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || Number(p) > 255) return undefined;
    n = n * 256 + Number(p);
  }
  return n;
}

export function intToIp(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

export function parseCidr4(cidr: string): Net4 | undefined {
  const [ip, len] = cidr.split('/');
  const base = ipToInt(ip ?? '');
  const prefix = Number(len);
  if (base === undefined || !/^\d{1,2}$/.test(len ?? '') || prefix > 32) return undefined;
  const size = 2 ** (32 - prefix);
  return { base: base - (base % size), prefix };
}

/** libcalico-go names.CIDRToName: `192.168.4.0/26` → `192-168-4-0-26`. */
export function cidrToName(cidr: string): string {
  return cidr.replace(/\./g, '-').replace('/', '-');
}

/** The BlockAffinity's name (ipam_affinity_v1.go parseKey): host, a dash, the block's CIDR name. */
export function affinityName(host: string, cidr: string): string {
  return `${host}-${cidrToName(cidr)}`;
}

/** The IPAMHandle's name: the handle id in lower case (ipam_handle.go). */
export function handleName(handleId: string): string {
  return handleId.toLowerCase();
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** The projectcalico.org/hostname-hash label: SHA3-256 of the host name, base32 without padding (model/block_affinity.go). */
export function hostnameHash(host: string): string {
  const bytes = createHash('sha3-256').update(host).digest();
  let bits = 0;
  let value = 0;
  let out = '';
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/** FNV-32 (not 32a) of a string, as Go's hash/fnv New32. */
function fnv32(s: string): number {
  let h = 0x811c9dc5;
  for (const b of Buffer.from(s, 'utf8')) {
    h = Math.imul(h, 0x01000193) >>> 0;
    h = (h ^ b) >>> 0;
  }
  return h;
}

/** A failure in Calico's words (the CNI plugin prints it as its error). */
export class IpamError extends Error {}

/** Reads the enabled IPv4 pools (ipam.go: no pools → `no configured Calico pools for node <host>`). */
export async function listPools(api: KubeApi): Promise<Pool[]> {
  const res = await api.request('GET', `${CALICO_GROUP}/ippools`);
  if (res.status !== 200) throw new IpamError(statusMessage(res.body, 'ippools'));
  const pools: Pool[] = [];
  for (const item of Array.isArray(obj(res.body)['items']) ? (obj(res.body)['items'] as unknown[]) : []) {
    const spec = obj(obj(item)['spec']);
    const cidr = str(spec['cidr']);
    const net = cidr ? parseCidr4(cidr) : undefined;
    if (!cidr || !net || spec['disabled'] === true) continue;
    const uses = Array.isArray(spec['allowedUses']) ? (spec['allowedUses'] as unknown[]) : ['Workload', 'Tunnel'];
    if (!uses.includes('Workload') && !uses.includes('Tunnel')) continue;
    const blockSize = typeof spec['blockSize'] === 'number' ? spec['blockSize'] : 26;
    if (blockSize < net.prefix || blockSize > 32) continue;
    pools.push({
      name: str(obj(obj(item)['metadata'])['name']) ?? '',
      cidr: `${intToIp(net.base)}/${net.prefix}`,
      blockSize,
      ipipMode: str(spec['ipipMode']) ?? 'Never',
      vxlanMode: str(spec['vxlanMode']) ?? 'Never',
    });
  }
  return pools;
}

function statusMessage(body: unknown, what: string): string {
  return str(obj(body)['message']) ?? `unexpected response listing ${what}`;
}

interface Block {
  name: string;
  resourceVersion: string;
  cidr: string;
  net: Net4;
  spec: Obj;
}

function toBlock(o: unknown): Block | undefined {
  const spec = obj(obj(o)['spec']);
  const cidr = str(spec['cidr']);
  const net = cidr ? parseCidr4(cidr) : undefined;
  if (!cidr || !net) return undefined;
  const meta = obj(obj(o)['metadata']);
  return { name: str(meta['name']) ?? cidrToName(cidr), resourceVersion: str(meta['resourceVersion']) ?? '', cidr, net, spec };
}

function newBlockSpec(cidr: string, host: string): Obj {
  const net = parseCidr4(cidr)!;
  const n = 2 ** (32 - net.prefix);
  return {
    cidr,
    affinity: `host:${host}`,
    affinityClaimTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    allocations: new Array<null>(n).fill(null),
    unallocated: Array.from({ length: n }, (_, i) => i),
    attributes: [],
    strictAffinity: false,
    deleted: false,
    // Calico seeds a block's sequence number with the time in nanoseconds.
    sequenceNumber: Date.now() * 1_000_000,
    sequenceNumberForAllocation: {},
  };
}

/** Takes the first unallocated ordinal (or the one asked for) for the handle; undefined when the block is full (or it is taken). Mutates spec. */
function takeOrdinal(spec: Obj, handleId: string, attrs: Record<string, string>, wanted?: number): number | undefined {
  const unallocated = Array.isArray(spec['unallocated']) ? (spec['unallocated'] as number[]) : [];
  const allocations = Array.isArray(spec['allocations']) ? (spec['allocations'] as Array<number | null>) : [];
  const ordinal = unallocated.find(
    (o) => typeof o === 'number' && o >= 0 && o < allocations.length && allocations[o] === null && (wanted === undefined || o === wanted),
  );
  if (ordinal === undefined) return undefined;
  const attributes = Array.isArray(spec['attributes']) ? (spec['attributes'] as Obj[]) : [];
  let index = attributes.findIndex((a) => a['handle_id'] === handleId && JSON.stringify(a['secondary'] ?? {}) === JSON.stringify(attrs));
  if (index < 0) {
    attributes.push({ handle_id: handleId, secondary: attrs });
    index = attributes.length - 1;
  }
  allocations[ordinal] = index;
  spec['attributes'] = attributes;
  spec['allocations'] = allocations;
  spec['unallocated'] = unallocated.filter((o) => o !== ordinal);
  const seq = typeof spec['sequenceNumber'] === 'number' ? spec['sequenceNumber'] : 0;
  spec['sequenceNumberForAllocation'] = { ...obj(spec['sequenceNumberForAllocation']), [String(ordinal)]: seq };
  spec['sequenceNumber'] = seq + 1;
  return ordinal;
}

/** Frees every ordinal of the handle (ipam_block.go release): attributes no longer used are dropped and re-indexed. */
function releaseHandle(spec: Obj, handleId: string): number {
  const allocations = Array.isArray(spec['allocations']) ? (spec['allocations'] as Array<number | null>) : [];
  const attributes = Array.isArray(spec['attributes']) ? (spec['attributes'] as Obj[]) : [];
  const unallocated = Array.isArray(spec['unallocated']) ? (spec['unallocated'] as number[]) : [];
  const seqs = { ...obj(spec['sequenceNumberForAllocation']) };
  const mine = new Set(attributes.map((a, i) => (String(a['handle_id']).toLowerCase() === handleId.toLowerCase() ? i : -1)).filter((i) => i >= 0));
  let released = 0;
  for (let o = 0; o < allocations.length; o++) {
    const a = allocations[o];
    if (a === null || a === undefined || !mine.has(a)) continue;
    allocations[o] = null;
    unallocated.push(o);
    delete seqs[String(o)];
    released++;
  }
  if (released === 0) return 0;
  const remap = new Map<number, number>();
  const kept: Obj[] = [];
  attributes.forEach((a, i) => {
    if (mine.has(i)) return;
    remap.set(i, kept.length);
    kept.push(a);
  });
  spec['allocations'] = allocations.map((a) => (a === null || a === undefined ? null : (remap.get(a) ?? null)));
  spec['attributes'] = kept;
  spec['unallocated'] = unallocated;
  spec['sequenceNumberForAllocation'] = seqs;
  return released;
}

export interface AssignRequest {
  host: string;
  handleId: string;
  /** The allocation's attributes (namespace, node, pod, timestamp; or node + type for a tunnel address). */
  attrs: Record<string, string>;
  /** Only pools whose CIDR is one of these (the netconf's ipam.ipv4_pools); all pools when empty. */
  pools?: string[];
}

export interface Assigned {
  /** The address with its block's prefix length (`192.168.4.1/26`), as Calico's IPAM returns it. */
  address: string;
  ip: string;
  block: string;
}

/** The node's confirmed affine blocks, by name of CIDR (a label-selected list, as the KDD backend does). */
export async function affineBlocks(api: KubeApi, host: string): Promise<string[]> {
  const selector = encodeURIComponent(
    `projectcalico.org/hostname-hash=${hostnameHash(host)},projectcalico.org/affinity-type=host,projectcalico.org/ip-version=4`,
  );
  const res = await api.request('GET', `${CALICO_GROUP}/blockaffinities?labelSelector=${selector}`);
  if (res.status !== 200) throw new IpamError(statusMessage(res.body, 'blockaffinities'));
  const out: string[] = [];
  for (const item of Array.isArray(obj(res.body)['items']) ? (obj(res.body)['items'] as unknown[]) : []) {
    const spec = obj(obj(item)['spec']);
    if (spec['node'] === host && spec['state'] === 'confirmed' && spec['deleted'] !== 'true' && typeof spec['cidr'] === 'string') out.push(spec['cidr']);
  }
  return out.sort();
}

async function getBlock(api: KubeApi, cidr: string): Promise<Block | undefined> {
  const res = await api.request('GET', `${CALICO_GROUP}/ipamblocks/${cidrToName(cidr)}`);
  return res.status === 200 ? toBlock(res.body) : undefined;
}

/** Adds one address of the block to the handle (creates it when missing); retried on conflicts. */
async function incrementHandle(api: KubeApi, handleId: string, block: string, by: number): Promise<void> {
  const path = `${CALICO_GROUP}/ipamhandles/${handleName(handleId)}`;
  for (let i = 0; i < RETRIES; i++) {
    const got = await api.request('GET', path);
    if (got.status === 404) {
      if (by < 0) return;
      const created = await api.request('POST', `${CALICO_GROUP}/ipamhandles`, {
        apiVersion: 'crd.projectcalico.org/v1',
        kind: 'IPAMHandle',
        metadata: { name: handleName(handleId) },
        spec: { handleID: handleId, block: { [block]: by }, deleted: false },
      });
      if (created.status === 201 || created.status === 200) return;
      if (created.status === 409) continue;
      throw new IpamError(`failed to increment handle: ${statusMessage(created.body, 'ipamhandles')}`);
    }
    if (got.status !== 200) throw new IpamError(`failed to increment handle: ${statusMessage(got.body, 'ipamhandles')}`);
    const handle = obj(got.body);
    const spec = obj(handle['spec']);
    const blocks = { ...obj(spec['block']) } as Record<string, number>;
    const count = (typeof blocks[block] === 'number' ? blocks[block] : 0) + by;
    if (count > 0) blocks[block] = count;
    else delete blocks[block];
    if (Object.keys(blocks).length === 0 && by < 0) {
      await api.request('DELETE', path);
      return;
    }
    const put = await api.request('PUT', path, { ...handle, spec: { ...spec, block: blocks } });
    if (put.status === 200) return;
    if (put.status === 409) continue;
    throw new IpamError(`failed to increment handle: ${statusMessage(put.body, 'ipamhandles')}`);
  }
  throw new IpamError('Max retries hit - excessive concurrent IPAM requests');
}

/**
 * Assigns one address from the block if it has room: undefined when full; retried on 409. With `ip`, that address
 * only (ipam.AssignIP, whatever the block's affinity), failing as Calico does when it is taken.
 */
async function assignFromBlock(api: KubeApi, cidr: string, req: AssignRequest, ip?: string): Promise<Assigned | undefined> {
  for (let i = 0; i < RETRIES; i++) {
    const block = await getBlock(api, cidr);
    if (!block || (ip === undefined && block.spec['affinity'] !== `host:${req.host}`)) return undefined;
    const wanted = ip === undefined ? undefined : ipToInt(ip)! - block.net.base;
    const ordinal = takeOrdinal(block.spec, req.handleId, req.attrs, wanted);
    if (ordinal === undefined && ip !== undefined) throw new IpamError('Address already assigned in block');
    if (ordinal === undefined) return undefined;
    await incrementHandle(api, req.handleId, cidr, 1);
    const put = await api.request('PUT', `${CALICO_GROUP}/ipamblocks/${block.name}`, {
      apiVersion: 'crd.projectcalico.org/v1',
      kind: 'IPAMBlock',
      metadata: { name: block.name, resourceVersion: block.resourceVersion },
      spec: block.spec,
    });
    if (put.status === 200) {
      const ip = intToIp(block.net.base + ordinal);
      return { address: `${ip}/${block.net.prefix}`, ip, block: cidr };
    }
    await incrementHandle(api, req.handleId, cidr, -1);
    if (put.status !== 409) throw new IpamError(statusMessage(put.body, 'ipamblocks'));
  }
  throw new IpamError('Max retries hit - excessive concurrent IPAM requests');
}

function affinityObject(host: string, cidr: string, state: string, resourceVersion?: string): Obj {
  return {
    apiVersion: 'crd.projectcalico.org/v1',
    kind: 'BlockAffinity',
    metadata: {
      name: affinityName(host, cidr),
      labels: {
        'projectcalico.org/affinity-type': 'host',
        'projectcalico.org/hostname-hash': hostnameHash(host),
        'projectcalico.org/ip-version': '4',
      },
      ...(resourceVersion ? { resourceVersion } : {}),
    },
    spec: { state, node: host, type: 'host', cidr, deleted: 'false' },
  };
}

/** Blocks of the pool in Calico's walk: from a per-host start, wrapping round once. */
function* poolBlocks(pool: Pool, host: string): Generator<string> {
  const net = parseCidr4(pool.cidr)!;
  const count = 2 ** (pool.blockSize - net.prefix);
  const size = 2 ** (32 - pool.blockSize);
  const start = fnv32(host) % count;
  for (let i = 0; i < count; i++) yield `${intToIp(net.base + ((start + i) % count) * size)}/${pool.blockSize}`;
}

/** Claims a free block of the pools for the host (pending affinity → block → confirmed affinity); undefined when none is free. */
async function claimBlock(api: KubeApi, pools: Pool[], host: string): Promise<string | undefined> {
  for (let attempt = 0; attempt < RETRIES; attempt++) {
    const res = await api.request('GET', `${CALICO_GROUP}/ipamblocks`);
    if (res.status !== 200) throw new IpamError(statusMessage(res.body, 'ipamblocks'));
    const taken = new Set<string>();
    for (const item of Array.isArray(obj(res.body)['items']) ? (obj(res.body)['items'] as unknown[]) : []) {
      const b = toBlock(item);
      if (b) taken.add(b.cidr);
    }
    let free: string | undefined;
    for (const pool of pools) {
      for (const cidr of poolBlocks(pool, host)) {
        if (!taken.has(cidr)) {
          free = cidr;
          break;
        }
      }
      if (free) break;
    }
    if (!free) return undefined;
    const affPath = `${CALICO_GROUP}/blockaffinities/${affinityName(host, free)}`;
    const pending = await api.request('POST', `${CALICO_GROUP}/blockaffinities`, affinityObject(host, free, 'pending'));
    let affinity = obj(pending.body);
    if (pending.status === 409) affinity = obj((await api.request('GET', affPath)).body);
    else if (pending.status !== 201 && pending.status !== 200) throw new IpamError(statusMessage(pending.body, 'blockaffinities'));
    const created = await api.request('POST', `${CALICO_GROUP}/ipamblocks`, {
      apiVersion: 'crd.projectcalico.org/v1',
      kind: 'IPAMBlock',
      metadata: { name: cidrToName(free) },
      spec: newBlockSpec(free, host),
    });
    if (created.status === 409) {
      const existing = await getBlock(api, free);
      if (existing?.spec['affinity'] !== `host:${host}`) {
        // Another host beat us to the block: drop our pending affinity and look again.
        await api.request('DELETE', affPath);
        continue;
      }
    } else if (created.status !== 201 && created.status !== 200) {
      throw new IpamError(statusMessage(created.body, 'ipamblocks'));
    }
    const rv = str(obj(affinity['metadata'])['resourceVersion']);
    const confirmed = await api.request('PUT', affPath, affinityObject(host, free, 'confirmed', rv));
    if (confirmed.status !== 200) {
      const again = obj(obj((await api.request('GET', affPath)).body)['spec']);
      if (again['state'] !== 'confirmed') throw new IpamError(statusMessage(confirmed.body, 'blockaffinities'));
    }
    return free;
  }
  throw new IpamError('Max retries hit - excessive concurrent IPAM requests');
}

/**
 * ipam.AutoAssign for one IPv4 address: the host's affine blocks first, then a newly claimed block. Throws
 * Calico's words when nothing is left (`Assigned 0 out of 1 requested IPv4 addresses; No IPs available in pools: [...]`).
 */
export async function autoAssign(api: KubeApi, req: AssignRequest): Promise<Assigned> {
  const all = await listPools(api);
  const pools = req.pools && req.pools.length > 0 ? all.filter((p) => req.pools!.includes(p.cidr) || req.pools!.includes(p.name)) : all;
  if (pools.length === 0) throw new IpamError(`no configured Calico pools for node ${req.host}`);
  const inPool = (cidr: string) => pools.some((p) => within(cidr, p.cidr));
  for (const cidr of (await affineBlocks(api, req.host)).filter(inPool)) {
    const got = await assignFromBlock(api, cidr, req);
    if (got) return got;
  }
  for (let i = 0; i < RETRIES; i++) {
    const cidr = await claimBlock(api, pools, req.host);
    if (!cidr) break;
    const got = await assignFromBlock(api, cidr, req);
    if (got) return got;
  }
  throw new IpamError(`Assigned 0 out of 1 requested IPv4 addresses; No IPs available in pools: [${pools.map((p) => p.cidr).join(' ')}]`);
}

/**
 * ipam.AssignIP: the one address asked for (the CNI_ARGS IP= of a restored pod), in the block of a pool that holds
 * it. Calico would claim that block when no one has; here it must exist (a restored pod's block does).
 */
export async function assignIp(api: KubeApi, req: AssignRequest & { ip: string }): Promise<Assigned> {
  const n = ipToInt(req.ip);
  const pool = n === undefined ? undefined : (await listPools(api)).find((p) => within(`${req.ip}/32`, p.cidr));
  if (n === undefined || !pool) throw new IpamError(`The provided IP address ${req.ip} is not in a configured pool`);
  const size = 2 ** (32 - pool.blockSize);
  const cidr = `${intToIp(n - (n % size))}/${pool.blockSize}`;
  const got = await assignFromBlock(api, cidr, req, req.ip);
  if (!got) throw new IpamError(`The provided IP address ${req.ip} is not in an allocated block (${cidr}): not available`);
  return got;
}

function within(block: string, pool: string): boolean {
  const b = parseCidr4(block);
  const p = parseCidr4(pool);
  if (!b || !p || b.prefix < p.prefix) return false;
  return b.base - (b.base % 2 ** (32 - p.prefix)) === p.base;
}

/** ipam.ReleaseByHandle: frees the handle's addresses in every block it names and deletes the handle. Missing handle: nothing to do. */
export async function releaseByHandle(api: KubeApi, handleId: string): Promise<number> {
  const path = `${CALICO_GROUP}/ipamhandles/${handleName(handleId)}`;
  const got = await api.request('GET', path);
  if (got.status === 404) return 0;
  if (got.status !== 200) throw new IpamError(statusMessage(got.body, 'ipamhandles'));
  let released = 0;
  for (const cidr of Object.keys(obj(obj(obj(got.body)['spec'])['block']))) {
    for (let i = 0; i < RETRIES; i++) {
      const block = await getBlock(api, cidr);
      if (!block) break;
      const n = releaseHandle(block.spec, handleId);
      if (n === 0) break;
      const put = await api.request('PUT', `${CALICO_GROUP}/ipamblocks/${block.name}`, {
        apiVersion: 'crd.projectcalico.org/v1',
        kind: 'IPAMBlock',
        metadata: { name: block.name, resourceVersion: block.resourceVersion },
        spec: block.spec,
      });
      if (put.status === 409) continue;
      if (put.status !== 200) throw new IpamError(statusMessage(put.body, 'ipamblocks'));
      released += n;
      break;
    }
  }
  await api.request('DELETE', path);
  return released;
}

/** The addresses a handle holds now (for an idempotent ADD of the same container). */
export async function addressesOfHandle(api: KubeApi, handleId: string): Promise<Assigned[]> {
  const got = await api.request('GET', `${CALICO_GROUP}/ipamhandles/${handleName(handleId)}`);
  if (got.status !== 200) return [];
  const out: Assigned[] = [];
  for (const cidr of Object.keys(obj(obj(obj(got.body)['spec'])['block']))) {
    const block = await getBlock(api, cidr);
    if (!block) continue;
    const attributes = Array.isArray(block.spec['attributes']) ? (block.spec['attributes'] as Obj[]) : [];
    const allocations = Array.isArray(block.spec['allocations']) ? (block.spec['allocations'] as Array<number | null>) : [];
    allocations.forEach((a, o) => {
      if (a !== null && a !== undefined && String(attributes[a]?.['handle_id']).toLowerCase() === handleId.toLowerCase()) {
        const ip = intToIp(block.net.base + o);
        out.push({ address: `${ip}/${block.net.prefix}`, ip, block: cidr });
      }
    });
  }
  return out;
}
