// GET /ui/api/cluster (docs/dashboard.md §3): a managed cluster as ARM returns it, with its pools, and what its own
// Kubernetes API holds, read in process: nodes with their Ready condition (so a BYO-CNI node shows the kubelet's
// exact NotReady message), pods, Services with their endpoints, NetworkPolicies.
import type { ClusterApis } from '../cluster/server.js';
import { ENDPOINTSLICES, NETWORKPOLICIES, NODES, PODS, SERVICES } from '../cluster/apimachinery/resources.js';
import type { KubeObject } from '../cluster/apimachinery/object.js';
import { internalIp, readyCondition } from '../cluster/apimachinery/node-status.js';
import { type ClusterRecord, nodesOf, poolsOf } from '../model/cluster-records.js';
import type { Store } from '../store/store.js';
import type { ArmReader } from './arm-read.js';
import { notFound } from './errors.js';
import { byName } from './resources.js';

const CLUSTER = /^\/subscriptions\/[^/]+\/resourcegroups\/[^/]+\/providers\/microsoft\.containerservice\/managedclusters\/[^/]+$/i;
/** A cluster's page lists at most this many pods (then `podsTruncated` says how many there are). */
const MAX_PODS = 2000;

// Kubernetes objects as read here: only the members shown.
interface Selector {
  matchLabels?: Record<string, string>;
  matchExpressions?: unknown[];
}
interface Spec {
  nodeName?: string;
  hostNetwork?: boolean;
  containers?: unknown[];
  podCIDR?: string;
  podCIDRs?: string[];
  type?: string;
  clusterIP?: string;
  ports?: { port: number; protocol?: string }[];
  podSelector?: Selector;
  policyTypes?: string[];
  ingress?: unknown[];
  egress?: unknown[];
}
interface Status {
  conditions?: { type: string; status: string; reason?: string; message?: string }[];
  addresses?: { type: string; address: string }[];
  containerStatuses?: { ready?: boolean }[];
  podIP?: string;
  phase?: string;
  loadBalancer?: { ingress?: { ip?: string }[] };
}
interface Obj extends KubeObject {
  spec?: Spec;
  status?: Status;
}

const byObject = (a: Obj, b: Obj) => byName(`${a.metadata.namespace ?? ''}/${a.metadata.name}`, `${b.metadata.namespace ?? ''}/${b.metadata.name}`);

function selectorText(selector: Selector | undefined): string {
  const labels = Object.entries(selector?.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  const expressions = (selector?.matchExpressions ?? []).length;
  const parts = [...labels, ...(expressions > 0 ? [`${expressions} expression(s)`] : [])];
  return parts.length === 0 ? '(all)' : parts.join(',');
}

export function clusterView(store: Store, arm: ArmReader, clusterApis: ClusterApis, id: string | null) {
  if (id === null || !CLUSTER.test(id)) throw notFound(`No managed cluster ${String(id).slice(0, 300)}.`);
  const record = store.get<ClusterRecord>(id);
  if (!record) throw notFound(`No managed cluster ${id.slice(0, 300)}.`);
  const cluster = arm.get(record.id);
  const agentPools = poolsOf(store, record)
    .sort((a, b) => byName(a.name, b.name))
    .map((p) => arm.get(p.id));
  const runtime = clusterApis.runtimeOf(record.id);
  const base = { cluster, agentPools };
  if (!runtime) {
    const message =
      (record.powerState ?? 'Running') === 'Stopped'
        ? 'The cluster is stopped: its API server is not running.'
        : 'The cluster has no running API server (it has no nodes yet, or is being deleted).';
    return { ...base, api: { reachable: false, message }, nodes: [], pods: [], services: [], networkPolicies: [] };
  }
  const objects = runtime.objects;
  const records = new Map(nodesOf(store, record).map((n) => [n.name, n]));
  const allPods = (objects.list(PODS) as Obj[]).slice().sort(byObject);
  const podsPerNode = new Map<string, number>();
  for (const p of allPods) if (p.spec?.nodeName) podsPerNode.set(p.spec.nodeName, (podsPerNode.get(p.spec.nodeName) ?? 0) + 1);
  const nodes = (objects.list(NODES) as Obj[])
    .slice()
    .sort(byObject)
    .map((n) => {
      const ready = readyCondition(n);
      const labels = n.metadata.labels ?? {};
      const rec = records.get(n.metadata.name);
      return {
        name: n.metadata.name,
        pool: labels['kubernetes.azure.com/agentpool'] ?? labels['agentpool'] ?? rec?.pool ?? '',
        ready: ready?.status === 'True',
        reason: ready?.reason ?? '',
        message: ready?.message ?? '',
        internalIP: internalIp(n) ?? rec?.ip ?? '',
        podCIDRs: n.spec?.podCIDRs ?? (n.spec?.podCIDR ? [n.spec.podCIDR] : []),
        secondaryIPs: rec?.secondaryIps?.length ?? rec?.podSubnetIps?.length ?? 0,
        pods: podsPerNode.get(n.metadata.name) ?? 0,
      };
    });
  const pods = allPods.slice(0, MAX_PODS).map((p) => {
    const statuses = p.status?.containerStatuses ?? [];
    const containers = (p.spec?.containers ?? []).length;
    return {
      namespace: p.metadata.namespace ?? '',
      name: p.metadata.name,
      node: p.spec?.nodeName ?? '',
      podIP: p.status?.podIP ?? '',
      phase: p.status?.phase ?? '',
      ready: `${statuses.filter((s) => s.ready).length}/${containers}`,
      hostNetwork: p.spec?.hostNetwork === true,
    };
  });
  const slices = objects.list(ENDPOINTSLICES) as Obj[];
  const services = (objects.list(SERVICES) as Obj[])
    .slice()
    .sort(byObject)
    .map((s) => {
      const ns = s.metadata.namespace;
      const endpoints = slices
        .filter((e) => e.metadata.namespace === ns && e.metadata.labels?.['kubernetes.io/service-name'] === s.metadata.name)
        .flatMap((e) => {
          const ports: { port?: number }[] = (e as { ports?: { port?: number }[] }).ports ?? [];
          const eps: { addresses?: string[]; conditions?: { ready?: boolean } }[] = (e as { endpoints?: [] }).endpoints ?? [];
          return eps
            .filter((ep) => ep.conditions?.ready !== false)
            .flatMap((ep) => (ep.addresses ?? []).flatMap((a) => (ports.length === 0 ? [a] : ports.map((p) => `${a}:${p.port ?? ''}`))));
        })
        .sort();
      const ingress = s.status?.loadBalancer?.ingress?.[0]?.ip;
      return {
        namespace: ns ?? '',
        name: s.metadata.name,
        type: s.spec?.type ?? 'ClusterIP',
        clusterIP: s.spec?.clusterIP ?? '',
        ports: (s.spec?.ports ?? []).map((p) => `${p.port}/${p.protocol ?? 'TCP'}`).join(','),
        endpoints,
        ...(ingress ? { loadBalancerIP: ingress } : {}),
      };
    });
  const networkPolicies = (objects.list(NETWORKPOLICIES) as Obj[])
    .slice()
    .sort(byObject)
    .map((np) => ({
      namespace: np.metadata.namespace ?? '',
      name: np.metadata.name,
      podSelector: selectorText(np.spec?.podSelector),
      policyTypes: np.spec?.policyTypes ?? ['Ingress'],
      ingressRules: (np.spec?.ingress ?? []).length,
      egressRules: (np.spec?.egress ?? []).length,
    }));
  return {
    ...base,
    api: { reachable: true },
    nodes,
    pods,
    ...(allPods.length > MAX_PODS ? { podsTruncated: allPods.length } : {}),
    services,
    networkPolicies,
  };
}
