// Pod status as the kubelet writes it at each step of a pod's start: waiting for its sandbox
// (ContainerCreating), sandbox ready with the pod's address, init containers done, running. Conditions keep
// their lastTransitionTime until their status flips, container statuses are sorted by name as the kubelet
// sorts them, and images are shown fully qualified with a digest as containerd reports them.
import { createHash } from 'node:crypto';
import type { KubeObject } from '../objects/object.js';
import type { Condition, Container, Pod } from '../objects/types.js';
import { k8sTime } from '../time.js';

/** docker.io/library/nginx:latest from nginx, as containerd names images. */
export function normalizeImage(image: string): string {
  let name = image;
  const first = name.split('/')[0]!;
  if (!name.includes('/')) name = `docker.io/library/${name}`;
  else if (!first.includes('.') && !first.includes(':') && first !== 'localhost') name = `docker.io/${name}`;
  const last = name.slice(name.lastIndexOf('/') + 1);
  if (!name.includes('@') && !last.includes(':')) name += ':latest';
  return name;
}

export function imageId(image: string): string {
  const normalized = normalizeImage(image);
  if (normalized.includes('@')) return normalized;
  const repo = normalized.slice(0, normalized.lastIndexOf(':'));
  return `${repo}@sha256:${createHash('sha256').update(normalized).digest('hex')}`;
}

export function condition(type: string, status: boolean, now: number, reason?: string, message?: string): Condition {
  return {
    type,
    status: status ? 'True' : 'False',
    lastProbeTime: null,
    lastTransitionTime: k8sTime(now),
    ...(reason ? { reason } : {}),
    ...(message ? { message } : {}),
  };
}

/** next's conditions, keeping each one's earlier lastTransitionTime when its status did not change. */
export function keepTransitions(previous: Condition[] | undefined, next: Condition[]): Condition[] {
  return next.map((c) => {
    const old = previous?.find((p) => p.type === c.type);
    return old && old.status === c.status ? { ...c, lastTransitionTime: old.lastTransitionTime } : c;
  });
}

/** What the kubelet knows about one pod's containers. */
export interface PodRuntime {
  hostIp: string;
  startTime: string;
  /** Set once the sandbox is up. */
  podIp?: string;
  /** Init containers: done, or the failure of the last attempt. */
  init: 'pending' | 'done' | { error: string; restarts: number };
  /** Set once the app containers run: their start time and container ids by name. */
  running?: { startedAt: string; ids: Record<string, string> };
}

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

function names(containers: Container[]): string {
  return `[${containers.map((c) => c.name).join(' ')}]`;
}

/** The status for a pod bound to a node at the step `rt` describes; previous keeps transition times. */
export function podStatus(pod: KubeObject, rt: PodRuntime, now: number): Record<string, unknown> {
  const spec = (pod as Pod).spec ?? {};
  const previous = (pod as Pod).status ?? {};
  const containers = spec.containers ?? [];
  const inits = spec.initContainers ?? [];
  const initDone = rt.init === 'done' || inits.length === 0;
  const running = rt.running !== undefined && initDone;
  const scheduled = (previous.conditions ?? []).find((c) => c.type === 'PodScheduled') ?? condition('PodScheduled', true, now);
  const conditions = keepTransitions(previous.conditions, [
    condition('PodReadyToStartContainers', rt.podIp !== undefined, now),
    initDone
      ? condition('Initialized', true, now)
      : condition('Initialized', false, now, 'ContainersNotInitialized', `containers with incomplete status: ${names(inits)}`),
    running ? condition('Ready', true, now) : condition('Ready', false, now, 'ContainersNotReady', `containers with unready status: ${names(containers)}`),
    running
      ? condition('ContainersReady', true, now)
      : condition('ContainersReady', false, now, 'ContainersNotReady', `containers with unready status: ${names(containers)}`),
    { ...scheduled },
  ]);
  const waitingReason = rt.podIp === undefined ? 'ContainerCreating' : 'PodInitializing';
  const containerStatuses = containers
    .map((c) => {
      const base = { image: normalizeImage(String(c.image ?? '')), lastState: {}, name: c.name, restartCount: 0 };
      if (!running) return { ...base, imageID: '', ready: false, started: false, state: { waiting: { reason: waitingReason } } };
      return {
        containerID: `containerd://${rt.running!.ids[c.name]}`,
        ...base,
        imageID: imageId(String(c.image ?? '')),
        ready: true,
        started: true,
        state: { running: { startedAt: rt.running!.startedAt } },
      };
    })
    .sort(byName);
  const status: Record<string, unknown> = {
    conditions,
    containerStatuses,
    hostIP: rt.hostIp,
    hostIPs: [{ ip: rt.hostIp }],
  };
  if (inits.length > 0) status['initContainerStatuses'] = inits.map((c, i) => initStatus(pod, c, i, rt));
  status['phase'] = running ? 'Running' : 'Pending';
  if (rt.podIp !== undefined) {
    status['podIP'] = rt.podIp;
    status['podIPs'] = [{ ip: rt.podIp }];
  }
  status['qosClass'] = previous.qosClass ?? 'BestEffort';
  status['startTime'] = rt.startTime;
  return status;
}

function initStatus(pod: KubeObject, c: Container, index: number, rt: PodRuntime): Record<string, unknown> {
  const base = { image: normalizeImage(String(c.image ?? '')), imageID: '', lastState: {}, name: c.name, ready: false, restartCount: 0, started: false };
  if (rt.init === 'done') {
    const id = rt.running?.ids[`init:${c.name}`];
    const containerID = id ? { containerID: `containerd://${id}` } : {};
    return {
      ...base,
      ...containerID,
      imageID: imageId(String(c.image ?? '')),
      state: { terminated: { ...containerID, exitCode: 0, finishedAt: rt.running?.startedAt ?? rt.startTime, reason: 'Completed', startedAt: rt.startTime } },
    };
  }
  if (typeof rt.init === 'object' && index === 0) {
    // The runner reports the first failure; the kubelet shows it as the last state and backs off.
    return {
      ...base,
      imageID: imageId(String(c.image ?? '')),
      lastState: { terminated: { exitCode: 1, finishedAt: rt.startTime, message: rt.init.error, reason: 'Error', startedAt: rt.startTime } },
      restartCount: rt.init.restarts,
      state: {
        waiting: {
          message: `back-off 10s restarting failed container=${c.name} pod=${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})`,
          reason: 'CrashLoopBackOff',
        },
      },
    };
  }
  return { ...base, state: { waiting: { reason: 'PodInitializing' } } };
}
