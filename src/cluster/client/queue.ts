// A controller's work queue: keys added while handling changes are deduplicated and handled together on
// the next turn of the event loop, so a burst of changes costs one reconcile per key, and a controller's
// own writes (which notify synchronously) never re-enter it. A key whose work failed comes back after
// client-go's controller back-off (5 ms doubling per failure, at most 1000 s) until it is forgotten.
import { performance } from 'node:perf_hooks';
import { objectKey, type KubeObject } from '../apimachinery/object.js';
import type { Change } from '../apiserver/index.js';
import type { ResourceType } from '../apimachinery/resources.js';
import { type Controller, controllerRef } from './context.js';
import { KubeError } from '../apimachinery/status.js';

/** workqueue.DefaultControllerRateLimiter's per-item exponential back-off. */
const BACKOFF_BASE_MS = 5;
const BACKOFF_MAX_MS = 1000 * 1000;

/**
 * A key whose handling took at least COSTLY_MS (a DaemonSet's sync over thousands of nodes and pods) is
 * handled again for a change (addPaced) no sooner than REST times that later: its pods' status changes, one
 * or more every turn while a pool's pods start, would otherwise have it scan everything every turn. Its own
 * next batch of pods (add) does not wait, nor a back-off's retry.
 */
const COSTLY_MS = 2;
const REST = 9;
/** A rest is never longer than this (ms): a sync that created a batch of 256 pods is costly for its creations. */
const MAX_REST_MS = 200;

export class WorkQueue {
  private readonly keys = new Set<string>();
  private scheduled: NodeJS.Immediate | undefined;
  /** Costly keys: when each may be handled again for a change (performance.now()), and the timers that add them then. */
  private readonly resting = new Map<string, number>();
  private readonly waking = new Map<string, NodeJS.Timeout>();
  private readonly failures = new Map<string, number>();
  private readonly later = new Map<string, NodeJS.Timeout>();
  private closed = false;

  constructor(
    private readonly handle: (key: string) => void,
    private readonly onError: (key: string, e: unknown) => void,
  ) {}

  add(key: string): void {
    if (this.closed) return;
    this.keys.add(key);
    this.scheduled ??= setImmediate(() => this.drain());
  }

  /** add() for a change seen: a costly key that has not rested yet is added once it has. */
  addPaced(key: string): void {
    if (this.closed || this.keys.has(key) || this.waking.has(key)) return;
    const due = this.resting.get(key);
    if (due !== undefined) {
      const wait = due - performance.now();
      if (wait > 0) {
        this.waking.set(
          key,
          setTimeout(() => {
            this.waking.delete(key);
            this.add(key);
          }, Math.ceil(wait)).unref(),
        );
        return;
      }
      this.resting.delete(key);
    }
    this.add(key);
  }

  /** Adds key again after its back-off (longer with each failure since it was last forgotten). */
  retry(key: string): void {
    if (this.closed || this.later.has(key)) return;
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    const delay = Math.min(BACKOFF_BASE_MS * 2 ** n, BACKOFF_MAX_MS);
    this.later.set(
      key,
      setTimeout(() => {
        this.later.delete(key);
        this.add(key);
      }, delay).unref(),
    );
  }

  /** Whether key waits for its back-off. */
  backingOff(key: string): boolean {
    return this.later.has(key);
  }

  /** key's work succeeded: its next failure starts the back-off afresh. */
  forget(key: string): void {
    this.failures.delete(key);
  }

  private drain(): void {
    this.scheduled = undefined;
    const batch = [...this.keys];
    this.keys.clear();
    for (const key of batch) {
      if (this.closed) return;
      const start = performance.now();
      try {
        this.handle(key);
      } catch (e) {
        this.onError(key, e);
      }
      const now = performance.now();
      if (now - start >= COSTLY_MS) this.resting.set(key, now + Math.min(REST * (now - start), MAX_REST_MS));
      else if (this.resting.size > 0) this.resting.delete(key);
    }
  }

  close(): void {
    this.closed = true;
    if (this.scheduled) clearImmediate(this.scheduled);
    this.keys.clear();
    for (const t of this.later.values()) clearTimeout(t);
    this.later.clear();
    for (const t of this.waking.values()) clearTimeout(t);
    this.waking.clear();
    this.resting.clear();
  }
}

export function splitKey(key: string): [string, string] {
  const i = key.indexOf('/');
  return [key.slice(0, i), key.slice(i + 1)];
}

/** What the namespaced controllers share: one queue of `namespace/name` keys of their primary resource. */
export abstract class KeyedController implements Controller {
  readonly queue: WorkQueue;

  constructor(
    protected readonly ctx: { objects: { list(r: ResourceType): KubeObject[] }; log(line: string): void },
    private readonly primary: ResourceType,
    label: string,
  ) {
    this.queue = new WorkQueue(
      (key) => this.reconcile(key),
      (key, e) => {
        // A write the cluster refused (it is full, the namespace is going): said in a line, tried again later.
        if (!(e instanceof KubeError)) return ctx.log(`${label} ${key}: ${(e as Error).stack ?? e}`);
        ctx.log(`${label} ${key}: ${e.message}`);
        this.queue.retry(key);
      },
    );
  }

  protected enqueue(obj: KubeObject, name = obj.metadata.name): void {
    this.queue.addPaced(objectKey(obj.metadata.namespace, name));
  }

  /** Enqueues the object's controller when it is a `kind` (a ReplicaSet's pods, a Deployment's ReplicaSets). */
  protected enqueueController(obj: KubeObject | undefined, kind: string): void {
    const ref = obj && controllerRef(obj);
    if (obj && ref?.kind === kind) this.enqueue(obj, ref.name);
  }

  resync(): void {
    for (const o of this.ctx.objects.list(this.primary)) this.enqueue(o);
  }

  abstract observe(change: Change): void;

  abstract reconcile(key: string): void;

  close(): void {
    this.queue.close();
  }
}
