// A controller's work queue: keys added while handling changes are deduplicated and handled together on
// the next turn of the event loop, so a burst of changes costs one reconcile per key, and a controller's
// own writes (which notify synchronously) never re-enter it.
import type { KubeObject } from '../objects/object.js';
import type { ResourceType } from '../resources.js';

export class WorkQueue {
  private readonly keys = new Set<string>();
  private scheduled: NodeJS.Immediate | undefined;
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

  private drain(): void {
    this.scheduled = undefined;
    const batch = [...this.keys];
    this.keys.clear();
    for (const key of batch) {
      if (this.closed) return;
      try {
        this.handle(key);
      } catch (e) {
        this.onError(key, e);
      }
    }
  }

  close(): void {
    this.closed = true;
    if (this.scheduled) clearImmediate(this.scheduled);
    this.keys.clear();
  }
}

export function nsKey(namespace: string | undefined, name: string): string {
  return `${namespace ?? ''}/${name}`;
}

export function splitKey(key: string): [string, string] {
  const i = key.indexOf('/');
  return [key.slice(0, i), key.slice(i + 1)];
}

/** What the namespaced controllers share: one queue of `namespace/name` keys of their primary resource. */
export abstract class KeyedController {
  readonly queue: WorkQueue;

  constructor(
    protected readonly ctx: { objects: { list(r: ResourceType): KubeObject[] }; log(line: string): void },
    private readonly primary: ResourceType,
    label: string,
  ) {
    this.queue = new WorkQueue((key) => this.reconcile(key), (key, e) => ctx.log(`${label} ${key}: ${(e as Error).stack ?? e}`));
  }

  protected enqueue(obj: KubeObject, name = obj.metadata.name): void {
    this.queue.add(nsKey(obj.metadata.namespace, name));
  }

  resync(): void {
    for (const o of this.ctx.objects.list(this.primary)) this.enqueue(o);
  }

  abstract reconcile(key: string): void;
}
