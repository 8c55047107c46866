// The kube-system workloads AKS deploys into every cluster: CoreDNS (selected by the kube-dns Service) and
// its autoscaler, metrics-server, konnectivity-agent, and the kube-proxy and cloud-node-manager DaemonSets
// (plus azure-ip-masq-agent where AKS runs it: kubenet and Azure CNI). Images are AKS's from
// mcr.microsoft.com. Deployments tolerate only CriticalAddonsOnly, so they stay Pending on NotReady BYO CNI
// nodes; the node DaemonSets use the host network and tolerate every taint, so they run everywhere.
import { networkModelOf } from '../../aks/network-models/index.js';
import type { ClusterRecord } from '../../model/cluster-records.js';
import type { KubeObject } from '../apimachinery/object.js';
import type { Container, PodSpec } from '../apimachinery/types.js';
import { k8sTime } from '../apimachinery/time.js';
import { workloadDefaults } from '../apiserver/index.js';

const ADDON_LABELS = { 'addonmanager.kubernetes.io/mode': 'Reconcile', 'kubernetes.azure.com/managedby': 'aks' };
const CRITICAL = [{ key: 'CriticalAddonsOnly', operator: 'Exists' }];
const EVERYWHERE = [...CRITICAL, { operator: 'Exists', effect: 'NoExecute' }, { operator: 'Exists', effect: 'NoSchedule' }];
/** AKS's node agents: node-critical, on the host network, on every Linux node whatever its taints. */
const NODE_AGENT = { priorityClassName: 'system-node-critical', hostNetwork: true, tolerations: EVERYWHERE, nodeSelector: { 'kubernetes.io/os': 'linux' } };
/** AKS's system add-ons prefer the System mode pool. */
const PREFER_SYSTEM = {
  nodeAffinity: {
    preferredDuringSchedulingIgnoredDuringExecution: [
      { weight: 100, preference: { matchExpressions: [{ key: 'kubernetes.azure.com/mode', operator: 'In', values: ['system'] }] } },
    ],
  },
};

interface Addon {
  kind: 'Deployment' | 'DaemonSet';
  name: string;
  labels: Record<string, string>;
  replicas?: number;
  pod: PodSpec;
}

function container(name: string, image: string, extra: Partial<Container> = {}): Container {
  return { name, image, ...extra };
}

function addons(cluster: ClusterRecord): Addon[] {
  const version = cluster.resolved.kubernetesVersion;
  const list: Addon[] = [
    {
      kind: 'Deployment',
      name: 'coredns',
      labels: { 'k8s-app': 'kube-dns', 'kubernetes.io/cluster-service': 'true', version: 'v20' },
      replicas: 2,
      pod: {
        priorityClassName: 'system-cluster-critical',
        serviceAccountName: 'coredns',
        dnsPolicy: 'Default',
        tolerations: CRITICAL,
        affinity: PREFER_SYSTEM,
        nodeSelector: { 'kubernetes.io/os': 'linux' },
        containers: [
          container('coredns', 'mcr.microsoft.com/oss/kubernetes/coredns:v1.11.3-2', {
            args: ['-conf', '/etc/coredns/Corefile'],
            ports: [
              { containerPort: 53, name: 'dns', protocol: 'UDP' },
              { containerPort: 53, name: 'dns-tcp', protocol: 'TCP' },
              { containerPort: 9153, name: 'metrics', protocol: 'TCP' },
            ],
            resources: { limits: { memory: '500Mi' }, requests: { cpu: '100m', memory: '70Mi' } },
          }),
        ],
      },
    },
    {
      kind: 'Deployment',
      name: 'coredns-autoscaler',
      labels: { 'k8s-app': 'coredns-autoscaler' },
      replicas: 1,
      pod: {
        priorityClassName: 'system-cluster-critical',
        serviceAccountName: 'coredns-autoscaler',
        tolerations: CRITICAL,
        affinity: PREFER_SYSTEM,
        nodeSelector: { 'kubernetes.io/os': 'linux' },
        containers: [
          container('autoscaler', 'mcr.microsoft.com/oss/kubernetes/autoscaler/cluster-proportional-autoscaler:v1.8.11', {
            resources: { requests: { cpu: '20m', memory: '10Mi' } },
          }),
        ],
      },
    },
    {
      kind: 'Deployment',
      name: 'metrics-server',
      labels: { 'k8s-app': 'metrics-server' },
      replicas: 2,
      pod: {
        priorityClassName: 'system-cluster-critical',
        serviceAccountName: 'metrics-server',
        tolerations: CRITICAL,
        affinity: PREFER_SYSTEM,
        nodeSelector: { 'kubernetes.io/os': 'linux' },
        containers: [
          container('metrics-server', 'mcr.microsoft.com/oss/kubernetes/metrics-server:v0.7.2', {
            ports: [{ containerPort: 4443, name: 'https', protocol: 'TCP' }],
            resources: { limits: { cpu: '145m', memory: '515Mi' }, requests: { cpu: '49m', memory: '91Mi' } },
          }),
        ],
      },
    },
    {
      kind: 'Deployment',
      name: 'konnectivity-agent',
      labels: { app: 'konnectivity-agent', component: 'tunnel' },
      replicas: 2,
      pod: {
        priorityClassName: 'system-cluster-critical',
        serviceAccountName: 'konnectivity-agent',
        hostNetwork: true,
        tolerations: CRITICAL,
        affinity: PREFER_SYSTEM,
        nodeSelector: { 'kubernetes.io/os': 'linux' },
        containers: [
          container('konnectivity-agent', 'mcr.microsoft.com/oss/kubernetes/apiserver-network-proxy/agent:v0.30.3-hotfix.20240819', {
            resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '20m', memory: '20Mi' } },
          }),
        ],
      },
    },
    {
      kind: 'DaemonSet',
      name: 'kube-proxy',
      labels: { component: 'kube-proxy', tier: 'node' },
      pod: {
        ...NODE_AGENT,
        containers: [
          container('kube-proxy', `mcr.microsoft.com/oss/kubernetes/kube-proxy:v${version}`, {
            command: ['kube-proxy', '--conntrack-max-per-core=0', '--metrics-bind-address=0.0.0.0:10249'],
            resources: { requests: { cpu: '100m' } },
            securityContext: { privileged: true },
          }),
        ],
      },
    },
    {
      kind: 'DaemonSet',
      name: 'cloud-node-manager',
      labels: { 'k8s-app': 'cloud-node-manager', component: 'cloud-node-manager' },
      pod: {
        priorityClassName: 'system-node-critical',
        serviceAccountName: 'cloud-node-manager',
        hostNetwork: true,
        tolerations: EVERYWHERE,
        nodeSelector: { 'kubernetes.io/os': 'linux' },
        containers: [
          container('cloud-node-manager', `mcr.microsoft.com/oss/kubernetes/azure-cloud-node-manager:v${version.split('.').slice(0, 2).join('.')}.5`, {
            command: ['cloud-node-manager', '--node-name=$(NODE_NAME)', '--wait-routes=true'],
            resources: { limits: { cpu: '2', memory: '512Mi' }, requests: { cpu: '50m', memory: '50Mi' } },
          }),
        ],
      },
    },
  ];
  if (networkModelOf(cluster.resolved)?.kubernetes.ipMasqAgent) {
    list.push({
      kind: 'DaemonSet',
      name: 'azure-ip-masq-agent',
      labels: { 'k8s-app': 'azure-ip-masq-agent', tier: 'node' },
      pod: {
        ...NODE_AGENT,
        containers: [
          container('azure-ip-masq-agent', 'mcr.microsoft.com/aks/ip-masq-agent-v2:v0.1.15', {
            resources: { limits: { cpu: '500m', memory: '250Mi' }, requests: { cpu: '100m', memory: '50Mi' } },
            securityContext: { capabilities: { add: ['NET_ADMIN', 'NET_RAW'] } },
          }),
        ],
      },
    });
  }
  return list;
}

/** The add-on workloads as objects (defaults applied), for the runtime to create when missing. */
export function addonWorkloads(cluster: ClusterRecord): KubeObject[] {
  const created = k8sTime(cluster.createdAt);
  return addons(cluster).map((a) => {
    const selector = { matchLabels: { [Object.keys(a.labels)[0]!]: Object.values(a.labels)[0]! } };
    const obj: KubeObject = {
      apiVersion: 'apps/v1',
      kind: a.kind,
      metadata: { name: a.name, namespace: 'kube-system', creationTimestamp: created, generation: 1, labels: { ...ADDON_LABELS, ...a.labels } },
      spec: {
        ...(a.replicas !== undefined ? { replicas: a.replicas } : {}),
        selector,
        template: { metadata: { labels: { ...a.labels, 'kubernetes.azure.com/managedby': 'aks' } }, spec: structuredClone(a.pod) },
      },
    };
    workloadDefaults(a.kind, obj, true);
    return obj;
  });
}
