// What every AKS cluster has before anyone applies anything: the four namespaces, the `kubernetes`
// service at the first address of the service CIDR, kube-dns at dnsServiceIP, metrics-server.
import { createHash } from 'node:crypto';
import { Cidr, IpAddress } from '../../net/ip.js';
import type { ClusterRecord } from '../../model/cluster-records.js';
import { k8sTime } from '../time.js';
import type { KubeObject } from './object.js';

export const SYSTEM_NAMESPACES = ['default', 'kube-node-lease', 'kube-public', 'kube-system'];

export function namespaceObject(name: string, created: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name, creationTimestamp: created, labels: { 'kubernetes.io/metadata.name': name } },
    spec: { finalizers: ['kubernetes'] },
    status: { phase: 'Active' },
  };
}

/** A stable address inside the service CIDR for a named service (not .0, .1 or the DNS address). */
function serviceIp(cidr: Cidr, name: string, taken: string[]): string {
  const span = Number(cidr.size > 65536n ? 65536n : cidr.size) - 2;
  let n = parseInt(createHash('sha1').update(name).digest('hex').slice(0, 8), 16) % Math.max(span, 1);
  for (;;) {
    const ip = cidr.addressAt(BigInt(n + 1)).toString();
    if (n >= 1 && !taken.includes(ip)) return ip;
    n = (n + 1) % Math.max(span, 1);
  }
}

export function systemServices(cluster: ClusterRecord): KubeObject[] {
  const created = k8sTime(cluster.createdAt);
  const net = cluster.resolved.network;
  const cidr = Cidr.parse(net.serviceCidr);
  const apiIp = cidr.addressAt(1n).toString();
  const dnsIp = IpAddress.parse(net.dnsServiceIP).toString();
  const metricsIp = serviceIp(cidr, `${cluster.id.toLowerCase()}/metrics-server`, [apiIp, dnsIp]);
  const svc = (
    namespace: string,
    name: string,
    labels: Record<string, string>,
    ip: string,
    ports: unknown[],
    selector?: Record<string, string>,
  ): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace, creationTimestamp: created, labels },
    spec: {
      clusterIP: ip,
      clusterIPs: [ip],
      internalTrafficPolicy: 'Cluster',
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      ports,
      ...(selector ? { selector } : {}),
      sessionAffinity: 'None',
      type: 'ClusterIP',
    },
    status: { loadBalancer: {} },
  });
  return [
    svc('default', 'kubernetes', { component: 'apiserver', provider: 'kubernetes' }, apiIp, [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 443 }]),
    svc(
      'kube-system',
      'kube-dns',
      { 'addonmanager.kubernetes.io/mode': 'Reconcile', 'k8s-app': 'kube-dns', 'kubernetes.io/cluster-service': 'true', 'kubernetes.io/name': 'CoreDNS' },
      dnsIp,
      [
        { name: 'dns', port: 53, protocol: 'UDP', targetPort: 53 },
        { name: 'dns-tcp', port: 53, protocol: 'TCP', targetPort: 53 },
      ],
      { 'k8s-app': 'kube-dns' },
    ),
    svc(
      'kube-system',
      'metrics-server',
      {
        'addonmanager.kubernetes.io/mode': 'Reconcile',
        'k8s-app': 'metrics-server',
        'kubernetes.io/cluster-service': 'true',
        'kubernetes.io/name': 'Metrics-server',
      },
      metricsIp,
      [{ port: 443, protocol: 'TCP', targetPort: 'https' }],
      { 'k8s-app': 'metrics-server' },
    ),
  ];
}
