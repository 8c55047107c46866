// The JSON shape of the Kubernetes Go types, for the fields aksemu itself reads (and the metadata of every
// kind). The apiserver decodes a body into these types before anything else; a value of the wrong JSON type
// is its decode error, a 400: `Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal string
// into Go struct field ObjectMeta.metadata.ownerReferences of type []v1.OwnerReference`. Fields not listed
// are kept as they come (aksemu does not read them). The tables are data: one row per Go type.
import { isPlainObject, own, setOwn } from '../../../http/own.js';

export type Shape =
  | { t: 'string' | 'bool'; go: string }
  | { t: 'int'; bits: 32 | 64 }
  | { t: 'intstr' }
  | { t: 'quantity' }
  | { t: 'list'; of: Shape }
  | { t: 'map'; of: Shape; go?: string }
  | { t: 'struct'; go: string; fields: Record<string, Shape> };

const str = (go = 'string'): Shape => ({ t: 'string', go });
const bool: Shape = { t: 'bool', go: 'bool' };
const int32: Shape = { t: 'int', bits: 32 };
const int64: Shape = { t: 'int', bits: 64 };
const intstr: Shape = { t: 'intstr' };
const quantity: Shape = { t: 'quantity' };
const list = (of: Shape): Shape => ({ t: 'list', of });
const map = (of: Shape = str(), go?: string): Shape => ({ t: 'map', of, ...(go ? { go } : {}) });
const struct = (go: string, fields: Record<string, Shape>): Shape => ({ t: 'struct', go, fields });
/** metav1.Time and MicroTime: RFC 3339 text (their decoders read a JSON string). */
const time = str();

const resourceList = map(quantity, 'v1.ResourceList');
const ownerReference = struct('v1.OwnerReference', {
  apiVersion: str(),
  kind: str(),
  name: str(),
  uid: str('types.UID'),
  controller: bool,
  blockOwnerDeletion: bool,
});
const objectMeta = struct('v1.ObjectMeta', {
  name: str(),
  generateName: str(),
  namespace: str(),
  selfLink: str(),
  uid: str('types.UID'),
  resourceVersion: str(),
  generation: int64,
  creationTimestamp: time,
  deletionTimestamp: time,
  deletionGracePeriodSeconds: int64,
  labels: map(),
  annotations: map(),
  ownerReferences: list(ownerReference),
  finalizers: list(str()),
});
const labelSelector = struct('v1.LabelSelector', {
  matchLabels: map(),
  matchExpressions: list(struct('v1.LabelSelectorRequirement', { key: str(), operator: str('v1.LabelSelectorOperator'), values: list(str()) })),
});
const keySelector = (go: string) => struct(go, { name: str(), key: str(), optional: bool });
const container = struct('v1.Container', {
  name: str(),
  image: str(),
  command: list(str()),
  args: list(str()),
  workingDir: str(),
  ports: list(struct('v1.ContainerPort', { name: str(), hostPort: int32, containerPort: int32, protocol: str('v1.Protocol'), hostIP: str() })),
  env: list(
    struct('v1.EnvVar', {
      name: str(),
      value: str(),
      valueFrom: struct('v1.EnvVarSource', {
        fieldRef: struct('v1.ObjectFieldSelector', { apiVersion: str(), fieldPath: str() }),
        configMapKeyRef: keySelector('v1.ConfigMapKeySelector'),
        secretKeyRef: keySelector('v1.SecretKeySelector'),
      }),
    }),
  ),
  envFrom: list(
    struct('v1.EnvFromSource', {
      prefix: str(),
      configMapRef: struct('v1.ConfigMapEnvSource', { name: str(), optional: bool }),
      secretRef: struct('v1.SecretEnvSource', { name: str(), optional: bool }),
    }),
  ),
  resources: struct('v1.ResourceRequirements', { limits: resourceList, requests: resourceList }),
  volumeMounts: list(struct('v1.VolumeMount', { name: str(), readOnly: bool, mountPath: str(), subPath: str() })),
  imagePullPolicy: str('v1.PullPolicy'),
  restartPolicy: str('v1.ContainerRestartPolicy'),
});
const keyToPath = list(struct('v1.KeyToPath', { key: str(), path: str(), mode: int32 }));
const volume = struct('v1.Volume', {
  name: str(),
  hostPath: struct('v1.HostPathVolumeSource', { path: str(), type: str('v1.HostPathType') }),
  configMap: struct('v1.ConfigMapVolumeSource', { name: str(), items: keyToPath, defaultMode: int32, optional: bool }),
  secret: struct('v1.SecretVolumeSource', { secretName: str(), items: keyToPath, defaultMode: int32, optional: bool }),
});
const nodeSelectorRequirement = struct('v1.NodeSelectorRequirement', { key: str(), operator: str('v1.NodeSelectorOperator'), values: list(str()) });
const nodeSelectorTerm = struct('v1.NodeSelectorTerm', { matchExpressions: list(nodeSelectorRequirement), matchFields: list(nodeSelectorRequirement) });
const podAffinityTerm = struct('v1.PodAffinityTerm', { labelSelector, namespaces: list(str()), topologyKey: str(), namespaceSelector: labelSelector });
const podAffinity = (go: string) =>
  struct(go, {
    requiredDuringSchedulingIgnoredDuringExecution: list(podAffinityTerm),
    preferredDuringSchedulingIgnoredDuringExecution: list(struct('v1.WeightedPodAffinityTerm', { weight: int32, podAffinityTerm })),
  });
const affinity = struct('v1.Affinity', {
  nodeAffinity: struct('v1.NodeAffinity', {
    requiredDuringSchedulingIgnoredDuringExecution: struct('v1.NodeSelector', { nodeSelectorTerms: list(nodeSelectorTerm) }),
    preferredDuringSchedulingIgnoredDuringExecution: list(struct('v1.PreferredSchedulingTerm', { weight: int32, preference: nodeSelectorTerm })),
  }),
  podAffinity: podAffinity('v1.PodAffinity'),
  podAntiAffinity: podAffinity('v1.PodAntiAffinity'),
});
const podSpec = struct('v1.PodSpec', {
  volumes: list(volume),
  initContainers: list(container),
  containers: list(container),
  restartPolicy: str('v1.RestartPolicy'),
  terminationGracePeriodSeconds: int64,
  dnsPolicy: str('v1.DNSPolicy'),
  nodeSelector: map(),
  serviceAccountName: str(),
  serviceAccount: str(),
  nodeName: str(),
  hostNetwork: bool,
  hostname: str(),
  subdomain: str(),
  affinity,
  schedulerName: str(),
  priorityClassName: str(),
  priority: int32,
  overhead: resourceList,
  enableServiceLinks: bool,
  tolerations: list(
    struct('v1.Toleration', { key: str(), operator: str('v1.TolerationOperator'), value: str(), effect: str('v1.TaintEffect'), tolerationSeconds: int64 }),
  ),
  readinessGates: list(struct('v1.PodReadinessGate', { conditionType: str('v1.PodConditionType') })),
  imagePullSecrets: list(struct('v1.LocalObjectReference', { name: str() })),
});
const containerState = struct('v1.ContainerState', {
  waiting: struct('v1.ContainerStateWaiting', { reason: str(), message: str() }),
  running: struct('v1.ContainerStateRunning', { startedAt: time }),
  terminated: struct('v1.ContainerStateTerminated', {
    exitCode: int32,
    signal: int32,
    reason: str(),
    message: str(),
    startedAt: time,
    finishedAt: time,
    containerID: str(),
  }),
});
const containerStatus = struct('v1.ContainerStatus', {
  name: str(),
  state: containerState,
  lastState: containerState,
  ready: bool,
  restartCount: int32,
  image: str(),
  imageID: str(),
  containerID: str(),
  started: bool,
});
const condition = (go: string, extra: Record<string, Shape> = {}) =>
  struct(go, { type: str(), status: str('v1.ConditionStatus'), lastTransitionTime: time, reason: str(), message: str(), ...extra });
const podStatus = struct('v1.PodStatus', {
  phase: str('v1.PodPhase'),
  conditions: list(condition('v1.PodCondition', { lastProbeTime: time })),
  message: str(),
  reason: str(),
  hostIP: str(),
  podIP: str(),
  podIPs: list(struct('v1.PodIP', { ip: str() })),
  hostIPs: list(struct('v1.HostIP', { ip: str() })),
  startTime: time,
  initContainerStatuses: list(containerStatus),
  containerStatuses: list(containerStatus),
  qosClass: str('v1.PodQOSClass'),
});
const template = struct('v1.PodTemplateSpec', { metadata: objectMeta, spec: podSpec });
const rollingUpdate = (go: string) => struct(go, { maxUnavailable: intstr, maxSurge: intstr });
const workloadConditions = (go: string) => list(condition(go, { lastUpdateTime: time }));
const objectReference = struct('v1.ObjectReference', {
  kind: str(),
  namespace: str(),
  name: str(),
  uid: str('types.UID'),
  apiVersion: str(),
  resourceVersion: str(),
  fieldPath: str(),
});
const endpointAddresses = list(struct('v1.EndpointAddress', { ip: str(), hostname: str(), nodeName: str(), targetRef: objectReference }));

const webhook = (go: string, extra: Record<string, Shape> = {}) =>
  list(
    struct(go, {
      name: str(),
      clientConfig: struct('v1.WebhookClientConfig', {
        url: str(),
        service: struct('v1.ServiceReference', { namespace: str(), name: str(), path: str(), port: int32 }),
        caBundle: str('[]uint8'),
      }),
      rules: list(
        struct('v1.RuleWithOperations', {
          operations: list(str('v1.OperationType')),
          apiGroups: list(str()),
          apiVersions: list(str()),
          resources: list(str()),
          scope: str('v1.ScopeType'),
        }),
      ),
      failurePolicy: str('v1.FailurePolicyType'),
      matchPolicy: str('v1.MatchPolicyType'),
      namespaceSelector: labelSelector,
      objectSelector: labelSelector,
      sideEffects: str('v1.SideEffectClass'),
      timeoutSeconds: int32,
      admissionReviewVersions: list(str()),
      ...extra,
    }),
  );
const accessModes = list(str('v1.PersistentVolumeAccessMode'));
/** Each kind's top-level fields besides apiVersion, kind and metadata (which every kind has). */
const networkPolicyPeer = struct('v1.NetworkPolicyPeer', {
  podSelector: labelSelector,
  namespaceSelector: labelSelector,
  ipBlock: struct('v1.IPBlock', { cidr: str(), except: list(str()) }),
});
const networkPolicyPort = struct('v1.NetworkPolicyPort', { protocol: str('v1.Protocol'), port: intstr, endPort: int32 });
const networkPolicySpec = struct('v1.NetworkPolicySpec', {
  podSelector: labelSelector,
  ingress: list(struct('v1.NetworkPolicyIngressRule', { ports: list(networkPolicyPort), from: list(networkPolicyPeer) })),
  egress: list(struct('v1.NetworkPolicyEgressRule', { ports: list(networkPolicyPort), to: list(networkPolicyPeer) })),
  policyTypes: list(str('v1.PolicyType')),
});

const KINDS: Record<string, Record<string, Shape>> = {
  Pod: { spec: podSpec, status: podStatus },
  Deployment: {
    spec: struct('v1.DeploymentSpec', {
      replicas: int32,
      selector: labelSelector,
      template,
      minReadySeconds: int32,
      revisionHistoryLimit: int32,
      paused: bool,
      progressDeadlineSeconds: int32,
      strategy: struct('v1.DeploymentStrategy', { type: str('v1.DeploymentStrategyType'), rollingUpdate: rollingUpdate('v1.RollingUpdateDeployment') }),
    }),
    status: struct('v1.DeploymentStatus', {
      observedGeneration: int64,
      replicas: int32,
      updatedReplicas: int32,
      readyReplicas: int32,
      availableReplicas: int32,
      unavailableReplicas: int32,
      conditions: workloadConditions('v1.DeploymentCondition'),
      collisionCount: int32,
    }),
  },
  ReplicaSet: {
    spec: struct('v1.ReplicaSetSpec', { replicas: int32, minReadySeconds: int32, selector: labelSelector, template }),
    status: struct('v1.ReplicaSetStatus', {
      replicas: int32,
      fullyLabeledReplicas: int32,
      readyReplicas: int32,
      availableReplicas: int32,
      observedGeneration: int64,
      conditions: workloadConditions('v1.ReplicaSetCondition'),
    }),
  },
  DaemonSet: {
    spec: struct('v1.DaemonSetSpec', {
      selector: labelSelector,
      template,
      minReadySeconds: int32,
      revisionHistoryLimit: int32,
      updateStrategy: struct('v1.DaemonSetUpdateStrategy', {
        type: str('v1.DaemonSetUpdateStrategyType'),
        rollingUpdate: rollingUpdate('v1.RollingUpdateDaemonSet'),
      }),
    }),
    status: struct('v1.DaemonSetStatus', {
      currentNumberScheduled: int32,
      numberMisscheduled: int32,
      desiredNumberScheduled: int32,
      numberReady: int32,
      observedGeneration: int64,
      updatedNumberScheduled: int32,
      numberAvailable: int32,
      numberUnavailable: int32,
      collisionCount: int32,
    }),
  },
  Service: {
    spec: struct('v1.ServiceSpec', {
      ports: list(struct('v1.ServicePort', { name: str(), protocol: str('v1.Protocol'), port: int32, targetPort: intstr, nodePort: int32 })),
      selector: map(),
      clusterIP: str(),
      clusterIPs: list(str()),
      type: str('v1.ServiceType'),
      externalIPs: list(str()),
      externalName: str(),
      ipFamilies: list(str('v1.IPFamily')),
      ipFamilyPolicy: str('v1.IPFamilyPolicy'),
      externalTrafficPolicy: str('v1.ServiceExternalTrafficPolicy'),
    }),
  },
  NetworkPolicy: { spec: networkPolicySpec },
  ConfigMap: { data: map(), binaryData: map(str('[]uint8')), immutable: bool },
  Secret: { data: map(str('[]uint8')), stringData: map(), type: str('v1.SecretType'), immutable: bool },
  Node: {
    spec: struct('v1.NodeSpec', {
      podCIDR: str(),
      podCIDRs: list(str()),
      providerID: str(),
      unschedulable: bool,
      taints: list(struct('v1.Taint', { key: str(), value: str(), effect: str('v1.TaintEffect'), timeAdded: time })),
    }),
    status: struct('v1.NodeStatus', {
      capacity: resourceList,
      allocatable: resourceList,
      conditions: list(condition('v1.NodeCondition', { lastHeartbeatTime: time })),
      addresses: list(struct('v1.NodeAddress', { type: str('v1.NodeAddressType'), address: str() })),
      nodeInfo: struct('v1.NodeSystemInfo', {
        kernelVersion: str(),
        osImage: str(),
        containerRuntimeVersion: str(),
        kubeletVersion: str(),
        operatingSystem: str(),
        architecture: str(),
      }),
    }),
  },
  Namespace: {
    spec: struct('v1.NamespaceSpec', { finalizers: list(str('v1.FinalizerName')) }),
    status: struct('v1.NamespaceStatus', { phase: str('v1.NamespacePhase') }),
  },
  Event: {
    involvedObject: objectReference,
    reason: str(),
    message: str(),
    type: str(),
    count: int32,
    firstTimestamp: time,
    lastTimestamp: time,
    eventTime: time,
    source: struct('v1.EventSource', { component: str(), host: str() }),
    series: struct('v1.EventSeries', { count: int32, lastObservedTime: time }),
  },
  Endpoints: {
    subsets: list(
      struct('v1.EndpointSubset', {
        addresses: endpointAddresses,
        notReadyAddresses: endpointAddresses,
        ports: list(struct('v1.EndpointPort', { name: str(), port: int32, protocol: str('v1.Protocol') })),
      }),
    ),
  },
  Lease: { spec: struct('v1.LeaseSpec', { holderIdentity: str(), leaseDurationSeconds: int32, renewTime: time, acquireTime: time, leaseTransitions: int32 }) },
  Scale: { spec: struct('v1.ScaleSpec', { replicas: int32 }) },
  PriorityClass: { value: int32, globalDefault: bool, description: str(), preemptionPolicy: str('v1.PreemptionPolicy') },
  PodDisruptionBudget: {
    spec: struct('v1.PodDisruptionBudgetSpec', { minAvailable: intstr, maxUnavailable: intstr, selector: labelSelector, unhealthyPodEvictionPolicy: str() }),
    status: struct('v1.PodDisruptionBudgetStatus', {
      observedGeneration: int64,
      disruptionsAllowed: int32,
      currentHealthy: int32,
      desiredHealthy: int32,
      expectedPods: int32,
      conditions: list(condition('v1.Condition', { observedGeneration: int64 })),
    }),
  },
  APIService: {
    spec: struct('v1.APIServiceSpec', {
      service: struct('v1.ServiceReference', { namespace: str(), name: str(), port: int32 }),
      group: str(),
      version: str(),
      insecureSkipTLSVerify: bool,
      caBundle: str('[]uint8'),
      groupPriorityMinimum: int32,
      versionPriority: int32,
    }),
    status: struct('v1.APIServiceStatus', { conditions: list(condition('v1.APIServiceCondition')) }),
  },
  CertificateSigningRequest: {
    spec: struct('v1.CertificateSigningRequestSpec', {
      request: str('[]uint8'),
      signerName: str(),
      expirationSeconds: int32,
      usages: list(str('v1.KeyUsage')),
      username: str(),
      uid: str(),
      groups: list(str()),
    }),
    status: struct('v1.CertificateSigningRequestStatus', {
      conditions: list(condition('v1.CertificateSigningRequestCondition', { lastUpdateTime: time })),
      certificate: str('[]uint8'),
    }),
  },
  StorageClass: {
    provisioner: str(),
    parameters: map(),
    reclaimPolicy: str('v1.PersistentVolumeReclaimPolicy'),
    mountOptions: list(str()),
    allowVolumeExpansion: bool,
    volumeBindingMode: str('v1.VolumeBindingMode'),
  },
  CSIDriver: {
    spec: struct('v1.CSIDriverSpec', {
      attachRequired: bool,
      podInfoOnMount: bool,
      volumeLifecycleModes: list(str('v1.VolumeLifecycleMode')),
      storageCapacity: bool,
      fsGroupPolicy: str('v1.FSGroupPolicy'),
      tokenRequests: list(struct('v1.TokenRequest', { audience: str(), expirationSeconds: int64 })),
      requiresRepublish: bool,
    }),
  },
  VolumeAttachment: {
    spec: struct('v1.VolumeAttachmentSpec', { attacher: str(), source: struct('v1.VolumeAttachmentSource', { persistentVolumeName: str() }), nodeName: str() }),
    status: struct('v1.VolumeAttachmentStatus', { attached: bool }),
  },
  ValidatingWebhookConfiguration: { webhooks: webhook('v1.ValidatingWebhook') },
  MutatingWebhookConfiguration: { webhooks: webhook('v1.MutatingWebhook', { reinvocationPolicy: str('v1.ReinvocationPolicyType') }) },
  EndpointSlice: {
    addressType: str('v1.AddressType'),
    endpoints: list(
      struct('v1.Endpoint', {
        addresses: list(str()),
        conditions: struct('v1.EndpointConditions', { ready: bool, serving: bool, terminating: bool }),
        hostname: str(),
        targetRef: objectReference,
        nodeName: str(),
        zone: str(),
      }),
    ),
    ports: list(struct('v1.EndpointPort', { name: str(), protocol: str('v1.Protocol'), port: int32, appProtocol: str() })),
  },
  RuntimeClass: { handler: str() },
  PersistentVolumeClaim: {
    spec: struct('v1.PersistentVolumeClaimSpec', {
      accessModes,
      resources: struct('v1.VolumeResourceRequirements', { requests: resourceList, limits: resourceList }),
      volumeName: str(),
      storageClassName: str(),
      volumeMode: str('v1.PersistentVolumeMode'),
      volumeAttributesClassName: str(),
    }),
    status: struct('v1.PersistentVolumeClaimStatus', { phase: str('v1.PersistentVolumeClaimPhase'), accessModes, capacity: resourceList }),
  },
  PersistentVolume: {
    spec: struct('v1.PersistentVolumeSpec', {
      capacity: resourceList,
      accessModes,
      claimRef: objectReference,
      persistentVolumeReclaimPolicy: str('v1.PersistentVolumeReclaimPolicy'),
      storageClassName: str(),
      volumeMode: str('v1.PersistentVolumeMode'),
      volumeAttributesClassName: str(),
    }),
    status: struct('v1.PersistentVolumeStatus', { phase: str('v1.PersistentVolumePhase'), message: str(), reason: str() }),
  },
  ResourceQuota: {
    spec: struct('v1.ResourceQuotaSpec', { hard: resourceList, scopes: list(str('v1.ResourceQuotaScope')) }),
    status: struct('v1.ResourceQuotaStatus', { hard: resourceList, used: resourceList }),
  },
  PodTemplate: { template },
  HorizontalPodAutoscaler: {
    spec: struct('v2.HorizontalPodAutoscalerSpec', {
      scaleTargetRef: struct('v2.CrossVersionObjectReference', { kind: str(), name: str(), apiVersion: str() }),
      minReplicas: int32,
      maxReplicas: int32,
    }),
    status: struct('v2.HorizontalPodAutoscalerStatus', { observedGeneration: int64, currentReplicas: int32, desiredReplicas: int32 }),
  },
  Ingress: {
    spec: struct('v1.IngressSpec', {
      ingressClassName: str(),
      tls: list(struct('v1.IngressTLS', { hosts: list(str()), secretName: str() })),
      rules: list(struct('v1.IngressRule', { host: str() })),
    }),
  },
  IngressClass: {
    spec: struct('v1.IngressClassSpec', {
      controller: str(),
      parameters: struct('v1.IngressClassParametersReference', { apiGroup: str(), kind: str(), name: str(), scope: str(), namespace: str() }),
    }),
  },
};

/** Go's name of a JSON value's type, as its decode errors print it. */
export function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return v === null ? 'null' : typeof v;
}

function goName(s: Shape): string {
  switch (s.t) {
    case 'string':
    case 'bool':
    case 'struct':
      return s.go;
    case 'int':
      return `int${s.bits}`;
    case 'intstr':
      return 'intstr.IntOrString';
    case 'quantity':
      return 'resource.Quantity';
    case 'list':
      return `[]${goName(s.of)}`;
    case 'map':
      return s.go ?? `map[string]${goName(s.of)}`;
  }
}

// The apiserver's pattern (QUANTITY_ERROR quotes it), written so that digits cannot be split two ways between
// the number and the suffix: the same strings, in linear time (the quoted form took seconds on 30,000 digits).
const QUANTITY = /^[+-]?[0-9.]+(?:[eEinumkKMGTP]+[-+]?[0-9]*|[-+][0-9]*)?$/;
const QUANTITY_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const INT_RANGE = { 32: 2 ** 31, 64: 2 ** 63 };

/**
 * Where the walk is: the field being read, in the Go struct `struct` (its Go name; the error prints the part after
 * the package), under the field `up` (undefined at the top). The field's JSON path is put together only for an error:
 * a walk that finds none makes no strings.
 */
interface At {
  struct: string;
  key: string;
  up: At | undefined;
}

function pathOf(at: At): string {
  return at.up ? `${pathOf(at.up)}.${at.key}` : at.key;
}

function unmarshal(value: string, at: At, type: string): string {
  return `json: cannot unmarshal ${value} into Go struct field ${at.struct.slice(at.struct.lastIndexOf('.') + 1)}.${pathOf(at)} of type ${type}`;
}

function isInteger(v: unknown, bits: 32 | 64): boolean {
  return typeof v === 'number' && Number.isInteger(v) && v >= -INT_RANGE[bits] && v < INT_RANGE[bits];
}

/**
 * Whether v decodes as s at its own level: a leaf wholly, a list or map or struct as the container it must be (its
 * members are the walk's). Null decodes as anything (a nil pointer, slice or map).
 */
export function decodesHere(v: unknown, s: Shape): boolean {
  if (v === null) return true;
  switch (s.t) {
    case 'string':
      return typeof v === 'string';
    case 'bool':
      return typeof v === 'boolean';
    case 'int':
      return isInteger(v, s.bits);
    case 'intstr':
      // IntOrString reads a JSON string as text and anything else as an int32.
      return typeof v === 'string' || isInteger(v, 32);
    case 'quantity':
      return (typeof v === 'string' || typeof v === 'number') && QUANTITY.test(String(v).trim());
    case 'list':
      return Array.isArray(v);
    case 'map':
    case 'struct':
      return isPlainObject(v);
  }
}

/** The decode error of v where decodesHere(v, s) is false. */
function refusal(v: unknown, s: Shape, at: At): string {
  if (s.t === 'quantity') return QUANTITY_ERROR;
  // A number of the wrong kind or size for an integer is printed with its value.
  if (s.t === 'int' || s.t === 'intstr') return unmarshal(typeof v === 'number' ? `number ${v}` : jsonKind(v), at, s.t === 'int' ? goName(s) : 'int32');
  return unmarshal(jsonKind(v), at, goName(s));
}

/** The first decode error of value as shape (document order, as Go reports the first), or undefined. */
function check(v: unknown, s: Shape, at: At): string | undefined {
  if (v === undefined) return undefined;
  if (!decodesHere(v, s)) return refusal(v, s, at);
  if (v === null) return undefined;
  switch (s.t) {
    case 'list':
      for (const item of v as unknown[]) {
        const e = check(item, s.of, at);
        if (e) return e;
      }
      return undefined;
    case 'map':
      for (const k in v as Record<string, unknown>) {
        const e = Object.hasOwn(v, k) ? check((v as Record<string, unknown>)[k], s.of, at) : undefined;
        if (e) return e;
      }
      return undefined;
    case 'struct':
      return fields(v as Record<string, unknown>, s.fields, s.go, at);
    default:
      return undefined;
  }
}

function fields(obj: Record<string, unknown>, shapes: Record<string, Shape>, struct: string, up: At | undefined): string | undefined {
  for (const k in obj) {
    if (!Object.hasOwn(obj, k)) continue;
    const s = own<Shape>(shapes, k);
    if (s === undefined) continue;
    const v = obj[k];
    // A leaf that decodes needs no place (an object): most fields are.
    if (typeof v !== 'object' && decodesHere(v, s)) continue;
    const e = check(v, s, { struct, key: k, up });
    if (e) return e;
  }
  return undefined;
}

/** Each kind's top-level fields, made once per kind (every object decoded walks them), as a struct. */
const topLevels = new Map<string, Shape & { t: 'struct' }>();

/** The shape of a whole object of this kind: its top-level fields (those of every kind, and the kind's own). */
export function kindShape(kind: string): Shape & { t: 'struct' } {
  let top = topLevels.get(kind);
  if (!top) {
    const fields = { apiVersion: str(), kind: str(), metadata: objectMeta, ...(own<Record<string, Shape>>(KINDS, kind) ?? {}) };
    topLevels.set(kind, (top = { t: 'struct', go: kind, fields }));
  }
  return top;
}

/** The shape of a container's member (a struct's field by name; any item of a list, any value of a map). */
export function memberShape(s: Shape, name: string): Shape | undefined {
  if (s.t === 'struct') return own<Shape>(s.fields, name);
  return s.t === 'list' || s.t === 'map' ? s.of : undefined;
}

/** The Go decode error of an object of this kind (a JSON object), or undefined when it decodes. */
export function decodeError(kind: string, obj: Record<string, unknown>): string | undefined {
  return fields(obj, kindShape(kind).fields, kind, undefined);
}

/** What Go's decoder leaves for a JSON null inside a list or map: the element type's zero value. */
function zero(s: Shape): unknown {
  switch (s.t) {
    case 'string':
      return '';
    case 'bool':
      return false;
    case 'int':
    case 'intstr':
      return 0;
    case 'quantity':
      return '0';
    case 'list':
      return [];
    case 'map':
    case 'struct':
      return {};
  }
}

/**
 * The nulls of a decoded object as Go holds them (run after decodeError found nothing): a null field is a
 * nil pointer, slice or map, omitted when the object is written out again; a null list element or map value
 * is the element type's zero value (`finalizers: [null]` is `[""]`, which validation then refuses as the
 * apiserver does; `labels: {a: null}` is the label `a` with an empty value).
 */
export function settleNulls(kind: string, obj: Record<string, unknown>): void {
  settleFields(obj, kindShape(kind).fields);
}

function settleFields(obj: Record<string, unknown>, shapes: Record<string, Shape>): void {
  for (const [k, v] of Object.entries(obj)) {
    const s = own<Shape>(shapes, k);
    if (!s) continue;
    if (v === null) delete obj[k];
    else settle(v, s);
  }
}

function settle(v: unknown, s: Shape): void {
  if (s.t === 'struct' && isPlainObject(v)) settleFields(v, s.fields);
  else if (s.t === 'list' && Array.isArray(v)) v.forEach((item, i) => (item === null ? (v[i] = zero(s.of)) : settle(item, s.of)));
  else if (s.t === 'map' && isPlainObject(v)) for (const [k, item] of Object.entries(v)) item === null ? setOwn(v, k, zero(s.of)) : settle(item, s.of);
}
