// A controller's work queue: keys added while handling changes are deduplicated and handled together on
// the next turn of the event loop, so a burst of changes costs one reconcile per key, and a controller's
// own writes (which notify synchronously) never re-enter it. A drain handles keys for the runtime's slice of the
// turn (apimachinery/turns.ts) and leaves the rest, in order and ahead of keys added since, for the next turn, so that
// requests are read in between. A key whose work failed comes back after
// client-go's controller back-off (5 ms doubling per failure, at most 1000 s) until it is forgotten.
import { objectKey, type KubeObject } from '../apimachinery/object.js';
import type { Change } from '../apiserver/index.js';
import type { ResourceType } from '../apimachinery/resources.js';
import type { Controller } from './context.js';
import { controllerRef } from './pod-state.js';
import { KubeError } from '../apimachinery/status.js';
import { turns } from '../apimachinery/turns.js';

/** workqueue.DefaultControllerRateLimiter's per-item exponential back-off. */
const BACKOFF_BASE_MS = 5;
const BACKOFF_MAX_MS = 1000 * 1000;

export class WorkQueue {
  private keys = new Set<string>();
  private scheduled: NodeJS.Immediate | undefined;
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
    for (let i = 0; i < batch.length; i++) {
      if (this.closed) return;
      // At least one key a drain: a turn never leaves the queue where it was.
      if (turns.spent() && i > 0) return this.putOff(batch, i);
      const key = batch[i]!;
      try {
        this.handle(key);
      } catch (e) {
        this.onError(key, e);
      }
    }
  }

  /** The batch's keys from `from` on go first on the next turn; a key added again since is handled once, there. */
  private putOff(batch: string[], from: number): void {
    const rest = new Set(batch.slice(from));
    for (const key of this.keys) rest.add(key);
    this.keys = rest;
    this.scheduled ??= setImmediate(() => this.drain());
  }

  close(): void {
    this.closed = true;
    if (this.scheduled) clearImmediate(this.scheduled);
    this.keys.clear();
    for (const t of this.later.values()) clearTimeout(t);
    this.later.clear();
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
    this.queue.add(objectKey(obj.metadata.namespace, name));
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
