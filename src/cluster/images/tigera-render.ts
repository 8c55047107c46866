// What the tigera operator renders from a defaulted Installation for Calico networking (Linux nodes, Calico CNI):
// the calico-system namespace and in it calico-node (DaemonSet, with its install-cni, flexvol-driver and
// ebpf-bootstrap init containers), calico-typha (Deployment + Service), calico-kube-controllers (Deployment),
// csi-node-driver (DaemonSet), their ServiceAccounts, the cni-config ConfigMap whose `config` is the conflist
// calico-node's install-cni writes (env CNI_NETWORK_CONFIG), the tigera CA bundle and the node/typha TLS
// secrets their volumes name. Sources (tigera/operator v1.42.3): pkg/render/node.go (nodeDaemonset, nodeEnvVars,
// nodeCNIConfigMap, createCalicoPluginConfig), typha.go, csi.go, kubecontrollers/kube-controllers.go,
// namespaces.go, pkg/controller/utils/component.go (setStandardSelectorAndLabels: the k8s-app selector and the
// app.kubernetes.io labels; the controller ownerReference to the Installation), pkg/common/autoscale.go (typha
// replicas by node count). RBAC (ClusterRoles and bindings) is not rendered: aksemu does not enforce RBAC.
import { createHash } from 'node:crypto';
import type { KubeObject } from '../apimachinery/object.js';
import { imageRef, type InstallationSpec, type Pool } from './tigera-installation.js';

export const NS = 'calico-system';
export const CNI_FINALIZER = 'tigera.io/cni-protector';
const TYPHA_PORT = 5473;
const FELIX_HEALTH_PORT = 9099;
const CA_BUNDLE = '/etc/pki/tls/certs/tigera-ca-bundle.crt';

type Obj = Record<string, unknown>;

/** One object the operator keeps: where it lives and what it should be. */
export interface Desired {
  collection: string;
  name: string;
  object: KubeObject;
}

export interface RenderInput {
  spec: InstallationSpec;
  /** The Installation's uid, for the controller ownerReference every rendered object carries. */
  uid: string;
  /** Linux nodes in the cluster (typha's replica count follows it). */
  nodes: number;
  /** PEM the CA bundle and the TLS secrets carry (the operator's self-signed tigera-operator-signer). */
  pem: { ca: string; nodeCert: string; nodeKey: string; typhaCert: string; typhaKey: string };
}

/** GetExpectedTyphaScale (autoscale.go): one per 200 nodes plus one, at least 3 above 4 nodes, 2 for 3–4, else 1. */
export function typhaReplicas(nodes: number): number {
  if (nodes <= 2) return 1;
  if (nodes <= 4) return 2;
  return Math.max(3, Math.floor(nodes / 200) + 2);
}

const env = (name: string, value: string) => ({ name, value });
const fieldEnv = (name: string, fieldPath: string) => ({ name, valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath } } });
const hostPath = (name: string, path: string, type?: string) => ({ name, hostPath: type ? { path, type } : { path } });
const TOLERATE_ALL = [
  { operator: 'Exists', effect: 'NoSchedule' },
  { operator: 'Exists', effect: 'NoExecute' },
  { key: 'CriticalAddonsOnly', operator: 'Exists' },
];
const ROOT = { privileged: true, runAsUser: 0, runAsGroup: 0, runAsNonRoot: false, allowPrivilegeEscalation: true };
const NON_ROOT = {
  allowPrivilegeEscalation: false,
  capabilities: { drop: ['ALL'] },
  privileged: false,
  runAsGroup: 10001,
  runAsNonRoot: true,
  runAsUser: 10001,
  seccompProfile: { type: 'RuntimeDefault' },
};
const CA_VOLUME = { name: 'tigera-ca-bundle', configMap: { name: 'tigera-ca-bundle' } };
const CA_MOUNTS = [
  { name: 'tigera-ca-bundle', mountPath: '/etc/pki/tls/certs', readOnly: true },
  { name: 'tigera-ca-bundle', mountPath: '/etc/pki/tls/cert.pem', subPath: 'ca-bundle.crt', readOnly: true },
];

/** The AKS affinity of calico-node and csi-node-driver (node.go, csi.go): never on virtual-kubelet nodes. */
function nodeAffinity(spec: InstallationSpec): Obj | undefined {
  if (spec.kubernetesProvider !== 'AKS') return undefined;
  return {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [{ matchExpressions: [{ key: 'type', operator: 'NotIn', values: ['virtual-kubelet'] }] }],
      },
    },
  };
}

/** fillDefaults' TyphaAffinity for AKS: real AKS nodes only (kubernetes.azure.com/cluster), never virtual nodes. */
function typhaAffinity(spec: InstallationSpec): Obj | undefined {
  if (spec['typhaAffinity'] !== undefined) return spec['typhaAffinity'] as Obj;
  if (spec.kubernetesProvider !== 'AKS') return undefined;
  return {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [
          {
            matchExpressions: [
              { key: 'type', operator: 'NotIn', values: ['virtual-node'] },
              { key: 'kubernetes.azure.com/cluster', operator: 'Exists' },
            ],
          },
        ],
      },
    },
  };
}

/** The Calico CNI conflist of nodeCNIConfigMap: calico (calico-ipam, or host-local on usePodCidr), then portmap
 * when host ports are on; install-cni fills __KUBECONFIG_FILEPATH__ in. */
export function cniConfig(spec: InstallationSpec): string {
  const pools = spec.calicoNetwork.ipPools;
  const v4 = pools.some((p) => !p.cidr.includes(':'));
  const v6 = pools.some((p) => p.cidr.includes(':'));
  const ipam =
    spec.cni.ipam.type === 'HostLocal'
      ? v4 && v6
        ? { type: 'host-local', ranges: [[{ subnet: 'usePodCidr' }], [{ subnet: 'usePodCidrIPv6' }]] }
        : { type: 'host-local', subnet: v6 ? 'usePodCidrIPv6' : 'usePodCidr' }
      : { type: 'calico-ipam', assign_ipv4: String(v4), assign_ipv6: String(v6) };
  const logging = ((spec['logging'] as Obj | undefined)?.['cni'] ?? {}) as Obj;
  const calico: Obj = {
    type: 'calico',
    datastore_type: 'kubernetes',
    mtu: typeof spec.calicoNetwork.mtu === 'number' ? spec.calicoNetwork.mtu : 0,
    nodename_file_optional: spec.kubernetesProvider === 'DockerEnterprise',
    log_file_path: '/var/log/calico/cni/cni.log',
    ipam,
    container_settings: { allow_ip_forwarding: spec.calicoNetwork['containerIPForwarding'] === 'Enabled' },
    policy: { type: 'k8s' },
    policy_setup_timeout_seconds: spec.calicoNetwork['linuxPolicySetupTimeoutSeconds'] ?? 0,
    endpoint_status_dir: '/var/run/calico/endpoint-status',
    calico_api_group: '',
  };
  if (typeof logging['logSeverity'] === 'string') calico['log_level'] = logging['logSeverity'];
  const maxSize = /^(\d+)Mi$/.exec(String(logging['logFileMaxSize'] ?? ''));
  if (maxSize) calico['log_file_max_size'] = Number(maxSize[1]);
  if (typeof logging['logFileMaxCount'] === 'number') calico['log_file_max_count'] = logging['logFileMaxCount'];
  if (typeof logging['logFileMaxAgeDays'] === 'number') calico['log_file_max_age'] = logging['logFileMaxAgeDays'];
  calico['kubernetes'] = { kubeconfig: '__KUBECONFIG_FILEPATH__' };
  const plugins: Obj[] = [calico];
  if (spec.calicoNetwork.hostPorts === 'Enabled') plugins.push({ type: 'portmap', snat: true, capabilities: { portMappings: true } });
  return `{\n\t\t\t  "name": "k8s-pod-network",\n\t\t\t  "cniVersion": "0.3.1",\n\t\t\t  "plugins": ${JSON.stringify(plugins)}\n\t\t\t}`;
}

/** The networking backend calico-node runs (nodeEnvVars): VXLAN-only pools with BGP off → vxlan; BGP on → bird. */
function networkingEnv(spec: InstallationSpec): Obj[] {
  const pools = spec.calicoNetwork.ipPools;
  const v4 = pools.find((p) => !p.cidr.includes(':'));
  const out: Obj[] = [];
  if (spec.calicoNetwork.bgp === 'Enabled') out.push(env('CALICO_NETWORKING_BACKEND', 'bird'));
  else if (pools.some((p) => p.encapsulation.startsWith('VXLAN'))) out.push(env('CALICO_NETWORKING_BACKEND', 'vxlan'));
  else out.push(env('CALICO_NETWORKING_BACKEND', 'none'));
  if (v4) out.push(env('IP', 'autodetect'), env('IP_AUTODETECTION_METHOD', 'first-found'));
  else out.push(env('IP', 'none'));
  if (pools.some((p) => p.cidr.includes(':')))
    out.push(env('IP6', 'autodetect'), env('IP6_AUTODETECTION_METHOD', 'first-found'), env('FELIX_IPV6SUPPORT', 'true'));
  else out.push(env('IP6', 'none'), env('FELIX_IPV6SUPPORT', 'false'));
  return out;
}

function nodeDaemonSet(spec: InstallationSpec, cniHash: string): Obj {
  const provider = spec.kubernetesProvider === 'AKS' ? ',aks' : spec.kubernetesProvider === 'EKS' ? ',ecs' : spec.kubernetesProvider === 'GKE' ? ',gke' : '';
  const clusterType = `k8s,operator${provider}${spec.calicoNetwork.bgp === 'Enabled' ? ',bgp' : ''}`;
  const calicoCni = spec.cni.type === 'Calico';
  const initContainers: Obj[] = [];
  if (spec.flexVolumePath !== 'None')
    initContainers.push({
      name: 'flexvol-driver',
      image: imageRef(spec, 'pod2daemon-flexvol'),
      imagePullPolicy: 'IfNotPresent',
      securityContext: ROOT,
      volumeMounts: [{ name: 'flexvol-driver-host', mountPath: '/host/driver' }],
    });
  initContainers.push({
    name: 'ebpf-bootstrap',
    image: imageRef(spec, 'node'),
    imagePullPolicy: 'IfNotPresent',
    command: ['calico-node', '-init', ...(spec.calicoNetwork.linuxDataplane === 'BPF' ? [] : ['-best-effort'])],
    securityContext: ROOT,
    volumeMounts: [
      { name: 'sys-fs', mountPath: '/sys/fs', mountPropagation: 'Bidirectional' },
      { name: 'var-run-calico', mountPath: '/var/run/calico', mountPropagation: 'Bidirectional' },
      { name: 'nodeproc', mountPath: '/nodeproc', readOnly: true },
    ],
  });
  if (calicoCni)
    initContainers.push({
      name: 'install-cni',
      image: imageRef(spec, 'cni'),
      imagePullPolicy: 'IfNotPresent',
      command: ['/opt/cni/bin/install'],
      env: [
        env('CNI_CONF_NAME', '10-calico.conflist'),
        env('SLEEP', 'false'),
        env('CNI_NET_DIR', spec.cni.confDir),
        { name: 'CNI_NETWORK_CONFIG', valueFrom: { configMapKeyRef: { name: 'cni-config', key: 'config' } } },
      ],
      securityContext: ROOT,
      volumeMounts: [
        { name: 'cni-bin-dir', mountPath: '/host/opt/cni/bin' },
        { name: 'cni-net-dir', mountPath: '/host/etc/cni/net.d' },
      ],
    });
  const nodeEnv = [
    env('DATASTORE_TYPE', 'kubernetes'),
    env('WAIT_FOR_DATASTORE', 'true'),
    env('CLUSTER_TYPE', clusterType),
    env('CALICO_DISABLE_FILE_LOGGING', 'false'),
    env('FELIX_DEFAULTENDPOINTTOHOSTACTION', 'ACCEPT'),
    env('FELIX_HEALTHENABLED', 'true'),
    env('FELIX_HEALTHPORT', String(FELIX_HEALTH_PORT)),
    fieldEnv('NODENAME', 'spec.nodeName'),
    fieldEnv('NAMESPACE', 'metadata.namespace'),
    env('FELIX_TYPHAK8SNAMESPACE', NS),
    env('FELIX_TYPHAK8SSERVICENAME', 'calico-typha'),
    env('FELIX_TYPHACAFILE', CA_BUNDLE),
    env('FELIX_TYPHACERTFILE', '/node-certs/tls.crt'),
    env('FELIX_TYPHAKEYFILE', '/node-certs/tls.key'),
    env('NO_DEFAULT_POOLS', 'true'),
    env('FELIX_TYPHACN', 'typha-server'),
    env('CALICO_MANAGE_CNI', String(calicoCni)),
    ...networkingEnv(spec),
  ];
  if (spec.cni.type === 'AzureVNET') nodeEnv.push(env('FELIX_INTERFACEPREFIX', 'azv'));
  if (!calicoCni) nodeEnv.push(env('FELIX_ROUTESOURCE', 'WorkloadIPs'));
  const volumes: Obj[] = [
    hostPath('lib-modules', '/lib/modules'),
    hostPath('xtables-lock', '/run/xtables.lock', 'FileOrCreate'),
    hostPath('policysync', '/var/run/nodeagent', 'DirectoryOrCreate'),
    CA_VOLUME,
    { name: 'node-certs', secret: { secretName: 'node-certs', defaultMode: 420 } },
    hostPath('var-run-calico', '/var/run/calico', 'DirectoryOrCreate'),
    hostPath('var-lib-calico', '/var/lib/calico', 'DirectoryOrCreate'),
    hostPath('sys-fs', '/sys/fs', 'DirectoryOrCreate'),
    hostPath('bpffs', '/sys/fs/bpf', 'Directory'),
    hostPath('nodeproc', '/proc'),
  ];
  if (calicoCni)
    volumes.push(
      hostPath('cni-bin-dir', spec.cni.binDir, 'DirectoryOrCreate'),
      hostPath('cni-net-dir', spec.cni.confDir),
      hostPath('cni-log-dir', '/var/log/calico/cni'),
    );
  if (spec.flexVolumePath !== 'None') volumes.push(hostPath('flexvol-driver-host', `${spec.flexVolumePath}nodeagent~uds`, 'DirectoryOrCreate'));
  const mounts: Obj[] = [
    { name: 'lib-modules', mountPath: '/lib/modules', readOnly: true },
    { name: 'xtables-lock', mountPath: '/run/xtables.lock' },
    { name: 'policysync', mountPath: '/var/run/nodeagent' },
    { name: 'var-run-calico', mountPath: '/var/run/calico' },
    { name: 'var-lib-calico', mountPath: '/var/lib/calico' },
    { name: 'bpffs', mountPath: '/sys/fs/bpf' },
    ...CA_MOUNTS,
    { name: 'node-certs', mountPath: '/node-certs', readOnly: true },
  ];
  if (calicoCni) mounts.push({ name: 'cni-log-dir', mountPath: '/var/log/calico/cni' }, { name: 'cni-net-dir', mountPath: '/host/etc/cni/net.d' });
  const affinity = nodeAffinity(spec);
  return {
    revisionHistoryLimit: 10,
    updateStrategy: spec['nodeUpdateStrategy'],
    template: {
      metadata: { annotations: { 'hash.operator.tigera.io/cni-config': cniHash } },
      spec: {
        tolerations: TOLERATE_ALL,
        ...(affinity ? { affinity } : {}),
        serviceAccountName: 'calico-node',
        terminationGracePeriodSeconds: 5,
        hostNetwork: true,
        dnsPolicy: 'ClusterFirstWithHostNet',
        priorityClassName: 'system-node-critical',
        nodeSelector: { 'kubernetes.io/os': 'linux' },
        initContainers,
        containers: [
          {
            name: 'calico-node',
            image: imageRef(spec, 'node'),
            imagePullPolicy: 'IfNotPresent',
            securityContext: ROOT,
            env: nodeEnv,
            volumeMounts: mounts,
            livenessProbe: { httpGet: { host: 'localhost', path: '/liveness', port: FELIX_HEALTH_PORT }, periodSeconds: 60, timeoutSeconds: 10 },
            readinessProbe: {
              exec: { command: ['/bin/calico-node', ...(spec.calicoNetwork.bgp === 'Enabled' ? ['-bird-ready'] : []), '-felix-ready'] },
              periodSeconds: 30,
              timeoutSeconds: 10,
            },
            lifecycle: { preStop: { exec: { command: ['/bin/calico-node', '-shutdown'] } } },
          },
        ],
        volumes,
      },
    },
  };
}

function typhaDeployment(spec: InstallationSpec, nodes: number): Obj {
  const affinity = typhaAffinity(spec);
  return {
    replicas: typhaReplicas(nodes),
    revisionHistoryLimit: 2,
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: '100%' } },
    template: {
      spec: {
        tolerations: TOLERATE_ALL,
        ...(affinity ? { affinity } : {}),
        serviceAccountName: 'calico-typha',
        terminationGracePeriodSeconds: 300,
        hostNetwork: true,
        dnsPolicy: 'ClusterFirstWithHostNet',
        priorityClassName: 'system-cluster-critical',
        nodeSelector: { 'kubernetes.io/os': 'linux' },
        containers: [
          {
            name: 'calico-typha',
            image: imageRef(spec, 'typha'),
            imagePullPolicy: 'IfNotPresent',
            securityContext: NON_ROOT,
            ports: [{ name: 'calico-typha', containerPort: TYPHA_PORT, protocol: 'TCP' }],
            env: [
              env('TYPHA_LOGSEVERITYSCREEN', 'info'),
              env('TYPHA_LOGFILEPATH', 'none'),
              env('TYPHA_LOGSEVERITYSYS', 'none'),
              env('TYPHA_CONNECTIONREBALANCINGMODE', 'kubernetes'),
              env('TYPHA_DATASTORETYPE', 'kubernetes'),
              env('TYPHA_HEALTHENABLED', 'true'),
              env('TYPHA_HEALTHPORT', String(FELIX_HEALTH_PORT - 1)),
              env('TYPHA_K8SNAMESPACE', NS),
              env('TYPHA_CAFILE', CA_BUNDLE),
              env('TYPHA_SERVERCERTFILE', '/typha-certs/tls.crt'),
              env('TYPHA_SERVERKEYFILE', '/typha-certs/tls.key'),
              env('TYPHA_CLIENTCN', 'typha-client'),
              env('TYPHA_SHUTDOWNTIMEOUTSECS', '300'),
              env('TYPHA_HEALTHHOST', '0.0.0.0'),
            ],
            volumeMounts: [...CA_MOUNTS, { name: 'typha-certs', mountPath: '/typha-certs', readOnly: true }],
            livenessProbe: { httpGet: { host: 'localhost', path: '/liveness', port: FELIX_HEALTH_PORT - 1 }, timeoutSeconds: 10 },
            readinessProbe: { httpGet: { host: 'localhost', path: '/readiness', port: FELIX_HEALTH_PORT - 1 }, timeoutSeconds: 10 },
          },
        ],
        volumes: [CA_VOLUME, { name: 'typha-certs', secret: { secretName: 'typha-certs', defaultMode: 420 } }],
      },
    },
  };
}

function kubeControllersDeployment(spec: InstallationSpec): Obj {
  return {
    replicas: 1,
    strategy: { type: 'Recreate' },
    template: {
      metadata: { name: 'calico-kube-controllers', namespace: NS },
      spec: {
        tolerations: [
          { key: 'CriticalAddonsOnly', operator: 'Exists' },
          { key: 'node-role.kubernetes.io/master', effect: 'NoSchedule' },
          { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' },
        ],
        serviceAccountName: 'calico-kube-controllers',
        priorityClassName: 'system-cluster-critical',
        nodeSelector: { 'kubernetes.io/os': 'linux' },
        containers: [
          {
            name: 'calico-kube-controllers',
            image: imageRef(spec, 'kube-controllers'),
            imagePullPolicy: 'IfNotPresent',
            env: [
              env('KUBE_CONTROLLERS_CONFIG_NAME', 'default'),
              env('DATASTORE_TYPE', 'kubernetes'),
              env('ENABLED_CONTROLLERS', 'node,loadbalancer'),
              env('DISABLE_KUBE_CONTROLLERS_CONFIG_API', 'false'),
              env('CA_CRT_PATH', CA_BUNDLE),
            ],
            securityContext: { ...NON_ROOT, runAsUser: 999, runAsGroup: 0 },
            volumeMounts: CA_MOUNTS,
            readinessProbe: { exec: { command: ['/usr/bin/check-status', '-r'] }, timeoutSeconds: 10 },
            livenessProbe: { exec: { command: ['/usr/bin/check-status', '-l'] }, failureThreshold: 6, initialDelaySeconds: 10, timeoutSeconds: 10 },
          },
        ],
        volumes: [CA_VOLUME],
      },
    },
  };
}

function csiDaemonSet(spec: InstallationSpec): Obj {
  const kubelet = spec.kubeletVolumePluginPath;
  const affinity = nodeAffinity(spec);
  return {
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } },
    template: {
      metadata: { labels: { name: 'csi-node-driver' } },
      spec: {
        tolerations: TOLERATE_ALL,
        ...(affinity ? { affinity } : {}),
        serviceAccountName: 'csi-node-driver',
        nodeSelector: { 'kubernetes.io/os': 'linux' },
        containers: [
          {
            name: 'calico-csi',
            image: imageRef(spec, 'csi'),
            imagePullPolicy: 'IfNotPresent',
            args: ['--nodeid=$(KUBE_NODE_NAME)', '--loglevel=$(LOG_LEVEL)'],
            env: [env('LOG_LEVEL', 'warn'), fieldEnv('KUBE_NODE_NAME', 'spec.nodeName')],
            securityContext: ROOT,
            volumeMounts: [
              { name: 'varrun', mountPath: '/var/run' },
              { name: 'socket-dir', mountPath: '/csi' },
              { name: 'kubelet-dir', mountPath: kubelet, mountPropagation: 'Bidirectional' },
            ],
          },
          {
            name: 'csi-node-driver-registrar',
            image: imageRef(spec, 'node-driver-registrar'),
            imagePullPolicy: 'IfNotPresent',
            args: ['--v=5', '--csi-address=$(ADDRESS)', '--kubelet-registration-path=$(DRIVER_REG_SOCK_PATH)'],
            env: [
              env('ADDRESS', '/csi/csi.sock'),
              env('DRIVER_REG_SOCK_PATH', `${kubelet}/plugins/csi.tigera.io/csi.sock`),
              fieldEnv('KUBE_NODE_NAME', 'spec.nodeName'),
            ],
            securityContext: ROOT,
            volumeMounts: [
              { name: 'socket-dir', mountPath: '/csi' },
              { name: 'registration-dir', mountPath: '/registration' },
            ],
          },
        ],
        volumes: [
          hostPath('varrun', '/var/run'),
          hostPath('kubelet-dir', kubelet, 'Directory'),
          hostPath('socket-dir', `${kubelet}/plugins/csi.tigera.io`, 'DirectoryOrCreate'),
          hostPath('registration-dir', `${kubelet}/plugins_registry`, 'Directory'),
        ],
      },
    },
  };
}

/** setStandardSelectorAndLabels: the Installation's labels on the object and its pod template, k8s-app selector. */
export function standardLabels(name: string, component = 'Installation.operator.tigera.io'): Record<string, string> {
  return {
    'app.kubernetes.io/component': component,
    'app.kubernetes.io/instance': 'default',
    'app.kubernetes.io/managed-by': 'tigera-operator',
    'app.kubernetes.io/name': name,
    'app.kubernetes.io/part-of': 'Calico',
    'k8s-app': name,
  };
}

function withWorkloadLabels(name: string, spec: Obj): Obj {
  const template = spec['template'] as { metadata?: { labels?: Record<string, string> } };
  template.metadata = { ...template.metadata, labels: { ...template.metadata?.labels, ...standardLabels(name) } };
  return { selector: { matchLabels: { 'k8s-app': name } }, ...spec };
}

const b64 = (s: string) => Buffer.from(s).toString('base64');
const tlsSecret = (cert: string, key: string): Obj => ({ type: 'kubernetes.io/tls', data: { 'tls.crt': b64(cert), 'tls.key': b64(key) } });

/** Everything the Installation renders, in the order the operator applies it (namespace first). */
export function render(input: RenderInput): Desired[] {
  const { spec, uid } = input;
  const owner = { apiVersion: 'operator.tigera.io/v1', kind: 'Installation', name: 'default', uid, controller: true, blockOwnerDeletion: true };
  const out: Desired[] = [];
  const add = (apiVersion: string, kind: string, collection: string, name: string, body: Obj, meta: Obj = {}) =>
    out.push({
      collection,
      name,
      object: {
        apiVersion,
        kind,
        metadata: { name, ...(collection.includes('/namespaces/') ? { namespace: NS } : {}), labels: standardLabels(name), ownerReferences: [owner], ...meta },
        ...body,
      } as KubeObject,
    });
  const core = `/api/v1/namespaces/${NS}`;
  const apps = `/apis/apps/v1/namespaces/${NS}`;
  add(
    'v1',
    'Namespace',
    '/api/v1/namespaces',
    NS,
    {},
    {
      labels: { ...standardLabels(NS), name: NS, 'pod-security.kubernetes.io/enforce': 'privileged', 'pod-security.kubernetes.io/enforce-version': 'latest' },
    },
  );
  add('v1', 'ConfigMap', `${core}/configmaps`, 'tigera-ca-bundle', { data: { 'ca-bundle.crt': input.pem.ca, 'tigera-ca-bundle.crt': input.pem.ca } });
  add('v1', 'Secret', `${core}/secrets`, 'node-certs', tlsSecret(input.pem.nodeCert, input.pem.nodeKey));
  add('v1', 'Secret', `${core}/secrets`, 'typha-certs', tlsSecret(input.pem.typhaCert, input.pem.typhaKey));
  for (const sa of ['calico-node', 'calico-cni-plugin']) add('v1', 'ServiceAccount', `${core}/serviceaccounts`, sa, {}, { finalizers: [CNI_FINALIZER] });
  for (const sa of ['calico-typha', 'calico-kube-controllers', 'csi-node-driver']) add('v1', 'ServiceAccount', `${core}/serviceaccounts`, sa, {});
  let cniHash = '';
  if (spec.cni.type === 'Calico') {
    const config = cniConfig(spec);
    cniHash = createHash('sha1').update(JSON.stringify({ config })).digest('hex');
    add('v1', 'ConfigMap', `${core}/configmaps`, 'cni-config', { data: { config } });
  }
  add('v1', 'Service', `${core}/services`, 'calico-typha', {
    spec: { ports: [{ name: 'calico-typha', port: TYPHA_PORT, protocol: 'TCP', targetPort: 'calico-typha' }], selector: { 'k8s-app': 'calico-typha' } },
  });
  add('apps/v1', 'Deployment', `${apps}/deployments`, 'calico-typha', { spec: withWorkloadLabels('calico-typha', typhaDeployment(spec, input.nodes)) });
  add('apps/v1', 'DaemonSet', `${apps}/daemonsets`, 'calico-node', { spec: withWorkloadLabels('calico-node', nodeDaemonSet(spec, cniHash)) });
  add('apps/v1', 'DaemonSet', `${apps}/daemonsets`, 'csi-node-driver', { spec: withWorkloadLabels('csi-node-driver', csiDaemonSet(spec)) });
  add('apps/v1', 'Deployment', `${apps}/deployments`, 'calico-kube-controllers', {
    spec: withWorkloadLabels('calico-kube-controllers', kubeControllersDeployment(spec)),
  });
  return out;
}

/** ToProjectCalico (ippool/pool_controller.go) as the crd.projectcalico.org/v1 object the operator bootstraps with. */
export function ipPoolObject(pool: Pool): KubeObject {
  const vxlan = pool.encapsulation === 'VXLAN' ? 'Always' : pool.encapsulation === 'VXLANCrossSubnet' ? 'CrossSubnet' : 'Never';
  const ipip = pool.encapsulation === 'IPIP' ? 'Always' : pool.encapsulation === 'IPIPCrossSubnet' ? 'CrossSubnet' : 'Never';
  const spec: Obj = {
    allowedUses: pool.allowedUses,
    assignmentMode: pool.assignmentMode,
    blockSize: pool.blockSize,
    cidr: pool.cidr,
    ipipMode: ipip,
    natOutgoing: pool.natOutgoing === 'Enabled',
    nodeSelector: pool.nodeSelector,
    vxlanMode: vxlan,
  };
  if (pool.disableNewAllocations) spec['disabled'] = true;
  // Go's zero values are omitted (omitempty), so false is the same pool as no field.
  if (pool.disableBGPExport) spec['disableBGPExport'] = true;
  return {
    apiVersion: 'crd.projectcalico.org/v1',
    kind: 'IPPool',
    metadata: { name: pool.name, labels: { 'app.kubernetes.io/managed-by': 'tigera-operator' } },
    spec,
  };
}
