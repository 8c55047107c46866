// The kubelet's pod lifecycle on every node: a pod bound to a node gets a sandbox from the runtime (its
// network: an address from the plugin's pool, or the node's own for host-network pods), then its init
// containers run, then its containers start and the pod is Running and Ready. A sandbox failure leaves the
// pod ContainerCreating with the kubelet's FailedCreatePodSandBox event and is retried with back-off; pods
// needing the pod network wait (NetworkNotReady) while the node's CNI is not ready. Deleted pods release
// their sandbox; the pods of a node that goes away are deleted. After a restart, running pods are restored
// from the runtime's sandbox records instead of being set up again.
import { createHash } from 'node:crypto';
import { deletionDue, type KubeObject } from '../objects/object.js';
import type { BoundPod, Container, Node, Pod, RunningPod } from '../objects/types.js';
import { resourceKey, type Change } from '../objects/store.js';
import { NOT_READY_MESSAGE } from '../objects/nodes.js';
import { k8sTime } from '../time.js';
import type { Controller, ControllerContext } from './context.js';
import { resumePodDeletion } from './pod-deletion.js';
import { isTerminal } from './indexes.js';
import { NODES, PODS } from '../resources.js';
import { runtimeId } from './names.js';
import { normalizeImage, podStatus, type PodRuntime } from './pod-status.js';
import type { SandboxRecords } from './runtime-state.js';
import type { InitContainerRunner, PodSandboxes, SandboxRequest, SandboxResult } from './sandbox.js';

/** Longest wait between sandbox or init container retries (the kubelet's back-off is bounded too). */
export const MAX_BACKOFF_MS = 10_000;

export interface LifecycleOptions {
  sandboxes: PodSandboxes;
  initRunner: InitContainerRunner;
  records: SandboxRecords;
  /** The kubelet's minor version: event wording changed over time. */
  minor: number;
  /** Sandboxes set up at once per cluster (each may run CNI plugins). */
  concurrency?: number;
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
}

function internalIp(node: KubeObject): string {
  return ((node as Node).status?.addresses ?? []).find((a) => a.type === 'InternalIP')?.address ?? '';
}

function nodeReady(node: KubeObject): boolean {
  return ((node as Node).status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

/** Go's time.Duration text at millisecond precision: 850ms, 1.234s. */
function goDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))}ms`;
  return `${(ms / 1000).toFixed(3).replace(/\.?0+$/, '')}s`;
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

  constructor(
    private readonly ctx: ControllerContext,
    private readonly options: LifecycleOptions,
  ) {
    this.limiter = new Limiter(options.concurrency ?? 16);
  }

  observe(change: Change): void {
    if (change.resource === resourceKey(NODES)) {
      const name = change.object.metadata.name;
      if (change.type === 'DELETED') this.nodeGone(name);
      else for (const w of this.onNode.get(name) ?? []) if (!w.sandbox && !w.timer) this.kick(w);
      return;
    }
    if (change.resource !== resourceKey(PODS)) return;
    const pod = change.object as Pod;
    const uid = String(pod.metadata.uid);
    if (change.type === 'DELETED') {
      const w = this.workers.get(uid);
      if (w) this.stop(w);
      return;
    }
    if (!pod.spec?.nodeName || isTerminal(pod) || pod.metadata.deletionTimestamp || this.workers.has(uid)) return;
    this.kick(this.add(pod as BoundPod));
  }

  /** After a start (objects restored, nodes synced): finish what was in flight before the stop. */
  resync(): void {
    const { objects } = this.ctx;
    const pods = objects.list(PODS);
    const uids = new Set(pods.map((p) => String(p.metadata.uid)));
    for (const { node, record } of this.options.records.all()) {
      if (uids.has(record.uid)) continue;
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
      if (pod.status?.phase === 'Running' && pod.status?.podIP) this.restore(w, pod as RunningPod);
      else fresh.push(w);
    }
    // Addresses of running pods are marked taken before any new sandbox asks for one.
    for (const w of fresh) this.kick(w);
  }

  private add(pod: BoundPod): Worker {
    const w: Worker = {
      uid: String(pod.metadata.uid),
      namespace: pod.metadata.namespace!,
      name: pod.metadata.name,
      node: pod.spec.nodeName,
      rt: { hostIp: pod.status?.hostIP ?? '', startTime: pod.status?.startTime ?? k8sTime(Date.now()), init: 'pending' },
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

  private restore(w: Worker, pod: RunningPod): void {
    const hostNetwork = Boolean(pod.spec?.hostNetwork);
    const record = this.options.records.load(w.node, w.uid);
    w.sandbox = { namespace: w.namespace, name: w.name, uid: w.uid, node: w.node, hostNetwork, sandboxId: record?.sandboxId ?? runtimeId() };
    if (!record) this.options.records.save(w.node, { ...w.sandbox, ip: pod.status.podIP });
    if (!hostNetwork) this.options.sandboxes.restore(w.sandbox, pod.status.podIP);
    const ids: Record<string, string> = {};
    for (const s of [...(pod.status.containerStatuses ?? []), ...(pod.status.initContainerStatuses ?? []).map((s) => ({ ...s, name: `init:${s.name}` }))]) {
      const id = String(s.containerID ?? '').replace(/^containerd:\/\//, '');
      if (id) ids[s.name] = id;
    }
    const startedAt = (pod.status.containerStatuses ?? [])[0]?.state?.running?.startedAt ?? pod.status.startTime;
    w.rt = { hostIp: pod.status.hostIP, startTime: pod.status.startTime, podIp: pod.status.podIP, init: 'done', running: { startedAt, ids } };
  }

  /** The worker's pod, bound to its node, unless it went (or another of its name replaced it). */
  private current(w: Worker): BoundPod | undefined {
    const pod = this.ctx.objects.get(PODS, w.namespace, w.name) as BoundPod | undefined;
    return pod && String(pod.metadata.uid) === w.uid ? pod : undefined;
  }

  private kick(w: Worker): void {
    if (w.stopped || this.closed) return;
    if (w.busy) {
      w.again = true;
      return;
    }
    if (w.timer) return;
    w.busy = true;
    void this.step(w)
      .catch((e) => this.ctx.log(`kubelet ${w.node}: pod ${w.namespace}/${w.name}: ${(e as Error).stack ?? e}`))
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
    const status = podStatus(pod, w.rt, Date.now());
    return this.ctx.objects.put(PODS, { ...pod, status }, { onlyIfChanged: true }) as BoundPod;
  }

  private event(pod: BoundPod, type: 'Normal' | 'Warning', reason: string, message: string, fieldPath?: string): void {
    this.ctx.events.record(pod, { type, reason, message, component: 'kubelet', host: pod.spec?.nodeName, ...(fieldPath ? { fieldPath } : {}) });
  }

  private async step(w: Worker): Promise<void> {
    const node = this.ctx.objects.get(NODES, undefined, w.node);
    let pod = this.current(w);
    if (!pod || !node || pod.metadata.deletionTimestamp || w.rt.running) return;
    w.rt.hostIp = internalIp(node);
    if (!w.sandbox) {
      const hostNetwork = Boolean(pod.spec?.hostNetwork);
      if (!hostNetwork && !nodeReady(node)) {
        pod = this.write(w);
        if (pod && !w.networkWarned) this.event(pod, 'Warning', 'NetworkNotReady', `network is not ready: ${NOT_READY_MESSAGE}`);
        w.networkWarned = true;
        return;
      }
      this.write(w);
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
      pod = this.write(w) ?? pod;
    }
    const inits = pod.spec?.initContainers ?? [];
    const ids: Record<string, string> = {};
    if (w.rt.init !== 'done' && inits.length > 0) {
      if (w.rt.init === 'pending') for (const c of inits) this.startEvents(pod, c, `spec.initContainers{${c.name}}`);
      const error = await this.runInit(pod);
      if (w.stopped || this.closed) return;
      pod = this.current(w);
      if (!pod) return;
      if (error !== undefined) {
        w.attempts++;
        const restarts = typeof w.rt.init === 'object' ? w.rt.init.restarts + 1 : 0;
        w.rt.init = { error, restarts };
        this.write(w);
        this.event(
          pod,
          'Warning',
          'BackOff',
          `Back-off restarting failed container ${inits[0].name} in pod ${pod.metadata.name}_${pod.metadata.namespace}(${w.uid})`,
          `spec.initContainers{${inits[0].name}}`,
        );
        this.later(w);
        return;
      }
      for (const c of inits) ids[`init:${c.name}`] = runtimeId();
    }
    w.rt.init = 'done';
    w.attempts = 0;
    for (const c of pod.spec?.containers ?? []) {
      this.startEvents(pod, c, `spec.containers{${c.name}}`);
      ids[c.name] = runtimeId();
    }
    w.rt.running = { startedAt: k8sTime(Date.now()), ids };
    this.write(w);
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
    try {
      await this.options.sandboxes.tearDown(req);
    } catch (e) {
      this.ctx.log(`kubelet ${req.node}: tearing down the sandbox of ${req.namespace}/${req.name}: ${(e as Error).message ?? e}`);
    }
  }

  private async runInit(pod: BoundPod): Promise<string | undefined> {
    try {
      return await this.options.initRunner.run(pod, pod.spec.nodeName);
    } catch (e) {
      return (e as Error).message ?? String(e);
    }
  }

  private stop(w: Worker): void {
    w.stopped = true;
    clearTimeout(w.timer);
    this.workers.delete(w.uid);
    this.onNode.get(w.node)?.delete(w);
    if (this.onNode.get(w.node)?.size === 0) this.onNode.delete(w.node);
    this.ctx.events.forget(w.uid);
    if (w.sandbox) {
      const req = w.sandbox;
      w.sandbox = undefined;
      this.options.records.remove(req.node, req.uid);
      void this.tearDown(req);
    }
  }

  /** The VM is gone: so are its pods (no grace: nothing is left to stop them). */
  private nodeGone(node: string): void {
    this.images.delete(node);
    for (const pod of this.ctx.index.podsOn(node)) this.ctx.objects.delete(PODS, pod.metadata.namespace, pod.metadata.name);
  }

  close(): void {
    this.closed = true;
    for (const w of this.workers.values()) clearTimeout(w.timer);
  }
}
