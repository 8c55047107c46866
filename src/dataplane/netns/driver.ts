// NetnsDataplane: the topology as Linux network namespaces (docs/dataplane.md §3). One router namespace
// per VNet (router.ts), one "internet" namespace on 198.51.100.0/24 behind every router (internet.ts), one
// namespace per host, node or VM (host.ts), and one per pod (pod.ts), wired as its node's wiring says
// (wiring/). Nothing is ever linked to the root namespace: every veth is created inside one of ours with its
// peer sent straight into another. This module applies a topology: what is gone or changed shape is removed,
// what is missing is created, and a failed apply is rolled back. State is kept in memory (state.ts); gc()
// removes leftovers of a previous run (gc.ts).
import type { Dataplane, OutgoingMasquerade, PodAttachment, PodNetwork, ProbeRequest, ProbeResult, VxlanOverlay } from '../dataplane.js';
import type { NodePolicies } from '../policies.js';
import type { NodeServices } from '../services.js';
import type { Topology } from '../topology.js';
import type { Server } from 'node:net';
import { openApiListener } from './api-listener.js';
import { stopAzureDns } from './azure-dns.js';
import { IpBatcher, netnsPath, type IpCmd } from './exec.js';
import { collectGarbage, deleteNamespaces, ownNamespaces } from './gc.js';
import { createHost, shapeOf } from './host.js';
import { buildInternet, routesBack } from './internet.js';
import { defaultPrefix, NetnsNames } from './names.js';
import { applyKubeProxy } from './kube-proxy.js';
import { applyAgentMasquerade } from './masq.js';
import { applyNetworkPolicy } from './network-policy.js';
import { applyOverlay, removeOverlay } from './overlay.js';
import { attachPod, detachPod, releasePods } from './pod.js';
import { probeTcp } from './probe.js';
import { backendEnds, probeEnds } from './probe-ends.js';
import { convergeFrontends, frontendRoutesBack, reprobeFrontends } from './load-balancer.js';
import { convergeOutbound, outboundRoutesBack } from './outbound-snat.js';
import { convergePeerRoutes, convergeRouter, createRouter, forgetHost, removeSubnet } from './router.js';
import { assertUnique, knownNamespaces, type NetnsState, type RouterState } from './state.js';
import { checkTopology, type CheckedHost } from './topology-check.js';

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

export class NetnsDataplane implements Dataplane {
  readonly mode = 'netns' as const;
  readonly names: NetnsNames;
  private readonly state: NetnsState;
  private readonly parallelism: number;
  private applying: Promise<void> = Promise.resolve();
  private collected = false;
  private readonly log: (line: string) => void;
  /**
   * What agents, kube-proxy and the policy engine last asked of each node, by host (lower-case id) and by what it
   * is (`overlay <device>`, `kube-proxy rules`, `network policy`), each as the call that applies it again: a host
   * rebuilt because its shape changed gets all of it again, as the agents of a rebooted node would make it.
   */
  private readonly asked = new Map<string, Map<string, () => Promise<void>>>();

  constructor(options: NetnsDataplaneOptions = {}) {
    this.names = new NetnsNames(options.prefix ?? defaultPrefix(options.home));
    this.state = { names: this.names, ip: new IpBatcher(), inet: undefined, apiListeners: new Map(), routers: new Map(), hosts: new Map(), pods: new Map() };
    this.parallelism = options.parallelism ?? 8;
    this.log = options.log ?? (() => undefined);
  }

  /** Deletes every namespace with this instance's prefix that is not wanted (leftovers of a crashed run). */
  async gc(): Promise<string[]> {
    const orphans = await collectGarbage(this.state);
    this.collected = true;
    if (orphans.length) this.log(`data plane: deleted ${orphans.length} namespace(s) left by an earlier run (${this.names.prefix}-*)`);
    return orphans;
  }

  apply(topology: Topology): Promise<void> {
    const next = this.applying.then(() => this.converge(topology));
    this.applying = next.catch(() => undefined);
    return next;
  }

  private async converge(topology: Topology): Promise<void> {
    const { state } = this;
    const want = checkTopology(topology);
    if (!this.collected) await this.gc();
    const lines = new Map<string, IpCmd[]>();
    const push = (netns: string, cmds: IpCmd[]): void => {
      lines.set(netns, [...(lines.get(netns) ?? []), ...cmds]);
    };

    // Remove what is gone or changed shape (a host is rebuilt rather than edited; its pods go with it).
    const doomed: string[] = [];
    for (const [id, h] of state.hosts) {
      const w = want.hosts.get(id);
      if (w && shapeOf(w) === h.shape) {
        h.node = w.host.node;
        continue;
      }
      doomed.push(h.netns, ...(await releasePods(state, [...h.pods])));
      const r = state.routers.get(h.vnetId);
      if (r && want.vnets.has(h.vnetId)) push(r.netns, forgetHost(r, { id, ip: h.ip }));
      state.hosts.delete(id);
    }
    for (const [id, r] of state.routers) {
      const w = want.vnets.get(id);
      if (!w) {
        doomed.push(r.netns);
        if (state.inet) push(state.inet, [...routesBack(r, []), ...frontendRoutesBack(r), ...outboundRoutesBack(r)]);
        stopAzureDns(r);
        state.routers.delete(id);
        continue;
      }
      for (const [sid, s] of r.subnets) {
        const ws = w.subnets.get(sid);
        if (ws && ws.prefix.equals(s.prefix)) continue;
        push(r.netns, removeSubnet(r, sid));
      }
    }
    // The routers forget their hosts (and drop their ports) before the hosts' namespaces go.
    await this.flush(lines);
    await deleteNamespaces(state.ip, doomed);

    // Create the namespaces that are missing, in one root batch.
    const newRouters = [...want.vnets.keys()].filter((id) => !state.routers.has(id));
    const newHosts = [...want.hosts.values()].filter((h) => !state.hosts.has(h.host.id.toLowerCase()));
    const newInet = state.inet === undefined;
    const created = [
      ...(newInet ? [this.names.internet()] : []),
      ...newRouters.map((id) => this.names.router(id)),
      ...newHosts.map((h) => this.names.host(h.host.id)),
    ];
    assertUnique(state, created);
    const addedSubnets: Array<[RouterState, string]> = [];
    try {
      await state.ip.batch(
        null,
        created.map((n) => `netns add ${n}`),
      );
      if (newInet) await buildInternet(state);
      await forEachLimit(newRouters, this.parallelism, (id) => createRouter(state, id));
      await forEachLimit([...want.vnets.entries()], this.parallelism, ([id, v]) =>
        convergeRouter(
          state,
          id,
          v,
          newHosts.filter((h) => h.vnetId === id),
          addedSubnets,
        ),
      );
      await convergePeerRoutes(state, want.vnets);
      await convergeFrontends(state, want.vnets);
      await convergeOutbound(state, want.vnets);
      await forEachLimit(newHosts, this.parallelism, (h) => createHost(state, h));
    } catch (e) {
      await this.rollback(created, newRouters, newHosts, addedSubnets);
      throw e;
    }
    for (const id of this.asked.keys()) if (!want.hosts.has(id)) this.asked.delete(id);
    await this.reapply(newHosts.map((h) => h.host.id.toLowerCase()));
  }

  /** Everything asked of rebuilt hosts; a failure is the asker's next request to fix, not the apply's. */
  private async reapply(hostIds: string[]): Promise<void> {
    for (const id of hostIds) {
      for (const [what, again] of this.asked.get(id) ?? []) {
        await again().catch((e: unknown) => this.log(`data plane: ${what} of ${id}: ${(e as Error).message}`));
      }
    }
  }

  /** Remembers (or, with undefined, forgets) what was asked of a host, for a rebuild. */
  private remember(hostId: string, what: string, again: (() => Promise<void>) | undefined): void {
    const id = hostId.toLowerCase();
    const byWhat = this.asked.get(id) ?? new Map<string, () => Promise<void>>();
    if (again) byWhat.set(what, again);
    else byWhat.delete(what);
    this.asked.set(id, byWhat);
  }

  async applyOverlay(hostId: string, overlay: VxlanOverlay): Promise<void> {
    // After the apply in progress, which may be rebuilding this very host.
    await this.applying;
    await applyOverlay(this.state, hostId, overlay);
    const copy = structuredClone(overlay);
    this.remember(hostId, `overlay ${overlay.device}`, () => applyOverlay(this.state, hostId, copy));
  }

  async removeOverlay(hostId: string, device: string): Promise<void> {
    this.remember(hostId, `overlay ${device}`, undefined);
    await this.applying;
    await removeOverlay(this.state, hostId, device);
  }

  applyServices(hostId: string, table: NodeServices): Promise<void> {
    return this.applyRemembered(hostId, 'kube-proxy rules', table, async (state, id, value) => {
      await applyKubeProxy(state, id, value);
      // What the load balancer's probes see of this node changed with it (load-balancer.ts).
      const host = state.hosts.get(id.toLowerCase());
      if (host) host.services = value;
      await reprobeFrontends(state, id);
    });
  }

  applyPolicies(hostId: string, table: NodePolicies): Promise<void> {
    return this.applyRemembered(hostId, 'network policy', table, applyNetworkPolicy);
  }

  /** Applies what a node was asked for, and remembers a copy to apply again when the node is rebuilt. */
  private async applyRemembered<T>(
    hostId: string,
    what: string,
    value: T,
    apply: (state: NetnsState, hostId: string, value: T) => Promise<void>,
  ): Promise<void> {
    await this.applying;
    await apply(this.state, hostId, value);
    const copy = structuredClone(value);
    this.remember(hostId, what, () => apply(this.state, hostId, copy));
  }

  /**
   * After a failed apply: what it was creating is deleted and forgotten, and routes and NSGs of the routers
   * it touched are marked stale, so the next apply builds from a known state instead of trusting half a job.
   */
  private async rollback(created: string[], newRouters: string[], newHosts: CheckedHost[], addedSubnets: Array<[RouterState, string]>): Promise<void> {
    const { state } = this;
    for (const id of newRouters) {
      const r = state.routers.get(id);
      if (r) stopAzureDns(r);
      state.routers.delete(id);
    }
    for (const h of newHosts) state.hosts.delete(h.host.id.toLowerCase());
    if (state.inet && created.includes(state.inet)) state.inet = undefined;
    const lines = new Map<string, IpCmd[]>();
    for (const [r, sid] of addedSubnets) {
      if (!r.subnets.has(sid) || ![...state.routers.values()].includes(r)) continue;
      lines.set(r.netns, [...(lines.get(r.netns) ?? []), ...removeSubnet(r, sid)]);
    }
    for (const r of state.routers.values()) {
      for (const s of r.subnets.values()) s.routesKey = '';
      r.nsgText = 'stale';
      r.overlay.key = '';
      r.frontends.router.clear();
      r.outbound.text = 'stale';
    }
    await deleteNamespaces(state.ip, created).catch(() => undefined);
    await this.flush(lines).catch(() => undefined);
  }

  private async flush(lines: Map<string, IpCmd[]>): Promise<void> {
    await Promise.all([...lines].map(([netns, cmds]) => this.state.ip.batch(netns, cmds)));
  }

  attachPod(pod: PodAttachment): Promise<PodNetwork> {
    return attachPod(this.state, pod);
  }

  async detachPod(pod: PodAttachment): Promise<void> {
    // After the apply in progress, which may be rebuilding the pod's node (and releasing its pods with it).
    await this.applying;
    return detachPod(this.state, pod);
  }

  hostNetns(hostId: string): string | undefined {
    const host = this.state.hosts.get(hostId.toLowerCase());
    return host ? netnsPath(host.netns) : undefined;
  }

  async probe(request: ProbeRequest): Promise<ProbeResult> {
    const ends = probeEnds(this.state, request);
    if (typeof ends === 'string') return { connected: false, error: ends, ms: 0 };
    // A Service's address belongs to no namespace (a NodePort's node must not answer itself): its backends listen.
    if (request.backends) return probeTcp(ends.source, request.to, undefined, request.timeoutMs ?? 3000, backendEnds(this.state, request.backends));
    return probeTcp(ends.source, request.to, ends.target, request.timeoutMs ?? 3000);
  }

  applyMasquerade(hostId: string, masquerade: OutgoingMasquerade): Promise<void> {
    return this.applyRemembered(hostId, 'outgoing masquerade', masquerade, applyAgentMasquerade);
  }

  /** A cluster API server's listener at address:port on the emulated internet (api-listener.ts). */
  async apiListener(address: string, port: number): Promise<Server> {
    await this.applying;
    return openApiListener(this.state, address, port);
  }

  async close(options: { removeAll?: boolean } = {}): Promise<void> {
    await this.applying;
    // An open listener or a running server would keep its namespace alive, unseen, after it is deleted.
    for (const server of this.state.apiListeners.values()) server?.close();
    for (const r of this.state.routers.values()) stopAzureDns(r);
    if (options.removeAll) {
      const { state } = this;
      await releasePods(state, [...state.pods.keys()]);
      const all = new Set([...knownNamespaces(state), ...ownNamespaces(state)]);
      await deleteNamespaces(state.ip, [...all]);
      state.routers.clear();
      state.hosts.clear();
      state.pods.clear();
      state.inet = undefined;
      this.asked.clear();
    }
  }
}
