// Test support for the dashboard: sign in with a login link as a browser does (GET the link, keep the cookie), then
// ask the API with that cookie.
import assert from 'node:assert/strict';
import { request } from 'node:https';
import type { RunningServer } from '../../src/server/server.js';
import { https, type HttpResult } from '../e2e/harness.js';

/** Follows a one-time login link; the session cookie (`aksemu_ui=…`) it sets. */
export async function signIn(server: RunningServer, link = server.dashboardUrl): Promise<string> {
  const res = await https(server, 'GET', link.slice(server.url.length));
  assert.equal(res.status, 303, res.text);
  const cookie = String(res.headers['set-cookie']).split(';')[0]!;
  assert.match(cookie, /^aksemu_ui=[A-Za-z0-9_-]{43}$/);
  return cookie;
}

/** GET /ui/api/<path> with the session; the answer. */
export function api(server: RunningServer, cookie: string, path: string): Promise<HttpResult> {
  return https(server, 'GET', `/ui/api/${path}`, { headers: { cookie } });
}

/** GET that must answer 200: its JSON. */
export async function apiOk(server: RunningServer, cookie: string, path: string): Promise<any> {
  const res = await api(server, cookie, path);
  assert.equal(res.status, 200, `${path}: ${res.text}`);
  return res.json;
}

/** A GET whose path goes on the wire as written (`..` and all): a URL would resolve it first, as browsers do. */
export function rawGet(server: RunningServer, path: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  const { port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'GET', headers, ca: server.caPem }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Reads an event stream until `match` sees an event it wants (or fails after timeoutMs). */
export function nextEvent(
  server: RunningServer,
  cookie: string,
  match: (data: { arm: string[]; clusters: string[] }) => boolean,
  timeoutMs = 20_000,
): { ready: Promise<void>; seen: Promise<void> } {
  let ready!: () => void;
  const readyP = new Promise<void>((r) => (ready = r));
  const seen = new Promise<void>((resolve, reject) => {
    const req = request(`${server.url}/ui/api/events`, { headers: { cookie }, ca: server.caPem }, (res) => {
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /^text\/event-stream/);
      let buffer = '';
      res.on('data', (d: Buffer) => {
        buffer += d.toString();
        if (buffer.startsWith('retry: 2000\n\n')) ready();
        for (;;) {
          const end = buffer.indexOf('\n\n');
          if (end < 0) break;
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = /^event: change\ndata: (.*)$/m.exec(block)?.[1];
          if (data && match(JSON.parse(data))) {
            clearTimeout(timer);
            req.destroy();
            resolve();
            return;
          }
        }
      });
    });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error('no matching event'));
    }, timeoutMs);
    req.on('error', () => undefined);
    req.end();
  });
  return { ready: readyP, seen };
}
