// The apiserver's printers for the kinds we serve (docs/clients.md §5.4): the columns `kubectl get` shows and
// each row's cells, STATUS, ROLES, AGE… computed as the real printers compute them. Each kind names its printer
// in the kind table (kinds.ts); a kind without one gets the default Name / Created At columns.
import { age, humanDuration } from '../apimachinery/time.js';
import type { KubeObject } from '../apimachinery/object.js';
import { readyCondition } from '../apimachinery/node-status.js';
import type {
  ConfigMap,
  ContainerStatus,
  CronJob,
  DaemonSet,
  Deployment,
  Endpoints,
  Event,
  Job,
  LabelSelector,
  Namespace,
  Node,
  Pod,
  PodTemplateSpec,
  ReplicaSet,
  Service,
} from '../apimachinery/types.js';

export interface Column {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface Printer {
  columns: Column[];
  cells(obj: KubeObject, now: number): unknown[];
  /** Row conditions (a finished Pod's `Completed`, which kubectl uses to hide it). */
  conditions?(obj: KubeObject): Array<Record<string, string>> | undefined;
}

export function col(name: string, description: string, opts: { type?: string; format?: string; priority?: number } = {}): Column {
  return { name, type: opts.type ?? 'string', format: opts.format ?? '', description, priority: opts.priority ?? 0 };
}

export const NAME = col(
  'Name',
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names',
  { format: 'name' },
);
export const AGE = col(
  'Age',
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata',
);

function nodeRoles(labels: Record<string, string> = {}): string {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(labels)) {
    if (k.startsWith('node-role.kubernetes.io/')) {
      const role = k.slice('node-role.kubernetes.io/'.length);
      if (role !== '') roles.add(role);
    } else if (k === 'kubernetes.io/role' && v !== '') roles.add(v);
  }
  return roles.size === 0 ? '<none>' : [...roles].sort().join(',');
}

function nodeStatus(node: Node): string {
  const ready = readyCondition(node);
  let status = ready === undefined ? 'Unknown' : ready.status === 'True' ? 'Ready' : 'NotReady';
  if (node.spec?.unschedulable) status += ',SchedulingDisabled';
  return status;
}

function address(node: Node, type: string): string {
  return (node.status?.addresses ?? []).find((a) => a.type === type)?.address ?? '<none>';
}

const orUnknown = (v: string | undefined) => (v ? v : '<unknown>');

export const nodePrinter: Printer = {
  columns: [
    NAME,
    col('Status', 'The status of the node'),
    col('Roles', 'The roles of the node'),
    AGE,
    col('Version', 'Kubelet Version reported by the node.'),
    col('Internal-IP', 'List of addresses reachable to the node. Queried from cloud provider, if available.', { priority: 1 }),
    col('External-IP', 'List of addresses reachable to the node. Queried from cloud provider, if available.', { priority: 1 }),
    col('OS-Image', 'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).', { priority: 1 }),
    col('Kernel-Version', "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).", { priority: 1 }),
    col('Container-Runtime', 'ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).', { priority: 1 }),
  ],
  cells(node: Node, now) {
    const info = node.status?.nodeInfo ?? {};
    return [
      node.metadata.name,
      nodeStatus(node),
      nodeRoles(node.metadata.labels),
      age(node.metadata.creationTimestamp, now),
      info.kubeletVersion ?? '',
      address(node, 'InternalIP'),
      address(node, 'ExternalIP'),
      orUnknown(info.osImage),
      orUnknown(info.kernelVersion),
      orUnknown(info.containerRuntimeVersion),
    ];
  },
};

/** printPod's init container pass: `Init:1/2`, `Init:CrashLoopBackOff`…; undefined once they are done. */
function initReason(pod: Pod): { reason?: string; restarts: number } {
  const inits: ContainerStatus[] = pod.status?.initContainerStatuses ?? [];
  let restarts = 0;
  for (const [i, c] of inits.entries()) {
    restarts += c.restartCount ?? 0;
    const t = c.state?.terminated;
    if (t && t.exitCode === 0) continue;
    if (t) return { reason: t.reason ? `Init:${t.reason}` : t.signal ? `Init:Signal:${t.signal}` : `Init:ExitCode:${t.exitCode}`, restarts };
    const w = c.state?.waiting?.reason;
    if (w && w !== 'PodInitializing') return { reason: `Init:${w}`, restarts };
    return { reason: `Init:${i}/${(pod.spec?.initContainers ?? []).length}`, restarts };
  }
  return { restarts };
}

function podCells(pod: Pod, now: number): unknown[] {
  const containers = pod.spec?.containers ?? [];
  const statuses = pod.status?.containerStatuses ?? [];
  let ready = 0;
  let reason: string = pod.status?.reason || pod.status?.phase || '';
  const init = initReason(pod);
  let restarts = init.restarts;
  const initialized = (pod.status?.conditions ?? []).some((c) => c.type === 'Initialized' && c.status === 'True');
  if (init.reason) reason = init.reason;
  for (let i = statuses.length - 1; i >= 0; i--) {
    const s = statuses[i]!;
    restarts += s.restartCount ?? 0;
    if (init.reason && !initialized) continue;
    if (s.state?.waiting?.reason) reason = s.state.waiting.reason;
    else if (s.state?.terminated?.reason) reason = s.state.terminated.reason;
    else if (s.state?.terminated) reason = s.state.terminated.signal ? `Signal:${s.state.terminated.signal}` : `ExitCode:${s.state.terminated.exitCode}`;
    else if (s.ready && s.state?.running) ready++;
  }
  if (pod.metadata.deletionTimestamp && reason !== 'Succeeded' && reason !== 'Failed') reason = 'Terminating';
  const gates = pod.spec?.readinessGates ?? [];
  const conditions = pod.status?.conditions ?? [];
  const gatesCell =
    gates.length === 0 ? '<none>' : `${gates.filter((g) => conditions.some((c) => c.type === g.conditionType && c.status === 'True')).length}/${gates.length}`;
  return [
    pod.metadata.name,
    `${ready}/${containers.length}`,
    reason,
    String(restarts),
    age(pod.metadata.creationTimestamp, now),
    pod.status?.podIPs?.[0]?.ip ?? '<none>',
    pod.spec?.nodeName || '<none>',
    pod.status?.nominatedNodeName || '<none>',
    gatesCell,
  ];
}

export const podPrinter: Printer = {
  columns: [
    NAME,
    col('Ready', 'The aggregate readiness state of this pod for accepting traffic.'),
    col('Status', 'The aggregate status of the containers in this pod.'),
    col('Restarts', 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.'),
    AGE,
    col('IP', 'IP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.', { priority: 1 }),
    col('Node', 'Name of the Node this pod is running on. Empty if not yet scheduled.', { priority: 1 }),
    col('Nominated Node', 'Name of the node where the pod will be scheduled on, if any.', { priority: 1 }),
    col('Readiness Gates', 'If specified, all readiness gates will be evaluated for pod readiness.', { priority: 1 }),
  ],
  cells: podCells,
  conditions(pod: Pod) {
    const phase = pod.status?.phase;
    if (phase !== 'Succeeded' && phase !== 'Failed') return undefined;
    return [{ type: 'Completed', status: 'True', reason: phase, message: phase === 'Succeeded' ? 'The pod has completed successfully.' : 'The pod failed.' }];
  },
};

export const namespacePrinter: Printer = {
  columns: [NAME, col('Status', 'The status of the namespace'), AGE],
  cells: (ns: Namespace, now) => [ns.metadata.name, ns.status?.phase ?? 'Active', age(ns.metadata.creationTimestamp, now)],
};

function servicePorts(svc: Service): string {
  const ports = svc.spec?.ports ?? [];
  if (ports.length === 0) return '<none>';
  return ports.map((p) => `${p.port}${p.nodePort ? `:${p.nodePort}` : ''}/${p.protocol ?? 'TCP'}`).join(',');
}

export function selectorText(sel: Record<string, string> | undefined): string {
  if (!sel || Object.keys(sel).length === 0) return '<none>';
  return Object.keys(sel)
    .sort()
    .map((k) => `${k}=${sel[k]}`)
    .join(',');
}

export const servicePrinter: Printer = {
  columns: [
    NAME,
    col('Type', 'The type of service.'),
    col('Cluster-IP', 'The cluster ip of the service.'),
    col('External-IP', 'The external ip of the service.'),
    col('Port(s)', 'The ports of the service.'),
    AGE,
    col('Selector', 'The selector of the service.', { priority: 1 }),
  ],
  cells: (svc: Service, now) => {
    const type = svc.spec?.type ?? 'ClusterIP';
    const ingress = svc.status?.loadBalancer?.ingress ?? [];
    const external = type === 'LoadBalancer' ? ingress.map((i) => i.ip ?? i.hostname).join(',') || '<pending>' : svc.spec?.externalIPs?.join(',') || '<none>';
    return [
      svc.metadata.name,
      type,
      svc.spec?.clusterIP || '<none>',
      external,
      servicePorts(svc),
      age(svc.metadata.creationTimestamp, now),
      selectorText(svc.spec?.selector),
    ];
  },
};

export const configMapPrinter: Printer = {
  columns: [NAME, col('Data', 'Data contains the configuration data.', { type: 'integer' }), AGE],
  cells: (cm: ConfigMap, now) => [
    cm.metadata.name,
    Object.keys(cm.data ?? {}).length + Object.keys(cm.binaryData ?? {}).length,
    age(cm.metadata.creationTimestamp, now),
  ],
};

/** The wide columns of the pod controllers: their template's containers and images, their selector. */
function templateColumns(selector: string): Column[] {
  return [
    col('Containers', 'Names of each container in the template.', { priority: 1 }),
    col('Images', 'Images referenced by each container in the template.', { priority: 1 }),
    col('Selector', selector, { priority: 1 }),
  ];
}

const REPLICAS_SELECTOR = 'Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.';

function templateCells(spec: { template?: PodTemplateSpec; selector?: LabelSelector } | undefined): string[] {
  const containers = spec?.template?.spec?.containers ?? [];
  return [containers.map((c) => c.name).join(','), containers.map((c) => c.image).join(','), labelSelectorText(spec?.selector)];
}

function labelSelectorText(sel: LabelSelector | undefined): string {
  if (!sel) return '<none>';
  const parts = Object.keys(sel.matchLabels ?? {})
    .sort()
    .map((k) => `${k}=${sel.matchLabels![k]}`);
  for (const e of sel.matchExpressions ?? []) parts.push(`${e.key} ${String(e.operator).toLowerCase()} (${(e.values ?? []).join(',')})`);
  return parts.length === 0 ? '<none>' : parts.join(',');
}

export const daemonSetPrinter: Printer = {
  columns: [
    NAME,
    col('Desired', 'The desired number of nodes that should be running the daemon pod.', { type: 'integer' }),
    col('Current', 'The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod.', { type: 'integer' }),
    col('Ready', 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.', { type: 'integer' }),
    col('Up-to-date', 'The total number of nodes that are running updated daemon pod', { type: 'integer' }),
    col(
      'Available',
      'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)',
      { type: 'integer' },
    ),
    col(
      'Node Selector',
      "NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must match a node's labels for the pod to be scheduled on that node.",
    ),
    AGE,
    ...templateColumns('A label query over pods that are managed by the daemon set.'),
  ],
  cells: (ds: DaemonSet, now) => {
    const s = ds.status ?? {};
    return [
      ds.metadata.name,
      s.desiredNumberScheduled ?? 0,
      s.currentNumberScheduled ?? 0,
      s.numberReady ?? 0,
      s.updatedNumberScheduled ?? 0,
      s.numberAvailable ?? 0,
      selectorText(ds.spec?.template?.spec?.nodeSelector),
      age(ds.metadata.creationTimestamp, now),
      ...templateCells(ds.spec),
    ];
  },
};

export const deploymentPrinter: Printer = {
  columns: [
    NAME,
    col('Ready', 'Number of the pod with ready state'),
    col('Up-to-date', 'Total number of non-terminated pods targeted by this deployment that have the desired template spec.', { type: 'integer' }),
    col('Available', 'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.', { type: 'integer' }),
    AGE,
    ...templateColumns(REPLICAS_SELECTOR),
  ],
  cells: (d: Deployment, now) => [
    d.metadata.name,
    `${d.status?.readyReplicas ?? 0}/${d.spec?.replicas ?? 1}`,
    d.status?.updatedReplicas ?? 0,
    d.status?.availableReplicas ?? 0,
    age(d.metadata.creationTimestamp, now),
    ...templateCells(d.spec),
  ],
};

export const replicaSetPrinter: Printer = {
  columns: [
    NAME,
    col('Desired', 'Number of desired pods in a ReplicaSet.', { type: 'integer' }),
    col('Current', 'Number of actual replicas (pods) in a ReplicaSet.', { type: 'integer' }),
    col('Ready', 'Number of ready replicas in a ReplicaSet.', { type: 'integer' }),
    AGE,
    ...templateColumns(REPLICAS_SELECTOR),
  ],
  cells: (rs: ReplicaSet, now) => [
    rs.metadata.name,
    rs.spec?.replicas ?? 1,
    rs.status?.replicas ?? 0,
    rs.status?.readyReplicas ?? 0,
    age(rs.metadata.creationTimestamp, now),
    ...templateCells(rs.spec),
  ],
};

/** printEndpoints: up to three ip:port pairs, then "+ N more...". */
function endpointsCell(ep: Endpoints): string {
  const pairs: string[] = [];
  let total = 0;
  for (const s of ep.subsets ?? []) {
    const ports = s.ports?.length ? s.ports : [undefined];
    for (const a of s.addresses ?? []) {
      for (const p of ports) {
        total++;
        if (pairs.length < 3) pairs.push(p ? `${a.ip}:${p.port}` : a.ip);
      }
    }
  }
  if (total === 0) return '<none>';
  return total > 3 ? `${pairs.join(',')} + ${total - 3} more...` : pairs.join(',');
}

export const endpointsPrinter: Printer = {
  columns: [NAME, col('Endpoints', 'Endpoints of the service'), AGE],
  cells: (ep: Endpoints, now) => [ep.metadata.name, endpointsCell(ep), age(ep.metadata.creationTimestamp, now)],
};

export const eventPrinter: Printer = {
  columns: [
    col('Last Seen', 'Time when last event from this object was seen.'),
    col('Type', 'Type of this event (Normal, Warning), new types could be added in the future.'),
    col('Reason', 'The reason this event was generated.'),
    col('Object', 'The object that this event is about.'),
    col('Subobject', 'The subobject that this event is about.', { priority: 1 }),
    col('Source', 'The component reporting this event.', { priority: 1 }),
    col('Message', 'A human-readable description of the status of this operation.'),
    col('First Seen', 'Time when first event from this object was seen.', { priority: 1 }),
    col('Count', 'The number of times this event has occurred.', { priority: 1 }),
    { ...NAME, priority: 1 },
  ],
  cells: (e: Event, now) => {
    // printEvent: eventTime stands in for an unset firstTimestamp, a series for lastTimestamp and count.
    const first = e.firstTimestamp || e.eventTime || e.metadata.creationTimestamp;
    const last = e.series?.lastObservedTime || e.lastTimestamp || first;
    const io = e.involvedObject ?? {};
    return [
      age(last, now),
      e.type ?? '',
      e.reason ?? '',
      `${String(io.kind ?? '').toLowerCase()}/${io.name ?? ''}`,
      io.fieldPath ?? '',
      [e.source?.component || e.reportingComponent, e.source?.host || e.reportingInstance].filter(Boolean).join(', '),
      String(e.message ?? '').trim(),
      age(first, now),
      e.series?.count ?? (e.count || 1),
      e.metadata.name,
    ];
  },
};

export const defaultPrinter: Printer = {
  columns: [NAME, col('Created At', 'CreationTimestamp is a timestamp representing the server time when this object was created.', { type: 'date' })],
  cells: (o) => [o.metadata.name, o.metadata.creationTimestamp ?? ''],
};

/** printJob (1.28+): the status from the conditions, the completions, the time it ran. */
function jobStatus(job: Job): string {
  const has = (type: string) => (job.status?.conditions ?? []).some((c) => c.type === type && c.status === 'True');
  if (has('Complete')) return 'Complete';
  if (has('Failed')) return 'Failed';
  if (job.metadata.deletionTimestamp) return 'Terminating';
  if (has('Suspended')) return 'Suspended';
  if (has('FailureTarget')) return 'FailureTarget';
  if (has('SuccessCriteriaMet')) return 'SuccessCriteriaMet';
  return 'Running';
}

function jobCompletions(job: Job): string {
  const succeeded = job.status?.succeeded ?? 0;
  const completions = job.spec?.completions;
  if (completions != null) return `${succeeded}/${completions}`;
  const parallelism = job.spec?.parallelism ?? 0;
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function jobDuration(job: Job, now: number): string {
  const start = Date.parse(job.status?.startTime ?? '');
  if (!Number.isFinite(start)) return '';
  const end = Date.parse(job.status?.completionTime ?? '');
  return humanDuration((Number.isFinite(end) ? end : now) - start);
}

export const jobPrinter: Printer = {
  columns: [
    NAME,
    col('Status', 'Status of the job.'),
    col('Completions', 'The number of pods which reached phase Succeeded. The value increases monotonically for a given spec.'),
    col('Duration', 'Time required to complete the job.'),
    AGE,
    ...templateColumns('A label query over pods that should match the pod count. Normally, the system sets this field for you.'),
  ],
  cells: (job: Job, now) => [
    job.metadata.name,
    jobStatus(job),
    jobCompletions(job),
    jobDuration(job, now),
    age(job.metadata.creationTimestamp, now),
    ...templateCells(job.spec),
  ],
};

export const cronJobPrinter: Printer = {
  columns: [
    NAME,
    col('Schedule', 'The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.'),
    col('Timezone', 'The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones.'),
    col('Suspend', 'This flag tells the controller to suspend subsequent executions, it does not apply to already started executions.'),
    col('Active', 'A list of pointers to currently running jobs.', { type: 'integer' }),
    col('Last Schedule', 'Information when was the last time the job was successfully scheduled.'),
    AGE,
    ...templateColumns('A label query over pods that should match the pod count. Normally, the system sets this field for you.'),
  ],
  cells: (cj: CronJob, now) => {
    const last = cj.status?.lastScheduleTime;
    return [
      cj.metadata.name,
      cj.spec?.schedule ?? '',
      cj.spec?.timeZone ?? '<none>',
      cj.spec?.suspend === undefined ? '<unset>' : cj.spec.suspend ? 'True' : 'False',
      (cj.status?.active ?? []).length,
      last ? age(last, now) : '<none>',
      age(cj.metadata.creationTimestamp, now),
      ...templateCells(cj.spec?.jobTemplate?.spec),
    ];
  },
};
