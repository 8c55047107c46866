// Azure Load Balancer frontends on the netns data plane (docs/dataplane.md §16). cloud-provider-azure's rules have
// floating IP on (direct server return): Azure delivers the packet to a backend node with the frontend's own address
// and port, and kube-proxy's rules for the Service's ingress IP DNAT it there. The VNet router plays the load
// balancer: TCP and UDP to a frontend address are routed, unchanged, to the backend nodes (an equal-cost multipath
// route over the nodes whose health probes answer, hashed per flow's addresses as Azure's 5-tuple hash spreads flows;
// the answers are read from kube-proxy's table on each node, `probeAnswers`), from a routing table that only TCP and
// UDP consult (`ip rule ipproto`). The internet host routes the public frontends to the router. An internal frontend
// is an address of a subnet, so the hosts there ask for it by ARP: the main table routes it to a link that leads nowhere, which
// makes the router's proxy entry on the subnet's bridge answer (ARP lookups carry no protocol, so they never reach the
// multipath table). Replies leave the node with the frontend's address (conntrack undoes the DNAT) and go straight
// back: Azure's return path does not pass the load balancer either.
import { mayFail, sysctl, type IpCmd } from './exec.js';
import type { NetnsState, RouterState } from './state.js';
import type { CheckedVnet } from './topology-check.js';
import type { NodeServices } from '../services.js';
import type { LoadBalancerFrontend, LoadBalancerProbe } from '../topology.js';

/** The routing table and rule preference of the frontends' multipath routes (below the subnets' UDR tables, 100+). */
const LB_TABLE = 90;
/** The link the main table sends frontend addresses to (what makes proxy ARP answer for internal ones). */
const LB_LINK = 'lbfe0';
const LB_LINK_PEER = 'lbfe1';

/** What the router holds for its frontends, as lines to compare. */
export interface FrontendState {
  /** The router's commands that made each frontend, by address. */
  router: Map<string, string>;
  /** The internet's routes to public frontends, by address. */
  internet: Map<string, string>;
  ready: boolean;
  /** The frontends the topology wants, before their backends' health is applied. */
  want: LoadBalancerFrontend[];
  /** The convergence running now (they run one after another). */
  queue: Promise<void>;
}

export function emptyFrontends(): FrontendState {
  return { router: new Map(), internet: new Map(), ready: false, want: [], queue: Promise.resolve() };
}

function routerKey(f: LoadBalancerFrontend, bridge: string | undefined): string {
  return JSON.stringify([f.backends, bridge ?? null]);
}

function addCommands(f: LoadBalancerFrontend, bridge: string | undefined): IpCmd[] {
  const hops = f.backends.length === 1 ? `via ${f.backends[0]}` : f.backends.map((b) => `nexthop via ${b}`).join(' ');
  return [
    `route replace ${f.ip}/32 dev ${LB_LINK}`,
    `route replace ${f.ip}/32 table ${LB_TABLE} ${hops}`,
    ...(bridge ? [`neigh replace proxy ${f.ip} dev ${bridge}`] : []),
  ];
}

function removeCommands(ip: string, bridge: string | undefined): IpCmd[] {
  return [
    mayFail(`route del ${ip}/32 dev ${LB_LINK}`),
    mayFail(`route del ${ip}/32 table ${LB_TABLE}`),
    ...(bridge ? [mayFail(`neigh del proxy ${ip} dev ${bridge}`)] : []),
  ];
}

async function prepare(state: NetnsState, r: RouterState): Promise<void> {
  // Repeatable: an earlier attempt may have made part of it.
  await state.ip.batch(r.netns, [
    // A veth pair with both ends here (kernels without the dummy driver have veth): one end up, its peer down, so
    // what is sent there is dropped, not looped back in.
    mayFail(`link add ${LB_LINK} type veth peer name ${LB_LINK_PEER}`),
    `link set ${LB_LINK} up`,
    mayFail(`rule del ipproto tcp lookup ${LB_TABLE} pref ${LB_TABLE}`),
    mayFail(`rule del ipproto udp lookup ${LB_TABLE} pref ${LB_TABLE}`),
    `rule add ipproto tcp lookup ${LB_TABLE} pref ${LB_TABLE}`,
    `rule add ipproto udp lookup ${LB_TABLE} pref ${LB_TABLE}`,
  ]);
  r.frontends.ready = true;
}

/** The subnet bridge an internal frontend's address belongs to. */
function bridgeOf(r: RouterState, f: LoadBalancerFrontend): string | undefined {
  if (f.public || !f.subnetId) return undefined;
  return r.subnets.get(f.subnetId.toLowerCase())?.bridge;
}

/**
 * What a node answers to a rule's health probe (Azure asks from 168.63.129.16), read from kube-proxy's table on it: a
 * TCP probe of a node port connects when kube-proxy has endpoints for it there (with externalTrafficPolicy Local, on
 * that node); an HTTP probe of a Service's healthCheckNodePort is kube-proxy's health server, 200 only with a local
 * endpoint. A node kube-proxy has not programmed answers nothing.
 */
export function probeAnswers(services: NodeServices | undefined, probe: LoadBalancerProbe | undefined): boolean {
  if (!probe) return true;
  if (!services) return false;
  if (probe.protocol === 'Tcp')
    return services.ports.some((p) => p.nodePort === probe.port && (p.externalLocal ? p.localEndpoints : p.clusterEndpoints).length > 0);
  return services.ports.some((p) => p.healthCheckNodePort === probe.port && p.localEndpoints.length > 0);
}

/** The frontend's backends that pass every probe of its rules: where the load balancer sends new flows. */
function healthy(state: NetnsState, vnetId: string, f: LoadBalancerFrontend): LoadBalancerFrontend {
  const probes = f.rules.map((r) => r.probe).filter((p): p is LoadBalancerProbe => p !== undefined);
  if (probes.length === 0) return f;
  const hosts = [...state.hosts.values()].filter((h) => h.vnetId === vnetId);
  const backends = f.backends.filter((ip) => {
    const host = hosts.find((h) => h.ip === ip);
    return probes.every((p) => probeAnswers(host?.services, p));
  });
  return { ...f, backends };
}

/**
 * One router's frontends as its hosts' probes answer now; returns the internet's route changes. One at a time per
 * router: a convergence computed from older probe answers must not land after a newer one.
 */
function convergeRouterFrontends(state: NetnsState, vnetId: string, r: RouterState): Promise<IpCmd[]> {
  const run = r.frontends.queue.then(() => convergeNow(state, vnetId, r));
  r.frontends.queue = run.then(
    () => undefined,
    () => undefined,
  );
  return run;
}

async function convergeNow(state: NetnsState, vnetId: string, r: RouterState): Promise<IpCmd[]> {
  const internet: IpCmd[] = [];
  const known = new Map(r.frontends.want.map((f) => [f.ip, f]));
  if (known.size > 0 && !r.frontends.ready) await prepare(state, r);
  // With every backend down (or none), Azure sends no new flow: the frontend has no multipath route, and the main table's route to lbfe0 drops it.
  const wanted = new Map(
    r.frontends.want
      .map((f) => healthy(state, vnetId, f))
      .filter((f) => f.backends.length > 0)
      .map((f) => [f.ip, f]),
  );
  const cmds: IpCmd[] = [];
  const bridges: string[] = [];
  for (const [ip, key] of r.frontends.router) {
    const f = wanted.get(ip);
    const bridge = f ? bridgeOf(r, f) : undefined;
    if (f && routerKey(f, bridge) === key) continue;
    const before = JSON.parse(key) as [string[], string | null];
    cmds.push(...removeCommands(ip, before[1] ?? undefined));
    r.frontends.router.delete(ip);
  }
  for (const [ip, f] of wanted) {
    const bridge = bridgeOf(r, f);
    if (r.frontends.router.has(ip)) continue;
    cmds.push(...addCommands(f, bridge));
    if (bridge) bridges.push(bridge);
    r.frontends.router.set(ip, routerKey(f, bridge));
  }
  // Proxy ARP answers at once, not after the default random delay of up to 0.8 s (docs/dataplane.md §8.3).
  if (bridges.length > 0) await sysctl(r.netns, Object.fromEntries(bridges.map((b) => [`net.ipv4.neigh.${b}.proxy_delay`, 0])));
  if (cmds.length > 0) await state.ip.batch(r.netns, cmds);
  // The internet routes a public frontend whether or not a backend is up (Azure's address stays announced).
  for (const [ip, line] of r.frontends.internet)
    if (known.get(ip)?.public !== true || line !== `${ip}/32 via ${r.wanIp}`) {
      internet.push(mayFail(`route del ${line}`));
      r.frontends.internet.delete(ip);
    }
  for (const [ip, f] of known)
    if (f.public && !r.frontends.internet.has(ip)) {
      const line = `${ip}/32 via ${r.wanIp}`;
      internet.push(`route replace ${line}`);
      r.frontends.internet.set(ip, line);
    }
  return internet;
}

/** Converges every router's frontends and the internet's routes to the public ones. Run after the routers exist. */
export async function convergeFrontends(state: NetnsState, want: ReadonlyMap<string, CheckedVnet>): Promise<void> {
  const internet: IpCmd[] = [];
  for (const [id, v] of want) {
    const r = state.routers.get(id);
    if (!r) continue;
    r.frontends.want = v.vnet.frontends ?? [];
    internet.push(...(await convergeRouterFrontends(state, id, r)));
  }
  if (internet.length > 0 && state.inet) await state.ip.batch(state.inet, internet);
}

/** After kube-proxy's table on a node changed: the probes of its VNet's frontends are asked again. */
export async function reprobeFrontends(state: NetnsState, hostId: string): Promise<void> {
  const host = state.hosts.get(hostId.toLowerCase());
  const r = host && state.routers.get(host.vnetId);
  if (!host || !r || r.frontends.want.length === 0) return;
  const internet = await convergeRouterFrontends(state, host.vnetId, r);
  if (internet.length > 0 && state.inet) await state.ip.batch(state.inet, internet);
}

/** The internet's routes to a router's public frontends, for when the router goes. */
export function frontendRoutesBack(r: RouterState): IpCmd[] {
  return [...r.frontends.internet.values()].map((line) => mayFail(`route del ${line}`));
}
