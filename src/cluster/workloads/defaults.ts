// What the apiserver fills in when workloads are written: the defaulting functions of core/v1 and apps/v1
// (pod spec, containers, Deployment / ReplicaSet / DaemonSet strategy fields), and for new pods the
// DefaultTolerationSeconds admission plugin's not-ready / unreachable tolerations and the first status.
import type { KubeObject } from '../objects/object.js';
import type { Container, DaemonSet, Deployment, Pod, PodSpec, PodTemplateSpec, ReplicaSet, Toleration } from '../objects/types.js';
import { tolerates } from './placement.js';

/** imagePullPolicy's default: Always for `:latest` or untagged images, IfNotPresent otherwise. */
function pullPolicy(image: string): string {
  if (image.includes('@')) return 'IfNotPresent';
  const last = image.slice(image.lastIndexOf('/') + 1);
  const tag = last.includes(':') ? last.slice(last.indexOf(':') + 1) : '';
  return tag === '' || tag === 'latest' ? 'Always' : 'IfNotPresent';
}

function containerDefaults(c: Container): void {
  if (!c || typeof c !== 'object') return;
  c.imagePullPolicy ??= pullPolicy(String(c.image ?? ''));
  c.resources ??= {};
  c.terminationMessagePath ??= '/dev/termination-log';
  c.terminationMessagePolicy ??= 'File';
  for (const p of c.ports ?? []) if (p && typeof p === 'object') p.protocol ??= 'TCP';
}

export function podSpecDefaults(spec: PodSpec): void {
  if (!spec || typeof spec !== 'object') return;
  for (const c of spec.containers ?? []) containerDefaults(c);
  for (const c of spec.initContainers ?? []) containerDefaults(c);
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
