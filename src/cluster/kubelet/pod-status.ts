// Pod status as the kubelet writes it (pkg/kubelet/kubelet_pods.go generateAPIPodStatus): waiting for its sandbox
// (ContainerCreating), sandbox ready with the pod's address, each container's current run (waiting, running,
// terminated with its exit code, CrashLoopBackOff) with its restart count and the run before it (lastState), the
// phase (Pending, Running, Succeeded, Failed) and the conditions that follow (PodCompleted once it ended). Conditions keep
// their lastTransitionTime until their status flips, container statuses are sorted by name as the kubelet
// sorts them, and images are shown fully qualified with a digest as containerd reports them.
import { createHash } from 'node:crypto';
import type { KubeObject } from '../apimachinery/object.js';
import type { Condition, Container, ContainerStatus, Pod, PodSpec } from '../apimachinery/types.js';
import { k8sTime } from '../apimachinery/time.js';

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

/** Image ids made lately, by image as the pod names it: every status of every pod names one (a hash each). */
const imageIds = new Map<string, string>();
const MAX_IMAGE_IDS = 1024;

export function imageId(image: string): string {
  const known = imageIds.get(image);
  if (known !== undefined) return known;
  const normalized = normalizeImage(image);
  const repo = normalized.slice(0, normalized.lastIndexOf(':'));
  const id = normalized.includes('@') ? normalized : `${repo}@sha256:${createHash('sha256').update(normalized).digest('hex')}`;
  if (imageIds.size >= MAX_IMAGE_IDS) imageIds.clear();
  imageIds.set(image, id);
  return id;
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

/** A container's state as the kubelet reports it (v1.ContainerState's one member). */
export type ContainerState = { running: { startedAt: string } } | { terminated: Terminated } | { waiting: { reason: string; message?: string } };

export interface Terminated {
  containerID: string;
  exitCode: number;
  finishedAt: string;
  message?: string;
  reason: string;
  startedAt: string;
}

/** What the kubelet knows of one container of the pod: its current run, the one before, its restarts. */
export interface ContainerRun {
  /** The current (or last) run's container id. */
  id: string;
  restartCount: number;
  state: ContainerState;
  /** The run before the current one (lastState.terminated). */
  last?: Terminated;
  /** False while the running container's program says it is not ready (its own readiness). */
  ready?: boolean;
  /** Its readiness probe's result (cluster/kubelet/probes.ts); undefined without a readiness probe. */
  probeReady?: boolean;
  /** False until its startup probe succeeds; undefined without one. */
  started?: boolean;
  /**
   * Until then (epoch ms) its running state is not reported yet: the kubelet learns of a started container at its
   * next relist (PLEG, once a second), so a command that ends within it is first reported terminated.
   */
  unseenUntil?: number;
}

/** The pod's container runs as the kubelet has seen them at `now` (ContainerRun.unseenUntil). */
function seenRuns(rt: PodRuntime, now: number): Record<string, ContainerRun | undefined> {
  const out: Record<string, ContainerRun | undefined> = Object.create(null);
  for (const [key, run] of Object.entries(rt.containers)) {
    out[key] = run && 'running' in run.state && run.unseenUntil !== undefined && run.unseenUntil > now ? undefined : run;
  }
  return out;
}

/** What the kubelet knows about one pod's containers. */
export interface PodRuntime {
  hostIp: string;
  startTime: string;
  /** Set once the sandbox is up. */
  podIp?: string;
  /** Runs by container: `init:NAME` for init containers, `ephemeral:NAME` for ephemeral ones, NAME for app containers. */
  containers: Record<string, ContainerRun>;
  /** Set when the pod ends: every container terminated for good. */
  phase?: 'Succeeded' | 'Failed';
}

export const initKey = (name: string) => `init:${name}`;
/** The run key of an ephemeral container (kubectl debug). */
export const ephemeralKey = (name: string) => `ephemeral:${name}`;

/** A pod's ephemeral containers (spec.ephemeralContainers: kubectl debug). */
export function ephemeralContainers(spec: PodSpec): Container[] {
  return Array.isArray(spec.ephemeralContainers) ? spec.ephemeralContainers : [];
}

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

function names(containers: Container[]): string {
  return `[${containers.map((c) => c.name).join(' ')}]`;
}

const completed = (run: ContainerRun | undefined) => run !== undefined && 'terminated' in run.state && run.state.terminated.exitCode === 0;
const isRunning = (run: ContainerRun | undefined) => run !== undefined && 'running' in run.state;
/**
 * Ready as its readiness probe says once started (kubelet prober_manager UpdatePodStatus); without a readiness
 * probe, ready once started unless its program says otherwise (ctx.setReady of images/program.ts).
 */
const isReady = (run: ContainerRun | undefined) => isRunning(run) && run!.started !== false && (run!.probeReady ?? run!.ready !== false);

/** Have the pod's init containers all completed? */
export function initialized(spec: { initContainers?: Container[] }, rt: PodRuntime): boolean {
  return (spec.initContainers ?? []).every((c) => completed(rt.containers[initKey(c.name)]));
}

function containerStatus(
  c: Container,
  run: ContainerRun | undefined,
  waitingReason: string,
  init: boolean,
  ended: boolean,
): { name: string; [field: string]: unknown } {
  const image = String(c.image ?? '');
  const base = { image: normalizeImage(image), lastState: run?.last ? { terminated: run.last } : {}, name: c.name, restartCount: run?.restartCount ?? 0 };
  if (!run) return { ...base, imageID: '', ready: false, started: false, state: { waiting: { reason: waitingReason } } };
  // A completed init container counts as ready; an app container is ready while it runs and its program says so.
  const ready = init ? completed(run) : isReady(run) && !ended;
  return { containerID: `containerd://${run.id}`, ...base, imageID: imageId(image), ready, started: isRunning(run) && run.started !== false, state: run.state };
}

/** The status for a pod bound to a node at the step `rt` describes; previous keeps transition times. */
export function podStatus(pod: KubeObject, rt: PodRuntime, now: number): Record<string, unknown> {
  const spec = (pod as Pod).spec ?? {};
  const previous = (pod as Pod).status ?? {};
  const containers = spec.containers ?? [];
  const inits = spec.initContainers ?? [];
  const initDone = initialized(spec, rt);
  const runs = seenRuns(rt, now);
  const unready = containers.filter((c) => !isReady(runs[c.name]) || rt.phase !== undefined);
  const ready = unready.length === 0;
  const succeeded = rt.phase === 'Succeeded';
  const scheduled = (previous.conditions ?? []).find((c) => c.type === 'PodScheduled') ?? condition('PodScheduled', true, now);
  const notReady = (type: string) =>
    succeeded
      ? condition(type, false, now, 'PodCompleted')
      : condition(type, false, now, 'ContainersNotReady', `containers with unready status: ${names(unready)}`);
  const pendingInits = inits.filter((c) => !completed(rt.containers[initKey(c.name)]));
  const conditions = keepTransitions(previous.conditions, [
    // The sandbox of an ended pod is gone.
    condition('PodReadyToStartContainers', rt.podIp !== undefined && rt.phase === undefined, now),
    initDone
      ? condition('Initialized', true, now, succeeded ? 'PodCompleted' : undefined)
      : condition('Initialized', false, now, 'ContainersNotInitialized', `containers with incomplete status: ${names(pendingInits)}`),
    ready ? condition('Ready', true, now) : notReady('Ready'),
    ready ? condition('ContainersReady', true, now) : notReady('ContainersReady'),
    { ...scheduled },
  ]);
  const waitingReason = rt.podIp === undefined ? 'ContainerCreating' : 'PodInitializing';
  const ended = rt.phase !== undefined;
  const containerStatuses = containers.map((c) => containerStatus(c, runs[c.name], waitingReason, false, ended)).sort(byName);
  const status: Record<string, unknown> = {
    conditions,
    containerStatuses,
    hostIP: rt.hostIp,
    hostIPs: [{ ip: rt.hostIp }],
  };
  if (inits.length > 0) status['initContainerStatuses'] = inits.map((c) => containerStatus(c, rt.containers[initKey(c.name)], 'PodInitializing', true, ended));
  // An ephemeral container is never ready (it has no probes and serves nothing; kubelet convertToAPIContainerStatuses).
  const ephemeral = ephemeralContainers(spec);
  if (ephemeral.length > 0)
    status['ephemeralContainerStatuses'] = ephemeral.map((c) => ({
      ...containerStatus(c, runs[ephemeralKey(c.name)], 'ContainerCreating', false, ended),
      ready: false,
    }));
  const started = containers.some((c) => runs[c.name] !== undefined);
  status['phase'] = rt.phase ?? (initDone && started ? 'Running' : 'Pending');
  if (rt.podIp !== undefined) {
    status['podIP'] = rt.podIp;
    status['podIPs'] = [{ ip: rt.podIp }];
  }
  status['qosClass'] = previous.qosClass ?? 'BestEffort';
  status['startTime'] = rt.startTime;
  return status;
}

/**
 * The run a restart restores from a container's status (pod-lifecycle.ts `restore`): its id, restart count, state and
 * the run before; undefined for a container that never ran (no id, no state, or waiting without a run before).
 */
export function restoredRun(s: ContainerStatus): ContainerRun | undefined {
  const id = String(s.containerID ?? '').replace(/^containerd:\/\//, '');
  const state = s.state as ContainerState | undefined;
  if (!id || !state || ('waiting' in state && !s.lastState?.terminated)) return undefined;
  const last = s.lastState?.terminated as Terminated | undefined;
  return { id, restartCount: s.restartCount ?? 0, state, ...(last ? { last } : {}) };
}

/** The members of a status podStatus writes for a pod without init or ephemeral containers. */
const RUNNING_MEMBERS = ['conditions', 'containerStatuses', 'hostIP', 'hostIPs', 'phase', 'podIP', 'podIPs', 'qosClass', 'startTime'];
/** The conditions podStatus writes, in its order, for a Running pod whose containers are all ready. */
const RUNNING_CONDITIONS = ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'];

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const countKeys = (v: object) => Object.keys(v).length;

/** `[{ip}]`, exactly, as podStatus writes hostIPs and podIPs. */
function oneIp(list: unknown, ip: unknown): boolean {
  return Array.isArray(list) && list.length === 1 && isRecord(list[0]) && countKeys(list[0]) === 1 && list[0]['ip'] === ip;
}

/**
 * A container's status as containerStatus writes it for the run a restart restores from it (pod-lifecycle.ts
 * `restore`): its id, image and image id from its spec, its lastState, restart count, readiness and state.
 */
function runAsWritten(c: Container, s: unknown, init: boolean): boolean {
  if (!isRecord(s) || countKeys(s) !== 9 || s['name'] !== c.name || typeof s['restartCount'] !== 'number') return false;
  const id = s['containerID'];
  if (typeof id !== 'string' || !id.startsWith('containerd://') || id.length === 'containerd://'.length) return false;
  const image = String(c.image ?? '');
  if (s['image'] !== normalizeImage(image) || s['imageID'] !== imageId(image)) return false;
  const last = s['lastState'];
  if (!isRecord(last) || !(countKeys(last) === 0 || (countKeys(last) === 1 && isRecord(last['terminated'])))) return false;
  const state = s['state'];
  if (!isRecord(state)) return false;
  // An init container completed (ready, not started); an app container running, ready and started.
  if (init)
    return !('running' in state) && isRecord(state['terminated']) && state['terminated']['exitCode'] === 0 && s['ready'] === true && s['started'] === false;
  return 'running' in state && s['ready'] === true && s['started'] === true;
}

/**
 * Whether podStatus would give a pod restored after a restart, every container resumed as it was and none with a
 * readiness or startup probe (their results start again), the status it has, with the node's address `hostIp`:
 * then nothing needs computing or writing for it (docs/performance.md §2.22). Checked member by member as jsonEqual
 * compares them, without building the status: the pod Running on its sandbox's address, its init containers completed,
 * its app containers running and ready, the conditions that follow in podStatus's order, and each container's image
 * as its spec names it now. Anything else (an earlier build's status, a container waiting or ended, a probe, an
 * ephemeral container) answers false, and the status is computed as before.
 */
export function statusAsWritten(pod: Pod, hostIp: string): boolean {
  const spec = pod.spec ?? {};
  const status = pod.status as Record<string, unknown> | undefined;
  const containers = spec.containers ?? [];
  const inits = spec.initContainers ?? [];
  if (!status || status['phase'] !== 'Running' || status['hostIP'] !== hostIp || typeof status['podIP'] !== 'string' || status['podIP'] === '') return false;
  if (typeof status['startTime'] !== 'string' || typeof status['qosClass'] !== 'string' || ephemeralContainers(spec).length > 0 || containers.length === 0)
    return false;
  if (countKeys(status) !== RUNNING_MEMBERS.length + (inits.length > 0 ? 1 : 0) || !RUNNING_MEMBERS.every((m) => Object.hasOwn(status, m))) return false;
  if (!oneIp(status['hostIPs'], hostIp) || !oneIp(status['podIPs'], status['podIP'])) return false;
  const conditions = status['conditions'];
  if (!Array.isArray(conditions) || conditions.length !== RUNNING_CONDITIONS.length) return false;
  for (let i = 0; i < RUNNING_CONDITIONS.length; i++) {
    const c: unknown = conditions[i];
    if (!isRecord(c) || c['type'] !== RUNNING_CONDITIONS[i] || !Object.hasOwn(c, 'lastTransitionTime')) return false;
    // PodScheduled is the status's own, copied; the others are made again, True, keeping their transition time.
    if (i < RUNNING_CONDITIONS.length - 1 && (countKeys(c) !== 4 || c['status'] !== 'True' || c['lastProbeTime'] !== null)) return false;
  }
  for (const c of containers) if (c['readinessProbe'] != null || c['startupProbe'] != null) return false;
  const runs = status['containerStatuses'];
  if (!Array.isArray(runs) || runs.length !== containers.length) return false;
  // Sorted by name, each a container of the spec (strictly ascending: no name twice).
  for (let i = 0; i < runs.length; i++) {
    const name = isRecord(runs[i]) ? (runs[i] as Record<string, unknown>)['name'] : undefined;
    const c = containers.find((x) => x.name === name);
    if (!c || (i > 0 && !(String((runs[i - 1] as Record<string, unknown>)['name']) < c.name)) || !runAsWritten(c, runs[i], false)) return false;
  }
  if (inits.length === 0) return true;
  const initRuns = status['initContainerStatuses'];
  return Array.isArray(initRuns) && initRuns.length === inits.length && inits.every((c, i) => runAsWritten(c, initRuns[i], true));
}
