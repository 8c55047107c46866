// NetnsDataplane: the topology as Linux network namespaces (docs/dataplane.md §3). One router namespace
// per VNet (a bridge per subnet with the Azure gateway .1, UDRs as per-subnet route tables, NSGs in nft),
// one "internet" namespace on 198.51.100.0/24 behind every router, one namespace per host (node or VM) and
// one per pod. Nothing is ever linked to the root namespace: every veth is created inside one of ours with
// its peer sent straight into another. State is kept in memory; gc() removes leftovers of a previous run.
import { existsSync } from 'node:fs';
import { Cidr, IpAddress } from '../../net/ip.js';
import type { Dataplane, PodAttachment, PodNetwork, ProbeRequest, ProbeResult } from '../dataplane.js';
import type { NodeTopology, Topology, UdrRoute } from '../topology.js';
import { byoAdd, byoDel } from './byo.js';
import { IpBatcher, type IpCmd, killNetnsProcesses, listNetns, mayFail, netnsPath, nftLoad, nftTable, sysctl } from './exec.js';
import { masqTableBody, MASQ_TABLE } from './masq.js';
import { AZURE_GATEWAY_IP, AZURE_GATEWAY_MAC, defaultPrefix, IF, macFor, NetnsNames } from './names.js';
import { NSG_TABLE, nsgTableBody, type NsgSubnet } from './nsg.js';
import { probeTcp } from './probe.js';
import { BRIDGE_PORT_LIMIT, checkTopology, type CheckedHost, type CheckedVnet } from './topology-check.js';

/** The "internet": a documentation range (RFC 5737), never routed anywhere real. */
export const INTERNET = { prefixLength: 24, host: '198.51.100.10', wanBase: '198.51.100.0/24' } as const;

export interface NetnsDataplaneOptions {
  /** Instance prefix of every namespace (default: derived from `home`, else $AKSEMU_HOME). */
  prefix?: string;
  /** The aksemu home the default prefix is derived from. */
  home?: string;
  /** Where to report what gc removed. */
  log?: (line: string) => void;
  /** Hosts configured at once while applying a topology. */
  parallelism?: number;
}

interface SubnetState {
  bridge: string;
  mac: string;
  prefix: Cidr;
  gateway: string;
  table: number;
  routesKey: string;
}

interface RouterState {
  netns: string;
  wanIp: string;
  spaces: string[];
  subnets: Map<string, SubnetState>;
  nsgText: string | undefined;
  nextTable: number;
}

interface HostState {
  id: string;
  netns: string;
  kind: 'node' | 'vm';
  name: string;
  vnetId: string;
  ip: string;
  subnetPrefix: Cidr;
  shape: string;
  node: NodeTopology | undefined;
  pods: Set<string>;
}

interface PodState {
  key: string;
  netns: string;
  clusterId: string;
  namespace: string;
  name: string;
  hostId: string;
  ip: string;
  model: 'kubenet' | 'azure' | 'byo';
  /** BYO: what CNI DEL needs when the pod goes with its node or at close. */
  attachment?: PodAttachment;
}

async function forEachLimit<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const errors: Error[] = [];
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++]!;
      try {
        await fn(item);
      } catch (e) {
        errors.push(e as Error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (errors.length) throw errors[0];
}

const podKeyOf = (pod: PodAttachment): string => `${pod.clusterId}|${pod.sandboxId}`.toLowerCase();

function routeLine(r: UdrRoute, table: number): string {
  switch (r.nextHopType) {
    case 'VirtualAppliance':
      return `route replace ${r.prefix} via ${r.nextHopIp} table ${table}`;
    case 'Internet':
      return `route replace ${r.prefix} via ${INTERNET.host} dev ${IF.wan} table ${table}`;
    case 'VnetLocal':
      // Back to the main table: the VNet's own routing.
      return `route replace throw ${r.prefix} table ${table}`;
    case 'None':
      return `route replace blackhole ${r.prefix} table ${table}`;
    case 'VirtualNetworkGateway':
      // No gateway exists here: the destination is unreachable, as it is in Azure without one.
      return `route replace unreachable ${r.prefix} table ${table}`;
  }
}

export class NetnsDataplane implements Dataplane {
  readonly mode = 'netns' as const;
  readonly names: NetnsNames;
  private readonly ip = new IpBatcher();
  private readonly parallelism: number;
  private inet: string | undefined;
  private readonly routers = new Map<string, RouterState>();
  private readonly hosts = new Map<string, HostState>();
  private readonly pods = new Map<string, PodState>();
  private applying: Promise<void> = Promise.resolve();
  private collected = false;
  private readonly log: (line: string) => void;

  constructor(options: NetnsDataplaneOptions = {}) {
    this.names = new NetnsNames(options.prefix ?? defaultPrefix(options.home));
    this.parallelism = options.parallelism ?? 8;
    this.log = options.log ?? (() => undefined);
  }

  /** Every namespace this instance wants now. */
  private known(): Set<string> {
    const all = new Set<string>();
    if (this.inet) all.add(this.inet);
    for (const r of this.routers.values()) all.add(r.netns);
    for (const h of this.hosts.values()) all.add(h.netns);
    for (const p of this.pods.values()) all.add(p.netns);
    return all;
  }

  /** Deletes every namespace with this instance's prefix that is not wanted (leftovers of a crashed run). */
  async gc(): Promise<string[]> {
    const known = this.known();
    const orphans = listNetns((n) => this.names.owns(n)).filter((n) => !known.has(n));
    await this.deleteNamespaces(orphans);
    this.collected = true;
    if (orphans.length) this.log(`data plane: deleted ${orphans.length} namespace(s) left by an earlier run (${this.names.prefix}-*)`);
    return orphans;
  }

  /** Forgets pods, running CNI DEL for BYO ones first (else their IPAM addresses leak: pitfall 11). */
  private async releasePods(keys: string[]): Promise<string[]> {
    const netns: string[] = [];
    for (const key of keys) {
      const p = this.pods.get(key);
      if (!p) continue;
      const host = this.hosts.get(p.hostId);
      if (p.attachment && host) await byoDel(p.attachment, host.netns, p.netns).catch(() => undefined);
      netns.push(p.netns);
      this.pods.delete(key);
      host?.pods.delete(key);
    }
    return netns;
  }

  /** Deletes namespaces by name; whatever is still there afterwards is retried once and then reported. */
  private async deleteNamespaces(names: string[]): Promise<void> {
    if (names.length === 0) return;
    killNetnsProcesses(names);
    await this.ip.batch(null, names.map((n) => mayFail(`netns del ${n}`)));
    const left = names.filter((n) => existsSync(netnsPath(n)));
    if (left.length === 0) return;
    killNetnsProcesses(left);
    await this.ip.batch(null, left.map((n) => `netns del ${n}`));
  }

  apply(topology: Topology): Promise<void> {
    const next = this.applying.then(() => this.converge(topology));
    this.applying = next.catch(() => undefined);
    return next;
  }

  private async converge(topology: Topology): Promise<void> {
    const want = checkTopology(topology);
    if (!this.collected) await this.gc();
    const lines = new Map<string, IpCmd[]>();
    const push = (netns: string, ...cmds: IpCmd[]): void => {
      lines.set(netns, [...(lines.get(netns) ?? []), ...cmds]);
    };

    // Remove what is gone or changed shape (a host is rebuilt rather than edited; its pods go with it).
    const doomed: string[] = [];
    for (const [id, h] of this.hosts) {
      const w = want.hosts.get(id);
      if (w && this.shapeOf(w) === h.shape) {
        h.node = w.host.node;
        continue;
      }
      doomed.push(h.netns, ...(await this.releasePods([...h.pods])));
      const r = this.routers.get(h.vnetId);
      if (r && want.vnets.has(h.vnetId)) for (const s of r.subnets.values()) push(r.netns, mayFail(`neigh del ${h.ip} dev ${s.bridge}`));
      this.hosts.delete(id);
    }
    for (const [id, r] of this.routers) {
      const w = want.vnets.get(id);
      if (!w) {
        doomed.push(r.netns);
        if (this.inet) push(this.inet, ...r.spaces.map((s) => mayFail(`route del ${s} via ${r.wanIp}`)));
        this.routers.delete(id);
        continue;
      }
      for (const [sid, s] of r.subnets) {
        const ws = w.subnets.get(sid);
        if (ws && ws.prefix.equals(s.prefix)) continue;
        push(r.netns, mayFail(`rule del pref ${s.table}`), mayFail(`route flush table ${s.table}`), mayFail(`link del ${s.bridge}`));
        r.subnets.delete(sid);
      }
    }
    await this.deleteNamespaces(doomed);
    await this.flush(lines);

    // Create the namespaces that are missing, in one root batch.
    const newRouters = [...want.vnets.keys()].filter((id) => !this.routers.has(id));
    const newHosts = [...want.hosts.values()].filter((h) => !this.hosts.has(h.host.id.toLowerCase()));
    const newInet = this.inet === undefined;
    const created = [
      ...(newInet ? [this.names.internet()] : []),
      ...newRouters.map((id) => this.names.router(id)),
      ...newHosts.map((h) => this.names.host(h.host.id)),
    ];
    this.assertUnique(created);
    const addedSubnets: Array<[RouterState, string]> = [];
    try {
      await this.ip.batch(null, created.map((n) => `netns add ${n}`));
      if (newInet) await this.buildInternet();
      await forEachLimit(newRouters, this.parallelism, (id) => this.createRouter(id));
      await forEachLimit([...want.vnets.entries()], this.parallelism, ([id, v]) => this.convergeRouter(id, v, newHosts.filter((h) => h.vnetId === id), addedSubnets));
      await forEachLimit(newHosts, this.parallelism, (h) => this.createHost(h));
    } catch (e) {
      await this.rollback(created, newRouters, newHosts, addedSubnets);
      throw e;
    }
  }

  /**
   * After a failed apply: what it was creating is deleted and forgotten, and routes and NSGs of the routers
   * it touched are marked stale, so the next apply builds from a known state instead of trusting half a job.
   */
  private async rollback(created: string[], newRouters: string[], newHosts: CheckedHost[], addedSubnets: Array<[RouterState, string]>): Promise<void> {
    for (const id of newRouters) this.routers.delete(id);
    for (const h of newHosts) this.hosts.delete(h.host.id.toLowerCase());
    if (this.inet && created.includes(this.inet)) this.inet = undefined;
    const lines = new Map<string, IpCmd[]>();
    for (const [r, sid] of addedSubnets) {
      const s = r.subnets.get(sid);
      if (!s || ![...this.routers.values()].includes(r)) continue;
      lines.set(r.netns, [...(lines.get(r.netns) ?? []), mayFail(`rule del pref ${s.table}`), mayFail(`route flush table ${s.table}`), mayFail(`link del ${s.bridge}`)]);
      r.subnets.delete(sid);
    }
    for (const r of this.routers.values()) {
      for (const s of r.subnets.values()) s.routesKey = '';
      r.nsgText = 'stale';
    }
    await this.deleteNamespaces(created).catch(() => undefined);
    await this.flush(lines).catch(() => undefined);
  }

  private assertUnique(created: string[]): void {
    const known = this.known();
    const seen = new Set<string>();
    for (const n of created) {
      if (known.has(n) || seen.has(n)) throw new Error(`namespace name ${n} collides with another object of this instance`);
      seen.add(n);
    }
  }

  private async flush(lines: Map<string, IpCmd[]>): Promise<void> {
    await Promise.all([...lines].map(([netns, cmds]) => this.ip.batch(netns, cmds)));
  }

  private shapeOf(h: CheckedHost): string {
    const n = h.host.node;
    return JSON.stringify([h.vnetId, h.subnetId, h.subnet.prefix.toString(), h.host.ip, h.host.kind, n?.model, n?.podCidr, n?.clusterPodCidr]);
  }

  private async buildInternet(): Promise<void> {
    const inet = this.names.internet();
    await sysctl(inet, { 'net.ipv4.ip_forward': 0, 'net.ipv4.conf.all.rp_filter': 1, 'net.ipv4.conf.default.rp_filter': 1 });
    await this.ip.batch(inet, [
      'link set lo up',
      `link add ${IF.internetBridge} address ${macFor(`${inet}:wan`)} type bridge`,
      `link set ${IF.internetBridge} up`,
      `addr replace ${INTERNET.host}/${INTERNET.prefixLength} dev ${IF.internetBridge}`,
    ]);
    this.inet = inet;
  }

  /** The next free router address on the internet side (.10 is the internet host). */
  private allocateWanIp(): string {
    const used = new Set([...this.routers.values()].map((r) => r.wanIp));
    const base = Cidr.parse(INTERNET.wanBase);
    for (let i = 1; i < 255; i++) {
      const ip = base.addressAt(i).toString();
      if (ip !== INTERNET.host && !used.has(ip)) return ip;
    }
    throw new Error('no internet-side address left for another VNet router (at most 253 VNets)');
  }

  private async createRouter(id: string): Promise<void> {
    const netns = this.names.router(id);
    const wanIp = this.allocateWanIp();
    this.routers.set(id, { netns, wanIp, spaces: [], subnets: new Map(), nsgText: undefined, nextTable: 100 });
    // Before any link exists, so every bridge inherits send_redirects=0 (UDR hairpins would otherwise
    // send ICMP redirects that VMs accept and keep using after the UDR is gone: pitfall 2).
    await sysctl(netns, {
      'net.ipv4.ip_forward': 1,
      'net.ipv4.conf.all.send_redirects': 0,
      'net.ipv4.conf.default.send_redirects': 0,
      'net.ipv4.conf.all.accept_redirects': 0,
      'net.ipv4.conf.default.accept_redirects': 0,
      // Loose on purpose: a UDR may send a flow back out of the interface it came from.
      'net.ipv4.conf.all.rp_filter': 0,
      'net.ipv4.conf.default.rp_filter': 0,
      // Bridged packets through the ip hooks: the stateful NSG table needs conntrack (see nsg.ts).
      'net.bridge.bridge-nf-call-iptables': 1,
    });
    const port = IF.routerPort(id);
    await this.ip.batch(this.inet!, [
      `link add ${port} type veth peer name ${IF.wan} address ${macFor(`${netns}:wan`)} netns ${netns}`,
      `link set ${port} master ${IF.internetBridge} up`,
    ]);
    await this.ip.batch(netns, ['link set lo up', `link set ${IF.wan} up`, `addr replace ${wanIp}/${INTERNET.prefixLength} dev ${IF.wan}`]);
  }

  private async convergeRouter(id: string, want: CheckedVnet, newHosts: CheckedHost[], addedSubnets: Array<[RouterState, string]>): Promise<void> {
    const r = this.routers.get(id)!;
    const cmds: IpCmd[] = [];
    for (const [sid, s] of want.subnets) {
      if (r.subnets.has(sid)) continue;
      const bridge = IF.subnetBridge(sid);
      const state: SubnetState = { bridge, mac: macFor(`${r.netns}:${sid}`), prefix: s.prefix, gateway: s.gateway, table: r.nextTable++, routesKey: '' };
      r.subnets.set(sid, state);
      addedSubnets.push([r, sid]);
      cmds.push(
        `link add ${bridge} address ${state.mac} type bridge`,
        `link set ${bridge} up`,
        `addr replace ${s.gateway}/${s.prefix.prefix} dev ${bridge}`,
        `rule add iif ${bridge} lookup ${state.table} pref ${state.table}`,
      );
    }
    // UDRs: each subnet's route table, rewritten when its routes changed.
    for (const [sid, s] of want.subnets) {
      const state = r.subnets.get(sid)!;
      const key = JSON.stringify(s.subnet.routes);
      if (key === state.routesKey) continue;
      cmds.push(mayFail(`route flush table ${state.table}`), ...s.subnet.routes.map((route) => routeLine(route, state.table)));
      state.routesKey = key;
    }
    for (const h of newHosts) {
      const s = r.subnets.get(h.subnetId)!;
      const port = IF.hostPort(h.host.id);
      const hostNetns = this.names.host(h.host.id);
      cmds.push(
        `link add ${port} type veth peer name ${IF.eth0} address ${macFor(hostNetns)} netns ${hostNetns}`,
        `link set ${port} master ${s.bridge} up`,
        `neigh replace ${h.host.ip} lladdr ${macFor(hostNetns)} dev ${s.bridge} nud permanent`,
      );
    }
    await this.ip.batch(r.netns, cmds);

    // The internet routes back to each VNet's address space through its router.
    const gone = r.spaces.filter((s) => !want.spaces.includes(s));
    const added = want.spaces.filter((s) => !r.spaces.includes(s));
    await this.ip.batch(this.inet!, [...gone.map((s) => mayFail(`route del ${s} via ${r.wanIp}`)), ...added.map((s) => `route replace ${s} via ${r.wanIp}`)]);
    r.spaces = want.spaces;

    const nsgSubnets: NsgSubnet[] = [];
    for (const [sid, s] of want.subnets) {
      if (!s.subnet.nsg) continue;
      nsgSubnets.push({ bridge: r.subnets.get(sid)!.bridge, rules: s.subnet.nsg.rules, virtualNetwork: [...want.spaces, ...s.subnet.routes.map((x) => x.prefix)] });
    }
    const body = nsgTableBody(nsgSubnets);
    const text = body === undefined ? undefined : nftTable('ip', NSG_TABLE, body);
    if (text !== r.nsgText) {
      await nftLoad(r.netns, text ?? nftTable('ip', NSG_TABLE, undefined));
      r.nsgText = text;
    }
  }

  private async createHost(h: CheckedHost): Promise<void> {
    const { host, subnet } = h;
    const netns = this.names.host(host.id);
    const node = host.kind === 'node' ? host.node : undefined;
    const r = this.routers.get(h.vnetId)!;
    const gwMac = r.subnets.get(h.subnetId)!.mac;
    const values: Record<string, number> = {
      'net.ipv4.ip_forward': node ? 1 : 0,
      'net.ipv4.conf.all.accept_redirects': 0,
      'net.ipv4.conf.default.accept_redirects': 0,
      'net.ipv4.conf.eth0.accept_redirects': 0,
      // Explicit, so a host with devconf_inherit_init_net=1 does not hand us its own (pitfall 5).
      'net.ipv4.conf.all.rp_filter': 1,
      'net.ipv4.conf.default.rp_filter': 1,
      'net.ipv4.conf.eth0.rp_filter': 1,
    };
    if (node?.model === 'azure') {
      // The node answers ARP for its pods' addresses at once (the default 80 ms delay: pitfall 3);
      // pod veths created later inherit proxy_arp from default.
      values['net.ipv4.neigh.eth0.proxy_delay'] = 0;
      values['net.ipv4.conf.default.proxy_arp'] = 1;
    }
    await sysctl(netns, values);
    const cmds: IpCmd[] = [
      'link set lo up',
      `link set ${IF.eth0} up`,
      `addr replace ${host.ip}/${subnet.prefix.prefix} dev ${IF.eth0}`,
      `route replace default via ${subnet.gateway} dev ${IF.eth0}`,
      `neigh replace ${subnet.gateway} lladdr ${gwMac} dev ${IF.eth0} nud permanent`,
    ];
    if (node?.model === 'kubenet') {
      const pods = Cidr.parse(node.podCidr!);
      cmds.push(`link add ${IF.cbr0} address ${macFor(`${netns}:cbr0`)} type bridge`, `link set ${IF.cbr0} up`, `addr replace ${pods.addressAt(1)}/${pods.prefix} dev ${IF.cbr0}`);
    }
    await this.ip.batch(netns, cmds);
    if (node?.model === 'kubenet') await nftLoad(netns, nftTable('ip', MASQ_TABLE, masqTableBody([node.clusterPodCidr ?? node.podCidr!])));
    if (node?.model === 'azure') await nftLoad(netns, nftTable('ip', MASQ_TABLE, masqTableBody(this.routers.get(h.vnetId)!.spaces)));
    this.hosts.set(host.id.toLowerCase(), {
      id: host.id,
      netns,
      kind: host.kind,
      name: host.name,
      vnetId: h.vnetId,
      ip: host.ip,
      subnetPrefix: subnet.prefix,
      shape: this.shapeOf(h),
      node,
      pods: new Set(),
    });
  }

  async attachPod(pod: PodAttachment): Promise<PodNetwork> {
    const key = podKeyOf(pod);
    const existing = this.pods.get(key);
    if (existing) return { ip: existing.ip, netns: netnsPath(existing.netns) };
    const host = this.hosts.get(pod.hostId.toLowerCase());
    if (!host || host.kind !== 'node' || !host.node) throw new Error(`node ${pod.node} (${pod.hostId}) is not in the data plane: apply a topology with it first`);
    const netns = this.names.pod(key);
    const model = pod.cni ? 'byo' : host.node.model;
    if (model === 'none') throw new Error(`node ${pod.node} has no network plugin: its pods need the CNI configuration of the node (cni)`);
    const ip = model === 'byo' ? undefined : this.checkPodIp(pod, host, model);
    if (model === 'kubenet' && [...host.pods].length >= BRIDGE_PORT_LIMIT) {
      throw new Error(`node ${pod.node}: cbr0 already has ${BRIDGE_PORT_LIMIT} pods (a Linux bridge takes at most ${BRIDGE_PORT_LIMIT} ports)`);
    }
    this.assertUnique([netns]);
    const state: PodState = { key, netns, clusterId: pod.clusterId, namespace: pod.namespace, name: pod.name, hostId: host.id.toLowerCase(), ip: ip ?? '', model, ...(model === 'byo' ? { attachment: pod } : {}) };
    // Reserved before the first await, so concurrent attaches see the port count and the address.
    this.pods.set(key, state);
    host.pods.add(key);
    try {
      await this.ip.batch(null, [`netns add ${netns}`]);
      if (model === 'byo') state.ip = await byoAdd(pod, host.netns, netns);
      else await this.wirePod(model, host, state);
    } catch (e) {
      this.pods.delete(key);
      host.pods.delete(key);
      if (model === 'byo') await byoDel(pod, host.netns, netns).catch(() => undefined);
      await this.deleteNamespaces([netns]);
      throw e;
    }
    return { ip: state.ip, netns: netnsPath(netns) };
  }

  private checkPodIp(pod: PodAttachment, host: HostState, model: 'kubenet' | 'azure'): string {
    const ip = IpAddress.tryParse(pod.ip ?? '');
    if (!ip || ip.family !== 4) throw new Error(`pod ${pod.namespace}/${pod.name}: '${pod.ip ?? ''}' is not an IPv4 address`);
    if (model === 'kubenet') {
      const range = Cidr.parse(host.node!.podCidr!);
      const o = range.contains(ip) ? range.offsetOf(ip) : -1n;
      if (o < 2n || o === range.size - 1n) throw new Error(`pod ${pod.namespace}/${pod.name}: ${pod.ip} is not a pod address of node ${host.name}'s ${range.toString()}`);
    } else {
      const secondary = host.node!.secondaryIps;
      const ok = secondary ? secondary.includes(ip.toString()) : host.subnetPrefix.contains(ip) && ip.toString() !== host.ip;
      if (!ok) throw new Error(`pod ${pod.namespace}/${pod.name}: ${pod.ip} is not one of node ${host.name}'s pre-allocated pod addresses`);
    }
    for (const key of host.pods) {
      const other = this.pods.get(key);
      if (other && other.ip === ip.toString() && other.key !== podKeyOf(pod)) throw new Error(`pod ${pod.namespace}/${pod.name}: ${pod.ip} is already used by pod ${other.namespace}/${other.name}`);
    }
    return ip.toString();
  }

  /** kubenet: a cbr0 port; Azure CNI: azure-vnet's transparent mode (docs/dataplane.md §4, §5). */
  private async wirePod(model: 'kubenet' | 'azure', host: HostState, pod: PodState): Promise<void> {
    const veth = IF.podVeth(model, pod.key);
    const mac = macFor(pod.netns);
    if (model === 'kubenet') {
      const range = Cidr.parse(host.node!.podCidr!);
      const gw = range.addressAt(1).toString();
      await this.ip.batch(host.netns, [
        `link add ${veth} type veth peer name ${IF.eth0} address ${mac} netns ${pod.netns}`,
        `link set ${veth} master ${IF.cbr0} up`,
        `neigh replace ${pod.ip} lladdr ${mac} dev ${IF.cbr0} nud permanent`,
      ]);
      await this.ip.batch(pod.netns, [
        'link set lo up',
        `link set ${IF.eth0} up`,
        `addr replace ${pod.ip}/${range.prefix} dev ${IF.eth0}`,
        `route replace default via ${gw} dev ${IF.eth0}`,
        `neigh replace ${gw} lladdr ${macFor(`${host.netns}:cbr0`)} dev ${IF.eth0} nud permanent`,
      ]);
      return;
    }
    await this.ip.batch(host.netns, [
      `link add ${veth} address ${AZURE_GATEWAY_MAC} type veth peer name ${IF.eth0} address ${mac} netns ${pod.netns}`,
      `link set ${veth} up`,
      `route replace ${pod.ip}/32 dev ${veth}`,
      `neigh replace ${pod.ip} lladdr ${mac} dev ${veth} nud permanent`,
      `neigh replace proxy ${pod.ip} dev ${IF.eth0}`,
    ]);
    await this.ip.batch(pod.netns, [
      'link set lo up',
      `link set ${IF.eth0} up`,
      // noprefixroute: the pod reaches everything, its own subnet included, through 169.254.1.1.
      `addr replace ${pod.ip}/${host.subnetPrefix.prefix} dev ${IF.eth0} noprefixroute`,
      `route replace ${AZURE_GATEWAY_IP}/32 dev ${IF.eth0} scope link`,
      `route replace default via ${AZURE_GATEWAY_IP} dev ${IF.eth0}`,
      `neigh replace ${AZURE_GATEWAY_IP} lladdr ${AZURE_GATEWAY_MAC} dev ${IF.eth0} nud permanent`,
    ]);
  }

  async detachPod(pod: PodAttachment): Promise<void> {
    const key = podKeyOf(pod);
    const state = this.pods.get(key);
    const netns = state?.netns ?? this.names.pod(key);
    const host = this.hosts.get((state?.hostId ?? pod.hostId).toLowerCase());
    if (pod.cni && host) await byoDel(pod, host.netns, netns);
    // Deleting the namespace takes the veth with it (an `ip link del` costs ~17 ms each: pitfall 7).
    await this.deleteNamespaces([netns]);
    const ip = state?.ip ?? pod.ip;
    if (host && ip && !pod.cni) {
      const model = host.node?.model;
      if (model === 'kubenet') await this.ip.batch(host.netns, [mayFail(`neigh del ${ip} dev ${IF.cbr0}`)]);
      if (model === 'azure') await this.ip.batch(host.netns, [mayFail(`neigh del proxy ${ip} dev ${IF.eth0}`)]);
    }
    this.pods.delete(key);
    host?.pods.delete(key);
  }

  async probe(request: ProbeRequest): Promise<ProbeResult> {
    const { from, to } = request;
    const fail = (error: string): ProbeResult => ({ connected: false, error, ms: 0 });
    if (!IpAddress.tryParse(to.ip) || !Number.isInteger(to.port) || to.port < 1 || to.port > 65535) return fail(`invalid target ${to.ip}:${to.port}`);
    let source: string | undefined;
    let clusterId = from.clusterId?.toLowerCase();
    let vnetId: string | undefined;
    if (from.kind === 'internet') source = this.inet;
    else if (from.kind === 'controlplane') {
      const exit = this.tunnelExit(to.ip, clusterId, request.tunnel ?? []);
      if (typeof exit === 'string') return fail(exit);
      source = exit.netns;
      vnetId = exit.vnetId;
    } else if (from.kind === 'pod') {
      const p = [...this.pods.values()].find(
        (x) => x.namespace === from.namespace && x.name === from.name && (!clusterId || x.clusterId.toLowerCase() === clusterId),
      );
      source = p?.netns;
      clusterId = p?.clusterId.toLowerCase();
      vnetId = p ? this.hosts.get(p.hostId)?.vnetId : undefined;
    } else {
      const h = [...this.hosts.values()].find((x) => x.kind === from.kind && x.name === from.name && (!clusterId || x.node?.clusterId.toLowerCase() === clusterId));
      source = h?.netns;
      vnetId = h?.vnetId;
    }
    if (!source) return fail(`${from.kind}${from.name ? ` ${from.namespace ? `${from.namespace}/` : ''}${from.name}` : ''} is not in the data plane`);
    return probeTcp(source, to, this.targetOf(to.ip, clusterId, vnetId), request.timeoutMs ?? 3000);
  }

  /**
   * Where the control plane's traffic to ip enters the cluster: konnectivity tunnels it to an agent on a node,
   * which dials from there — the node holding the destination (pod or node IP) when there is one, else the
   * cluster's first node. Destinations outside the tunnelled prefixes have no route from the control plane.
   */
  private tunnelExit(ip: string, clusterId: string | undefined, tunnel: string[]): HostState | string {
    const address = IpAddress.parse(ip);
    const routed = tunnel.some((p) => {
      try {
        const c = Cidr.parse(p);
        return c.family === address.family && c.contains(address);
      } catch {
        return false;
      }
    });
    if (!routed) {
      const via = tunnel.length ? tunnel.join(', ') : 'nothing';
      return `connect EHOSTUNREACH ${ip}: the control plane tunnels only ${via} into the cluster (a BYO CNI cluster needs a pod CIDR for control plane to pod traffic)`;
    }
    const nodes = [...this.hosts.values()].filter((h) => h.kind === 'node' && h.node?.clusterId.toLowerCase() === clusterId);
    const pod = [...this.pods.values()].find((p) => p.ip === ip && p.clusterId.toLowerCase() === clusterId);
    const exit = (pod && this.hosts.get(pod.hostId)) ?? nodes.find((h) => h.ip === ip) ?? nodes[0];
    return exit ?? `the cluster has no node in the data plane for the control plane to tunnel through`;
  }

  /** The namespace that owns an address, preferring the source's cluster and VNet (kubenet pod ranges repeat). */
  private targetOf(ip: string, clusterId: string | undefined, vnetId: string | undefined): string | undefined {
    if (ip === INTERNET.host) return this.inet;
    const pods = [...this.pods.values()].filter((p) => p.ip === ip);
    const pod = pods.find((p) => p.clusterId.toLowerCase() === clusterId) ?? pods.find((p) => this.hosts.get(p.hostId)?.vnetId === vnetId) ?? pods[0];
    if (pod) return pod.netns;
    const hosts = [...this.hosts.values()].filter((h) => h.ip === ip);
    return (hosts.find((h) => h.vnetId === vnetId) ?? hosts[0])?.netns;
  }

  async close(options: { removeAll?: boolean } = {}): Promise<void> {
    await this.applying;
    if (options.removeAll) {
      await this.releasePods([...this.pods.keys()]);
      const all = new Set([...this.known(), ...listNetns((n) => this.names.owns(n))]);
      await this.deleteNamespaces([...all]);
      this.routers.clear();
      this.hosts.clear();
      this.pods.clear();
      this.inet = undefined;
    }
  }
}
