// The Kubernetes object types aksemu reads: for each kind, the fields its API, controllers and printers use,
// typed as the shape checks let them through (apiserver/validation/shape.ts). Every other field is kept as sent and
// reads as `unknown`. Optional throughout: clients may leave out what defaulting has not filled in yet.
import type { KubeObject } from './object.js';

export interface LabelSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

/** A status condition, as Pods, Nodes and Deployments report them. */
export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  lastUpdateTime?: string;
  lastHeartbeatTime?: string;
  lastProbeTime?: string | null;
}

// ---- Pods --------------------------------------------------------------------------------------------

export interface Taint {
  key: string;
  value?: string;
  effect: string;
}

export interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

/** A node selector requirement (matchExpressions on labels, matchFields on metadata.name). */
export interface NodeSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

export interface NodeSelectorTerm {
  matchExpressions?: NodeSelectorRequirement[];
  matchFields?: NodeSelectorRequirement[];
}

export interface PodAffinityTerm {
  labelSelector?: LabelSelector | null;
  namespaces?: string[];
  namespaceSelector?: LabelSelector | null;
  topologyKey: string;
}

export interface Affinity {
  nodeAffinity?: {
    requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms: NodeSelectorTerm[] };
    preferredDuringSchedulingIgnoredDuringExecution?: Array<{ weight: number; preference: NodeSelectorTerm }>;
  };
  podAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: PodAffinityTerm[] };
  podAntiAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: PodAffinityTerm[] };
}

export interface ContainerPort {
  name?: string;
  containerPort?: number;
  protocol?: string;
}

/** Quantities by resource name (`cpu`, `memory`): text (`100m`, `1Gi`) or numbers. */
export type ResourceList = Record<string, unknown>;

export interface ResourceRequirements {
  requests?: ResourceList;
  limits?: ResourceList;
}

export interface Container {
  name: string;
  image?: string;
  imagePullPolicy?: string;
  ports?: ContainerPort[];
  resources?: ResourceRequirements;
  terminationMessagePath?: string;
  terminationMessagePolicy?: string;
  [field: string]: unknown;
}

export interface PodSpec {
  containers?: Container[];
  initContainers?: Container[];
  /** kubectl debug's containers (the pods/ephemeralcontainers subresource; may hold anything a client wrote). */
  ephemeralContainers?: Container[];
  nodeName?: string;
  nodeSelector?: Record<string, string>;
  affinity?: Affinity;
  tolerations?: Toleration[];
  hostNetwork?: boolean;
  schedulerName?: string;
  priority?: number;
  preemptionPolicy?: string;
  readinessGates?: Array<{ conditionType: string }>;
  restartPolicy?: string;
  terminationGracePeriodSeconds?: number;
  dnsPolicy?: string;
  securityContext?: Record<string, unknown>;
  serviceAccountName?: string;
  serviceAccount?: string;
  enableServiceLinks?: boolean;
  overhead?: ResourceList;
  [field: string]: unknown;
}

export interface ContainerState {
  waiting?: { reason?: string; message?: string };
  running?: { startedAt?: string };
  terminated?: { exitCode?: number; signal?: number; reason?: string; message?: string; startedAt?: string; finishedAt?: string; containerID?: string };
}

export interface ContainerStatus {
  name: string;
  ready?: boolean;
  started?: boolean;
  restartCount?: number;
  state?: ContainerState;
  lastState?: ContainerState;
  image?: string;
  imageID?: string;
  containerID?: string;
}

export interface PodStatus {
  phase?: string;
  reason?: string;
  conditions?: Condition[];
  containerStatuses?: ContainerStatus[];
  initContainerStatuses?: ContainerStatus[];
  ephemeralContainerStatuses?: ContainerStatus[];
  hostIP?: string;
  podIP?: string;
  podIPs?: Array<{ ip: string }>;
  startTime?: string;
  qosClass?: string;
  nominatedNodeName?: string;
  [field: string]: unknown;
}

export interface Pod extends KubeObject {
  spec?: PodSpec;
  status?: PodStatus;
}

/** A pod the scheduler has bound to a node. */
export interface BoundPod extends Pod {
  spec: PodSpec & { nodeName: string };
}

/** A pod its kubelet runs: the status says where, at which address and since when. */
export interface RunningPod extends BoundPod {
  status: PodStatus & { hostIP: string; podIP: string; startTime: string };
}

/** A controller's pod template: its metadata (creationTimestamp is null, as the apiserver writes it) and spec. */
export interface PodTemplateSpec {
  metadata?: { labels?: Record<string, string>; creationTimestamp?: string | null; [field: string]: unknown };
  spec?: PodSpec;
}

// ---- Workloads ---------------------------------------------------------------------------------------

/** maxSurge / maxUnavailable: a count or a percentage (`25%`). */
export type IntOrString = number | string;

export interface DeploymentSpec {
  replicas?: number;
  selector?: LabelSelector;
  template?: PodTemplateSpec;
  strategy?: { type?: string; rollingUpdate?: { maxSurge?: IntOrString; maxUnavailable?: IntOrString } };
  minReadySeconds?: number;
  revisionHistoryLimit?: number;
  progressDeadlineSeconds?: number;
  paused?: boolean;
}

export interface DeploymentStatus {
  replicas?: number;
  updatedReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  collisionCount?: number;
  conditions?: Condition[];
  [field: string]: unknown;
}

export interface Deployment extends KubeObject {
  spec?: DeploymentSpec;
  status?: DeploymentStatus;
}

export interface ReplicaSetSpec {
  replicas?: number;
  selector?: LabelSelector;
  template?: PodTemplateSpec;
  minReadySeconds?: number;
}

export interface ReplicaSetStatus {
  replicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  [field: string]: unknown;
}

export interface ReplicaSet extends KubeObject {
  spec?: ReplicaSetSpec;
  status?: ReplicaSetStatus;
}

export interface DaemonSetSpec {
  selector?: LabelSelector;
  template?: PodTemplateSpec;
  updateStrategy?: { type?: string; rollingUpdate?: { maxSurge?: IntOrString; maxUnavailable?: IntOrString } };
  revisionHistoryLimit?: number;
}

export interface DaemonSetStatus {
  desiredNumberScheduled?: number;
  currentNumberScheduled?: number;
  numberReady?: number;
  updatedNumberScheduled?: number;
  numberAvailable?: number;
  [field: string]: unknown;
}

export interface DaemonSet extends KubeObject {
  spec?: DaemonSetSpec;
  status?: DaemonSetStatus;
}

export interface JobSpec {
  parallelism?: number | null;
  completions?: number | null;
  backoffLimit?: number | null;
  backoffLimitPerIndex?: number | null;
  activeDeadlineSeconds?: number | null;
  ttlSecondsAfterFinished?: number | null;
  completionMode?: string;
  suspend?: boolean;
  podReplacementPolicy?: string;
  podFailurePolicy?: unknown;
  manualSelector?: boolean;
  selector?: LabelSelector;
  template?: PodTemplateSpec;
  [field: string]: unknown;
}

export interface JobStatus {
  startTime?: string;
  completionTime?: string;
  active?: number;
  succeeded?: number;
  failed?: number;
  ready?: number;
  terminating?: number;
  completedIndexes?: string;
  conditions?: Condition[];
  uncountedTerminatedPods?: Record<string, unknown>;
  [field: string]: unknown;
}

export interface Job extends KubeObject {
  spec?: JobSpec;
  status?: JobStatus;
}

export interface CronJob extends KubeObject {
  spec?: {
    schedule?: string;
    timeZone?: string;
    concurrencyPolicy?: string;
    suspend?: boolean;
    successfulJobsHistoryLimit?: number;
    failedJobsHistoryLimit?: number;
    jobTemplate?: { metadata?: PodTemplateSpec['metadata']; spec?: JobSpec };
    [field: string]: unknown;
  };
  status?: { active?: unknown[]; lastScheduleTime?: string; lastSuccessfulTime?: string; [field: string]: unknown };
}

/** What Deployments, ReplicaSets and DaemonSets share: a selector and the template of the pods they make. */
export interface PodController extends KubeObject {
  spec?: { replicas?: number; selector?: LabelSelector; template?: PodTemplateSpec };
}

/** What the scale subresource reads of its parent (Deployments and ReplicaSets). */
export interface Scalable extends KubeObject {
  spec?: { replicas?: number; selector?: LabelSelector; [field: string]: unknown };
  status?: { replicas?: number; [field: string]: unknown };
}

// ---- Services and their endpoints --------------------------------------------------------------------

export interface ServicePort {
  name?: string;
  port?: number;
  targetPort?: number | string;
  nodePort?: number;
  protocol?: string;
}

export interface ServiceSpec {
  type?: string;
  selector?: Record<string, string>;
  ports?: ServicePort[];
  clusterIP?: string;
  clusterIPs?: string[];
  externalIPs?: string[];
  sessionAffinity?: string;
  internalTrafficPolicy?: string;
  externalTrafficPolicy?: string;
  ipFamilies?: string[];
  ipFamilyPolicy?: string;
  /** externalTrafficPolicy Local on a LoadBalancer: the node port the load balancer's health probe asks. */
  healthCheckNodePort?: number;
  /** Deprecated in Kubernetes, still read by cloud-provider-azure (the azure-load-balancer-ipv4 annotation is its successor). */
  loadBalancerIP?: string;
  /** A Service with a class is left to that class's controller, not the cloud's. */
  loadBalancerClass?: string;
}

export interface Service extends KubeObject {
  spec?: ServiceSpec;
  status?: { loadBalancer?: { ingress?: Array<{ ip?: string; hostname?: string }> } };
}

export interface EndpointAddress {
  ip: string;
  nodeName?: string;
  targetRef?: { kind: string; name: string; namespace?: string; uid?: string };
}

export interface EndpointPort {
  name?: string;
  port: number;
  protocol?: string;
}

export interface EndpointSubset {
  addresses?: EndpointAddress[];
  notReadyAddresses?: EndpointAddress[];
  ports?: EndpointPort[];
}

export interface Endpoints extends KubeObject {
  subsets?: EndpointSubset[];
}

// ---- Nodes, namespaces, config, events ---------------------------------------------------------------

export interface NodeStatus {
  conditions?: Condition[];
  addresses?: Array<{ type: string; address: string }>;
  nodeInfo?: { kubeletVersion?: string; osImage?: string; kernelVersion?: string; containerRuntimeVersion?: string };
  allocatable?: ResourceList;
  capacity?: ResourceList;
}

export interface Node extends KubeObject {
  spec?: { taints?: Taint[]; unschedulable?: boolean; [field: string]: unknown };
  status?: NodeStatus;
}

export interface Namespace extends KubeObject {
  spec?: { finalizers?: string[] };
  status?: { phase?: string };
}

export interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
  binaryData?: Record<string, string>;
}

export interface Event extends KubeObject {
  type?: string;
  reason?: string;
  message?: string;
  involvedObject?: { kind?: string; name?: string; namespace?: string; fieldPath?: string };
  source?: { component?: string; host?: string };
  reportingComponent?: string;
  reportingInstance?: string;
  count?: number;
  firstTimestamp?: string | null;
  lastTimestamp?: string | null;
  eventTime?: string | null;
  series?: { count?: number; lastObservedTime?: string };
}

/** The label tying an EndpointSlice to its Service (k8s.io/api discovery/v1 well_known_labels.go, LabelServiceName). */
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
