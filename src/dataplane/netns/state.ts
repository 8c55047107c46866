// What one netns data plane remembers of what it built: the internet namespace, a router per VNet, a host per
// node or VM, a namespace per pod. Kept in memory only; gc.ts removes what a previous run left behind.
import type { Server } from 'node:net';
import type { Cidr } from '../../net/ip.js';
import type { PodAttachment } from '../dataplane.js';
import type { NodeServices } from '../services.js';
import type { NodeTopology } from '../topology.js';
import type { IpBatcher, IpCmd } from './exec.js';
import type { AzureDnsState } from './azure-dns.js';
import type { FrontendState } from './load-balancer.js';
import type { NetnsNames } from './names.js';
import type { OutboundState } from './outbound-snat.js';
import type { OverlayState } from './overlay.js';
import type { WiringKind } from './wiring/wiring.js';

export interface SubnetState {
  bridge: string;
  mac: string;
  prefix: Cidr;
  gateway: string;
  table: number;
  routesKey: string;
}

export interface RouterState {
  netns: string;
  wanIp: string;
  spaces: string[];
  subnets: Map<string, SubnetState>;
  nsgText: string | undefined;
  nextTable: number;
  /** The routes to peered VNets' spaces it holds (`<space> via <their router's wan address>`). */
  peerRoutes: string[];
  /** Azure CNI Overlay's routing (azure-overlay.ts): what was applied, and the lines that undo it. */
  overlay: { key: string; undo: IpCmd[] };
  /** The pod-subnet addresses routed to their nodes (pod-subnet-routes.ts), and what was applied. */
  podSubnet: { key: string; addresses: string[] };
  /** Load-balancer frontends routed to their backend nodes (load-balancer.ts). */
  frontends: FrontendState;
  /** Outbound SNAT to the internet (outbound-snat.ts). */
  outbound: OutboundState;
  /** The VNet's Azure DNS server (azure-dns.ts), once started. */
  dns?: AzureDnsState;
}

export interface HostState {
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
  /** kube-proxy's table as last applied (what the load balancer's health probes see, load-balancer.ts). */
  services?: NodeServices;
  /** CNI agents' VXLAN devices on the node, by name, as applied (overlay.ts); they go with the namespace. */
  overlays: Map<string, OverlayState>;
}

export interface PodState {
  key: string;
  netns: string;
  clusterId: string;
  namespace: string;
  name: string;
  hostId: string;
  ip: string;
  wiring: WiringKind;
  /** What the wiring needs to undo it when the pod goes with its node or at close (CNI DEL). */
  attachment: PodAttachment;
}

export interface NetnsState {
  readonly names: NetnsNames;
  readonly ip: IpBatcher;
  inet: string | undefined;
  /** The API servers' listeners in the internet namespace, by address (undefined while one is being opened). */
  readonly apiListeners: Map<string, Server | undefined>;
  readonly routers: Map<string, RouterState>;
  readonly hosts: Map<string, HostState>;
  readonly pods: Map<string, PodState>;
}

export const podKeyOf = (pod: PodAttachment): string => `${pod.clusterId}|${pod.sandboxId}`.toLowerCase();

/** Every namespace this instance wants now. */
export function knownNamespaces(state: NetnsState): Set<string> {
  const all = new Set<string>();
  if (state.inet) all.add(state.inet);
  for (const r of state.routers.values()) all.add(r.netns);
  for (const h of state.hosts.values()) all.add(h.netns);
  for (const p of state.pods.values()) all.add(p.netns);
  return all;
}

/** Namespace names are hashes: a new one must not be one this instance already has. */
export function assertUnique(state: NetnsState, created: string[]): void {
  const known = knownNamespaces(state);
  const seen = new Set<string>();
  for (const n of created) {
    if (known.has(n) || seen.has(n)) throw new Error(`namespace name ${n} collides with another object of this instance`);
    seen.add(n);
  }
}
