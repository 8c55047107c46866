// How each served kind behaves, declared per kind as data (in KWOK's spirit): what the apiserver fills in on a
// write, what it admits, whether its objects are stored or derived from other records, the views it serves
// (the object as read, objects computed instead of stored, the scale subresource), who owns its status, how
// DELETE goes and how `kubectl get` prints it. The API (api.ts), persistence and printing ask this table and
// compare no kind names: a kind is its ResourceType (resources.ts) and an entry here (docs/architecture.md §7).
import { GROUP_KINDS } from './group-kinds.js';
import type { KindBehaviour, SubresourceView } from './kind-behaviour.js';
import { EVENT_FIELDS, JOB_FIELDS, NAMESPACE_FIELDS, NODE_FIELDS, POD_FIELDS, SECRET_FIELDS, SERVICE_FIELDS } from './field-labels.js';
import { withHeartbeats } from './heartbeats.js';
import { admitNode, nodeDefaults } from './node-writes.js';
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
  SECRETS,
  SERVICES,
  type ResourceType,
  resourceKey,
} from '../apimachinery/resources.js';
import { workloadDefaults } from './admission/defaults.js';
import { ephemeralContainersWrite } from './validation/ephemeral-containers.js';
import { namespaceDefaults, terminating } from './admission/namespace-lifecycle.js';
import { deletePodGracefully } from './pod-deletion.js';
import { scaleOf, withScale } from './scale.js';
import { admitService } from './admission/service-ips.js';
import { validateWorkload } from './validation/workloads.js';

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
  [EVENTS, { printer: eventPrinter, fieldLabels: EVENT_FIELDS }],
  [SECRETS, { fieldLabels: SECRET_FIELDS }],
  [
    NAMESPACES,
    {
      defaults: namespaceDefaults,
      deferDeletion: (ns, host) => host.write(terminating(ns)),
      printer: namespacePrinter,
      fieldLabels: NAMESPACE_FIELDS,
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
      fieldLabels: NODE_FIELDS,
    },
  ],
  [
    PODS,
    {
      ...workload(PODS, undefined),
      // Graceful: marked, gone a moment later (kubectl waits for the DELETED event); a marked pod goes at once.
      deferDeletion: (pod, host) => (pod.metadata.deletionTimestamp ? undefined : deletePodGracefully(host.objects, pod)),
      printer: podPrinter,
      // kubectl debug: only spec.ephemeralContainers is written, and it only grows.
      subresourceWrites: { ephemeralcontainers: ephemeralContainersWrite },
      fieldLabels: POD_FIELDS,
    },
  ],
  [
    SERVICES,
    {
      controllerStatus: { initial: { loadBalancer: {} } },
      admit: (svc, existing, host) => admitService(host.objects, host.serviceNetwork(), svc, existing),
      printer: servicePrinter,
      fieldLabels: SERVICE_FIELDS,
    },
  ],
  [
    DAEMONSETS,
    { ...workload(DAEMONSETS, { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 }), printer: daemonSetPrinter },
  ],
  [DEPLOYMENTS, { ...workload(DEPLOYMENTS, {}), scale: SCALE, printer: deploymentPrinter }],
  [REPLICASETS, { ...workload(REPLICASETS, { replicas: 0 }), scale: SCALE, printer: replicaSetPrinter }],
  ...GROUP_KINDS,
  [JOBS, { ...workload(JOBS, {}), printer: jobPrinter, fieldLabels: JOB_FIELDS }],
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
