// The dashboard's door (docs/dashboard.md §1–§2) over real HTTPS against a real server: every kind of /ui route is
// 401 without a session, a login link works once, the cookie's attributes, the headers, `aksemu dashboard`'s new link,
// and hostile input answered 4xx in the envelope, never 5xx.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:https';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { removeHome, startTestServer, tempHome, https, type TestServer } from '../e2e/harness.js';
import { aksemu } from '../az/helpers.js';
import { apiOk, rawGet, signIn } from './helpers.js';

let server: TestServer;
let home: string;

before(async () => {
  home = tempHome();
  server = await startTestServer({ home });
});

after(async () => {
  await server.close();
  removeHome(home);
});

const UNAUTHORIZED_MESSAGE = 'Sign in to the aksemu dashboard with the login link that aksemu start printed, or a new one from aksemu dashboard.';

test('dashboard: without a session every route kind is 401: API (JSON envelope), pages, assets, events', async () => {
  for (const path of ['/ui/api/overview', '/ui/api/subnet-map?id=x', '/ui/api/events', '/ui/api/nope']) {
    const res = await https(server, 'GET', path);
    assert.equal(res.status, 401, path);
    assert.deepEqual(res.json, { error: { code: 'Unauthorized', message: UNAUTHORIZED_MESSAGE } }, path);
  }
  const post = await https(server, 'POST', '/ui/api/plan', { headers: { 'content-type': 'application/json' }, body: '{}' });
  assert.equal(post.status, 401);
  for (const path of ['/ui/', '/ui/assets/app.js', '/ui/assets/app.css', '/ui/anything/else']) {
    const res = await https(server, 'GET', path);
    assert.equal(res.status, 401, path);
    assert.match(String(res.headers['content-type']), /^text\/html/, path);
    assert.ok(res.text.includes('aksemu dashboard'), path);
  }
  // A made-up cookie is no session.
  const forged = await https(server, 'GET', '/ui/api/overview', { headers: { cookie: `aksemu_ui=${'A'.repeat(43)}` } });
  assert.equal(forged.status, 401);
  // /ui without the slash goes to /ui/, signed in or not.
  const bare = await https(server, 'GET', '/ui');
  assert.equal(bare.status, 301);
  assert.equal(bare.headers.location, '/ui/');
});

test('dashboard: a login link works once; the cookie is HttpOnly, Secure, SameSite=Strict on /ui; every answer carries the CSP', async () => {
  const endpoint = JSON.parse(readFileSync(server.endpointFile, 'utf8'));
  assert.equal(endpoint.dashboardUrl, server.dashboardUrl);
  assert.match(server.dashboardUrl, new RegExp(`^${server.url}/ui/login\\?token=[A-Za-z0-9_-]{43}$`));
  const path = server.dashboardUrl.slice(server.url.length);
  const first = await https(server, 'GET', path);
  assert.equal(first.status, 303);
  assert.equal(first.headers.location, '/ui/');
  const setCookie = String(first.headers['set-cookie']);
  assert.match(setCookie, /^aksemu_ui=[A-Za-z0-9_-]{43}; Path=\/ui; HttpOnly; Secure; SameSite=Strict; Max-Age=43200$/);
  const again = await https(server, 'GET', path);
  assert.equal(again.status, 401, 'a used link');
  assert.ok(again.text.includes('aksemu dashboard'));
  // The token never reaches the log.
  const token = path.split('token=')[1]!;
  assert.ok(!server.logLines.some((l) => l.includes(token)), 'token in the log');
  assert.ok(server.logLines.some((l) => l.startsWith('GET /ui/login 303')));

  const cookie = setCookie.split(';')[0]!;
  const shell = await https(server, 'GET', '/ui/', { headers: { cookie } });
  assert.equal(shell.status, 200);
  assert.match(shell.text, /^<!doctype html>\n<html lang="en">/);
  assert.ok(shell.text.includes('<script type="module" src="/ui/assets/app.js"></script>'));
  assert.ok(!/<script>|<style|style=/.test(shell.text), 'nothing inline');
  for (const res of [shell, first, again, await https(server, 'GET', '/ui/api/overview')]) {
    assert.equal(
      res.headers['content-security-policy'],
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    );
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.equal(res.headers['x-frame-options'], 'DENY');
    assert.equal(res.headers['referrer-policy'], 'no-referrer');
    assert.equal(res.headers['cache-control'], 'no-store');
  }
  const overview = await apiOk(server, cookie, 'overview');
  assert.equal(overview.subscriptionId, server.identity.subscriptionId);
  assert.deepEqual(overview.groups, []);
});

test('dashboard: `aksemu dashboard` prints a new one-time link (POST /ui/login-links with the ARM token); without the token 401', async () => {
  const r = await aksemu(home, ['dashboard']);
  assert.equal(r.code, 0, r.stderr);
  const link = r.stdout.trim();
  assert.match(link, new RegExp(`^${server.url}/ui/login\\?token=[A-Za-z0-9_-]{43}$`));
  assert.notEqual(link, server.dashboardUrl);
  const cookie = await signIn(server, link);
  assert.equal((await apiOk(server, cookie, 'operations')).length, 0);
  const anonymous = await https(server, 'POST', '/ui/login-links');
  assert.equal(anonymous.status, 401);
  assert.equal(typeof anonymous.json.error.code, 'string');
});

test('dashboard: hostile input is a 4xx in the envelope, never a 5xx', async () => {
  const r = await aksemu(home, ['dashboard']);
  const cookie = await signIn(server, r.stdout.trim());
  const headers = { cookie };
  const cases: [string, string, Record<string, string>, string | undefined, number][] = [
    ['GET', '/ui/api/nope', headers, undefined, 404],
    ['GET', '/ui/api/__proto__', headers, undefined, 404],
    ['GET', '/ui/api/constructor', headers, undefined, 404],
    ['GET', `/ui/api/overview?${'x'.repeat(5000)}`, headers, undefined, 400],
    ['GET', '/ui/assets/..%2f..%2fpackage.json', headers, undefined, 404],
    ['GET', '/ui/assets/nothing.js', headers, undefined, 404],
    ['GET', '/ui/assets/app.json', headers, undefined, 404],
    ['DELETE', '/ui/api/overview', headers, undefined, 405],
    ['POST', '/ui/api/overview', { ...headers, 'content-type': 'text/plain' }, '{}', 403],
    ['POST', '/ui/api/overview', { ...headers, 'content-type': 'application/json', origin: 'https://evil.example' }, '{}', 403],
    ['GET', '/ui/login?token=%00', {}, undefined, 401],
    ['GET', `/ui/login?token=${'a'.repeat(43)}`, {}, undefined, 401],
    ['POST', '/ui/login', {}, undefined, 405],
  ];
  for (const [method, path, h, body, status] of cases) {
    const res = await https(server, method, path, { headers: h, ...(body === undefined ? {} : { body }) });
    assert.equal(res.status, status, `${method} ${path.slice(0, 80)}: ${res.text.slice(0, 200)}`);
    if (path.startsWith('/ui/api/')) assert.equal(typeof res.json?.error?.code, 'string', `${method} ${path.slice(0, 80)}`);
  }
  // Paths a URL would have resolved, sent as written: no file outside the assets.
  for (const path of ['/ui/assets/../../package.json', '/ui/assets/../../../package.json', '/ui/assets/x/../../../../etc/passwd.js', '/ui/assets//app.js']) {
    const res = await rawGet(server, path, headers);
    assert.equal(res.status, 404, `${path}: ${res.text.slice(0, 200)}`);
  }
});

/** dist/test/dashboard/ → dist/ui/, where tsconfig.ui.json compiles the browser modules. */
const COMPILED_UI = fileURLToPath(new URL('../../ui/', import.meta.url));
const CSS = fileURLToPath(new URL('../../../src/dashboard/ui/app.css', import.meta.url));

test('dashboard: the browser modules and the stylesheet are served as built, with their types', {
  skip: existsSync(COMPILED_UI) ? false : 'the browser code is not built (dist/ui/)',
}, async () => {
  const r = await aksemu(home, ['dashboard']);
  const cookie = await signIn(server, r.stdout.trim());
  const modules = (readdirSync(COMPILED_UI, { recursive: true }) as string[]).filter((f) => f.endsWith('.js'));
  assert.ok(modules.includes('app.js'));
  for (const file of modules) {
    const res = await https(server, 'GET', `/ui/assets/${file}`, { headers: { cookie } });
    assert.equal(res.status, 200, file);
    assert.equal(res.headers['content-type'], 'text/javascript; charset=utf-8');
    assert.equal(res.text, readFileSync(join(COMPILED_UI, file), 'utf8'), file);
  }
  const css = await https(server, 'GET', '/ui/assets/app.css', { headers: { cookie } });
  assert.equal(css.status, 200);
  assert.equal(css.headers['content-type'], 'text/css; charset=utf-8');
  assert.equal(css.text, readFileSync(CSS, 'utf8'));
});

/** Opens an event stream; resolves with its status once the head arrives (the stream stays open). */
function openStream(cookie: string): Promise<{ status: number; close: () => void }> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}/ui/api/events`, { headers: { cookie }, ca: server.caPem }, (res) => {
      res.on('data', () => undefined);
      res.on('error', () => undefined);
      resolve({ status: res.statusCode ?? 0, close: () => req.destroy() });
    });
    req.on('error', reject);
    req.end();
  });
}

test('dashboard: at most 16 event streams per session (then 429); streams left open do not hold up the server closing', async () => {
  const r = await aksemu(home, ['dashboard']);
  const cookie = await signIn(server, r.stdout.trim());
  const streams = [];
  for (let i = 0; i < 16; i++) streams.push(await openStream(cookie));
  assert.deepEqual(new Set(streams.map((s) => s.status)), new Set([200]));
  const refused = await https(server, 'GET', '/ui/api/events', { headers: { cookie } });
  assert.equal(refused.status, 429);
  assert.equal(refused.json.error.code, 'TooManyRequests');
  // Another session has its own 16.
  const other = await signIn(server, (await aksemu(home, ['dashboard'])).stdout.trim());
  const s = await openStream(other);
  assert.equal(s.status, 200);
  streams[0]!.close();
  await new Promise((resolve) => setTimeout(resolve, 200));
  const again = await openStream(cookie);
  assert.equal(again.status, 200, 'a closed stream frees its place');
  // The rest stay open: after() closes the server with them open, and must not hang.
});
