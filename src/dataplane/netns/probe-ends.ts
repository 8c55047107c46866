// Where a probe runs from and which namespace answers it: the source's namespace (a pod, a host, the
// internet, or the node the control plane's tunnel exits on) and the one that owns the target address.
import { Cidr, IpAddress } from '../../net/ip.js';
import type { ProbeBackend, ProbeRequest } from '../dataplane.js';
import { INTERNET } from './internet.js';
import type { BackendEnd } from './probe.js';
import type { HostState, NetnsState } from './state.js';

export interface ProbeEnds {
  source: string;
  target: string | undefined;
}

/** The two namespaces of a probe, or why it cannot run. */
export function probeEnds(state: NetnsState, request: ProbeRequest): ProbeEnds | string {
  const { from, to } = request;
  if (!IpAddress.tryParse(to.ip) || !Number.isInteger(to.port) || to.port < 1 || to.port > 65535) return `invalid target ${to.ip}:${to.port}`;
  let source: string | undefined;
  let clusterId = from.clusterId?.toLowerCase();
  let vnetId: string | undefined;
  if (from.kind === 'internet') source = state.inet;
  else if (from.kind === 'controlplane') {
    const exit = tunnelExit(state, to.ip, clusterId, request.tunnel ?? []);
    if (typeof exit === 'string') return exit;
    source = exit.netns;
    vnetId = exit.vnetId;
  } else if (from.kind === 'pod') {
    const p = [...state.pods.values()].find(
      (x) => x.namespace === from.namespace && x.name === from.name && (!clusterId || x.clusterId.toLowerCase() === clusterId),
    );
    source = p?.netns;
    clusterId = p?.clusterId.toLowerCase();
    vnetId = p ? state.hosts.get(p.hostId)?.vnetId : undefined;
  } else {
    const h = [...state.hosts.values()].find(
      (x) => x.kind === from.kind && x.name === from.name && (!clusterId || x.node?.clusterId.toLowerCase() === clusterId),
    );
    source = h?.netns;
    vnetId = h?.vnetId;
  }
  if (!source) return `${from.kind}${from.name ? ` ${from.namespace ? `${from.namespace}/` : ''}${from.name}` : ''} is not in the data plane`;
  return { source, target: targetOf(state, to.ip, clusterId, vnetId) };
}

/**
 * Where the control plane's traffic to ip enters the cluster: konnectivity tunnels it to an agent on a node,
 * which dials from there — the node holding the destination (pod or node IP) when there is one, else the
 * cluster's first node. Destinations outside the tunnelled prefixes have no route from the control plane.
 */
function tunnelExit(state: NetnsState, ip: string, clusterId: string | undefined, tunnel: string[]): HostState | string {
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
  const nodes = [...state.hosts.values()].filter((h) => h.kind === 'node' && h.node?.clusterId.toLowerCase() === clusterId);
  const pod = [...state.pods.values()].find((p) => p.ip === ip && p.clusterId.toLowerCase() === clusterId);
  const exit = (pod && state.hosts.get(pod.hostId)) ?? nodes.find((h) => h.ip === ip) ?? nodes[0];
  return exit ?? `the cluster has no node in the data plane for the control plane to tunnel through`;
}

/** The namespace that owns an address, preferring the source's cluster and VNet (kubenet pod ranges repeat). */
function targetOf(state: NetnsState, ip: string, clusterId: string | undefined, vnetId: string | undefined): string | undefined {
  if (ip === INTERNET.host) return state.inet;
  const pods = [...state.pods.values()].filter((p) => p.ip === ip);
  const pod = pods.find((p) => p.clusterId.toLowerCase() === clusterId) ?? pods.find((p) => state.hosts.get(p.hostId)?.vnetId === vnetId) ?? pods[0];
  if (pod) return pod.netns;
  const hosts = [...state.hosts.values()].filter((h) => h.ip === ip);
  return (hosts.find((h) => h.vnetId === vnetId) ?? hosts[0])?.netns;
}

/** A probed Service's backends that have a namespace here (a pod not attached yet has none to listen in). */
export function backendEnds(state: NetnsState, backends: ProbeBackend[]): BackendEnd[] {
  return backends.flatMap((b) => {
    const pod = [...state.pods.values()].find(
      (p) => p.namespace === b.namespace && p.name === b.name && p.clusterId.toLowerCase() === b.clusterId.toLowerCase() && p.ip === b.ip,
    );
    return pod ? [{ label: `${b.namespace}/${b.name}`, hostname: b.hostname ?? b.name, netns: pod.netns, port: b.port }] : [];
  });
}
