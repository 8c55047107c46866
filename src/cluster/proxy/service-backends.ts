// What `aksemu probe --to` reaches when it names a Service: the Service's ClusterIP and port (by `svc/NS/NAME[:PORT]`,
// or recognised from a ClusterIP:PORT, NODEIP:NODEPORT or a LoadBalancer ingress IP:PORT), and its backends: the ready endpoints of its
// EndpointSlices (label kubernetes.io/service-name) that are pods, each with the slice port of the same name as
// the Service port (the resolved targetPort), as kube-proxy reads them.
import { podHostname } from '../dns/resolv-conf.js';
import type { KubeObject } from '../apimachinery/object.js';
import type { ObjectStore } from '../apiserver/index.js';
import { ENDPOINTSLICES, NODES, PODS, SERVICES } from '../apimachinery/resources.js';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.map(obj) : []);

export type ServiceProbeTarget = { service: { namespace: string; name: string; port?: string } } | { ip: string; port: number };

interface ServiceBackend {
  namespace: string;
  name: string;
  /** The pod's hostname (what its own server answers with) when it is not its name. */
  hostname?: string;
  ip: string;
  port: number;
}

export interface ServiceProbe {
  ip: string;
  port: number;
  backends: ServiceBackend[];
}

export interface ServiceProbeError {
  notFound: boolean;
  message: string;
}

/** A Service's ClusterIP:port and backends; undefined when an IP:PORT target is no Service's; an error for a bad name. */
export function serviceProbe(objects: ObjectStore, target: ServiceProbeTarget): ServiceProbe | ServiceProbeError | undefined {
  if ('service' in target) {
    const { namespace, name, port } = target.service;
    const svc = objects.get(SERVICES, namespace, name);
    if (!svc) return { notFound: true, message: `services "${name}" not found in namespace "${namespace}"` };
    const spec = obj(svc['spec']);
    const clusterIp = typeof spec['clusterIP'] === 'string' ? spec['clusterIP'] : '';
    if (!clusterIp || clusterIp === 'None') return { notFound: false, message: `service ${namespace}/${name} is headless (clusterIP None): probe its pods` };
    const ports = list(spec['ports']).filter((p) => (p['protocol'] ?? 'TCP') === 'TCP');
    const chosen = port === undefined ? ports[0] : ports.find((p) => String(p['port']) === port || p['name'] === port);
    if (!chosen) return { notFound: false, message: `service ${namespace}/${name} has no TCP port ${port ?? ''}`.trimEnd() };
    return { ip: clusterIp, port: Number(chosen['port']), backends: backendsOf(objects, svc, chosen) };
  }
  const nodeIps = new Set(
    objects.list(NODES).flatMap((n) =>
      list(obj(n['status'])['addresses'])
        .filter((a) => a['type'] === 'InternalIP')
        .map((a) => a['address']),
    ),
  );
  for (const svc of objects.list(SERVICES)) {
    const spec = obj(svc['spec']);
    const clusterIps = Array.isArray(spec['clusterIPs']) ? spec['clusterIPs'] : [spec['clusterIP']];
    // A LoadBalancer Service's ingress IPs (its load balancer's frontend) on the Service's ports.
    const ingress = spec['type'] === 'LoadBalancer' ? list(obj(obj(svc['status'])['loadBalancer'])['ingress']).map((i) => i['ip']) : [];
    for (const p of list(spec['ports'])) {
      if ((p['protocol'] ?? 'TCP') !== 'TCP') continue;
      const byClusterIp = clusterIps.includes(target.ip) && p['port'] === target.port;
      const byNodePort = nodeIps.has(target.ip) && p['nodePort'] === target.port;
      const byIngress = ingress.includes(target.ip) && p['port'] === target.port;
      if (byClusterIp || byNodePort || byIngress) return { ...target, backends: backendsOf(objects, svc, p) };
    }
  }
  return undefined;
}

function backendsOf(objects: ObjectStore, svc: KubeObject, port: Obj): ServiceBackend[] {
  const namespace = svc.metadata.namespace ?? '';
  const portName = typeof port['name'] === 'string' ? port['name'] : '';
  const out: ServiceBackend[] = [];
  for (const slice of objects.list(ENDPOINTSLICES, namespace)) {
    if (slice.metadata.labels?.['kubernetes.io/service-name'] !== svc.metadata.name) continue;
    const slicePort = list(slice['ports']).find((p) => (typeof p['name'] === 'string' ? p['name'] : '') === portName);
    const number = Number(slicePort?.['port']);
    if (!Number.isInteger(number) || number < 1 || number > 65535) continue;
    for (const e of list(slice['endpoints'])) {
      const ref = obj(e['targetRef']);
      const address: unknown = Array.isArray(e['addresses']) ? e['addresses'][0] : undefined;
      if (obj(e['conditions'])['ready'] === false || ref['kind'] !== 'Pod' || typeof ref['name'] !== 'string' || typeof address !== 'string') continue;
      const podNamespace = typeof ref['namespace'] === 'string' ? ref['namespace'] : namespace;
      const pod = objects.get(PODS, podNamespace, ref['name']);
      const hostname = pod ? podHostname(pod, 'cluster.local').hostname : ref['name'];
      out.push({ namespace: podNamespace, name: ref['name'], ...(hostname !== ref['name'] ? { hostname } : {}), ip: address, port: number });
    }
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}
