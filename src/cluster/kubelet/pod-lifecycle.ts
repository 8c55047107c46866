// The kubelet's pod lifecycle on every node: a pod bound to a node gets a sandbox from the runtime (its
// network: an address from the plugin's pool, or the node's own for host-network pods), then its init
// containers run, then its containers start and the pod is Running and Ready. A sandbox failure leaves the
// pod ContainerCreating with the kubelet's FailedCreatePodSandBox event and is retried with back-off; pods
// needing the pod network wait (NetworkNotReady) while the node's CNI is not ready. Each container's process
// (processes.ts) prints into its log (container-logs.ts) and may end: the pod's restartPolicy says whether it
// restarts, after the kubelet's crash-loop back-off (CRASH_BACKOFF); a pod whose containers all ended for good is
// Succeeded or Failed and gives its sandbox back. Deleted pods release their sandbox and logs; the pods of a node
// that goes away are deleted. After a restart, running pods are restored from the runtime's sandbox records
// instead of being set up again (their processes start again, appending to the same logs). Each run of a container
// gets the kubelet's probe workers (cluster/kubelet/probes.ts): readiness and startup results go into the status,
// and a liveness or startup failure kills the container, which then restarts as an exit does.
import { createHash } from 'node:crypto';
import { jsonEqual } from '../apimachinery/json-equal.js';
import { deletionDue, type KubeObject } from '../apimachinery/object.js';
import { internalIp, nodeReady } from '../apimachinery/node-status.js';
import type { BoundPod, Container, ContainerStatus, Pod, RunningPod } from '../apimachinery/types.js';
import { type Change, resumePodDeletion, type LogRef } from '../apiserver/index.js';
import { NOT_READY_MESSAGE } from './node-status.js';
import { k8sTime } from '../apimachinery/time.js';
import type { Controller, ControllerContext } from '../client/context.js';
import { isTerminal } from '../client/indexes.js';
import { NODES, PODS, resourceKey } from '../apimachinery/resources.js';
import { runtimeId } from '../apimachinery/generated-names.js';
import {
  ephemeralContainers,
  ephemeralKey,
  initialized,
  initKey,
  normalizeImage,
  podStatus,
  restoredRun,
  statusAsWritten,
  type ContainerRun,
  type PodRuntime,
  type Terminated,
} from './pod-status.js';
import type { SandboxRecord, SandboxRecords } from './runtime-state.js';
import type { ContainerRunner, PodSandboxes, ProbeTarget, RestoreReport, SandboxRequest, SandboxResult } from './sandbox.js';
import type { NodeNetwork } from '../images/program.js';
import { Prober } from './probes.js';
import { removeContainerFilesystems } from './container-rootfs.js';
import type { ContainerLogs } from './container-logs.js';
import { ContainerIo } from './container-io.js';
import { KILLED, type Process } from '../images/processes.js';
import type { PodDnsFiles } from './pod-files.js';

/** Longest wait between sandbox set-up retries (the kubelet's back-off is bounded too). */
export const MAX_BACKOFF_MS = 10_000;

/**
 * The kubelet's crash-loop back-off (pkg/kubelet/kubelet.go: backOffPeriod 10 s, MaxContainerBackOff 300 s; the
 * flowcontrol.Backoff of client-go/util/flowcontrol/backoff.go): a container that ends and must restart starts
 * again at once the first time, then waits 10 s after it finished, doubling each time up to 5 min; the wait
 * resets once a run lasted twice the maximum. Tests may shorten both (nothing else writes them).
 */
export const CRASH_BACKOFF = { initialMs: 10_000, maxMs: 300_000 };

export interface LifecycleOptions {
  sandboxes: PodSandboxes;
  containers: ContainerRunner;
  logs: ContainerLogs;
  records: SandboxRecords;
  /** The kubelet's minor version: event wording changed over time. */
  minor: number;
  /** Sandboxes set up at once per cluster (each may run CNI plugins). */
  concurrency?: number;
  /** Each pod's resolv.conf and hosts on its node (cluster/kubelet/pod-files.ts); written only when a data plane runs. */
  podFiles?: PodDnsFiles;
  /** The data plane's node networking (the probes run in the node's namespace); undefined without one. */
  network?: () => NodeNetwork | undefined;
  /** The node's root (nodefs/node-root.ts): a torn-down pod's container filesystems (kubectl cp) are removed there. */
  nodeRoot?: (node: string) => string;
}

interface Worker {
  uid: string;
  namespace: string;
  name: string;
  node: string;
  rt: PodRuntime;
  sandbox?: SandboxRequest;
  attempts: number;
  busy: boolean;
  again: boolean;
  stopped: boolean;
  timer?: NodeJS.Timeout;
  networkWarned: boolean;
  /** The containers' runtime state by run key (pod-status.ts: `init:NAME` or NAME); made when the first one starts. */
  slots?: Map<string, Slot>;
  /** A running pod found at a restart, to be restored once its node's sandbox records are read (restoreNode). */
  unrestored?: RunningPod;
}

/** One container's process and back-off, as the kubelet and runtime hold them. */
interface Slot {
  /** The live process of its current run. */
  process?: Process;
  /** When its last run ended (ms). */
  finished?: number;
  /** flowcontrol.Backoff's entry for it. */
  backoff?: { ms: number; lastUpdate: number };
  /** The wake-up at the end of its back-off. */
  wakeup?: NodeJS.Timeout;
  /** What answers its probes in its current run (its runtime says, sandbox.ts ProbeTarget). */
  target?: ProbeTarget;
  /** Its current run's standard streams (what `kubectl attach` joins). */
  io?: ContainerIo;
}

function slot(w: Worker, key: string): Slot {
  w.slots ??= new Map();
  let s = w.slots.get(key);
  if (!s) w.slots.set(key, (s = {}));
  return s;
}

/** The kubelet's PLEG relist period (pkg/kubelet/kubelet.go genericPlegRelistPeriod): how late it sees a container start. */
const PLEG_RELIST_MS = 1000;
const isAlive = (w: Worker, key: string) => w.slots?.get(key)?.process !== undefined;

/** Stops every process of the worker and its back-off wake-ups. */
function stopAll(w: Worker): void {
  for (const s of w.slots?.values() ?? []) {
    clearTimeout(s.wakeup);
    s.wakeup = undefined;
    const p = s.process;
    s.process = undefined;
    p?.stop();
    s.io?.close();
  }
}

/** When the container's current run started: its running state's time (now, for a run not running). */
function runningSince(run: ContainerRun | undefined): string {
  return run && 'running' in run.state ? run.state.running.startedAt : k8sTime(Date.now());
}

/** A run's standard streams (container-io.ts): what its process prints goes into the run's log. */
function containerIo(logs: ContainerLogs, ref: LogRef, c: Container, restart: number): ContainerIo {
  return new ContainerIo({
    tty: c['tty'] === true,
    stdin: c['stdin'] === true,
    stdinOnce: c['stdinOnce'] === true,
    log: (stream, text) => logs.append(ref, c.name, restart, stream, text),
  });
}

/** What an IdleRun asks of the kubelet: its end recorded (PodLifecycle.ended), its streams made. */
interface IdleRunHost {
  ended(run: IdleRun, code: number): void;
  streams(run: IdleRun): ContainerIo;
}

/**
 * The process of a restored container whose program only waits for its stop (the runner's resumesIdle): one object
 * where a start made the run's streams, the start's context and its closures, a promise and its chain (tens of
 * thousands after a restart, docs/performance.md §2.26). Stopped, it ends as a killed process does (137), its end
 * recorded a turn of the microtask queue later, as a process's exit is.
 */
class IdleRun implements Process {
  private done: Promise<number> | undefined;
  private resolve: ((code: number) => void) | undefined;
  private stopped = false;

  constructor(
    private readonly host: IdleRunHost,
    readonly w: Worker,
    readonly state: Slot,
    readonly c: Container,
    readonly key: string,
    readonly restart: number,
    readonly startedAt: string,
  ) {}

  get exited(): Promise<number> {
    if (!this.done) {
      if (this.stopped) this.done = Promise.resolve(KILLED);
      else this.done = new Promise<number>((resolve) => (this.resolve = resolve));
    }
    return this.done;
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.resolve?.(KILLED);
    queueMicrotask(() => this.host.ended(this, KILLED));
  }

  /** Its streams, made for the first session that attaches: nothing was printed before (nothing runs). */
  streams(): ContainerIo {
    return this.host.streams(this);
  }
}

const podRef = (pod: KubeObject) => `${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})`;

function terminatedOf(run: ContainerRun | undefined): Terminated | undefined {
  if (!run) return undefined;
  return 'terminated' in run.state ? run.state.terminated : run.last;
}

/** Restored pods resumed per turn of the event loop after a restart. */
const RESTORE_SLICE = 200;
/** Sandbox records read (and their pods restored) per turn of the event loop after a restart. */
const RECORDS_SLICE = 500;

/** terminationMessagePolicy FallbackToLogsOnError: the log's tail (80 lines, 2048 bytes) as the message of a failure. */
const FALLBACK_LINES = 80;
const FALLBACK_BYTES = 2048;

/** Go's time.Duration text at millisecond precision: 850ms, 1.234s, 1m20s, 5m0s. */
function goDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))}ms`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = `${((ms % 60_000) / 1000).toFixed(3).replace(/\.?0+$/, '')}s`;
  return `${h ? `${h}h` : ''}${h || m ? `${m}m` : ''}${s}`;
}

/** Images on AKS's node image (the VHD caches every add-on image), so they are never pulled. */
function preloaded(image: string): boolean {
  return image.startsWith('mcr.microsoft.com/');
}

class Limiter {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  constructor(private readonly max: number) {}

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.max) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active++;
    try {
      return await fn();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }
}

export class PodLifecycle implements Controller {
  private readonly workers = new Map<string, Worker>();
  private readonly onNode = new Map<string, Set<Worker>>();
  private readonly images = new Map<string, Set<string>>();
  private readonly limiter: Limiter;
  private closed = false;
  /** Restored pods whose processes are still to start again (drainRestored). */
  private readonly restoring: Array<() => void> = [];
  /** After a restart: the nodes whose sandbox records are still to be read, with their running pods to restore. */
  private readonly unread = new Map<string, Worker[]>();
  /** The pods' uids at the restart: a record of none of them is a sandbox whose pod is gone. */
  private known = new Set<string>();
  /** Running pods whose records are still to be read (in `unread`). */
  private unrestoredCount = 0;
  private readonly prober: Prober;

  constructor(
    private readonly ctx: ControllerContext,
    private readonly options: LifecycleOptions,
  ) {
    this.limiter = new Limiter(options.concurrency ?? 16);
    const worker = (uid: string) => {
      const w = this.workers.get(uid);
      return w && !w.stopped ? w : undefined;
    };
    this.prober = new Prober({
      pod: (uid) => {
        const w = worker(uid);
        return w ? this.current(w) : undefined;
      },
      event: (pod, reason, message, container) => this.event(pod, 'Warning', reason, message, `spec.containers{${container}}`),
      changed: (uid) => {
        const w = worker(uid);
        if (w) this.write(w);
      },
      failed: (uid, key, type) => {
        const w = worker(uid);
        if (w) this.probeFailed(w, key, type);
      },
      runner: options.containers,
      network: options.network ?? (() => undefined),
      minor: options.minor,
    });
  }

  observe(change: Change): void {
    if (change.resource === resourceKey(NODES)) {
      const name = change.object.metadata.name;
      const boot = bootIdOf(change.object);
      const before = change.previous && bootIdOf(change.previous);
      if (change.type === 'DELETED') this.nodeGone(name);
      else if (before && boot && before !== boot) this.rebooted(name);
      else for (const w of this.onNode.get(name) ?? []) if (!w.sandbox && !w.timer) this.kick(w);
      return;
    }
    if (change.resource !== resourceKey(PODS)) return;
    const pod = change.object as Pod;
    const uid = String(pod.metadata.uid);
    if (change.type === 'DELETED') {
      const w = this.workers.get(uid);
      if (w) this.stop(w);
      // A pod that had ended before a restart has no worker: its logs may still be on disk.
      else if (pod.spec?.nodeName && isTerminal(pod))
        this.options.logs.remove({ node: pod.spec.nodeName, namespace: pod.metadata.namespace!, pod: pod.metadata.name, uid }, false);
      return;
    }
    const running = this.workers.get(uid);
    // kubectl debug added an ephemeral container to a running pod: the kubelet starts it (sync).
    if (running && ephemeralContainers(pod.spec ?? {}).some((c) => !running.rt.containers[ephemeralKey(c.name)])) return this.kick(running);
    if (!pod.spec?.nodeName || isTerminal(pod) || pod.metadata.deletionTimestamp || this.workers.has(uid)) return;
    this.kick(this.add(pod as BoundPod));
  }

  /**
   * After a start (objects restored, nodes synced): finish what was in flight before the stop. The running pods'
   * sandbox records (one file each) are read node by node in the turns after this one (restoreNode), so serving
   * does not wait for them; a node's are read before anything else uses its addresses.
   */
  resync(): void {
    const { objects } = this.ctx;
    const pods = objects.list(PODS);
    this.known = new Set(pods.map((p) => String(p.metadata.uid)));
    const fresh: Worker[] = [];
    for (const pod of pods as Pod[]) {
      const { namespace, name } = pod.metadata;
      if (deletionDue(pod)) resumePodDeletion(objects, pod);
      if (!pod.spec?.nodeName || isTerminal(pod) || this.workers.has(String(pod.metadata.uid))) continue;
      if (!objects.get(NODES, undefined, pod.spec.nodeName)) {
        objects.delete(PODS, namespace, name);
        continue;
      }
      const w = this.add(pod as BoundPod);
      if (pod.status?.phase === 'Running' && pod.status?.podIP) {
        w.unrestored = pod as RunningPod;
        this.unrestoredCount++;
        const on = this.unread.get(w.node);
        if (on) on.push(w);
        else this.unread.set(w.node, [w]);
      } else fresh.push(w);
    }
    // Every node's directory is read, not only those with running pods: the records of pods gone are torn down.
    for (const node of this.options.records.nodes()) if (!this.unread.has(node)) this.unread.set(node, []);
    if (this.unread.size > 0) setImmediate(() => this.readRecords());
    // A fresh pod's node has its records read and its running pods' addresses claimed before its sandbox asks (step).
    for (const w of fresh) this.kick(w);
  }

  /** Reads a slice of the nodes' sandbox records and restores their running pods, the rest on the next turns. */
  private readRecords(): void {
    let read = 0;
    for (const node of this.unread.keys()) {
      if (read >= RECORDS_SLICE || this.closed) break;
      read += this.restoreNode(node) + 1;
    }
    if (this.unread.size > 0 && !this.closed) setImmediate(() => this.readRecords());
  }

  /**
   * The node's sandbox records, read once after a restart: its running pods are restored (their addresses claimed,
   * their containers queued to start again) and the sandboxes of pods gone are torn down. How many records it read.
   */
  private restoreNode(node: string): number {
    const pending = this.unread.get(node);
    if (!pending) return 0;
    this.unread.delete(node);
    // Those of pods gone are torn down; the rest are kept (those of pods restored here are taken out as they are).
    const kept = this.options.records.recordsOn(node);
    const count = kept.size;
    for (const record of kept.values()) {
      if (this.known.has(record.uid)) continue;
      kept.delete(record.uid);
      this.options.records.remove(node, record.uid);
      void this.tearDown({
        namespace: record.namespace,
        name: record.name,
        uid: record.uid,
        node,
        hostNetwork: record.hostNetwork,
        sandboxId: record.sandboxId,
      });
    }
    // The node's restored networks are rebuilt a few at a time (the CNI runtime's bound, src/cni/node-gate.ts) in the
    // order asked: one namespace after another would put the user's pods behind every system pod listed first.
    for (const w of byNamespaceInTurn(pending, (p) => p.namespace)) {
      const pod = w.unrestored;
      if (!pod) continue;
      w.unrestored = undefined;
      this.unrestoredCount--;
      this.restore(w, pod, kept.get(w.uid));
      kept.delete(w.uid);
    }
    // The records of pods not running here: a new sandbox of theirs releases the old one first (step, records.load).
    for (const record of kept.values()) this.options.records.leave(node, record);
    if (this.unread.size === 0) {
      this.known = new Set();
      void this.options.records.sweep();
    }
    return count;
  }

  private add(pod: BoundPod): Worker {
    const w: Worker = {
      uid: String(pod.metadata.uid),
      namespace: pod.metadata.namespace!,
      name: pod.metadata.name,
      node: pod.spec.nodeName,
      rt: { hostIp: pod.status?.hostIP ?? '', startTime: pod.status?.startTime ?? k8sTime(Date.now()), containers: {} },
      attempts: 0,
      busy: false,
      again: false,
      stopped: false,
      networkWarned: false,
    };
    this.workers.set(w.uid, w);
    let set = this.onNode.get(w.node);
    if (!set) this.onNode.set(w.node, (set = new Set()));
    set.add(w);
    return w;
  }

  private restore(w: Worker, pod: RunningPod, record: SandboxRecord | undefined): void {
    const hostNetwork = Boolean(pod.spec?.hostNetwork);
    w.sandbox = { namespace: w.namespace, name: w.name, uid: w.uid, node: w.node, hostNetwork, sandboxId: record?.sandboxId ?? runtimeId() };
    if (!record) this.options.records.save(w.node, { ...w.sandbox, ip: pod.status.podIP });
    if (!hostNetwork) this.options.sandboxes.restore(w.sandbox, pod.status.podIP, new RestoredReport(this.restoreReports, w));
    w.rt = { hostIp: pod.status.hostIP, startTime: pod.status.startTime, podIp: pod.status.podIP, containers: {} };
    const spec = pod.spec ?? {};
    const resumed: Array<() => void> = [];
    const restoreRuns = (statuses: ContainerStatus[] | undefined, containers: Container[] | undefined, key: (name: string) => string, init: boolean) => {
      for (const s of statuses ?? []) {
        const c = containers?.find((x) => x.name === s.name);
        const run = c && restoredRun(s);
        if (!c || !run) continue;
        const k = key(s.name);
        w.rt.containers[k] = run;
        const ended = terminatedOf(run);
        if (ended) slot(w, k).finished = Date.parse(ended.finishedAt);
        // The process of a running container is gone with the old server: it runs again, into the same log.
        if ('running' in run.state) resumed.push(() => this.run(w, pod, c, k, init, run.restartCount, true));
      }
    };
    restoreRuns(pod.status.initContainerStatuses, spec.initContainers, initKey, true);
    restoreRuns(pod.status.containerStatuses, spec.containers, (name) => name, false);
    if (pod.status.ephemeralContainerStatuses) restoreRuns(pod.status.ephemeralContainerStatuses, ephemeralContainers(spec), ephemeralKey, false);
    // Restarting the processes of thousands of restored pods is spread over turns of the event loop.
    this.restoring.push(() => {
      if (w.stopped || this.closed) return;
      for (const fn of resumed) fn();
      if (!this.resumedAsWas(w)) this.kick(w);
    });
    if (this.restoring.length === 1) setImmediate(() => this.drainRestored());
  }

  /**
   * Whether a restored pod, its containers just resumed, goes on as its status says: its kick would compute the same
   * status and write nothing (docs/performance.md §2.22), so it is not kicked. Its runs are as restored (no readiness
   * said, no probe result), its pod and node are there, and the status is what podStatus makes of them.
   */
  private resumedAsWas(w: Worker): boolean {
    if (w.busy || w.rt.phase) return false;
    for (const key in w.rt.containers) {
      const run = w.rt.containers[key]!;
      if (run.ready === false || run.probeReady !== undefined || run.started !== undefined || run.unseenUntil !== undefined) return false;
    }
    const pod = this.current(w);
    const node = this.ctx.objects.get(NODES, undefined, w.node);
    if (!pod || !node || pod.metadata.deletionTimestamp || pod.status?.podIP !== w.rt.podIp || pod.status?.startTime !== w.rt.startTime) return false;
    return statusAsWritten(pod, internalIp(node) ?? '');
  }

  /** Restored pods whose containers have not started again yet (0 once a start has caught up). */
  get restoringCount(): number {
    return this.restoring.length + this.unrestoredCount;
  }

  /** What the kubelet does when a restored pod's network fails to come back, or comes back with another address. */
  private readonly restoreReports: ReportHost = {
    closed: () => this.closed,
    failed: (w, message) => {
      const pod = this.current(w);
      if (pod && !w.stopped) this.event(pod, 'Warning', 'FailedCreatePodSandBox', `Failed to create pod sandbox: ${message}`);
    },
    changed: (w, ip, why) => {
      const pod = this.current(w);
      if (!pod || w.stopped || !w.sandbox) return;
      // The pod's status says the address its network really has (never Running with one it does not).
      w.rt.podIp = ip;
      this.options.records.save(w.node, { ...w.sandbox, ip });
      this.options.podFiles?.write(pod, w.node, [ip]);
      this.write(w);
      this.event(pod, 'Warning', 'SandboxChanged', `Pod sandbox network rebuilt after a restart with address ${ip}: ${why}`);
    },
  };

  /** Runs a slice of the restored pods' resumptions, the rest on the next turns. */
  private drainRestored(): void {
    for (const fn of this.restoring.splice(0, RESTORE_SLICE)) fn();
    if (this.restoring.length > 0 && !this.closed) setImmediate(() => this.drainRestored());
  }

  /** The worker's pod, bound to its node, unless it went (or another of its name replaced it). */
  private current(w: Worker): BoundPod | undefined {
    const pod = this.ctx.objects.get(PODS, w.namespace, w.name) as BoundPod | undefined;
    return pod && String(pod.metadata.uid) === w.uid ? pod : undefined;
  }

  private kick(w: Worker): void {
    // A pod not restored yet is kicked once it is (its containers queued to start again).
    if (w.stopped || this.closed || w.unrestored) return;
    if (w.busy) {
      w.again = true;
      return;
    }
    if (w.timer) return;
    w.busy = true;
    void this.step(w)
      .catch((e) => {
        this.ctx.log(`kubelet ${w.node}: pod ${w.namespace}/${w.name}: ${(e as Error).stack ?? e}`);
        // The kubelet's pod workers requeue a pod whose sync failed, with back-off: a failed step must not leave the
        // pod waiting for a change that may never come.
        w.attempts++;
        if (!w.timer && !w.stopped && !this.closed) this.later(w);
      })
      .finally(() => {
        w.busy = false;
        if (w.again) {
          w.again = false;
          this.kick(w);
        }
      });
  }

  private later(w: Worker): void {
    const delay = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** Math.max(0, w.attempts - 1));
    w.timer = setTimeout(() => {
      w.timer = undefined;
      this.kick(w);
    }, delay);
    w.timer.unref();
  }

  private write(w: Worker): BoundPod | undefined {
    const pod = this.current(w);
    if (!pod || pod.metadata.deletionTimestamp) return undefined;
    // The probes' word on each app container's readiness and start (undefined: it has no such probe).
    for (const c of pod.spec?.containers ?? []) {
      const run = w.rt.containers[c.name];
      if (!run) continue;
      const probeReady = this.prober.ready(w.uid, c.name);
      const started = this.prober.startedOf(w.uid, c.name);
      if (probeReady === undefined) delete run.probeReady;
      else run.probeReady = probeReady;
      if (started === undefined) delete run.started;
      else run.started = started;
    }
    const status = podStatus(pod, w.rt, Date.now());
    // Most steps change nothing (a restored pod resumed as it was): no copy of the whole pod to find that out.
    if (jsonEqual(status, pod.status)) return pod;
    return this.ctx.objects.put(PODS, { ...pod, status }, { onlyIfChanged: true }) as BoundPod;
  }

  private event(pod: BoundPod, type: 'Normal' | 'Warning', reason: string, message: string, fieldPath?: string): void {
    this.ctx.events.record(pod, { type, reason, message, component: 'kubelet', host: pod.spec?.nodeName, ...(fieldPath ? { fieldPath } : {}) });
  }

  private async step(w: Worker): Promise<void> {
    const node = this.ctx.objects.get(NODES, undefined, w.node);
    let pod = this.current(w);
    if (!pod || !node || pod.metadata.deletionTimestamp || w.rt.phase) return;
    w.rt.hostIp = internalIp(node) ?? '';
    if (!w.sandbox) {
      const hostNetwork = Boolean(pod.spec?.hostNetwork);
      if (!hostNetwork && !nodeReady(node)) {
        pod = this.write(w);
        if (pod && !w.networkWarned) this.event(pod, 'Warning', 'NetworkNotReady', `network is not ready: ${NOT_READY_MESSAGE}`);
        w.networkWarned = true;
        return;
      }
      this.write(w);
      // The addresses of the node's restored pods are claimed before a new sandbox asks for one.
      this.restoreNode(w.node);
      // A sandbox left over from before a restart is released before a new one is made.
      const stale = this.options.records.load(w.node, w.uid);
      if (stale) {
        this.options.records.remove(w.node, w.uid);
        await this.tearDown({ namespace: w.namespace, name: w.name, uid: w.uid, node: w.node, hostNetwork: stale.hostNetwork, sandboxId: stale.sandboxId });
      }
      const req: SandboxRequest = { namespace: w.namespace, name: w.name, uid: w.uid, node: w.node, hostNetwork, sandboxId: runtimeId() };
      const result = await this.limiter.run(() => this.setUp(req));
      if (w.stopped || this.closed) {
        await this.tearDown(req);
        return;
      }
      pod = this.current(w);
      if (!pod) return;
      if (!result.ok) {
        await this.tearDown(req);
        w.attempts++;
        this.write(w);
        this.event(pod, 'Warning', 'FailedCreatePodSandBox', `Failed to create pod sandbox: ${result.message}`);
        this.later(w);
        return;
      }
      w.sandbox = req;
      w.attempts = 0;
      w.rt.podIp = result.ip;
      this.options.records.save(w.node, { ...req, ip: result.ip });
      this.options.podFiles?.write(pod, w.node, [result.ip]);
      pod = this.write(w) ?? pod;
    }
    this.sync(w, pod);
  }

  /**
   * The kubelet's SyncPod for the containers: the first init container not yet completed runs (or restarts after
   * its back-off, or fails the pod under restartPolicy Never); once all completed, every app container that is
   * not running starts, or restarts as the restartPolicy says; when none will run again the pod has ended.
   */
  private sync(w: Worker, pod: BoundPod): void {
    const spec = pod.spec ?? {};
    const policy = spec.restartPolicy ?? 'Always';
    if (!initialized(spec, w.rt)) {
      for (const c of spec.initContainers ?? []) {
        const key = initKey(c.name);
        const run = w.rt.containers[key];
        if (run && 'terminated' in run.state && run.state.terminated.exitCode === 0) continue;
        if (isAlive(w, key)) break;
        if (run && policy === 'Never') return this.end(w, 'Failed');
        if (!run || this.restartDue(w, pod, c, key, `spec.initContainers{${c.name}}`)) this.start(w, pod, c, key, true);
        break;
      }
      this.write(w);
      return;
    }
    let alive = false;
    for (const c of spec.containers ?? []) {
      const key = c.name;
      const run = w.rt.containers[key];
      if (isAlive(w, key)) {
        alive = true;
        continue;
      }
      if (!run) {
        this.start(w, pod, c, key, false);
        alive = true;
        continue;
      }
      const last = terminatedOf(run);
      if (policy === 'Never' || (policy === 'OnFailure' && last?.exitCode === 0)) continue;
      alive = true;
      if (this.restartDue(w, pod, c, key, `spec.containers{${c.name}}`)) this.start(w, pod, c, key, false);
    }
    // Ephemeral containers start once, in the running pod's sandbox, and never restart; the pod's phase ignores them.
    for (const c of ephemeralContainers(spec)) {
      const key = ephemeralKey(c.name);
      if (alive && !w.rt.containers[key]) this.start(w, pod, c, key, false, `spec.ephemeralContainers{${c.name}}`);
    }
    if (alive) {
      this.write(w);
      return;
    }
    const failed = (spec.containers ?? []).some((c) => terminatedOf(w.rt.containers[c.name])?.exitCode !== 0);
    this.end(w, failed ? 'Failed' : 'Succeeded');
  }

  /**
   * doBackOff (kuberuntime_manager.go): a container that ended may start again once its back-off since it
   * finished has passed (at once the first time); meanwhile it waits in CrashLoopBackOff with the BackOff event.
   */
  private restartDue(w: Worker, pod: BoundPod, c: Container, key: string, fieldPath: string): boolean {
    const run = w.rt.containers[key]!;
    const state = slot(w, key);
    const finished = state.finished ?? Date.now();
    const entry = state.backoff;
    const expired = !entry || finished - entry.lastUpdate > 2 * CRASH_BACKOFF.maxMs;
    const now = Date.now();
    if (!expired && now - finished < entry.ms) {
      if (!('waiting' in run.state)) {
        const last = terminatedOf(run)!;
        run.state = {
          waiting: { message: `back-off ${goDuration(entry.ms)} restarting failed container=${c.name} pod=${podRef(pod)}`, reason: 'CrashLoopBackOff' },
        };
        run.last = last;
        this.event(pod, 'Warning', 'BackOff', `Back-off restarting failed container ${c.name} in pod ${podRef(pod)}`, fieldPath);
      }
      if (!state.wakeup) {
        state.wakeup = setTimeout(
          () => {
            state.wakeup = undefined;
            this.kick(w);
          },
          finished + entry.ms - now,
        );
        state.wakeup.unref();
      }
      return false;
    }
    state.backoff = { ms: expired ? CRASH_BACKOFF.initialMs : Math.min(entry.ms * 2, CRASH_BACKOFF.maxMs), lastUpdate: finished };
    return true;
  }

  /** A new run of the container (a restart when it ran before): the kubelet's events, a fresh log, its process. */
  private start(w: Worker, pod: BoundPod, c: Container, key: string, init: boolean, fieldPath = fieldPathOf(c.name, init)): void {
    const before = w.rt.containers[key];
    const restartCount = before ? before.restartCount + 1 : 0;
    const last = terminatedOf(before);
    this.startEvents(pod, c, fieldPath);
    // A container that reads stdin (kubectl run -i) is reported Running at the kubelet's next relist, not at once: a
    // command that ends before then is reported terminated, and kubectl shows its log instead of attaching late.
    const unseenUntil = c['stdin'] === true ? Date.now() + PLEG_RELIST_MS : undefined;
    w.rt.containers[key] = {
      id: runtimeId(),
      restartCount,
      state: { running: { startedAt: k8sTime(Date.now()) } },
      ...(last ? { last } : {}),
      ...(unseenUntil !== undefined ? { unseenUntil } : {}),
    };
    if (unseenUntil !== undefined) setTimeout(() => this.kick(w), PLEG_RELIST_MS + 5).unref();
    this.run(w, pod, c, key, init, restartCount, false);
  }

  /**
   * Whether nothing but a stop can tell a restored container's program ran (docs/performance.md §2.16): an app
   * container without probes (they ask what it serves) or stdin, and no data plane to serve into.
   */
  private unobserved(c: Container, key: string, init: boolean): boolean {
    if (init || key !== c.name || this.options.sandboxes.netnsWhenAttached || this.options.network?.()) return false;
    return !hasProbes(c) && c['stdin'] !== true && c['tty'] !== true;
  }

  private logRef(w: Worker): LogRef {
    return { node: w.node, namespace: w.namespace, pod: w.name, uid: w.uid };
  }

  /** Runs the container's process for its current run; its end is recorded and the pod synced again. */
  private run(w: Worker, pod: BoundPod, c: Container, key: string, init: boolean, restart: number, resumed: boolean): void {
    const { logs } = this.options;
    const ref = this.logRef(w);
    const state = slot(w, key);
    state.io?.close();
    if (resumed && this.unobserved(c, key, init) && this.options.containers.resumesIdle?.({ pod, node: w.node, container: c })) {
      // A restored container whose program only waits for its stop (what start would answer: docs/performance.md §2.16)
      // gets no start, no streams, no closures; its streams are made when a session attaches (docs/performance.md §2.26).
      logs.resume(ref, c.name, restart);
      state.target = undefined;
      state.io = undefined;
      state.process = new IdleRun(this.idleRuns, w, state, c, key, restart, runningSince(w.rt.containers[key]));
      return;
    }
    if (resumed) logs.resume(ref, c.name, restart);
    else logs.begin(ref, c.name, restart);
    state.target = { kind: 'process' };
    const io = containerIo(logs, ref, c, restart);
    state.io = io;
    let process: Process;
    try {
      process = this.options.containers.start({
        pod,
        node: w.node,
        container: c,
        init,
        write: (stream, text) => io.write(stream, text),
        notice: (text) => io.notice(text),
        told: (text) => io.told(text),
        stdin: io.input,
        setReady: (ready) => this.setReady(w, key, restart, ready),
        netns: async () => this.options.sandboxes.netnsWhenAttached?.(w.namespace, w.name),
        event: (type, reason, message) => this.event(pod, type, reason, message, fieldPathOf(c.name, init, key)),
        probeTarget: (target) => {
          if (state.process !== undefined && state.process !== process) return;
          state.target = target;
          if (state.process === process && target.kind === 'listeners') this.prober.retrigger(w.uid, key);
        },
        ...(resumed ? { resumed: true } : {}),
        ...(resumed && this.unobserved(c, key, init) ? { resumedUnobserved: true } : {}),
      });
    } catch (e) {
      process = { exited: Promise.resolve(128), stop: () => {}, message: (e as Error).message ?? String(e) };
    }
    state.process = process;
    const run = w.rt.containers[key]!;
    const startedAt = runningSince(run);
    // A container without probes has no workers to start, nor had its runs before (a pod's probes do not change).
    if (!init && key === c.name && hasProbes(c)) {
      // Its probes start from scratch with each run (and after a restart of aksemu), as the kubelet's workers do.
      this.prober.started({
        uid: w.uid,
        key,
        container: c,
        node: w.node,
        id: run.id,
        startedAt: Date.parse(startedAt),
        podIp: () => w.rt.podIp,
        target: () => state.target ?? { kind: 'process' },
        programReady: () => w.rt.containers[key]?.ready !== false,
      });
    }
    void process.exited
      .catch((e) => {
        this.ctx.log(`kubelet ${w.node}: pod ${w.namespace}/${w.name}: container ${c.name}: ${(e as Error).stack ?? e}`);
        return 128;
      })
      .then((code) => this.ended(w, state, process, c, key, restart, startedAt, code));
  }

  /** A run's process ended (its status `code`): the run is recorded terminated, its streams and log closed, the pod synced. */
  private ended(w: Worker, state: Slot, process: Process, c: Container, key: string, restart: number, startedAt: string, code: number): void {
    if (state.process !== process) return;
    state.process = undefined;
    this.prober.stopped(w.uid, key);
    const now = Date.now();
    state.finished = now;
    state.io?.close();
    const ref = this.logRef(w);
    this.options.logs.end(ref, c.name, restart);
    const message = process.message ?? (code !== 0 && c.terminationMessagePolicy === 'FallbackToLogsOnError' ? this.logTail(ref, c.name, restart) : undefined);
    const current = w.rt.containers[key];
    if (current) {
      current.state = {
        terminated: {
          containerID: `containerd://${current.id}`,
          exitCode: code,
          finishedAt: k8sTime(now),
          ...(message ? { message } : {}),
          reason: code === 0 ? 'Completed' : 'Error',
          startedAt,
        },
      };
    }
    this.kick(w);
  }

  /** What an idle restored run (IdleRun) asks of the kubelet. */
  private readonly idleRuns: IdleRunHost = {
    ended: (run, code) => this.ended(run.w, run.state, run, run.c, run.key, run.restart, run.startedAt, code),
    streams: (run) => containerIo(this.options.logs, this.logRef(run.w), run.c, run.restart),
  };

  /**
   * The streams of a pod's running container (its current run), for `kubectl attach`; undefined when the pod
   * has no such container running here.
   */
  attach(namespace: string, name: string, container: string): ContainerIo | undefined {
    for (const w of this.workers.values()) {
      if (w.stopped || w.namespace !== namespace || w.name !== name) continue;
      // A container's name is unique across the pod's containers, init and ephemeral ones (kubectl debug -it).
      const s = w.slots?.get(container) ?? w.slots?.get(initKey(container)) ?? w.slots?.get(ephemeralKey(container));
      if (!s?.process) return undefined;
      // An idle restored run's streams are made at the first session (docs/performance.md §2.26).
      if (!s.io && s.process instanceof IdleRun) s.io = s.process.streams();
      return s.io;
    }
    return undefined;
  }

  /** A running container's program changed its readiness: the pod's Ready condition follows (for this run only). */
  private setReady(w: Worker, key: string, restart: number, ready: boolean): void {
    const run = w.rt.containers[key];
    if (w.stopped || this.closed || !run || run.restartCount !== restart || !('running' in run.state) || (run.ready ?? true) === ready) return;
    run.ready = ready;
    this.prober.retrigger(w.uid, key);
    this.write(w);
  }

  /**
   * A liveness or startup probe failed past its threshold (kuberuntime_manager computePodActions): the container
   * is killed with the kubelet's Killing event, and restarted as its restartPolicy and back-off say.
   */
  private probeFailed(w: Worker, key: string, type: 'Liveness' | 'Startup'): void {
    const pod = this.current(w);
    const s = w.slots?.get(key);
    if (!pod || !s?.process) return;
    const restart = (pod.spec?.restartPolicy ?? 'Always') !== 'Never';
    const message = `Container ${key} failed ${type.toLowerCase()} probe${restart ? ', will be restarted' : ''}`;
    this.event(pod, 'Normal', 'Killing', message, `spec.containers{${key}}`);
    s.process.stop();
  }

  private logTail(ref: LogRef, container: string, restart: number): string | undefined {
    const lines = (this.options.logs.read(ref, container, restart) ?? []).slice(-FALLBACK_LINES);
    const text = lines.map((l) => `${l.text}${l.partial ? '' : '\n'}`).join('');
    const bytes = Buffer.from(text);
    return bytes.length > FALLBACK_BYTES ? bytes.subarray(bytes.length - FALLBACK_BYTES).toString('utf8') : text || undefined;
  }

  /** Every container ended for good: the pod's phase is final and its sandbox is released (its address stays shown). */
  private end(w: Worker, phase: 'Succeeded' | 'Failed'): void {
    w.rt.phase = phase;
    this.write(w);
    this.releaseSandbox(w);
  }

  private releaseSandbox(w: Worker): void {
    if (!w.sandbox) return;
    const req = w.sandbox;
    w.sandbox = undefined;
    this.options.records.remove(req.node, req.uid);
    void this.tearDown(req);
  }

  /** Pulling / Pulled, Created, Started for one container, in the kubelet's words. */
  private startEvents(pod: BoundPod, c: Container, fieldPath: string): void {
    const image = String(c.image ?? '');
    let cache = this.images.get(pod.spec.nodeName);
    if (!cache) this.images.set(pod.spec.nodeName, (cache = new Set()));
    const normalized = normalizeImage(image);
    const present = cache.has(normalized) || preloaded(normalized);
    if (c.imagePullPolicy === 'Always' || (!present && c.imagePullPolicy !== 'Never')) {
      const started = Date.now();
      this.event(pod, 'Normal', 'Pulling', `Pulling image "${image}"`, fieldPath);
      cache.add(normalized);
      const took = goDuration(Date.now() - started);
      const size = 20_000_000 + (parseInt(createHash('sha1').update(normalized).digest('hex').slice(0, 8), 16) % 60_000_000);
      this.event(pod, 'Normal', 'Pulled', `Successfully pulled image "${image}" in ${took} (${took} including waiting). Image size: ${size} bytes.`, fieldPath);
    } else {
      this.event(pod, 'Normal', 'Pulled', `Container image "${image}" already present on machine`, fieldPath);
    }
    const colon = this.options.minor >= 33 ? ':' : '';
    this.event(pod, 'Normal', 'Created', `Created container${colon} ${c.name}`, fieldPath);
    this.event(pod, 'Normal', 'Started', `Started container ${c.name}`, fieldPath);
  }

  private async setUp(req: SandboxRequest): Promise<SandboxResult> {
    try {
      return await this.options.sandboxes.setUp(req);
    } catch (e) {
      return { ok: false, message: (e as Error).message ?? String(e) };
    }
  }

  private async tearDown(req: SandboxRequest): Promise<void> {
    // With pod files the whole pod directory goes, the containers' filesystems with it.
    if (this.options.podFiles) this.options.podFiles.remove(req.node, req.uid);
    else if (this.options.nodeRoot)
      void removeContainerFilesystems(this.options.nodeRoot(req.node), req.uid).catch((e: unknown) =>
        this.ctx.log(`kubelet ${req.node}: removing the container filesystems of ${req.namespace}/${req.name}: ${(e as Error).message ?? e}`),
      );
    try {
      await this.options.sandboxes.tearDown(req);
    } catch (e) {
      this.ctx.log(`kubelet ${req.node}: tearing down the sandbox of ${req.namespace}/${req.name}: ${(e as Error).message ?? e}`);
    }
  }

  private stop(w: Worker): void {
    // Its sandbox is known (and its address claimed) before it is released.
    if (w.unrestored) this.restoreNode(w.node);
    w.stopped = true;
    clearTimeout(w.timer);
    this.workers.delete(w.uid);
    this.onNode.get(w.node)?.delete(w);
    if (this.onNode.get(w.node)?.size === 0) this.onNode.delete(w.node);
    this.ctx.events.forget(w.uid);
    this.prober.podGone(w.uid);
    stopAll(w);
    this.options.logs.remove(this.logRef(w));
    this.releaseSandbox(w);
  }

  /**
   * The node booted again (a reimage: a network migration, docs/aks-rules.md §2.6): its containers and sandboxes are
   * gone, so each pod is made again on it, with a sandbox and an address from its node's network as it is now.
   */
  private rebooted(node: string): void {
    for (const w of [...(this.onNode.get(node) ?? [])]) {
      const pod = this.current(w);
      this.stop(w);
      if (!pod || pod.metadata.deletionTimestamp) continue;
      this.event(pod, 'Normal', 'SandboxChanged', 'Pod sandbox changed, it will be killed and re-created.');
      this.kick(this.add(pod));
    }
  }

  /** The VM is gone: so are its pods (no grace: nothing is left to stop them). */
  private nodeGone(node: string): void {
    this.images.delete(node);
    this.prober.nodeGone(node);
    for (const pod of this.ctx.index.podsOn(node)) this.ctx.objects.delete(PODS, pod.metadata.namespace, pod.metadata.name);
  }

  /** Resolves once the pods' files queued before the close are written (the home may be removed next). */
  settled(): Promise<void> {
    return this.options.podFiles?.settled() ?? Promise.resolve();
  }

  close(): void {
    this.closed = true;
    this.prober.close();
    this.options.podFiles?.close();
    for (const w of this.workers.values()) {
      clearTimeout(w.timer);
      // The processes die with the server; their logs stay for the next start.
      stopAll(w);
    }
  }
}

/** The kubelet's fieldPath of a container in its events: spec.containers{c}, spec.initContainers{c}, spec.ephemeralContainers{c}. */
function fieldPathOf(name: string, init: boolean, key = name): string {
  if (key === ephemeralKey(name)) return `spec.ephemeralContainers{${name}}`;
  return `spec.${init ? 'initContainers' : 'containers'}{${name}}`;
}

/** What a restored pod's network rebuild reports to: the kubelet's, one for all its pods. */
interface ReportHost {
  closed(): boolean;
  failed(w: Worker, message: string): void;
  changed(w: Worker, ip: string, why: string): void;
}

/** A restored pod's RestoreReport: one object per pod, its methods shared (a restart restores tens of thousands). */
class RestoredReport implements RestoreReport {
  constructor(
    private readonly host: ReportHost,
    private readonly w: Worker,
  ) {}

  gone(): boolean {
    return this.w.stopped || this.host.closed();
  }

  failed(message: string): void {
    this.host.failed(this.w, message);
  }

  changed(ip: string, why: string): void {
    this.host.changed(this.w, ip, why);
  }
}

/** Whether the container names a probe (the prober starts workers only for those it names: probe-spec.ts). */
function hasProbes(c: Container): boolean {
  return c['livenessProbe'] != null || c['readinessProbe'] != null || c['startupProbe'] != null;
}

/** A Node's boot ID: a new one means the node booted again. */
function bootIdOf(node: KubeObject): string | undefined {
  return (node as { status?: { nodeInfo?: { bootID?: string } } }).status?.nodeInfo?.bootID;
}

/** The items with one of each namespace in turn (the first of each, then the second of each, …), each namespace's in order. */
export function byNamespaceInTurn<T>(items: readonly T[], namespaceOf: (item: T) => string): T[] {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const ns = namespaceOf(item);
    const group = groups.get(ns);
    if (group) group.push(item);
    else groups.set(ns, [item]);
  }
  const out: T[] = [];
  for (let i = 0; out.length < items.length; i++) for (const group of groups.values()) if (i < group.length) out.push(group[i]!);
  return out;
}
