// What every AKS cluster has before anyone applies anything: the four namespaces, the `kubernetes`
// service at the first address of the service CIDR, kube-dns at dnsServiceIP, metrics-server; the system
// PriorityClasses, AKS's StorageClasses and CSIDrivers, and an APIService per served built-in group version.
import { createHash } from 'node:crypto';
import { apiServerAddress } from '../../aks/azure-dns.js';
import { Cidr, IpAddress } from '../../net/ip.js';
import type { ClusterRecord } from '../../model/cluster-records.js';
import {
  APISERVICES,
  CSIDRIVERS,
  ENDPOINTS,
  ENDPOINTSLICES,
  groupVersions,
  PRIORITYCLASSES,
  STORAGECLASSES,
  type ResourceType,
} from '../apimachinery/resources.js';
import { k8sTime } from '../apimachinery/time.js';
import type { KubeObject } from '../apimachinery/object.js';

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

/**
 * The `kubernetes` Service's Endpoints and EndpointSlice, as the apiserver's endpoint reconciler writes them
 * (kubernetes pkg/controlplane/reconcilers/endpointsadapter.go): the API server's address and port 443 named
 * `https`; the Endpoints labelled so the mirroring controller leaves them alone, the EndpointSlice named as the
 * Service with only the service-name label and the `ready` condition. The address is the cluster's API server on
 * the emulated internet (aks/azure-dns.ts), which the data plane serves (docs/dataplane.md §12.7).
 */
export function apiServerEndpoints(cluster: ClusterRecord): Array<{ r: ResourceType; object: KubeObject }> {
  const created = k8sTime(cluster.createdAt);
  const ip = apiServerAddress(cluster.id);
  const port = { name: 'https', port: 443, protocol: 'TCP' };
  return [
    {
      r: ENDPOINTS,
      object: {
        apiVersion: 'v1',
        kind: 'Endpoints',
        metadata: { name: 'kubernetes', namespace: 'default', creationTimestamp: created, labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } },
        subsets: [{ addresses: [{ ip }], ports: [port] }],
      },
    },
    {
      r: ENDPOINTSLICES,
      object: {
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: { name: 'kubernetes', namespace: 'default', creationTimestamp: created, labels: { 'kubernetes.io/service-name': 'kubernetes' } },
        addressType: 'IPv4',
        endpoints: [{ addresses: [ip], conditions: { ready: true } }],
        ports: [port],
      },
    },
  ];
}

const ADDON_LABELS = { 'addonmanager.kubernetes.io/mode': 'EnsureExists', 'kubernetes.io/cluster-service': 'true' };

/**
 * The PriorityClasses every cluster has: the scheduling API's two system classes, which the apiserver creates
 * at start (kubernetes pkg/apis/scheduling/types.go: SystemCriticalPriority 2000000000; node-critical 1000 more).
 */
function priorityClasses(created: string): KubeObject[] {
  const pc = (name: string, value: number, description: string): KubeObject => ({
    apiVersion: 'scheduling.k8s.io/v1',
    kind: 'PriorityClass',
    metadata: { name, creationTimestamp: created },
    value,
    globalDefault: false,
    description,
    preemptionPolicy: 'PreemptLowerPriority',
  });
  return [
    pc('system-cluster-critical', 2000000000, 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.'),
    pc('system-node-critical', 2000001000, 'Used for system critical pods that must not be moved from their current node.'),
  ];
}

/** AKS's StorageClasses: the Azure Disk and Azure Files CSI classes, `default` (managed-csi) the default one. */
function storageClasses(created: string): KubeObject[] {
  const sc = (name: string, provisioner: string, parameters: Record<string, string>, extra: Record<string, unknown> = {}): KubeObject => ({
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name, creationTimestamp: created, labels: { ...ADDON_LABELS } },
    provisioner,
    parameters,
    reclaimPolicy: 'Delete',
    allowVolumeExpansion: true,
    ...extra,
  });
  const disk = (name: string, sku: string, annotations?: Record<string, string>) => {
    const obj = sc(name, 'disk.csi.azure.com', { skuname: sku }, { volumeBindingMode: 'WaitForFirstConsumer' });
    if (annotations) obj.metadata.annotations = annotations;
    return obj;
  };
  const file = (name: string, sku: string) =>
    sc(name, 'file.csi.azure.com', { skuName: sku }, { volumeBindingMode: 'Immediate', mountOptions: ['mfsymlinks', 'actimeo=30', 'nosharesock'] });
  return [
    file('azurefile', 'Standard_LRS'),
    file('azurefile-csi', 'Standard_LRS'),
    file('azurefile-csi-premium', 'Premium_LRS'),
    file('azurefile-premium', 'Premium_LRS'),
    disk('default', 'StandardSSD_LRS', { 'storageclass.kubernetes.io/is-default-class': 'true' }),
    disk('managed', 'StandardSSD_LRS'),
    disk('managed-csi', 'StandardSSD_LRS'),
    disk('managed-csi-premium', 'Premium_LRS'),
    disk('managed-premium', 'Premium_LRS'),
  ];
}

/** The CSIDrivers of AKS's storage add-ons (Azure Disk and Azure Files, on by default). */
function csiDrivers(created: string): KubeObject[] {
  const driver = (name: string, spec: Record<string, unknown>): KubeObject => ({
    apiVersion: 'storage.k8s.io/v1',
    kind: 'CSIDriver',
    metadata: { name, creationTimestamp: created, labels: { ...ADDON_LABELS } },
    spec: { requiresRepublish: false, storageCapacity: false, ...spec },
  });
  return [
    driver('disk.csi.azure.com', { attachRequired: true, podInfoOnMount: false, fsGroupPolicy: 'File', volumeLifecycleModes: ['Persistent'] }),
    driver('file.csi.azure.com', {
      attachRequired: false,
      podInfoOnMount: true,
      fsGroupPolicy: 'ReadWriteOnceWithFSType',
      volumeLifecycleModes: ['Persistent', 'Ephemeral'],
      tokenRequests: [{ audience: 'api://AzureADTokenExchange' }],
    }),
  ];
}

/**
 * The group priorities kube-apiserver gives its built-in group versions' APIServices (kubernetes
 * pkg/controlplane/apiserver/aggregator.go, apiVersionPriorities): `kubectl get apiservices` sorts by name,
 * discovery by these.
 */
const GROUP_PRIORITY: Record<string, number> = {
  '': 18000,
  'apiregistration.k8s.io': 18000,
  apps: 17800,
  autoscaling: 17500,
  'certificates.k8s.io': 17300,
  'networking.k8s.io': 17200,
  policy: 17100,
  'rbac.authorization.k8s.io': 17000,
  'storage.k8s.io': 16800,
  'admissionregistration.k8s.io': 16700,
  'apiextensions.k8s.io': 16700,
  'scheduling.k8s.io': 16600,
  'coordination.k8s.io': 16500,
  'node.k8s.io': 16300,
  'discovery.k8s.io': 16200,
};

/** A served group version's APIService: Local (no service), always Available, as the autoregister controller writes it. */
export function localApiService(group: string, version: string, created: string): KubeObject {
  return {
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: { name: `${version}.${group}`, creationTimestamp: created, labels: { 'kube-aggregator.kubernetes.io/automanaged': 'onstart' } },
    spec: { ...(group ? { group } : {}), version, groupPriorityMinimum: GROUP_PRIORITY[group] ?? 16000, versionPriority: 15 },
    status: {
      conditions: [{ type: 'Available', status: 'True', lastTransitionTime: created, reason: 'Local', message: 'Local APIServices are always available' }],
    },
  };
}

/** What a new AKS cluster holds besides its namespaces and services, each with the resource it is stored under. */
export function systemObjects(cluster: ClusterRecord): Array<{ r: ResourceType; object: KubeObject }> {
  const created = k8sTime(cluster.createdAt);
  return [
    ...priorityClasses(created).map((object) => ({ r: PRIORITYCLASSES, object })),
    ...storageClasses(created).map((object) => ({ r: STORAGECLASSES, object })),
    ...csiDrivers(created).map((object) => ({ r: CSIDRIVERS, object })),
    ...groupVersions().map((gv) => ({ r: APISERVICES, object: localApiService(gv.group, gv.version, created) })),
  ];
}
