// The tigera operator's status manager (pkg/controller/status/status.go): one TigeraStatus per component
// (calico, ippools, apiserver…) with Available / Progressing / Degraded conditions, computed from the DaemonSets
// and Deployments it watches (their rollout counters) and the pods of those not yet healthy (CrashLoopBackOff,
// image pull failures, failed pods), or set Degraded explicitly with a reason and message. Reasons and message
// wording are status.go's and api/v1/tigerastatus_types.go's.
import type { KubeObject } from '../apimachinery/object.js';

export interface Condition {
  type: 'Available' | 'Progressing' | 'Degraded';
  status: 'True' | 'False';
  reason: string;
  message: string;
}

type Obj = Record<string, unknown>;
const num = (o: unknown, key: string): number => {
  const v = o && typeof o === 'object' ? (o as Obj)[key] : undefined;
  return typeof v === 'number' ? v : 0;
};
const status = (o: KubeObject) => (o['status'] ?? {}) as Obj;

/** What the status manager found on its workloads: progressing lines and failing-pod lines. */
export interface Observed {
  progressing: string[];
  failing: string[];
}

/** A DaemonSet's progress lines (status.go syncState) and whether its pods need checking for failures. */
function daemonSetProgress(ds: KubeObject): { line?: string; healthy: boolean } {
  const s = status(ds);
  const nn = `${ds.metadata.namespace}/${ds.metadata.name}`;
  const desired = num(s, 'desiredNumberScheduled');
  const available = num(s, 'numberAvailable');
  const unavailable = num(s, 'numberUnavailable');
  const generation = ds.metadata.generation ?? 0;
  const observed = num(s, 'observedGeneration');
  let line: string | undefined;
  if (num(s, 'updatedNumberScheduled') < desired)
    line = `DaemonSet "${nn}" update is rolling out (${num(s, 'updatedNumberScheduled')} out of ${desired} updated)`;
  else if (unavailable > 0) line = `DaemonSet "${nn}" is not available (awaiting ${unavailable} nodes)`;
  else if (available === 0 && desired !== 0) line = `DaemonSet "${nn}" is not yet scheduled on any nodes`;
  else if (generation > observed) line = `DaemonSet "${nn}" update is being processed (generation ${generation}, observed generation ${observed})`;
  const healthy =
    generation === observed && num(s, 'numberMisscheduled') === 0 && unavailable === 0 && desired === available && desired === num(s, 'numberReady');
  return { ...(line ? { line } : {}), healthy };
}

function deploymentProgress(dep: KubeObject): { line?: string; healthy: boolean } {
  const s = status(dep);
  const nn = `${dep.metadata.namespace}/${dep.metadata.name}`;
  const generation = dep.metadata.generation ?? 0;
  const observed = num(s, 'observedGeneration');
  let line: string | undefined;
  if (num(s, 'unavailableReplicas') > 0) line = `Deployment "${nn}" is not available (awaiting ${num(s, 'unavailableReplicas')} replicas)`;
  else if (num(s, 'availableReplicas') === 0) line = `Deployment "${nn}" is not yet scheduled on any nodes`;
  else if (observed < generation) line = `Deployment "${nn}" update is being processed (generation ${generation}, observed generation ${observed})`;
  const replicas = typeof (dep['spec'] as Obj | undefined)?.['replicas'] === 'number' ? ((dep['spec'] as Obj)['replicas'] as number) : 1;
  const healthy =
    observed === generation && num(s, 'unavailableReplicas') === 0 && replicas === num(s, 'availableReplicas') && replicas === num(s, 'readyReplicas');
  return { ...(line ? { line } : {}), healthy };
}

interface ContainerStatus {
  name?: string;
  state?: { waiting?: { reason?: string }; terminated?: { reason?: string } };
  lastState?: { terminated?: { reason?: string; exitCode?: number } };
}

/** containerErrorMessage: crash loops, pull failures, containers ended in Error. */
function containerError(pod: KubeObject, c: ContainerStatus): string | undefined {
  const nn = `${pod.metadata.namespace}/${pod.metadata.name}`;
  const waiting = c.state?.waiting?.reason;
  if (waiting === 'CrashLoopBackOff') {
    const lt = c.lastState?.terminated;
    const tail = lt
      ? lt.reason === 'Error' && lt.exitCode === 137
        ? ' (exit code 137, possible liveness probe failure)'
        : ` (${lt.reason}, exit code ${lt.exitCode})`
      : '';
    return `Pod ${nn} has crash looping container: ${c.name}${tail}`;
  }
  if (waiting === 'ImagePullBackOff' || waiting === 'ErrImagePull') return `Pod ${nn} failed to pull container image for: ${c.name}`;
  if (c.state?.terminated?.reason === 'Error') return `Pod ${nn} has terminated container: ${c.name}`;
  return undefined;
}

/** podsFailing: the first failing pod of a workload, in list order. */
function podsFailing(pods: KubeObject[]): string | undefined {
  for (const p of pods) {
    const s = status(p);
    if (s['phase'] === 'Failed') return `Pod ${p.metadata.namespace}/${p.metadata.name} has failed`;
    for (const key of ['initContainerStatuses', 'containerStatuses']) {
      const list = Array.isArray(s[key]) ? (s[key] as ContainerStatus[]) : [];
      for (const c of list) {
        const msg = containerError(p, c);
        if (msg) return msg;
      }
    }
    const conditions = Array.isArray(s['conditions']) ? (s['conditions'] as Array<{ type?: string; status?: string }>) : [];
    if (s['phase'] === 'Running' && conditions.some((c) => c.type === 'ContainersReady' && c.status === 'False'))
      return `Pod ${p.metadata.namespace}/${p.metadata.name} is running but not ready`;
  }
  return undefined;
}

/** Observes the workloads: missing ones count as not yet scheduled (the operator has just created them). */
export function observe(workloads: Array<{ kind: 'DaemonSet' | 'Deployment'; object?: KubeObject; pods: () => KubeObject[] }>): Observed {
  const out: Observed = { progressing: [], failing: [] };
  for (const w of workloads) {
    if (!w.object) continue;
    const p = w.kind === 'DaemonSet' ? daemonSetProgress(w.object) : deploymentProgress(w.object);
    if (p.line) out.progressing.push(p.line);
    if (!p.healthy) {
      const f = podsFailing(w.pods());
      if (f) out.failing.push(f);
    }
  }
  return out;
}

/** The three conditions status.go writes after a sync: Available when nothing progresses or fails. */
export function conditionsOf(observed: Observed, degraded?: { reason: string; message: string }): Condition[] {
  const failing = observed.failing.length > 0 || degraded !== undefined;
  const available = observed.progressing.length === 0 && !failing;
  const ok = 'All objects available';
  const messages = [...(degraded?.message ? [degraded.message] : []), ...observed.failing];
  return [
    available
      ? { type: 'Available', status: 'True', reason: 'AllObjectsAvailable', message: ok }
      : { type: 'Available', status: 'False', reason: 'Unknown', message: '' },
    observed.progressing.length > 0
      ? { type: 'Progressing', status: 'True', reason: 'ResourceNotReady', message: observed.progressing.join('\n') }
      : available
        ? { type: 'Progressing', status: 'False', reason: 'AllObjectsAvailable', message: ok }
        : { type: 'Progressing', status: 'False', reason: 'Unknown', message: '' },
    failing
      ? { type: 'Degraded', status: 'True', reason: degraded?.reason ?? 'PodFailure', message: messages.join('\n') }
      : available
        ? { type: 'Degraded', status: 'False', reason: 'AllObjectsAvailable', message: ok }
        : { type: 'Degraded', status: 'False', reason: 'Unknown', message: '' },
  ];
}

/** Conditions with their times: lastTransitionTime kept while a condition's status stays, observedGeneration set. */
export function stamped(next: Condition[], previous: unknown, now: string, generation: number): Array<Condition & Obj> {
  const before = Array.isArray(previous) ? (previous as Array<Condition & { lastTransitionTime?: string }>) : [];
  return next.map((c) => {
    const old = before.find((b) => b.type === c.type);
    return {
      ...c,
      lastTransitionTime: old && old.status === c.status && old.lastTransitionTime ? old.lastTransitionTime : now,
      observedGeneration: generation,
    };
  });
}

/** Whether two condition lists say the same (ignoring times): writes are skipped when nothing changed. */
export function sameConditions(a: unknown, b: Condition[]): boolean {
  if (!Array.isArray(a) || a.length !== b.length) return false;
  return b.every((c, i) => {
    const o = a[i] as Condition;
    return o?.type === c.type && o.status === c.status && o.reason === c.reason && o.message === c.message;
  });
}
