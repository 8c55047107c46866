// An in-memory AgentClient for agent programs' unit tests: objects by API path, merge patches, status
// subresources, finalizers holding deleted objects, a namespace's deletion taking its objects, and watches.
import type { AgentClient } from '../../../src/cluster/client/agent-client.js';
import type { KubeObject } from '../../../src/cluster/apimachinery/object.js';

type Obj = Record<string, unknown>;

function merge(target: unknown, patch: unknown): unknown {
  if (!patch || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out: Obj = target && typeof target === 'object' && !Array.isArray(target) ? { ...(target as Obj) } : {};
  for (const [k, v] of Object.entries(patch as Obj)) {
    if (v === null) delete out[k];
    else out[k] = merge(out[k], v);
  }
  return out;
}

export class FakeApi implements AgentClient {
  private readonly objects = new Map<string, KubeObject>();
  private readonly watchers = new Set<{ prefix: string; fn: (type: string, o: KubeObject) => void }>();
  private uid = 0;
  private rv = 0;

  private emit(type: string, path: string, o: KubeObject): void {
    const collection = path.slice(0, path.lastIndexOf('/'));
    for (const w of this.watchers) if (collection === w.prefix) w.fn(type, o);
  }

  private store(path: string, o: KubeObject, type: string): KubeObject {
    const next = structuredClone(o);
    next.metadata.resourceVersion = String(++this.rv);
    this.objects.set(path, next);
    this.emit(type, path, next);
    return structuredClone(next);
  }

  private remove(path: string): void {
    const o = this.objects.get(path);
    if (!o) return;
    this.objects.delete(path);
    this.emit('DELETED', path, o);
    // A namespace takes its objects with it (the namespace controller, without waiting here).
    if (o.kind === 'Namespace') for (const p of [...this.objects.keys()]) if (p.includes(`/namespaces/${o.metadata.name}/`)) this.remove(p);
  }

  /** Test set-up: stores an object into a collection. */
  put(collection: string, o: KubeObject): void {
    this.create(collection, o);
  }

  setStatus(path: string, status: Obj): void {
    const o = this.objects.get(path);
    if (o) this.store(path, { ...o, status }, 'MODIFIED');
  }

  markDeleted(path: string): void {
    this.delete(path);
  }

  request(method: string, path: string, body?: unknown): { status: number; body: unknown } {
    if (method === 'PUT' && path.endsWith('/status')) {
      const item = path.slice(0, -'/status'.length);
      const o = this.objects.get(item);
      if (!o) return { status: 404, body: {} };
      return { status: 200, body: this.store(item, { ...o, status: (body as Obj)['status'] }, 'MODIFIED') };
    }
    return { status: 405, body: {} };
  }

  get(path: string): KubeObject | undefined {
    const o = this.objects.get(path);
    return o ? structuredClone(o) : undefined;
  }

  list(path: string, labelSelector?: string): KubeObject[] {
    const wanted = (labelSelector ?? '')
      .split(',')
      .filter(Boolean)
      .map((kv) => kv.split('='));
    return [...this.objects.entries()]
      .filter(([p]) => p.slice(0, p.lastIndexOf('/')) === path)
      .map(([, o]) => structuredClone(o))
      .filter((o) => wanted.every(([k, v]) => o.metadata.labels?.[k!] === v));
  }

  create(path: string, object: unknown): { object?: KubeObject; status: number; error?: unknown } {
    const o = structuredClone(object) as KubeObject;
    const item = `${path}/${o.metadata.name}`;
    if (this.objects.has(item)) return { status: 409, error: { reason: 'AlreadyExists' } };
    o.metadata.uid = `uid-${++this.uid}`;
    o.metadata.generation = 1;
    return { object: this.store(item, o, 'ADDED'), status: 201 };
  }

  update(path: string, object: unknown): { object?: KubeObject; status: number; error?: unknown } {
    const before = this.objects.get(path);
    if (!before) return { status: 404, error: { reason: 'NotFound' } };
    const o = structuredClone(object) as KubeObject;
    o.metadata.generation = (before.metadata.generation ?? 1) + 1;
    return { object: this.store(path, o, 'MODIFIED'), status: 200 };
  }

  patch(path: string, patch: unknown): { object?: KubeObject; status: number; error?: unknown } {
    const before = this.objects.get(path);
    if (!before) return { status: 404, error: { reason: 'NotFound' } };
    const next = merge(before, patch) as KubeObject;
    const f = next.metadata['finalizers'];
    if (next.metadata.deletionTimestamp && (!Array.isArray(f) || f.length === 0)) {
      this.remove(path);
      return { object: next, status: 200 };
    }
    return { object: this.store(path, next, 'MODIFIED'), status: 200 };
  }

  delete(path: string): number {
    const o = this.objects.get(path);
    if (!o) return 404;
    const f = o.metadata['finalizers'];
    if (Array.isArray(f) && f.length > 0) {
      if (!o.metadata.deletionTimestamp) this.store(path, { ...o, metadata: { ...o.metadata, deletionTimestamp: new Date().toISOString() } }, 'MODIFIED');
      return 200;
    }
    this.remove(path);
    return 200;
  }

  watch(path: string, onEvent: (type: string, object: KubeObject) => void): () => void {
    const w = { prefix: path, fn: onEvent };
    this.watchers.add(w);
    return () => this.watchers.delete(w);
  }
}

/** The first container image of a calico-system workload. */
export function imageOf(api: FakeApi, kind: 'deployments' | 'daemonsets', name: string): string | undefined {
  const o = api.get(`/apis/apps/v1/namespaces/calico-system/${kind}/${name}`);
  return (o?.['spec'] as { template: { spec: { containers: Array<{ image: string }> } } } | undefined)?.template.spec.containers[0]?.image;
}
