// Aksemu.Dataplane: aksemu's own ARM-style namespace for asking the data plane things, through the one
// pipeline (token, api-version, strict body, ARM's error envelope). POST /providers/Aksemu.Dataplane/probe
// connects over TCP from a pod, node, VM or the "internet" host to IP:PORT and reports what happened.
import { ArmError } from '../arm/errors.js';
import type { Provider, RequestContext } from '../arm/provider.js';
import { s } from '../arm/schema.js';
import { IpAddress } from '../net/ip.js';
import { CLUSTER_TYPE, type ClusterRecord } from '../model/cluster-records.js';
import type { DataplaneController } from './controller.js';
import type { ProbeBackend, ProbeRequest } from './dataplane.js';
import { deriveTopology } from './derive.js';
import { sameId } from '../ids/compare.js';

export const DATAPLANE_NAMESPACE = 'Aksemu.Dataplane';
export const DATAPLANE_API_VERSION = '2026-12-01';
export const PROBE_PATH = `/providers/${DATAPLANE_NAMESPACE}/probe`;

const MAX_TIMEOUT_MS = 60_000;
const DEFAULT_TIMEOUT_MS = 5_000;

const probeModel = s.object('ProbeRequest', {
  from: s.object('ProbeSource', { kind: s.string(), clusterId: s.string(), namespace: s.string(), name: s.string() }),
  to: s.object('ProbeDestination', {
    ip: s.string(),
    port: s.integer(),
    clusterId: s.string(),
    service: s.object('ProbeService', { namespace: s.string(), name: s.string(), port: s.string() }),
  }),
  timeoutMs: s.integer(),
});

/** (aksemu) The server runs without a data plane. */
export function dataplaneDisabled(): ArmError {
  return new ArmError(409, 'DataplaneDisabled', "The data plane is off: start aksemu with '--dataplane netns' (as root) to probe connections.");
}

function invalidProbe(message: string, target: string): ArmError {
  return new ArmError(400, 'InvalidProbeRequest', message, target);
}

function hostNotFound(kind: string, name: string): ArmError {
  return new ArmError(404, 'HostNotFound', `No ${kind} named '${name}' is on a virtual network of this server.`, 'from.name');
}

interface ProbeBody {
  from?: { kind?: string; clusterId?: string; namespace?: string; name?: string };
  /** IP:PORT, or a Service by name (`svc/NS/NAME[:PORT]`) in to.clusterId or the source's cluster. */
  to?: { ip?: string; port?: number; clusterId?: string; service?: { namespace?: string; name?: string; port?: string } };
  timeoutMs?: number;
}

/** The Service a probe targets and the pods behind it (cluster/proxy/service-backends.ts computes it). */
type ServiceProbeLookup = (
  clusterId: string | undefined,
  target: { service: { namespace: string; name: string; port?: string } } | { ip: string; port: number },
) =>
  | { clusterId: string; ip: string; port: number; backends: { namespace: string; name: string; hostname?: string; ip: string; port: number }[] }
  | { notFound: boolean; message: string }
  | undefined;

export interface ProbeLookups {
  /** The node of a host-network pod (it has no namespace of its own: it probes as its node). */
  hostNetworkNode?: (clusterId: string, namespace: string, name: string) => string | undefined;
  /** The Service a target names or is (ClusterIP:PORT, NODEIP:NODEPORT), for probes that report the backend. */
  serviceProbe?: ServiceProbeLookup;
}

const KUBE_NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

/** to as an address: the Service's ClusterIP and port when it names one, with the Service's backends when it is one. */
function probeTarget(ctx: Pick<RequestContext, 'store'>, body: ProbeBody | undefined, lookups: ProbeLookups): Pick<ProbeRequest, 'to' | 'backends'> {
  const to = body?.to;
  const service = to?.service;
  if (service) {
    const { namespace, name, port } = service;
    if (!namespace || !KUBE_NAME.test(namespace)) throw invalidProbe(`to.service.namespace must be a namespace name; got '${namespace ?? ''}'.`, 'to.service');
    if (!name || !KUBE_NAME.test(name)) throw invalidProbe(`to.service.name must be a Service name; got '${name ?? ''}'.`, 'to.service');
    if (port !== undefined && !/^[a-z0-9-]{1,63}$/.test(port))
      throw invalidProbe(`to.service.port must be a port number or name; got '${port}'.`, 'to.service');
    const cluster = clusterOf(ctx, to.clusterId ?? body?.from?.clusterId);
    const found = lookups.serviceProbe?.(cluster.id, { service: { namespace, name, ...(port === undefined ? {} : { port }) } });
    if (!found) throw invalidProbe(`the cluster's API is not running: cannot resolve service ${namespace}/${name}.`, 'to.service');
    if ('message' in found)
      throw found.notFound ? new ArmError(404, 'ServiceNotFound', found.message, 'to.service') : invalidProbe(found.message, 'to.service');
    return { to: { ip: found.ip, port: found.port }, backends: backendsOf(found.backends, found.clusterId) };
  }
  const ip = to?.ip;
  const address = ip === undefined ? undefined : IpAddress.tryParse(ip);
  if (!address || address.family !== 4) throw invalidProbe(`to.ip must be an IPv4 address; got '${ip ?? ''}'.`, 'to.ip');
  const port = to?.port;
  if (port === undefined || port < 1 || port > 65535) throw invalidProbe(`to.port must be 1-65535; got '${port ?? ''}'.`, 'to.port');
  const target = { ip: address.toString(), port };
  const clusterId = to?.clusterId ?? body?.from?.clusterId;
  const found = lookups.serviceProbe?.(clusterId ? clusterOf(ctx, clusterId).id : undefined, target);
  return found && !('message' in found) ? { to: target, backends: backendsOf(found.backends, found.clusterId) } : { to: target };
}

function backendsOf(backends: { namespace: string; name: string; hostname?: string; ip: string; port: number }[], clusterId: string): ProbeBackend[] {
  return backends.map((b) => ({ ...b, clusterId }));
}

/** The body as a ProbeRequest, every member checked; nodes, VMs and clusters must exist. */
export function probeRequest(ctx: Pick<RequestContext, 'store'>, body: ProbeBody | undefined, lookups: ProbeLookups = {}): ProbeRequest {
  const from = body?.from;
  const kind = from?.kind;
  if (kind !== 'pod' && kind !== 'node' && kind !== 'vm' && kind !== 'internet' && kind !== 'controlplane') {
    throw invalidProbe(`from.kind must be one of pod, node, vm, internet, controlplane; got '${kind ?? ''}'.`, 'from.kind');
  }
  const timeoutMs = body?.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_MS) throw invalidProbe(`timeoutMs must be 1-${MAX_TIMEOUT_MS}; got ${timeoutMs}.`, 'timeoutMs');
  const request: ProbeRequest = { from: { kind }, ...probeTarget(ctx, body, lookups), timeoutMs };
  if (kind === 'internet') return request;
  if (kind === 'controlplane') {
    const cluster = clusterOf(ctx, from?.clusterId);
    return { ...request, from: { kind, clusterId: cluster.id }, tunnel: tunnelOf(ctx, cluster) };
  }
  const name = from?.name;
  if (!name) throw invalidProbe(`from.name is required for a ${kind}.`, 'from.name');
  request.from.name = name;
  if (kind === 'pod') {
    if (!from?.namespace) throw invalidProbe('from.namespace is required for a pod.', 'from.namespace');
    const cluster = clusterOf(ctx, from.clusterId);
    const node = lookups.hostNetworkNode?.(cluster.id, from.namespace, name);
    if (node) return { ...request, from: { kind: 'node', clusterId: cluster.id, name: node } };
    return { ...request, from: { kind, clusterId: cluster.id, namespace: from.namespace, name } };
  }
  const hosts = deriveTopology(ctx.store).vnets.flatMap((v) => v.hosts);
  if (!hosts.some((h) => h.kind === kind && sameId(h.name, name))) throw hostNotFound(kind, name);
  return request;
}

function clusterOf(ctx: Pick<RequestContext, 'store'>, clusterId: string | undefined): ClusterRecord {
  if (!clusterId) throw invalidProbe('from.clusterId is required for a pod or the control plane.', 'from.clusterId');
  const cluster = ctx.store.get<ClusterRecord>(clusterId);
  if (!cluster || !cluster.id.toLowerCase().includes(`/providers/${CLUSTER_TYPE.toLowerCase()}/`)) {
    throw new ArmError(404, 'ResourceNotFound', `The Resource '${CLUSTER_TYPE}' with id '${clusterId}' was not found.`, 'from.clusterId');
  }
  return cluster;
}

/** What the control plane routes into a cluster: its pod CIDR (when it has one) and its nodes' subnets. */
function tunnelOf(ctx: Pick<RequestContext, 'store'>, cluster: ClusterRecord): string[] {
  const id = cluster.id.toLowerCase();
  const prefixes = new Set<string>();
  const podCidr = cluster.resolved.network.podCidr;
  if (podCidr) prefixes.add(podCidr);
  for (const vnet of deriveTopology(ctx.store).vnets) {
    for (const host of vnet.hosts) {
      if (host.node?.clusterId.toLowerCase() !== id) continue;
      const subnet = vnet.subnets.find((sn) => sameId(sn.id, host.subnetId));
      if (subnet) prefixes.add(subnet.prefix);
    }
  }
  return [...prefixes];
}

export function dataplaneProvider(controller: DataplaneController, lookups: ProbeLookups = {}): Provider {
  return {
    namespace: DATAPLANE_NAMESPACE,
    apiVersions: [DATAPLANE_API_VERSION],
    routes: [
      {
        method: 'POST',
        path: PROBE_PATH,
        body: probeModel,
        bodyRequired: true,
        async handle(ctx) {
          if (controller.mode === 'none') throw dataplaneDisabled();
          const request = probeRequest(ctx, ctx.body as ProbeBody, lookups);
          try {
            return { status: 200, body: await controller.probe(request) };
          } catch (err) {
            // The probe could not run at all (e.g. the pod has no sandbox): the driver's reason, as ARM's error.
            throw new ArmError(400, 'ProbeFailed', err instanceof Error ? err.message : String(err));
          }
        },
      },
    ],
  };
}
