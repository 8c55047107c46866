// Stand-ins for what the node runtime gives a catalogue program (program.ts), for testing a CNI agent's programs
// on their own: an in-memory AgentClient (objects by API path, resourceVersion conflicts, watches) and
// ContainerFiles mapping hostPath mounts onto a node root directory (other paths live in memory, as an emptyDir).
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { AgentClient } from '../../src/cluster/client/agent-client.js';
import type { ContainerFiles, ProgramContext } from '../../src/cluster/images/program.js';
import type { KubeObject } from '../../src/cluster/apimachinery/object.js';

/** Collection path and name of an object path: /apis/g/v/ns/x/plural/name → [/apis/g/v/ns/x/plural, name]. */
function split(path: string): [string, string] {
  const i = path.lastIndexOf('/');
  return [path.slice(0, i), decodeURIComponent(path.slice(i + 1))];
}

export class FakeApi implements AgentClient {
  readonly objects = new Map<string, Map<string, KubeObject>>();
  private readonly watchers = new Map<string, Set<(type: string, o: KubeObject) => void>>();
  private rv = 1;
  /** Collections that answer 404 until created (a CRD's, before it is registered). */
  readonly missing = new Set<string>();

  private coll(path: string): Map<string, KubeObject> {
    let c = this.objects.get(path);
    if (!c) this.objects.set(path, (c = new Map()));
    return c;
  }

  private notify(path: string, type: string, o: KubeObject): void {
    for (const [p, set] of this.watchers)
      if (path === p || (p.startsWith('/apis/') && path.endsWith(p.slice(p.lastIndexOf('/'))))) for (const f of set) f(type, structuredClone(o));
  }

  put(path: string, o: KubeObject): KubeObject {
    const stored = structuredClone(o);
    stored.metadata.resourceVersion = String(++this.rv);
    stored.metadata.uid ??= `uid-${this.rv}`;
    stored.metadata.creationTimestamp ??= new Date().toISOString();
    const existed = this.coll(path).has(o.metadata.name);
    this.coll(path).set(o.metadata.name, stored);
    this.notify(path, existed ? 'MODIFIED' : 'ADDED', stored);
    return structuredClone(stored);
  }

  request(method: string, path: string): { status: number; body: unknown } {
    if (method === 'GET' && [...this.missing].some((m) => path.startsWith(m))) return { status: 404, body: {} };
    return { status: 200, body: {} };
  }

  get(path: string): KubeObject | undefined {
    const [c, name] = split(path);
    const o = this.objects.get(c)?.get(name);
    return o ? structuredClone(o) : undefined;
  }

  list(path: string): KubeObject[] {
    // A cluster-wide list of a namespaced kind (/apis/g/v/plural) gathers every namespace's.
    const out: KubeObject[] = [];
    for (const [p, c] of this.objects)
      if (p === path || (p.endsWith(`/${path.split('/').pop()}`) && p.includes('/namespaces/') && !path.includes('/namespaces/'))) out.push(...c.values());
    return structuredClone(out);
  }

  create(path: string, object: unknown): { object?: KubeObject; status: number; error?: unknown } {
    if (this.missing.has(path)) return { status: 404 };
    const o = object as KubeObject;
    if (this.coll(path).has(o.metadata.name)) return { status: 409, error: 'AlreadyExists' };
    if (path === '/apis/apiextensions.k8s.io/v1/customresourcedefinitions') {
      // The CRD's kind is served from now on (the API server's CRD controller, at once here).
      const spec = (o as { spec?: { group?: string; versions?: Array<{ name?: string }>; names?: { plural?: string } } }).spec;
      this.missing.delete(`/apis/${spec?.group}/${spec?.versions?.[0]?.name}/${spec?.names?.plural}`);
    }
    return { object: this.put(path, o), status: 201 };
  }

  update(path: string, object: unknown): { object?: KubeObject; status: number; error?: unknown } {
    const [c, name] = split(path);
    const cur = this.objects.get(c)?.get(name);
    const o = object as KubeObject;
    if (!cur) return { status: 404 };
    if (o.metadata.resourceVersion !== undefined && o.metadata.resourceVersion !== cur.metadata.resourceVersion) return { status: 409, error: 'Conflict' };
    return { object: this.put(c, o), status: 200 };
  }

  patch(path: string, patch: unknown): { object?: KubeObject; status: number; error?: unknown } {
    const cur = this.get(path);
    if (!cur) return { status: 404 };
    const merged = merge(cur, patch) as KubeObject;
    return { object: this.put(split(path)[0], merged), status: 200 };
  }

  delete(path: string): number {
    const [c, name] = split(path);
    const o = this.objects.get(c)?.get(name);
    if (!o) return 404;
    this.objects.get(c)?.delete(name);
    this.notify(c, 'DELETED', o);
    return 200;
  }

  watch(path: string, onEvent: (type: string, object: KubeObject) => void): () => void {
    let set = this.watchers.get(path);
    if (!set) this.watchers.set(path, (set = new Set()));
    set.add(onEvent);
    return () => set.delete(onEvent);
  }
}

function merge(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> = target !== null && typeof target === 'object' && !Array.isArray(target) ? { ...(target as object) } : {};
  for (const [k, v] of Object.entries(patch)) out[k] = v === null ? undefined : merge(out[k], v);
  return out;
}

/** Container files: hostPath mounts (container path → node path) onto nodeRoot, the rest in memory. */
export function fakeFiles(nodeRoot: string, mounts: Record<string, string>, installed: string[] = []): ContainerFiles {
  const memory = new Map<string, string>();
  const host = (p: string): string | undefined => {
    for (const [c, h] of Object.entries(mounts)) if (p === c || p.startsWith(`${c}/`)) return join(nodeRoot, h, p.slice(c.length));
    return undefined;
  };
  return {
    read: (p) => {
      const h = host(p);
      if (h) return existsSync(h) ? readFileSync(h, 'utf8') : undefined;
      return memory.get(p);
    },
    write: (p, content) => {
      const h = host(p);
      if (!h) return void memory.set(p, content);
      mkdirSync(dirname(h), { recursive: true });
      writeFileSync(`${h}.tmp`, content);
      renameSync(`${h}.tmp`, h);
    },
    remove: (p) => {
      const h = host(p);
      if (h) rmSync(h, { recursive: true, force: true });
      else for (const k of [...memory.keys()]) if (k === p || k.startsWith(`${p}/`)) memory.delete(k);
    },
    list: (p) => {
      const h = host(p);
      if (h) return existsSync(h) ? readdirSync(h) : [];
      const prefix = `${p}/`;
      return [...new Set([...memory.keys()].filter((k) => k.startsWith(prefix)).map((k) => k.slice(prefix.length).split('/')[0] ?? ''))];
    },
    host,
    installImageFile: (imagePath, p) => {
      installed.push(`${imagePath} -> ${p}`);
      const h = host(p);
      if (h) {
        mkdirSync(dirname(h), { recursive: true });
        writeFileSync(h, `#!/bin/sh\n# ${imagePath}\n`, { mode: 0o755 });
      }
    },
  };
}

/** A ProgramContext for one container; `log` collects what it prints, `ready` its readiness. */
export function fakeContext(
  opts: Pick<ProgramContext, 'node' | 'nodeIp' | 'argv' | 'files' | 'nodeRoot' | 'api'> &
    Partial<Pick<ProgramContext, 'env' | 'network' | 'pod' | 'container' | 'image'>>,
): { ctx: ProgramContext; log: string[]; ready: { value: boolean }; stop: () => void } {
  const log: string[] = [];
  const ready = { value: false };
  const abort = new AbortController();
  const ctx: ProgramContext = {
    pod: opts.pod ?? { apiVersion: 'v1', kind: 'Pod', metadata: { name: `pod-${opts.node}`, namespace: 'kube-system' } },
    container: opts.container ?? 'c',
    image: opts.image ?? 'img',
    env: opts.env ?? { CILIUM_K8S_NAMESPACE: 'kube-system' },
    write: (_s, text) => void log.push(text),
    signal: abort.signal,
    setReady: (r) => void (ready.value = r),
    ...opts,
  };
  return { ctx, log, ready, stop: () => abort.abort() };
}
