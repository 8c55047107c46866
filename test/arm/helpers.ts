// In-process requests (fastify inject) against a server started on a temp home.
import type { TestServer } from '../e2e/harness.js';
import { fetchToken } from '../e2e/harness.js';

export interface Reply {
  status: number;
  headers: Record<string, unknown>;
  body: any;
}

export interface InjectOptions {
  body?: unknown;
  /** Raw text body; wins over body. */
  raw?: string;
  headers?: Record<string, string>;
  /** false: no Authorization header. */
  token?: string | false;
}

const tokens = new WeakMap<TestServer, string>();

export async function tokenFor(server: TestServer): Promise<string> {
  let token = tokens.get(server);
  if (!token) {
    token = (await fetchToken(server)).token;
    tokens.set(server, token);
  }
  return token;
}

export async function arm(server: TestServer, method: string, url: string, options: InjectOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== false) headers['authorization'] ??= `Bearer ${options.token ?? (await tokenFor(server))}`;
  let payload: string | undefined = options.raw;
  if (payload === undefined && options.body !== undefined) {
    payload = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await server.app.inject({ method: method as 'GET', url, headers, ...(payload === undefined ? {} : { payload }) });
  let body: unknown;
  try {
    body = res.body === '' ? undefined : JSON.parse(res.body);
  } catch {
    body = res.body;
  }
  return { status: res.statusCode, headers: res.headers, body };
}

/** Polls an operation-status path until it is no longer InProgress. */
export async function waitForOperation(server: TestServer, path: string): Promise<any> {
  for (let i = 0; i < 200; i++) {
    const res = await arm(server, 'GET', path);
    if (res.body?.status !== 'InProgress') return res.body;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`operation ${path} still InProgress`);
}

/** Polls a Location (operationresults) URL until it stops answering 202; returns the last answer. */
export async function waitForResult(server: TestServer, location: unknown): Promise<Reply> {
  for (let i = 0; i < 200; i++) {
    const res = await arm(server, 'GET', pathOf(location));
    if (res.status !== 202) return res;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`operation ${String(location)} still running`);
}

/** The path+query of an absolute URL the server handed out. */
export function pathOf(url: unknown): string {
  const u = new URL(String(url));
  return u.pathname + u.search;
}
