// The dashboard in a real browser (docs/dashboard-ui.md §6): Debian's chromium, headless, against a real aksemu
// server, with `aksemu az` changing things while the pages are open. One server, one browser, the pages in turn:
// unauthenticated requests get 401; the login link signs in; the overview, a group, a VNet's address map (its
// counts equal the subnet's as az shows it and as the API says), keyboard focus over the map, a cluster before and
// after `az aks scale` (the new node rows arrive live, the page is never reloaded), and the plan view. A screenshot
// of each page at 1280×800 lands in test-artifacts/dashboard/.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'puppeteer-core';
import { az, azOk, vnetCreateArgs } from '../../az/helpers.js';
import { HAVE_KUBECTL, KUBECTL, runTool } from '../../cluster/harness.js';
import { bearer, https, removeHome, startTestServer, tempHome, type TestServer } from '../../e2e/harness.js';
import { launch, screenshot, skipReason, watchConsole } from './browser.js';

// The page's globals, for the callbacks puppeteer runs in the browser: this file compiles without the DOM's types.
declare const document: any;
declare const location: any;
declare const window: any;

const skip = skipReason();
const RG = 'dashRG';
const NODE_POOL = 'nodepool1';

let server: TestServer;
let home: string;
let browser: Browser;
let page: Page;
let consoleProblems: string[];
let sub: string;

const ok = (args: string[]) => azOk(home, args);
const vnetId = () => `/subscriptions/${sub}/resourceGroups/${RG}/providers/Microsoft.Network/virtualNetworks/dashVnet`;
const subnetId = () => `${vnetId()}/subnets/nodes`;
const clusterId = () => `/subscriptions/${sub}/resourceGroups/${RG}/providers/Microsoft.ContainerService/managedClusters/dash`;

/** A one-time login link, as `aksemu dashboard` asks for it: POST /ui/login-links with the ARM credentials. */
async function loginLink(): Promise<string> {
  const res = await https(server, 'POST', '/ui/login-links', { headers: { ...(await bearer(server)), 'content-type': 'application/json' }, body: '{}' });
  assert.equal(res.status, 200, res.text);
  assert.match(res.json.url, /^https:\/\/127\.0\.0\.1:\d+\/ui\/login\?token=[A-Za-z0-9_-]{43}$/);
  return res.json.url;
}

/** Goes to a hash route the way a link does (no page load), and waits for the page to be drawn. */
async function go(route: string): Promise<void> {
  const before = await page.evaluate(() => Number(document.body.dataset.renders ?? 0));
  await page.evaluate((r) => {
    location.hash = r;
  }, route);
  await page.waitForFunction((n) => Number(document.body.dataset.renders ?? 0) > n && document.body.dataset.state === 'ready', { timeout: 20_000 }, before);
}

const count = (selector: string) => page.$$eval(selector, (els) => els.length);
const text = (selector: string) => page.$eval(selector, (el) => (el.textContent ?? '').trim());

/** The marker a reload would wipe: set once, checked after each live change. */
const MARK = () =>
  page.evaluate(() => {
    window.aksemuMarker = 'kept';
  });
const marked = () => page.evaluate(() => window.aksemuMarker);

before(async () => {
  if (skip) return;
  home = tempHome();
  server = await startTestServer({ home });
  sub = server.identity.subscriptionId;
  browser = await launch();
});

after(async () => {
  if (skip) return;
  await browser?.close();
  await server?.close();
  removeHome(home);
});

test('without the session cookie every /ui request is 401, pages and API alike', { skip }, async () => {
  const context = await browser.createBrowserContext();
  try {
    const p = await context.newPage();
    const shell = await p.goto(`${server.url}/ui/`);
    assert.equal(shell?.status(), 401);
    assert.match(await p.evaluate(() => document.body.textContent ?? ''), /aksemu dashboard/);
    const api = await p.goto(`${server.url}/ui/api/overview`);
    assert.equal(api?.status(), 401);
    assert.equal(JSON.parse(await api!.text()).error.code, 'Unauthorized');
    const asset = await p.goto(`${server.url}/ui/assets/app.js`);
    assert.equal(asset?.status(), 401);
    // A made-up token signs nobody in.
    const forged = await p.goto(`${server.url}/ui/login?token=${'A'.repeat(43)}`);
    assert.equal(forged?.status(), 401);
    assert.deepEqual(await context.cookies(), []);
  } finally {
    await context.close();
  }
});

test('the login link signs in once: an HttpOnly, SameSite=Strict cookie, the overview with a live feed', { skip }, async () => {
  const url = await loginLink();
  page = await browser.newPage();
  consoleProblems = watchConsole(page);
  const res = await page.goto(url, { waitUntil: 'networkidle2' });
  assert.equal(res?.status(), 200);
  assert.equal(new URL(page.url()).pathname, '/ui/');
  const cookie = (await browser.defaultBrowserContext().cookies()).find((c) => c.name === 'aksemu_ui');
  assert.ok(cookie, 'the session cookie is set');
  assert.equal(cookie.httpOnly, true);
  assert.equal(cookie.secure, true);
  assert.equal(cookie.sameSite, 'Strict');
  assert.equal(await page.evaluate(() => document.cookie), '', 'scripts cannot read the session');

  // The link is used up: a second visit (another context) is refused.
  const other = await browser.createBrowserContext();
  try {
    const again = await (await other.newPage()).goto(url);
    assert.equal(again?.status(), 401);
  } finally {
    await other.close();
  }

  await page.waitForFunction(() => document.body.dataset.state === 'ready' && document.querySelector('[data-testid=feed-state]')?.textContent === 'live', {
    timeout: 20_000,
  });
  assert.equal(await text('h1'), 'Overview');
  assert.ok(await page.$('header nav'), 'a navigation landmark');
  assert.ok(await page.$('main h1'), 'the main landmark starts with the page heading');
  await MARK();

  // A group created with az while the page is open arrives live.
  await ok(['group', 'create', '-l', 'eastus', '-n', RG, '-o', 'none']);
  await page.waitForSelector(`[data-testid=group-row][data-name=${RG}]`, { timeout: 20_000 });
  assert.equal(await marked(), 'kept', 'the page was not reloaded');
});

test('a cluster created and scaled with az: the group and the cluster page follow without a reload', { skip }, async () => {
  await ok([...vnetCreateArgs(RG, 'dashVnet', '10.20.0.0/16', 'nodes', '10.20.0.0/24'), '-o', 'none']);
  await go(`/group/${RG}`);
  await page.waitForSelector('[data-testid=vnet-row][data-name=dashVnet]', { timeout: 20_000 });
  await screenshot(page, 'group-before-cluster');

  await ok([
    'aks',
    'create',
    '-g',
    RG,
    '-n',
    'dash',
    '--network-plugin',
    'azure',
    '--vnet-subnet-id',
    subnetId(),
    '-c',
    '2',
    '--max-pods',
    '15',
    '--generate-ssh-keys',
    '-o',
    'none',
  ]);
  await page.waitForSelector('[data-testid=cluster-row][data-name=dash]', { timeout: 30_000 });
  assert.equal(await marked(), 'kept', 'the page was not reloaded');
  await screenshot(page, 'group');

  await page.click('[data-testid=cluster-row][data-name=dash] a');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=node-row]').length === 2, { timeout: 30_000 });
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=node-row]')].every((r) => r.getAttribute('data-ready') === 'true'), {
    timeout: 30_000,
  });
  // AKS writes the cluster's id with `resourcegroups` in lower case; ids compare without case.
  assert.equal(decodeURIComponent(new URL(page.url()).hash).toLowerCase(), `#/cluster/${clusterId()}`.toLowerCase());
  const nodes = await page.$$eval('[data-testid=node-row]', (rows) => rows.map((r) => r.getAttribute('data-name')));
  for (const n of nodes) assert.match(n ?? '', new RegExp(`^aks-${NODE_POOL}-\\d+-vmss\\d{6}$`));
  // Azure CNI: each node shows its pre-allocated secondary IPs (maxPods 15), no pod CIDR.
  const addresses = await page.$$eval('[data-testid=node-row] td:nth-of-type(5)', (cells) => cells.map((c) => c.textContent));
  assert.deepEqual(addresses, ['15 secondary IPs', '15 secondary IPs']);
  assert.equal(await count('[data-testid=pool-row]'), 1);

  await ok(['aks', 'scale', '-g', RG, '-n', 'dash', '-c', '3', '--nodepool-name', NODE_POOL, '-o', 'none']);
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=node-row]').length === 3, { timeout: 30_000 });
  assert.equal(await marked(), 'kept', 'the new node arrived without a reload');
  const after = await page.$$eval('[data-testid=node-row]', (rows) => rows.map((r) => r.getAttribute('data-name')));
  assert.deepEqual(after.slice(0, 2), nodes, 'the first two nodes stay');
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=node-row]')].every((r) => r.getAttribute('data-ready') === 'true'), {
    timeout: 30_000,
  });
  // The API says the same as the page.
  const api: any = await page.evaluate(async (id) => (await fetch(`/ui/api/cluster?id=${encodeURIComponent(id)}`)).json(), clusterId());
  assert.deepEqual(
    api.nodes.map((n: { name: string }) => n.name),
    after,
  );
  await screenshot(page, 'cluster');
});

const WEB = `apiVersion: v1
kind: Service
metadata: {name: web, namespace: default}
spec: {selector: {app: web}, ports: [{port: 80, targetPort: 8080, protocol: TCP}]}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: web-ingress, namespace: default}
spec:
  podSelector: {matchLabels: {app: web}}
  policyTypes: [Ingress]
  ingress: [{from: [{podSelector: {matchLabels: {role: client}}}]}]
`;

test("kubectl apply while the cluster page is open: the Service and the NetworkPolicy arrive from the cluster's watches", {
  skip: skip ?? (!HAVE_KUBECTL && `no ${KUBECTL}`),
}, async () => {
  const kubeconfig = join(home, 'kubeconfig');
  const creds = await az(home, ['aks', 'get-credentials', '-g', RG, '-n', 'dash', '--file', kubeconfig]);
  assert.equal(creds.code, 0, creds.stderr);
  const applied = await runTool(KUBECTL, [`--cache-dir=${join(home, 'kube-cache')}`, 'apply', '-f', '-'], { KUBECONFIG: kubeconfig, HOME: home }, 60_000, WEB);
  assert.equal(applied.code, 0, applied.stderr);
  await page.waitForFunction(
    () =>
      [...document.querySelectorAll('[data-testid=service-row]')].some((r: any) => r.children[1]?.textContent === 'web') &&
      [...document.querySelectorAll('[data-testid=policy-row]')].some((r: any) => r.textContent.includes('web-ingress')),
    { timeout: 30_000 },
  );
  const row = await page.$$eval('[data-testid=service-row]', (rows) =>
    rows.map((r) => [...r.children].map((c) => (c.textContent ?? '').trim())).find((c) => c[1] === 'web'),
  );
  assert.ok(row, 'the web Service row');
  assert.equal(row[2], 'ClusterIP');
  assert.match(row[3], /^10\.0\.\d+\.\d+$/, 'a ClusterIP from the default service CIDR');
  assert.equal(row[4], '80/TCP');
  const policy = await page.$$eval('[data-testid=policy-row]', (rows) => rows.map((r) => [...r.children].map((c) => (c.textContent ?? '').trim())));
  assert.deepEqual(policy, [['web-ingress', 'app=web', 'Ingress', '1', '0']]);
  assert.equal(await marked(), 'kept', 'no reload');
  await screenshot(page, 'cluster-kubectl');
});

test("the address map's counts equal the subnet's as az shows it and as the API says", { skip }, async () => {
  // Two more subnets, named to sort after `nodes`: a /20 is drawn cell by cell (4,096), a /17 as proportional bars.
  for (const [name, prefix] of [
    ['x-cells', '10.20.16.0/20'],
    ['y-bars', '10.20.128.0/17'],
  ]) {
    await ok(['network', 'vnet', 'subnet', 'create', '-g', RG, '--vnet-name', 'dashVnet', '-n', name, '--address-prefixes', prefix, '-o', 'none']);
  }
  await go(`/vnet/${encodeURIComponent(vnetId())}`);
  const wide = `[data-testid=subnet-map][data-subnet-id$="/x-cells" i]`;
  assert.equal(await count(`${wide} [role=gridcell].cell`), 4096);
  assert.equal(await text(`${wide} [data-testid=map-count-free]`), String(4096 - 5));
  const bars = `[data-testid=subnet-map][data-subnet-id$="/y-bars" i]`;
  assert.equal(await count(`${bars} .cell`), 0, 'a /17 is not drawn cell by cell');
  assert.equal(await count(`${bars} [role=gridcell].bar`), 3, 'reserved, free, reserved');
  assert.equal(await text(`${bars} [data-testid=map-count-total]`), '32768');

  const map = '[data-testid=subnet-map][data-subnet-id$="/nodes" i]';
  await page.waitForSelector(map);
  const shown: Record<string, number> = {};
  for (const k of ['reserved', 'node', 'pod', 'vm', 'lb', 'other', 'free', 'total']) shown[k] = Number(await text(`${map} [data-testid=map-count-${k}]`));

  const api: any = await page.evaluate(async (id) => (await fetch(`/ui/api/subnet-map?id=${encodeURIComponent(id)}`)).json(), subnetId());
  assert.equal(shown.total, api.total);
  for (const k of ['reserved', 'node', 'pod', 'vm', 'lb', 'other', 'free']) assert.equal(shown[k], api.counts[k], k);

  const subnet = JSON.parse(await ok(['network', 'vnet', 'subnet', 'show', '-g', RG, '--vnet-name', 'dashVnet', '-n', 'nodes']));
  assert.equal(shown.total, 256, 'a /24');
  assert.equal(shown.reserved, 5, "Azure's five");
  // 3 nodes, each a primary address and maxPods (15) pre-allocated pod addresses: every one an ipConfiguration.
  assert.equal(shown.node, 3);
  assert.equal(shown.pod, 45);
  const held = shown.node + shown.pod + shown.vm + shown.lb + shown.other;
  assert.equal(held, (subnet.ipConfigurations ?? []).length, 'every held address is one of the subnet ipConfigurations az lists');
  assert.equal(shown.free, shown.total - shown.reserved - held);
  // One cell per address (a /24 is drawn cell by cell), each kind as many cells as the legend says.
  assert.equal(await count(`${map} [role=gridcell]`), 256);
  assert.equal(await count(`${map} [role=gridcell][data-kind=pod]`), shown.pod);
  assert.equal(await count(`${map} [role=gridcell][data-kind=node]`), shown.node);
  // The text alternative lists the runs, covering the subnet.
  const runCounts = await page.$$eval(`${map} details.runs tbody tr td:nth-of-type(2)`, (cells) =>
    cells.map((c) => Number((c.textContent ?? '').replace(/,/g, ''))),
  );
  assert.equal(
    runCounts.reduce((a, b) => a + b, 0),
    256,
  );
  await screenshot(page, 'vnet');
});

test('keyboard: Tab reaches the map as one stop, arrows move over the addresses and show their owner', { skip }, async () => {
  const map = '[data-testid=subnet-map][data-subnet-id$="/nodes" i]';
  await page.evaluate(() => document.querySelector('h1').focus());
  let role: string | null = null;
  for (let i = 0; i < 40 && role !== 'gridcell'; i++) {
    await page.keyboard.press('Tab');
    role = await page.evaluate(() => document.activeElement?.getAttribute('role') ?? null);
  }
  assert.equal(role, 'gridcell', 'Tab reaches the address map');
  const focused = () => page.evaluate(() => Number(document.activeElement?.getAttribute('data-index')));
  const owner = () => text(`${map} [data-testid=map-owner]`);
  assert.equal(await focused(), 0);
  assert.equal(await owner(), '10.20.0.0 — Azure-reserved: Azure');

  for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowRight');
  assert.equal(await focused(), 4);
  assert.match(await owner(), new RegExp(`^10\\.20\\.0\\.4 — Node: aks-${NODE_POOL}-\\d+-vmss000000$`));
  await page.keyboard.press('ArrowDown');
  assert.equal(await focused(), 36, 'down one row of 32');
  assert.match(await owner(), /^10\.20\.0\.36 — /);
  await page.keyboard.press('End');
  assert.equal(await focused(), 63);
  await page.keyboard.down('Control');
  await page.keyboard.press('End');
  await page.keyboard.up('Control');
  assert.equal(await focused(), 255);
  assert.equal(await owner(), '10.20.0.255 — Azure-reserved: Azure');
  // One tab stop: only the active cell is in the tab order.
  assert.equal(await count(`${map} [role=gridcell][tabindex="0"]`), 1);
  // Tab leaves the map in one step.
  await page.keyboard.press('Tab');
  assert.notEqual(await page.evaluate(() => document.activeElement?.getAttribute('role')), 'gridcell');

  // The pointer shows the owner the same way.
  await page.hover(`${map} [role=gridcell][data-index="5"]`);
  assert.match(await owner(), /^10\.20\.0\.5 — Pod IP \(pre-allocated\): aks-/);

  // A live refresh (any ARM change redraws a VNet's page) keeps the keyboard focus where it was.
  await page.focus(`${map} [role=gridcell][data-index="36"]`);
  const renders = await page.evaluate(() => Number(document.body.dataset.renders));
  await ok(['network', 'nsg', 'create', '-g', RG, '-n', 'dashNsg', '-o', 'none']);
  await page.waitForFunction((n) => Number(document.body.dataset.renders) > n && document.body.dataset.state === 'ready', { timeout: 20_000 }, renders);
  assert.equal(await focused(), 36, 'the same address has the focus after the redraw');
  assert.equal(await count(`${map} [role=gridcell][tabindex="0"]`), 1);
  assert.equal(await marked(), 'kept');
});

test('the plan view: az flags → the picture, the errors with their codes, suggestions that pass', { skip }, async () => {
  await go('/plan');
  await page.$eval('#flag-node-count', (el) => {
    el.value = '50';
  });
  await page.click('.plan-form button[type=submit]');
  await page.waitForSelector('[data-testid=plan-verdict]', { timeout: 20_000 });
  assert.match(await text('[data-testid=plan-verdict]'), /^INVALID at api-version \d{4}-\d{2}-\d{2}$/);
  const problems = await page.$$eval('[data-testid=plan-problem]', (els) => els.map((e) => e.textContent ?? ''));
  assert.ok(
    problems.some((p) => p.startsWith('InsufficientSubnetSize Pre-allocated IPs 1550 exceeds IPs available 251')),
    problems.join('\n'),
  );
  const suggestions = await count('[data-testid=plan-suggestion]');
  assert.ok(suggestions >= 1, 'an invalid plan lists designs that would pass');
  const img = await page.$eval('img.plan-svg', (el) => ({ src: el.src, ok: el.naturalWidth > 0 }));
  assert.match(img.src, /^data:image\/svg\+xml/);
  assert.ok(img.ok, 'the picture decodes');
  await screenshot(page, 'plan');

  // The first suggestion, planned in turn, passes.
  await page.click('[data-testid=plan-suggestion] button');
  await page.waitForFunction(() => document.querySelector('[data-testid=plan-verdict]')?.textContent?.startsWith('VALID'), { timeout: 20_000 });
  assert.equal(await count('[data-testid=plan-problem]'), 0);
});

test('the overview lists the operations; nothing broke the Content-Security-Policy', { skip }, async () => {
  await go('/');
  assert.ok((await count('[data-testid=operation-row]')) >= 1, 'the create and the scale are listed');
  await screenshot(page, 'overview');
  assert.equal(await marked(), 'kept', 'one page load for the whole visit');
  assert.deepEqual(
    consoleProblems.filter((p) => /Content Security Policy|Refused to|Uncaught/i.test(p)),
    [],
  );
});
