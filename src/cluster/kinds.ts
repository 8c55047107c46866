// How each served kind behaves, declared per kind as data (in KWOK's spirit): what the apiserver fills in on a
// write, what it admits, whether its objects are stored or derived from other records, the views it serves
// (the object as read, objects computed instead of stored, the scale subresource), who owns its status, how
// DELETE goes and how `kubectl get` prints it. The API (api.ts), persistence and printing ask this table and
// compare no kind names: a kind is its ResourceType (resources.ts) and an entry here (docs/architecture.md §7).
import { GROUP_KINDS } from './group-kinds.js';
import { withHeartbeats } from './objects/heartbeats.js';
import { admitNode, nodeDefaults } from './objects/node-writes.js';
import type { KubeObject } from './objects/object.js';
import { resourceKey, type ObjectStore } from './objects/store.js';
import {
  configMapPrinter,
  cronJobPrinter,
  daemonSetPrinter,
  deploymentPrinter,
  endpointsPrinter,
  eventPrinter,
  jobPrinter,
  namespacePrinter,
  nodePrinter,
  podPrinter,
  replicaSetPrinter,
  servicePrinter,
  type Printer,
} from './printers.js';
import {
  CONFIGMAPS,
  CRONJOBS,
  DAEMONSETS,
  DEPLOYMENTS,
  ENDPOINTS,
  EVENTS,
  JOBS,
  NAMESPACES,
  NODES,
  PODS,
  REPLICASETS,
  RESOURCES,
  SERVICES,
  type ResourceType,
} from './resources.js';
import { workloadDefaults } from './workloads/defaults.js';
import { namespaceDefaults, refuseImmortalDeletion, terminating } from './workloads/namespaces.js';
import { deletePodGracefully } from './workloads/pod-deletion.js';
import { admitPriority } from './workloads/priority.js';
import { scaleOf, withScale } from './workloads/scale.js';
import { admitService, type ServiceNetwork } from './workloads/service-ips.js';
import { validateWorkload } from './workloads/validation.js';

/** What a kind's hooks may use of the cluster whose API runs them. */
export interface KindHost {
  readonly objects: ObjectStore;
  /** The cluster's service network, for Service addresses. */
  serviceNetwork(): ServiceNetwork;
  /** The cluster's Kubernetes version (the apiserver's words change with it). */
  kubernetesVersion(): string;
  /** Writes an object of the kind as the API writes it (size limit, then the view as read). */
  write(obj: KubeObject): KubeObject;
}

/** A subresource served as a view of its parent object (autoscaling/v1 Scale). */
export interface SubresourceView {
  read(parent: KubeObject): KubeObject;
  /** The parent with what a written subresource asks for (already checked as the subresource's kind). */
  write(parent: KubeObject, body: Record<string, unknown>): KubeObject;
}

export interface KindBehaviour {
  /** Stored and written through to the Store (the default), or derived from other records on every start. */
  storage?: 'persisted' | 'derived';
  /**
   * How a written body decodes (throws the apiserver's 400); the kind's Go types (validation/shape.ts) without
   * it. `strict`: the request's fieldValidation is Strict (unknown fields refused).
   */
  decode?(body: Record<string, unknown>, strict: boolean): void;
  /**
   * Status belongs to the controllers and kubelets (served as the status subresource): writes of the object
   * keep the stored status, and a new object starts with `initial` whatever the client sent (the strategies'
   * PrepareForCreate / PrepareForUpdate). Without it, a write's status is the body's.
   */
  controllerStatus?: { initial?: unknown };
  /** The defaulting the apiserver applies to a written object (in place), after the status above. */
  defaults?(obj: KubeObject, existing: KubeObject | undefined): void;
  /** Validation and admission after defaulting: throws the apiserver's KubeError; may fill what admission fills. */
  admit?(obj: KubeObject, existing: KubeObject | undefined, host: KindHost): void;
  /** The object as read (lists, gets, watches), computed from the stored one. */
  view?(obj: KubeObject, now: number): KubeObject;
  /** Objects the API computes instead of storing, in one namespace or all. */
  computed?(objects: ObjectStore, namespace: string | undefined): KubeObject[];
  /** The scale subresource. */
  scale?: SubresourceView;
  /** Admission of a DELETE (the object as stored): throws the apiserver's KubeError, dry run included. */
  admitDeletion?(existing: KubeObject): void;
  /** DELETE that does not remove at once: marks the object, writes it and returns it; undefined removes it now. */
  deferDeletion?(existing: KubeObject, host: KindHost): KubeObject | undefined;
  /** The field selectors the kind answers (a CRD's metadata.name, metadata.namespace, selectableFields); any without it. */
  fieldLabels?: readonly string[];
  /** The columns and cells of `kubectl get` (printers.ts); the default Name / Created At without one. */
  printer?: Printer;
  /** What a write through a subresource other than status and scale keeps of the body (a CSR's approval). */
  subresourceWrites?: Record<string, (existing: KubeObject, written: KubeObject) => KubeObject>;
  /** Writes through the status subresource keep the body's metadata too (pkg/registry/core/node/strategy.go). */
  statusWritesMetadata?: boolean;
  /** Warnings answered on every create and update of the kind (the `Warning: 299 - "..."` header). */
  warnings?: readonly string[];
}

/** The workload kinds: controllers own their status; the kind's defaults and validation apply. */
function workload(r: ResourceType, initialStatus: unknown): KindBehaviour {
  return {
    controllerStatus: { initial: initialStatus },
    defaults: (obj, existing) => workloadDefaults(r.kind, obj, !existing),
    admit: (obj) => validateWorkload(r.kind, r.group, obj),
  };
}

const SCALE: SubresourceView = { read: scaleOf, write: withScale };

const KINDS = new Map<ResourceType, KindBehaviour>([
  [CONFIGMAPS, { printer: configMapPrinter }],
  [ENDPOINTS, { printer: endpointsPrinter }],
  [EVENTS, { printer: eventPrinter }],
  [
    NAMESPACES,
    {
      defaults: namespaceDefaults,
      admitDeletion: refuseImmortalDeletion,
      deferDeletion: (ns, host) => host.write(terminating(ns)),
      printer: namespacePrinter,
    },
  ],
  // Nodes come from the provider's node records, persisted on their own: copies could only disagree after a restart.
  // Their status subresource writes metadata too: the node status strategy resets only the spec (flannel annotates
  // nodes through nodes/status). A written spec follows ValidateNode(Update) (node-writes.ts).
  [
    NODES,
    {
      storage: 'derived',
      statusWritesMetadata: true,
      defaults: nodeDefaults,
      admit: admitNode,
      view: withHeartbeats,
      printer: nodePrinter,
    },
  ],
  [
    PODS,
    {
      ...workload(PODS, undefined),
      // The Priority admission plugin resolves a new pod's class before validation.
      admit: (pod, existing, host) => {
        if (!existing) admitPriority(host.objects, pod);
        validateWorkload(PODS.kind, PODS.group, pod);
      },
      // Graceful: marked, gone a moment later (kubectl waits for the DELETED event); a marked pod goes at once.
      deferDeletion: (pod, host) => (pod.metadata.deletionTimestamp ? undefined : deletePodGracefully(host.objects, pod)),
      printer: podPrinter,
    },
  ],
  [
    SERVICES,
    {
      controllerStatus: { initial: { loadBalancer: {} } },
      admit: (svc, existing, host) => admitService(host.objects, host.serviceNetwork(), svc, existing),
      printer: servicePrinter,
    },
  ],
  [
    DAEMONSETS,
    { ...workload(DAEMONSETS, { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 }), printer: daemonSetPrinter },
  ],
  [DEPLOYMENTS, { ...workload(DEPLOYMENTS, {}), scale: SCALE, printer: deploymentPrinter }],
  [REPLICASETS, { ...workload(REPLICASETS, { replicas: 0 }), scale: SCALE, printer: replicaSetPrinter }],
  ...GROUP_KINDS,
  [JOBS, { ...workload(JOBS, {}), printer: jobPrinter }],
  [CRONJOBS, { ...workload(CRONJOBS, {}), printer: cronJobPrinter }],
]);

const PLAIN: KindBehaviour = {};

const BY_KEY = new Map(RESOURCES.map((r) => [resourceKey(r), r]));
const BY_KIND = new Map(RESOURCES.map((r) => [r.kind, r]));

export function behaviourOf(r: ResourceType): KindBehaviour {
  return KINDS.get(r) ?? PLAIN;
}

/** The behaviour of the kind stored under `group/resource` (ObjectStore's bucket key). */
export function behaviourOfKey(key: string): KindBehaviour | undefined {
  const r = BY_KEY.get(key);
  return r && behaviourOf(r);
}

/** The behaviour of the served kind of that name (objects carry their kind). */
export function kindNamed(kind: string): KindBehaviour | undefined {
  const r = BY_KIND.get(kind);
  return r && behaviourOf(r);
}
