// kube-proxy, as the data plane runs it on every node (docs/dataplane.md §12): Services, EndpointSlices and
// Nodes → one NodeServices table per node → NodeNetwork.applyServices. Recomputed after a short debounce when a
// Service or EndpointSlice changes or a node comes or goes (not on node heartbeats), and pushed only to the
// nodes whose table changed. How kube-proxy reads the objects follows kubernetes pkg/proxy: endpoints from the
// slices of each Service (endpointslicecache.go: a nil `ready` counts as ready, a nil `serving` as `ready`),
// sorted per node into what the traffic policies use (topology.go CategorizeEndpoints).
import { networkModelOf } from '../../aks/network-models/index.js';
import type { NetworkModel } from '../../aks/network-models/model.js';
import type { NodeServices, ServiceEndpoint, ServicePortEntry } from '../../dataplane/services.js';
import { NODE_SUBNET, servicePortProblem } from '../../dataplane/services.js';
import type { ClusterRecord } from '../../model/cluster-records.js';
import { IpAddress } from '../../net/ip.js';
import type { NodeNetwork } from '../images/program.js';
import type { KubeObject } from '../apimachinery/object.js';
import type { Change } from '../apiserver/index.js';
import type { Service } from '../apimachinery/types.js';
import { ENDPOINTSLICES, NODES, SERVICES, resourceKey } from '../apimachinery/resources.js';
import type { Controller, ControllerContext } from '../client/context.js';
import { SERVICE_NAME_LABEL } from '../apimachinery/types.js';

const DEBOUNCE_MS = 100;
const SERVICES_KEY = resourceKey(SERVICES);
const SLICES_KEY = resourceKey(ENDPOINTSLICES);
const NODES_KEY = resourceKey(NODES);
const RETRY_MS = 2000;
/** sessionAffinityConfig.clientIP.timeoutSeconds when not given (kubernetes pkg/apis/core: DefaultClientIPServiceAffinitySeconds). */
const DEFAULT_AFFINITY_SECONDS = 10800;

/**
 * kube-proxy's `--cluster-cidr` per network model, by how the model gives pods addresses. AKS runs kube-proxy with
 * the cluster's pod CIDR for kubenet and Azure CNI Overlay; with Azure CNI (node subnet) pods and nodes share the
 * VNet subnet, which is the cluster subnet (aks-engine pkg/api/defaults.go: ClusterSubnet is the VNet subnet when
 * Azure CNI is on, else the pod CIDR); a BYO CNI cluster has its pod CIDR only when one was given.
 */
const CLUSTER_CIDR: Record<NetworkModel['podCidr'], (podCidr: string | undefined) => NodeServices['clusterCidr']> = {
  'per-node': (podCidr) => podCidr,
  ignored: () => NODE_SUBNET,
  user: (podCidr) => podCidr,
};

interface SliceEndpoint extends ServiceEndpoint {
  ready: boolean;
  serving: boolean;
  terminating: boolean;
  node: string | undefined;
}

interface PortView {
  entry: Omit<ServicePortEntry, 'clusterEndpoints' | 'localEndpoints' | 'hasEndpoints'>;
  endpoints: SliceEndpoint[];
  externallyAccessible: boolean;
}

const PROTOCOLS = new Set(['TCP', 'UDP', 'SCTP']);

function boolOr(v: unknown, fallback: boolean): boolean {
  return typeof v === 'boolean' ? v : fallback;
}

/** The endpoints of one Service port from its slices (IPv4 only), deduplicated as kube-proxy's cache does. */
function endpointsOf(slices: KubeObject[], portName: string, protocol: string): SliceEndpoint[] {
  const out = new Map<string, SliceEndpoint>();
  for (const s of slices) {
    const body = s as unknown as {
      addressType?: string;
      ports?: Array<{ name?: string; port?: number; protocol?: string }> | null;
      endpoints?: unknown[] | null;
    };
    if (body.addressType !== 'IPv4') continue;
    const port = (body.ports ?? []).find((p) => (p.name ?? '') === portName && (p.protocol ?? 'TCP') === protocol);
    if (!port || typeof port.port !== 'number') continue;
    for (const raw of body.endpoints ?? []) {
      const e = raw as { addresses?: unknown[]; conditions?: Record<string, unknown>; nodeName?: unknown };
      const ip = e.addresses?.[0];
      // One bad endpoint (anyone can write a slice) is left out, not its whole Service.
      if (typeof ip !== 'string' || IpAddress.tryParse(ip)?.family !== 4 || !(port.port >= 1 && port.port <= 65535)) continue;
      const ready = boolOr(e.conditions?.['ready'], true);
      const ep: SliceEndpoint = {
        ip,
        port: port.port,
        ready,
        serving: boolOr(e.conditions?.['serving'], ready),
        terminating: boolOr(e.conditions?.['terminating'], false),
        node: typeof e.nodeName === 'string' ? e.nodeName : undefined,
      };
      if (!out.has(`${ip}:${port.port}`)) out.set(`${ip}:${port.port}`, ep);
    }
  }
  return [...out.values()];
}

/** Every proxied port of every Service: not headless, not ExternalName, with an IPv4 ClusterIP. */
export function servicePorts(services: Service[], slices: KubeObject[]): PortView[] {
  const byService = new Map<string, KubeObject[]>();
  for (const s of slices) {
    const name = s.metadata.labels?.[SERVICE_NAME_LABEL];
    if (!name) continue;
    const key = `${s.metadata.namespace}/${name}`;
    byService.set(key, [...(byService.get(key) ?? []), s]);
  }
  const views: PortView[] = [];
  for (const svc of services) {
    const spec = svc.spec ?? {};
    if (spec.type === 'ExternalName') continue;
    const clusterIp = [spec.clusterIP, ...(spec.clusterIPs ?? [])].find((ip) => typeof ip === 'string' && ip !== 'None' && ip.includes('.'));
    if (!clusterIp || spec.clusterIP === 'None') continue;
    const mine = byService.get(`${svc.metadata.namespace}/${svc.metadata.name}`) ?? [];
    const affinity = spec.sessionAffinity === 'ClientIP';
    const timeout = (spec as { sessionAffinityConfig?: { clientIP?: { timeoutSeconds?: unknown } } }).sessionAffinityConfig?.clientIP?.timeoutSeconds;
    const externallyAccessible = spec.type === 'NodePort' || spec.type === 'LoadBalancer';
    const lbIps =
      spec.type === 'LoadBalancer'
        ? [...new Set((svc.status?.loadBalancer?.ingress ?? []).map((i) => i.ip).filter((ip): ip is string => IpAddress.tryParse(ip ?? '')?.family === 4))]
        : [];
    for (const p of spec.ports ?? []) {
      const protocol = p.protocol ?? 'TCP';
      if (!PROTOCOLS.has(protocol) || typeof p.port !== 'number') continue;
      const nodePort = externallyAccessible && typeof p.nodePort === 'number' ? p.nodePort : undefined;
      views.push({
        entry: {
          namespace: svc.metadata.namespace ?? 'default',
          name: svc.metadata.name,
          portName: p.name ?? '',
          protocol: protocol as ServicePortEntry['protocol'],
          clusterIp,
          port: p.port,
          ...(nodePort !== undefined ? { nodePort } : {}),
          ...(nodePort !== undefined && lbIps.length > 0 ? { loadBalancerIps: lbIps } : {}),
          ...(nodePort !== undefined && spec.externalTrafficPolicy === 'Local' && typeof spec.healthCheckNodePort === 'number'
            ? { healthCheckNodePort: spec.healthCheckNodePort }
            : {}),
          externalLocal: nodePort !== undefined && spec.externalTrafficPolicy === 'Local',
          internalLocal: spec.internalTrafficPolicy === 'Local',
          ...(affinity ? { affinitySeconds: typeof timeout === 'number' ? timeout : DEFAULT_AFFINITY_SECONDS } : {}),
        },
        endpoints: endpointsOf(mine, p.name ?? '', protocol),
        externallyAccessible: nodePort !== undefined,
      });
    }
  }
  return views;
}

const plain = (e: SliceEndpoint): ServiceEndpoint => ({ ip: e.ip, port: e.port });

/** One port as one node sees it (topology.go CategorizeEndpoints, without topology hints). */
export function categorize(view: PortView, node: string): ServicePortEntry {
  const { entry, endpoints } = view;
  const usesCluster = !entry.internalLocal || (view.externallyAccessible && !entry.externalLocal);
  const usesLocal = entry.internalLocal || (view.externallyAccessible && entry.externalLocal);
  let cluster: SliceEndpoint[] = [];
  let hasEndpoints = false;
  if (usesCluster) {
    cluster = endpoints.filter((e) => e.ready);
    // No ready endpoint anywhere: fall back to serving terminating ones.
    if (cluster.length === 0) cluster = endpoints.filter((e) => e.serving && e.terminating);
    hasEndpoints = cluster.length > 0;
  }
  let local: SliceEndpoint[] = [];
  if (usesLocal) {
    if (endpoints.some((e) => e.ready || (e.serving && e.terminating))) hasEndpoints = true;
    local = endpoints.filter((e) => e.node === node && e.ready);
    if (local.length === 0) local = endpoints.filter((e) => e.node === node && e.serving && e.terminating);
  }
  return { ...entry, clusterEndpoints: cluster.map(plain), localEndpoints: local.map(plain), hasEndpoints };
}

/** Every node's table. */
export function nodeTables(cluster: ClusterRecord, nodes: string[], services: Service[], slices: KubeObject[]): Map<string, NodeServices> {
  const network = cluster.resolved.network;
  const model = networkModelOf(cluster.resolved);
  const podCidr = network.podCidr && network.podCidr.includes('.') ? network.podCidr : undefined;
  const clusterCidr = model ? CLUSTER_CIDR[model.podCidr](podCidr) : undefined;
  const serviceCidrs = [network.serviceCidr].filter((c) => typeof c === 'string' && c.includes('.'));
  const views = servicePorts(services, slices).filter((v) => {
    const probe: ServicePortEntry = { ...v.entry, clusterEndpoints: v.endpoints.map(plain), localEndpoints: [], hasEndpoints: false };
    return servicePortProblem(probe) === undefined;
  });
  const tables = new Map<string, NodeServices>();
  for (const node of nodes) {
    tables.set(node, {
      clusterId: cluster.id,
      ...(clusterCidr ? { clusterCidr } : {}),
      serviceCidrs,
      ports: views.map((v) => categorize(v, node)),
    });
  }
  return tables;
}

export class ServiceProxy implements Controller {
  /** What each node was last given, as JSON. */
  private readonly pushed = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private again = false;
  private closed = false;
  private readonly reported = new Map<string, string>();

  constructor(
    private readonly ctx: ControllerContext,
    private readonly network: () => NodeNetwork | undefined,
    private readonly cluster: () => ClusterRecord,
  ) {}

  observe(change: Change): void {
    const r = change.resource;
    const relevant = r === SERVICES_KEY || r === SLICES_KEY || (r === NODES_KEY && (change.type === 'ADDED' || change.type === 'DELETED'));
    if (relevant && this.network()?.applyServices) this.schedule(DEBOUNCE_MS);
  }

  resync(): void {
    if (this.network()?.applyServices) this.schedule(DEBOUNCE_MS);
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(ms: number): void {
    if (this.closed || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.sync();
    }, ms);
    this.timer.unref?.();
  }

  private async sync(): Promise<void> {
    if (this.running) {
      this.again = true;
      return;
    }
    const net = this.network();
    if (!net?.applyServices || this.closed) return;
    this.running = true;
    let failed = false;
    try {
      const { objects } = this.ctx;
      const nodes = objects.list(NODES).map((n) => n.metadata.name);
      const tables = nodeTables(this.cluster(), nodes, objects.list(SERVICES) as Service[], objects.list(ENDPOINTSLICES));
      for (const n of [...this.pushed.keys()]) if (!tables.has(n)) this.pushed.delete(n);
      await Promise.all(
        [...tables].map(async ([node, table]) => {
          const text = JSON.stringify(table);
          if (this.pushed.get(node) === text) return;
          try {
            await net.applyServices!(node, table);
            this.pushed.set(node, text);
            this.reported.delete(node);
          } catch (e) {
            failed = true;
            this.pushed.delete(node);
            const message = (e as Error).message;
            if (this.reported.get(node) !== message && !this.closed) this.ctx.log(`kube-proxy: node ${node}: ${message}`);
            this.reported.set(node, message);
          }
        }),
      );
    } finally {
      this.running = false;
    }
    if (this.again) {
      this.again = false;
      this.schedule(DEBOUNCE_MS);
    } else if (failed) this.schedule(RETRY_MS);
  }
}
