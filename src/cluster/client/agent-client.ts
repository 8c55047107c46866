import type { ApiRequest, ApiResponse } from '../apiserver/index.js';
import { clone, type KubeObject } from '../apimachinery/object.js';
import { failureStatus } from '../apimachinery/status.js';

/** The cluster's API as an agent's client sees it: JSON in, JSON out, Kubernetes `Status` on failure. */
export interface AgentClient {
  /** Any request: `path` is the API path (`/apis/crd.projectcalico.org/v1/ippools`), `query` its query string. */
  request(method: string, path: string, body?: unknown, contentType?: string): { status: number; body: unknown };
  get(path: string): KubeObject | undefined;
  list(path: string, labelSelector?: string): KubeObject[];
  /** Creates; returns the stored object, or undefined with the Status on failure (409 and such are normal). */
  create(path: string, object: unknown): { object?: KubeObject; status: number; error?: unknown };
  update(path: string, object: unknown): { object?: KubeObject; status: number; error?: unknown };
  /** merge-patch (application/merge-patch+json) unless contentType says otherwise. */
  patch(path: string, patch: unknown, contentType?: string): { object?: KubeObject; status: number; error?: unknown };
  delete(path: string): number;
  /** Calls back on every change of the collection (ADDED/MODIFIED/DELETED); returns the unsubscribe. */
  watch(path: string, onEvent: (type: string, object: KubeObject) => void): () => void;
}

/** What the client needs of the cluster's API. */
export interface ApiHandler {
  handle(req: ApiRequest): ApiResponse;
}

type Outcome = { object?: KubeObject; status: number; error?: unknown };

function split(path: string): { path: string; query: URLSearchParams } {
  const q = path.indexOf('?');
  return q < 0 ? { path, query: new URLSearchParams() } : { path: path.slice(0, q), query: new URLSearchParams(path.slice(q + 1)) };
}

/**
 * What a client decodes from a response is its own to change, as client-go's decoded objects are: a copy, never the
 * store's object (parts of which are shared between objects and frozen: apiserver/storage/sharing.ts).
 */
const own = <T>(v: T): T => (typeof v === 'object' && v !== null ? clone(v) : v);

function outcome(r: { status: number; body: unknown }): Outcome {
  return r.status >= 200 && r.status < 300 ? { object: r.body as KubeObject, status: r.status } : { status: r.status, error: r.body };
}

/** A client for one container; `userAgent` names its writes' field manager, as client-go's does. */
export function agentClient(api: () => ApiHandler | undefined, userAgent: string): AgentClient {
  const call = (method: string, target: string, body?: unknown, contentType?: string): ApiResponse | { status: number; body: unknown } => {
    const handler = api();
    if (!handler) return { status: 503, body: failureStatus(503, 'ServiceUnavailable', 'the cluster API is not available yet') };
    const { path, query } = split(target);
    const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    try {
      return handler.handle({
        method,
        path,
        query,
        accept: 'application/json',
        userAgent,
        ...(text !== undefined ? { body: text, bytes: Buffer.from(text), contentType: contentType ?? 'application/json' } : {}),
      });
    } catch (e) {
      return { status: 500, body: failureStatus(500, 'InternalError', `Internal error occurred: ${(e as Error).message ?? String(e)}`) };
    }
  };
  const request = (method: string, path: string, body?: unknown, contentType?: string): { status: number; body: unknown } => {
    const r = call(method, path, body, contentType);
    if ('watch' in r || 'stream' in r) return { status: 400, body: failureStatus(400, 'BadRequest', 'a watch or stream needs watch()') };
    return { status: r.status, body: 'text' in r && r.text !== undefined ? r.text : own(r.body) };
  };
  return {
    request,
    get: (path) => {
      const r = request('GET', path);
      return r.status === 200 ? (r.body as KubeObject) : undefined;
    },
    list: (path, labelSelector) => {
      const sep = path.includes('?') ? '&' : '?';
      const r = request('GET', labelSelector ? `${path}${sep}labelSelector=${encodeURIComponent(labelSelector)}` : path);
      const items = r.status === 200 ? (r.body as { items?: unknown }).items : undefined;
      return Array.isArray(items) ? (items as KubeObject[]) : [];
    },
    create: (path, object) => outcome(request('POST', path, object)),
    update: (path, object) => outcome(request('PUT', path, object)),
    patch: (path, patch, contentType) => outcome(request('PATCH', path, patch, contentType ?? 'application/merge-patch+json')),
    delete: (path) => request('DELETE', path).status,
    watch: (path, onEvent) => {
      const r = call('GET', `${path}${path.includes('?') ? '&' : '?'}watch=true`);
      if (!('watch' in r)) return () => undefined;
      let stopped = false;
      // Delivered after the write that caused them, in order: a handler may write again without re-entering the store.
      const w = r.watch({
        send: (event) => setImmediate(() => stopped || onEvent(event.type, own(event.object) as KubeObject)),
        close: () => undefined,
      });
      return () => {
        stopped = true;
        w.stop();
      };
    },
  };
}
