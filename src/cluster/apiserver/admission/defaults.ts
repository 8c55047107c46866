// What the apiserver fills in when workloads are written: the defaulting functions of core/v1, apps/v1 and
// batch/v1 (pkg/apis/*/v1/defaults.go: pod spec, containers, probes, volumes, Deployment / ReplicaSet /
// DaemonSet strategy fields, Job and CronJob fields), and for new pods the
// DefaultTolerationSeconds admission plugin's not-ready / unreachable tolerations and the first status.
import type { KubeObject } from '../../apimachinery/object.js';
import { randomUUID } from 'node:crypto';
import type { Container, CronJob, DaemonSet, Deployment, Job, Pod, PodSpec, PodTemplateSpec, ReplicaSet, Toleration } from '../../apimachinery/types.js';
import { tolerates } from '../../apimachinery/taints.js';

/** imagePullPolicy's default: Always for `:latest` or untagged images, IfNotPresent otherwise. */
function pullPolicy(image: string): string {
  if (image.includes('@')) return 'IfNotPresent';
  const last = image.slice(image.lastIndexOf('/') + 1);
  const tag = last.includes(':') ? last.slice(last.indexOf(':') + 1) : '';
  return tag === '' || tag === 'latest' ? 'Always' : 'IfNotPresent';
}

type Obj = Record<string, unknown>;
const objectAt = (v: unknown): Obj | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined);
const listAt = (v: unknown): Obj[] => (Array.isArray(v) ? v.map(objectAt).filter((o): o is Obj => o !== undefined) : []);

/** SetDefaults_HTTPGetAction: path "/", scheme HTTP. */
function httpGetDefaults(handler: Obj | undefined): void {
  const get = objectAt(handler?.['httpGet']);
  if (!get) return;
  get['path'] ??= '/';
  get['scheme'] ??= 'HTTP';
}

/** SetDefaults_Probe (timeoutSeconds 1, periodSeconds 10, successThreshold 1, failureThreshold 3) and its handler's. */
function probeDefaults(probe: Obj | undefined): void {
  if (!probe) return;
  probe['timeoutSeconds'] ??= 1;
  probe['periodSeconds'] ??= 10;
  probe['successThreshold'] ??= 1;
  probe['failureThreshold'] ??= 3;
  httpGetDefaults(probe);
}

function containerDefaults(c: Container, hostNetwork: boolean): void {
  if (!c || typeof c !== 'object') return;
  c.imagePullPolicy ??= pullPolicy(String(c.image ?? ''));
  c.resources ??= {};
  c.terminationMessagePath ??= '/dev/termination-log';
  c.terminationMessagePolicy ??= 'File';
  for (const p of c.ports ?? []) {
    if (!p || typeof p !== 'object') continue;
    p.protocol ??= 'TCP';
    // SetDefaults_PodSpec: on the host's network a port is the host's port.
    if (hostNetwork) (p as Obj)['hostPort'] ??= p.containerPort;
  }
  for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe']) probeDefaults(objectAt(c[probe]));
  const lifecycle = objectAt(c['lifecycle']);
  httpGetDefaults(objectAt(lifecycle?.['postStart']));
  httpGetDefaults(objectAt(lifecycle?.['preStop']));
  // SetDefaults_ObjectFieldSelector: apiVersion v1.
  for (const e of listAt(c['env'])) {
    const ref = objectAt(objectAt(e['valueFrom'])?.['fieldRef']);
    if (ref) ref['apiVersion'] ??= 'v1';
  }
}

/** The volume sources' defaults: defaultMode 0644 for ConfigMap, Secret, projected and downward API volumes. */
function volumeDefaults(volume: Obj): void {
  for (const source of ['configMap', 'secret', 'projected', 'downwardAPI']) {
    const v = objectAt(volume[source]);
    if (v) v['defaultMode'] ??= 0o644;
  }
  const downward = objectAt(volume['downwardAPI']);
  for (const item of listAt(downward?.['items'])) {
    const ref = objectAt(item['fieldRef']);
    if (ref) ref['apiVersion'] ??= 'v1';
  }
  const hostPath = objectAt(volume['hostPath']);
  if (hostPath) hostPath['type'] ??= '';
}

export function podSpecDefaults(spec: PodSpec): void {
  if (!spec || typeof spec !== 'object') return;
  const hostNetwork = spec.hostNetwork === true;
  for (const c of spec.containers ?? []) containerDefaults(c, hostNetwork);
  for (const c of spec.initContainers ?? []) containerDefaults(c, hostNetwork);
  for (const c of listAt(spec['ephemeralContainers'])) containerDefaults(c as Container, hostNetwork);
  for (const v of listAt(spec.volumes)) volumeDefaults(v);
  spec.restartPolicy ??= 'Always';
  spec.terminationGracePeriodSeconds ??= 30;
  spec.dnsPolicy ??= 'ClusterFirst';
  spec.securityContext ??= {};
  spec.schedulerName ??= 'default-scheduler';
  if (spec.hostNetwork === undefined) delete spec.hostNetwork;
}

/** Pod-level defaults that only pods (not templates) get: admission's tolerations, the account (priority: priority.ts). */
function podOnlyDefaults(spec: PodSpec): void {
  spec.serviceAccountName ??= spec.serviceAccount ?? 'default';
  spec.serviceAccount ??= spec.serviceAccountName;
  spec.enableServiceLinks ??= true;
  const tolerations: Toleration[] = (spec.tolerations ??= []);
  for (const key of ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable']) {
    const taint = { key, effect: 'NoExecute' };
    if (!tolerations.some((t) => tolerates(t, taint))) tolerations.push({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 });
  }
}

/** The QoS class the apiserver records: Guaranteed, Burstable or BestEffort from requests and limits. */
export function qosClass(spec: PodSpec | undefined): string {
  const containers = [...(spec?.containers ?? []), ...(spec?.initContainers ?? [])];
  let any = false;
  let guaranteed = containers.length > 0;
  for (const c of containers) {
    const req = c.resources?.requests ?? {};
    const lim = c.resources?.limits ?? {};
    if (Object.keys(req).length > 0 || Object.keys(lim).length > 0) any = true;
    for (const res of ['cpu', 'memory']) {
      const l = lim[res];
      const r = req[res] ?? l;
      if (l === undefined || String(r) !== String(l)) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

function templateDefaults(spec: { template?: PodTemplateSpec }): void {
  if (spec?.template && typeof spec.template === 'object') {
    spec.template.metadata ??= {};
    spec.template.metadata.creationTimestamp ??= null;
    podSpecDefaults((spec.template.spec ??= {}));
  }
}

/**
 * SetDefaults_Job (pkg/apis/batch/v1/defaults.go): completions and parallelism 1 when neither is set, else
 * parallelism 1; backoffLimit 6 (MaxInt32 with backoffLimitPerIndex); completionMode NonIndexed; suspend false;
 * podReplacementPolicy TerminatingOrFailed (Failed with a podFailurePolicy). And the job strategy's selector
 * (PrepareForCreate / generateSelector): the template is labelled with the Job's uid and name, new and legacy keys,
 * and selected by the uid unless spec.manualSelector.
 */
function jobDefaults(job: Job, created: boolean): void {
  const spec = (job.spec ??= {});
  if (spec.completions == null && spec.parallelism == null) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  spec.parallelism ??= 1;
  spec.backoffLimit ??= spec.backoffLimitPerIndex != null ? 2147483647 : 6;
  spec.completionMode ??= 'NonIndexed';
  spec.suspend ??= false;
  spec.podReplacementPolicy ??= spec.podFailurePolicy ? 'Failed' : 'TerminatingOrFailed';
  if (!created || spec.manualSelector === true) return;
  job.metadata.uid ??= randomUUID();
  const uid = job.metadata.uid;
  const template = (spec.template ??= {});
  const meta = (template.metadata ??= {});
  meta.labels = {
    ...(meta.labels ?? {}),
    'batch.kubernetes.io/controller-uid': uid,
    'batch.kubernetes.io/job-name': job.metadata.name,
    'controller-uid': uid,
    'job-name': job.metadata.name,
  };
  spec.selector ??= { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } };
}

/** Defaults for a written object of the workload kinds; others are left alone. */
export function workloadDefaults(kind: string, obj: KubeObject, created: boolean): void {
  switch (kind) {
    case 'Pod': {
      const o = obj as Pod;
      podSpecDefaults((o.spec ??= {}));
      if (created) {
        podOnlyDefaults(o.spec);
        o.status = { phase: 'Pending', qosClass: qosClass(o.spec) };
      }
      return;
    }
    case 'Deployment': {
      const spec = ((obj as Deployment).spec ??= {});
      spec.replicas ??= 1;
      spec.revisionHistoryLimit ??= 10;
      spec.progressDeadlineSeconds ??= 600;
      spec.strategy ??= { type: 'RollingUpdate' };
      if (spec.strategy.type === 'RollingUpdate')
        spec.strategy.rollingUpdate = { maxUnavailable: '25%', maxSurge: '25%', ...(spec.strategy.rollingUpdate ?? {}) };
      templateDefaults(spec);
      return;
    }
    case 'ReplicaSet': {
      const spec = ((obj as ReplicaSet).spec ??= {});
      spec.replicas ??= 1;
      templateDefaults(spec);
      return;
    }
    case 'Job':
      jobDefaults(obj as Job, created);
      templateDefaults((obj as Job).spec ?? {});
      return;
    case 'CronJob': {
      const spec = ((obj as CronJob).spec ??= {});
      // SetDefaults_CronJob; the job template's pod template gets the pod defaults (its Job fields none).
      spec.concurrencyPolicy ??= 'Allow';
      spec.suspend ??= false;
      spec.successfulJobsHistoryLimit ??= 3;
      spec.failedJobsHistoryLimit ??= 1;
      const jobTemplate = (spec.jobTemplate ??= {});
      jobTemplate.metadata ??= {};
      jobTemplate.metadata.creationTimestamp ??= null;
      templateDefaults((jobTemplate.spec ??= {}));
      return;
    }
    case 'DaemonSet': {
      const spec = ((obj as DaemonSet).spec ??= {});
      spec.revisionHistoryLimit ??= 10;
      spec.updateStrategy ??= { type: 'RollingUpdate' };
      if (spec.updateStrategy.type === 'RollingUpdate')
        spec.updateStrategy.rollingUpdate = { maxUnavailable: 1, maxSurge: 0, ...(spec.updateStrategy.rollingUpdate ?? {}) };
      templateDefaults(spec);
      return;
    }
  }
}
