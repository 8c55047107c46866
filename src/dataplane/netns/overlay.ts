// A CNI agent's VXLAN overlay in a node's namespace (docs/dataplane.md §6.4): the device
// (`ip link add … type vxlan id <vni> local <node ip> dstport <port> nolearning dev eth0`), its addresses, one
// FDB entry per peer VTEP (`bridge fdb append <mac> dev <dev> dst <peer node ip>`), a permanent neighbour for
// each peer's tunnel IP (the ARP budget: docs/dataplane.md §7.1) and `<cidr> via <tunnel ip> dev <dev> onlink`
// routes. What was applied is remembered per host, so a converge writes only the difference (nothing when
// nothing changed) and removes what is stale; the device goes with the node's namespace. Every value is checked
// before it reaches a batch line: the overlay is built from API objects a user can write (flannel's
// backend-data annotation).
import { Cidr, IpAddress } from '../../net/ip.js';
import type { VxlanOverlay } from '../dataplane.js';
import { inNetns, type IpCmd, mayFail, nftLoad, nftTable, run } from './exec.js';
import { FLANNEL_IP_MASQ_TABLE, flannelIpMasqBody } from './flannel-ip-masq.js';
import { IF } from './names.js';
import type { HostState, NetnsState } from './state.js';

/** What one overlay device holds now, as applied. */
export interface OverlayState {
  /** The device's creation parameters (vni, port, local): when they change the device is made again. */
  link: string;
  mtu: number;
  mac: string;
  addresses: Set<string>;
  /** `<mac> <dst>` pairs. */
  fdb: Set<string>;
  /** tunnel IP → MAC. */
  neigh: Map<string, string>;
  /** prefix → tunnel IP. */
  routes: Map<string, string>;
}

/** Bounds on what an agent may ask for (a cluster of this many nodes is far past what aksemu runs). */
const MAX_PEERS = 5000;
const MAX_CIDRS_PER_PEER = 64;
const MAX_ADDRESSES = 16;

const DEVICE_RE = /^[A-Za-z][A-Za-z0-9_.-]{0,14}$/;
const MAC_RE = /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/;
/** Links of ours in a node's namespace an overlay must never be: deleting them would cut the node off. */
const RESERVED = new Set<string>([IF.eth0, IF.cbr0, 'lo']);

const STALE = 'stale';

function ipv4(text: unknown, what: string): string {
  const ip = typeof text === 'string' ? IpAddress.tryParse(text) : undefined;
  if (!ip || ip.family !== 4) throw new Error(`${what} '${String(text)}' is not an IPv4 address`);
  return ip.toString();
}

function prefix(text: unknown, what: string): Cidr {
  try {
    return Cidr.parse(String(text), { family: 4 });
  } catch (e) {
    throw new Error(`${what}: ${(e as Error).message}`);
  }
}

function unicastMac(text: unknown, what: string): string {
  const mac = typeof text === 'string' ? text.toLowerCase() : '';
  // The low bit of the first octet marks a group (multicast) address, which no VTEP has.
  if (!MAC_RE.test(mac) || (Number.parseInt(mac.slice(0, 2), 16) & 1) === 1 || mac === '00:00:00:00:00:00')
    throw new Error(`${what} '${String(text)}' is not a unicast MAC address`);
  return mac;
}

function integer(value: unknown, min: number, max: number, what: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
    throw new Error(`${what} ${String(value)} is not an integer from ${min} to ${max}`);
  return value;
}

/** The overlay checked and in canonical form, as the state it should leave. */
export function desiredOverlay(overlay: VxlanOverlay, nodeIp: string): { device: string; state: OverlayState } {
  const device = String(overlay.device);
  if (!DEVICE_RE.test(device) || RESERVED.has(device)) throw new Error(`overlay device name '${device}' is not allowed`);
  const what = `overlay ${device}`;
  const vni = integer(overlay.vni, 0, 2 ** 24 - 1, `${what}: VNI`);
  const port = integer(overlay.port, 1, 65535, `${what}: port`);
  const mtu = integer(overlay.mtu, 68, 65535, `${what}: MTU`);
  const mac = unicastMac(overlay.mac, `${what}: MAC`);
  const local = ipv4(overlay.localIp, `${what}: local address`);
  if (local !== nodeIp) throw new Error(`${what}: local address ${local} is not the node's address ${nodeIp}`);
  if (!Array.isArray(overlay.addresses) || overlay.addresses.length > MAX_ADDRESSES) throw new Error(`${what}: at most ${MAX_ADDRESSES} addresses`);
  const addresses = new Set(
    overlay.addresses.map((a) => {
      const text = String(a);
      const c = Cidr.parse(text.includes('/') ? text : `${text}/32`, { family: 4, canonical: false });
      return `${ipv4(text.split('/')[0], `${what}: address`)}/${c.prefix}`;
    }),
  );
  if (!Array.isArray(overlay.peers) || overlay.peers.length > MAX_PEERS) throw new Error(`${what}: at most ${MAX_PEERS} peers`);
  const underlay = new Set([nodeIp]);
  const state: OverlayState = { link: `${vni} ${local} ${port}`, mtu, mac, addresses, fdb: new Set(), neigh: new Map(), routes: new Map() };
  const peers = overlay.peers.map((p) => {
    const peerIp = ipv4(p.nodeIp, `${what}: peer node address`);
    if (peerIp === nodeIp) throw new Error(`${what}: a peer has the node's own address ${nodeIp}`);
    underlay.add(peerIp);
    return {
      peerIp,
      mac: unicastMac(p.mac, `${what}: peer ${peerIp} MAC`),
      tunnelIp: ipv4(p.tunnelIp, `${what}: peer ${peerIp} tunnel address`),
      cidrs: p.cidrs,
    };
  });
  for (const p of peers) {
    state.fdb.add(`${p.mac} ${p.peerIp}`);
    const known = state.neigh.get(p.tunnelIp);
    if (known !== undefined && known !== p.mac) throw new Error(`${what}: tunnel address ${p.tunnelIp} is given to two MACs`);
    state.neigh.set(p.tunnelIp, p.mac);
    if (!Array.isArray(p.cidrs) || p.cidrs.length > MAX_CIDRS_PER_PEER) throw new Error(`${what}: peer ${p.peerIp}: at most ${MAX_CIDRS_PER_PEER} prefixes`);
    for (const text of p.cidrs) {
      const cidr = prefix(text, `${what}: peer ${p.peerIp}`);
      // A route over the tunnel to a node's own address would send the tunnel's packets into itself.
      const loops = [...underlay].find((u) => cidr.contains(IpAddress.parse(u)));
      if (loops) throw new Error(`${what}: peer ${p.peerIp}: ${cidr.toString()} holds the node address ${loops}`);
      const key = cidr.toString();
      if (state.routes.has(key)) throw new Error(`${what}: ${key} is routed to two peers`);
      state.routes.set(key, p.tunnelIp);
    }
  }
  return { device, state };
}

const empty = (link: string): OverlayState => ({ link, mtu: 0, mac: '', addresses: new Set(), fdb: new Set(), neigh: new Map(), routes: new Map() });

/** The iproute2 and bridge lines that take the device from `prev` (undefined: it does not exist) to `next`. */
export function overlayCommands(device: string, prev: OverlayState | undefined, next: OverlayState): { ip: IpCmd[]; fdb: IpCmd[] } {
  const ip: IpCmd[] = [];
  const fdb: IpCmd[] = [];
  let from = prev;
  if (!from || from.link !== next.link) {
    // A device's VNI, local address and port are fixed at creation: it is made again, and with it go its FDB,
    // neighbours and routes. A device left by a failed converge (STALE) is made again too.
    if (from) ip.push(mayFail(`link del ${device}`));
    const [vni, local, port] = next.link.split(' ');
    ip.push(`link add ${device} address ${next.mac} mtu ${next.mtu} type vxlan id ${vni} local ${local} dstport ${port} nolearning dev ${IF.eth0}`);
    ip.push(`link set ${device} up`);
    from = { ...empty(next.link), mtu: next.mtu, mac: next.mac };
  }
  if (from.mtu !== next.mtu) ip.push(`link set ${device} mtu ${next.mtu}`);
  if (from.mac !== next.mac) ip.push(`link set ${device} address ${next.mac}`);
  for (const a of from.addresses) if (!next.addresses.has(a)) ip.push(mayFail(`addr del ${a} dev ${device}`));
  for (const a of next.addresses) if (!from.addresses.has(a)) ip.push(`addr replace ${a} dev ${device}`);
  for (const [cidr] of from.routes) if (!next.routes.has(cidr)) ip.push(mayFail(`route del ${cidr} dev ${device}`));
  for (const [t] of from.neigh) if (!next.neigh.has(t)) ip.push(mayFail(`neigh del ${t} dev ${device}`));
  for (const [t, mac] of next.neigh) if (from.neigh.get(t) !== mac) ip.push(`neigh replace ${t} lladdr ${mac} dev ${device} nud permanent`);
  for (const [cidr, t] of next.routes) if (from.routes.get(cidr) !== t) ip.push(`route replace ${cidr} via ${t} dev ${device} onlink`);
  for (const e of from.fdb) {
    if (next.fdb.has(e)) continue;
    const [mac, dst] = e.split(' ');
    fdb.push(mayFail(`fdb del ${mac} dev ${device} dst ${dst} self`));
  }
  for (const e of next.fdb) {
    if (from.fdb.has(e)) continue;
    const [mac, dst] = e.split(' ');
    fdb.push(`fdb append ${mac} dev ${device} dst ${dst} self permanent`);
  }
  return { ip, fdb };
}

/**
 * A device this data plane does not know the content of (first converge, or after a failed one): absent, a
 * VXLAN device to make again, or a link of something else (a pod's veth) that is never touched.
 */
async function unknownDevice(netns: string, device: string): Promise<OverlayState | undefined> {
  const [file, args] = inNetns(netns, 'ip', ['-d', '-o', 'link', 'show', 'dev', device]);
  const r = await run(file, args);
  if (r.code !== 0) return undefined;
  if (/ vxlan id /.test(r.stdout)) return empty(STALE);
  throw new Error(`overlay ${device}: the node already has a link of that name that is not a VXLAN device`);
}

/** Per node: converges run one at a time, so two agents' calls never interleave their batches. */
const queues = new WeakMap<HostState, Promise<void>>();

function serialised(host: HostState, fn: () => Promise<void>): Promise<void> {
  const next = (queues.get(host) ?? Promise.resolve()).then(fn);
  queues.set(
    host,
    next.catch(() => undefined),
  );
  return next;
}

function nodeHost(state: NetnsState, hostId: string): HostState {
  const host = state.hosts.get(hostId.toLowerCase());
  if (!host || host.kind !== 'node') throw new Error(`node ${hostId} is not in the data plane`);
  return host;
}

/** The --ip-masq table each node was given last (its text), so an unchanged one costs no nft process. */
const ipMasqLoaded = new WeakMap<HostState, string>();

/**
 * flanneld's --ip-masq table (flannel-ip-masq.ts; not the agents' outgoing masquerade of masq.ts, which says why):
 * loaded when given or changed, removed when no longer given.
 */
async function applyFlannelIpMasq(host: HostState, masq: VxlanOverlay['ipMasq']): Promise<void> {
  const text = masq ? flannelIpMasqBody(masq) : '';
  if ((ipMasqLoaded.get(host) ?? '') === text) return;
  await nftLoad(host.netns, nftTable('ip', FLANNEL_IP_MASQ_TABLE, masq ? text : undefined));
  ipMasqLoaded.set(host, text);
}

/** Converges the node's device on the overlay; a bad overlay or an unknown node rejects before anything runs. */
export async function applyOverlay(state: NetnsState, hostId: string, overlay: VxlanOverlay): Promise<void> {
  const host = nodeHost(state, hostId);
  const { device, state: next } = desiredOverlay(overlay, host.ip);
  return serialised(host, async () => {
    const known = host.overlays.get(device);
    const prev = known && known.link !== STALE ? known : await unknownDevice(host.netns, device);
    const { ip, fdb } = overlayCommands(device, prev, next);
    await applyFlannelIpMasq(host, overlay.ipMasq);
    if (ip.length === 0 && fdb.length === 0) return;
    try {
      await state.ip.batch(host.netns, ip);
      await state.ip.batch(host.netns, fdb, 'bridge');
    } catch (e) {
      // What the device holds is unknown now: the next converge makes it again.
      host.overlays.set(device, empty(STALE));
      throw e;
    }
    host.overlays.set(device, next);
  });
}

/** Removes a device made by applyOverlay (never any other link of the node); idempotent. */
export async function removeOverlay(state: NetnsState, hostId: string, device: string): Promise<void> {
  const host = state.hosts.get(hostId.toLowerCase());
  if (!host) return;
  return serialised(host, async () => {
    if (!host.overlays.has(device)) return;
    await state.ip.batch(host.netns, [mayFail(`link del ${device}`)]);
    host.overlays.delete(device);
    await applyFlannelIpMasq(host, undefined);
  });
}
