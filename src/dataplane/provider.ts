// Aksemu.Dataplane: aksemu's own ARM-style namespace for asking the data plane things, through the one
// pipeline (token, api-version, strict body, ARM's error envelope). POST /providers/Aksemu.Dataplane/probe
// connects over TCP from a pod, node, VM or the "internet" host to IP:PORT and reports what happened.
import { ArmError } from '../arm/errors.js';
import type { Provider, RequestContext } from '../arm/provider.js';
import { s } from '../arm/schema.js';
import { IpAddress } from '../net/ip.js';
import { CLUSTER_TYPE, type ClusterRecord } from '../model/cluster-records.js';
import type { DataplaneController } from './controller.js';
import type { ProbeRequest } from './dataplane.js';
import { deriveTopology } from './derive.js';
import { sameId } from '../ids/compare.js';

export const DATAPLANE_NAMESPACE = 'Aksemu.Dataplane';
export const DATAPLANE_API_VERSION = '2026-12-01';
export const PROBE_PATH = `/providers/${DATAPLANE_NAMESPACE}/probe`;

const MAX_TIMEOUT_MS = 60_000;
const DEFAULT_TIMEOUT_MS = 5_000;

const probeModel = s.object('ProbeRequest', {
  from: s.object('ProbeSource', { kind: s.string(), clusterId: s.string(), namespace: s.string(), name: s.string() }),
  to: s.object('ProbeDestination', { ip: s.string(), port: s.integer() }),
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
  to?: { ip?: string; port?: number };
  timeoutMs?: number;
}

export interface ProbeLookups {
  /** The node of a host-network pod (it has no namespace of its own: it probes as its node). */
  hostNetworkNode?: (clusterId: string, namespace: string, name: string) => string | undefined;
}

/** The body as a ProbeRequest, every member checked; nodes, VMs and clusters must exist. */
export function probeRequest(ctx: Pick<RequestContext, 'store'>, body: ProbeBody | undefined, lookups: ProbeLookups = {}): ProbeRequest {
  const from = body?.from;
  const kind = from?.kind;
  if (kind !== 'pod' && kind !== 'node' && kind !== 'vm' && kind !== 'internet' && kind !== 'controlplane') {
    throw invalidProbe(`from.kind must be one of pod, node, vm, internet, controlplane; got '${kind ?? ''}'.`, 'from.kind');
  }
  const ip = body?.to?.ip;
  const address = ip === undefined ? undefined : IpAddress.tryParse(ip);
  if (!address || address.family !== 4) throw invalidProbe(`to.ip must be an IPv4 address; got '${ip ?? ''}'.`, 'to.ip');
  const port = body?.to?.port;
  if (port === undefined || port < 1 || port > 65535) throw invalidProbe(`to.port must be 1-65535; got '${port ?? ''}'.`, 'to.port');
  const timeoutMs = body?.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_MS) throw invalidProbe(`timeoutMs must be 1-${MAX_TIMEOUT_MS}; got ${timeoutMs}.`, 'timeoutMs');
  const request: ProbeRequest = { from: { kind }, to: { ip: address.toString(), port }, timeoutMs };
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
