// A restart reads each cluster's objects in slices between turns (apiserver/storage/persistence.ts preload,
// cluster/server.ts): ARM answers meanwhile, and a request to the cluster's API made while its objects load waits for
// them: a list sees every object, a write is kept once, and the log says once when the cluster serves again.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { objectsKey } from '../../src/cluster/apiserver/storage/persistence.js';
import { startServer } from '../../src/server/server.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import { https } from '../e2e/harness.js';
import { restart } from '../network/harness.js';
import { api, eventually, withCluster } from './harness.js';

/** Enough ConfigMaps that their load takes many slices (1,000 rows a turn), each turn a few milliseconds at least. */
const STORED = 20_000;

/** `count` ConfigMaps written straight into the cluster's rows, as a server would have saved them. */
function putConfigMaps(env: Parameters<Parameters<typeof withCluster>[1]>[0], count: number, created: string): void {
  const root = objectsKey(env.clusterId);
  for (let i = 0; i < count; i++)
    env.server.store.put(`${root}//configmaps/default/bulk-${i}`, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `bulk-${i}`, namespace: 'default', uid: `uid-${i}`, creationTimestamp: created, resourceVersion: '1' },
      data: { index: String(i), filler: 'x'.repeat(200) },
    });
}

test('while a restart loads the objects, ARM answers and the cluster API waits: a list sees them all, a write is kept once', () =>
  withCluster({ networkPlugin: 'none' }, async (env) => {
    const created = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    env.server.store.transaction(() => {
      putConfigMaps(env, STORED, created);
    });
    await env.server.close();

    const lines: string[] = [];
    const serving = () => lines.filter((l) => l.includes(' serving again after '));
    const starting = startServer({ home: env.home, port: 0, log: (line) => lines.push(line) });
    // ARM's address is in the endpoint file (written when ARM listens, before the clusters load), as az finds it.
    const endpointFile = join(env.home, 'endpoint.json');
    await eventually(() => existsSync(endpointFile), 30_000, 'the endpoint file');
    const { url, caFile } = JSON.parse(readFileSync(endpointFile, 'utf8')) as { url: string; caFile: string };
    const metadata = await https({ url, caPem: readFileSync(caFile, 'utf8') }, 'GET', '/metadata/endpoints?api-version=2022-09-01');
    assert.equal(metadata.status, 200);
    assert.equal(serving().length, 0, 'ARM answered before the cluster served again');

    // Sent while the objects load: each waits, then is answered from the full store.
    const sentWhileLoading = serving().length === 0;
    const [list, write] = await Promise.all([
      api(env, 'GET', '/api/v1/namespaces/default/configmaps'),
      api(env, 'POST', '/api/v1/namespaces/default/configmaps', {
        body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'written-while-loading' }, data: { a: 'b' } }),
      }),
    ]);
    assert.ok(sentWhileLoading, 'the requests went out before the cluster served again');
    assert.equal(list.status, 200, list.text.slice(0, 300));
    const names = new Set((list.json.items as { metadata: { name: string } }[]).map((c) => c.metadata.name));
    for (let i = 0; i < STORED; i++) assert.ok(names.has(`bulk-${i}`), `bulk-${i} listed`);
    assert.equal(write.status, 201, write.text.slice(0, 300));

    env.server = Object.assign(await starting, { logLines: lines });
    assert.equal(serving().length, 1, lines.join('\n'));
    assert.match(serving()[0]!, /^cluster c1 serving again after \d+ ms: 3 nodes, \d+ pods \(\d+ resuming in the background\)$/);

    // The write is in the store once, and survives another restart.
    const count = async () => ((await api(env, 'GET', '/api/v1/namespaces/default/configmaps')).json.items as unknown[]).length;
    const before = await count();
    assert.equal((await api(env, 'GET', '/api/v1/namespaces/default/configmaps/written-while-loading')).json.data.a, 'b');
    await restart(env);
    assert.equal(await count(), before);
    assert.equal((await api(env, 'GET', '/api/v1/namespaces/default/configmaps/written-while-loading')).json.data.a, 'b');
  }));

/** Pods no component touches after the restart (another scheduler's, unbound), so the loaded store holds them as saved. */
const PODS = 1_300;
const TABLE = 'application/json;as=Table;v=1;g=meta.k8s.io';

/** A list's text with its revision left out (the list's and its continue token's): what the runtime's start moves. */
function withoutRevision(text: string): string {
  const list = JSON.parse(text) as { metadata: { resourceVersion?: string; continue?: string } };
  list.metadata.resourceVersion = 'R';
  if (list.metadata.continue) {
    const token = JSON.parse(Buffer.from(list.metadata.continue, 'base64url').toString('utf8'));
    list.metadata.continue = JSON.stringify({ ...token, rv: 'R' });
  }
  return JSON.stringify(list);
}

test('while a restart loads the objects, a page of a list is read from the saved rows: the bytes the loaded store gives, a token it takes, 401 and 400 at once', () =>
  withCluster({ networkPlugin: 'none' }, async (env) => {
    const root = objectsKey(env.clusterId);
    const created = new Date(Date.now() - 10 * 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z');
    env.server.store.transaction(() => {
      putConfigMaps(env, 2 * STORED, created);
      for (let i = 0; i < PODS; i++)
        env.server.store.put(`${root}//pods/default/paged-${i}`, {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: {
            name: `paged-${i}`,
            namespace: 'default',
            uid: `pod-${i}`,
            creationTimestamp: created,
            resourceVersion: '2',
            labels: { tier: i % 3 === 0 ? 'a' : 'b' },
          },
          spec: { schedulerName: 'elsewhere', containers: [{ name: 'c', image: 'busybox' }] },
          status: { phase: 'Pending' },
        });
      // Edited by hand: the load refuses it with its log line, and no page serves it. (Before the pages' ends: the
      // remainingItemCount read during the load counts the rows after a page, this one too were it there.)
      env.server.store.put(`${root}//pods/default/a-bad`, {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'a-bad', namespace: 'default', labels: { tier: 'a' } },
        spec: { containers: 'none' },
      });
    });
    await env.server.close();
    // The revision saved at the close: what the restored store goes on from.
    const db = new SqliteStore(join(env.home, 'state.db'));
    const saved = Number(db.get<{ revision: number }>(root)?.revision);
    db.close();

    const lines: string[] = [];
    const serving = () => lines.filter((l) => l.includes(' serving again after '));
    const starting = startServer({ home: env.home, port: 0, log: (line) => lines.push(line) });
    await eventually(() => existsSync(join(env.home, 'endpoint.json')), 30_000, 'the endpoint file');
    // In one namespace: the runtime's start adds pods of its own elsewhere (kube-system), which a count across all would see.
    const asked = [
      '/api/v1/namespaces/default/pods?limit=500',
      '/api/v1/namespaces/default/pods?limit=200&labelSelector=tier%3Da',
      '/api/v1/namespaces/default/pods?limit=300&fieldSelector=metadata.namespace%3Ddefault',
    ];
    /** Each list asked and one continuation of it, JSON and as a Table (all at once: each page is a turn of the load's). */
    const pages = async () => {
      const lists = asked.flatMap((path) => ['application/json', TABLE].map((accept) => ({ path, accept })));
      const firsts = await Promise.all(lists.map(({ path, accept }) => api(env, 'GET', path, { headers: { accept } })));
      const nexts = await Promise.all(
        lists.map(({ path, accept }, i) =>
          api(env, 'GET', `${path}&continue=${encodeURIComponent(firsts[i]!.json.metadata.continue)}`, { headers: { accept } }),
        ),
      );
      for (const page of [...firsts, ...nexts]) assert.equal(page.status, 200, page.text.slice(0, 300));
      return firsts.flatMap((first, i) => [first.text, nexts[i]!.text]);
    };
    const hostile = async () =>
      Promise.all([
        api(env, 'GET', '/api/v1/pods?limit=5', { token: 'wrong' }),
        api(env, 'GET', '/api/v1/pods?limit=5', { token: null }),
        api(env, 'GET', '/api/v1/pods?limit=5&continue=bm90LWEtdG9rZW4'),
        api(env, 'GET', '/api/v1/pods?limit=abc'),
        api(env, 'GET', '/api/v1/pods?limit=5&labelSelector=a%20in%20(b'),
      ]).then((all) => all.map((r) => `${r.status} ${r.text}`));

    // A client that reads page 1 during the load and reads on after it.
    // `/version` too: the kubectl on this image asks it first, to pick its build, before any list.
    const asking = Promise.all([pages(), hostile(), api(env, 'GET', '/api/v1/pods?limit=500'), api(env, 'GET', '/version')]);
    const answered = await Promise.race([asking, starting.then(() => undefined)]);
    const servedBefore = serving().length === 0;
    // The server is the env's from here on, closed by withCluster whatever fails.
    env.server = Object.assign(await starting, { logLines: lines });
    assert.ok(answered && servedBefore, 'every page was answered before the cluster served again');
    const [during, refusedDuring, firstDuring, versionDuring] = answered;
    assert.equal(versionDuring.status, 200);
    assert.equal(versionDuring.text, (await api(env, 'GET', '/version')).text);
    assert.match(versionDuring.json.gitVersion, /^v1\.\d+\.\d+$/);
    assert.equal(JSON.parse(during[0]!).metadata.resourceVersion, String(Math.max(1000, saved)), 'the saved revision');
    assert.equal(serving().length, 1, lines.join('\n'));
    const after = await pages();
    for (const [i, text] of during.entries()) {
      const [got, want] = [withoutRevision(text), withoutRevision(after[i]!)];
      let at = 0;
      while (at < got.length && got[at] === want[at]) at++;
      assert.ok(got === want, `page ${i}: during the load ${got.slice(at - 80, at + 200)}\nafter it ${want.slice(at - 80, at + 200)}`);
    }
    assert.deepEqual(refusedDuring, await hostile());
    assert.deepEqual(
      refusedDuring.map((r) => Number(r.slice(0, 3))),
      [401, 401, 400, 400, 400],
    );

    // Every pod once, page 1 read from the rows and the rest from the loaded store; the bad row in none.
    const names: string[] = firstDuring.json.items.map((p: { metadata: { name: string } }) => p.metadata.name);
    for (let cont = firstDuring.json.metadata.continue as string | undefined; cont; ) {
      const next = await api(env, 'GET', `/api/v1/pods?limit=500&continue=${encodeURIComponent(cont)}`);
      names.push(...next.json.items.map((p: { metadata: { name: string } }) => p.metadata.name));
      cont = next.json.metadata.continue;
    }
    const all = (await api(env, 'GET', '/api/v1/pods')).json.items.map((p: { metadata: { name: string } }) => p.metadata.name);
    assert.deepEqual(names, all);
    assert.equal(all.filter((n: string) => n.startsWith('paged-')).length, PODS);
    assert.ok(!all.includes('a-bad'));
    assert.ok(!during.some((text) => text.includes('a-bad')));
    assert.equal(lines.filter((l) => l.includes('skipped stored object') && l.includes('a-bad')).length, 1, lines.join('\n'));
  }));

const CRONTABS = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'crontabs.stable.example.com' },
  spec: {
    group: 'stable.example.com',
    scope: 'Namespaced',
    names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', shortNames: ['ct'] },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { cronSpec: { type: 'string' } } } } } },
      },
    ],
  },
};

test('while a restart loads the objects, discovery is answered from the saved CRDs: the bytes the loaded cluster gives', () =>
  withCluster({ networkPlugin: 'none' }, async (env) => {
    // Each on a connection of its own: a kept-alive one would be the stopped server's when the load's requests go out.
    const once = { connection: 'close' };
    const made = await api(env, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: JSON.stringify(CRONTABS), headers: once });
    assert.equal(made.status, 201, made.text.slice(0, 300));
    await eventually(async () => (await api(env, 'GET', '/apis/stable.example.com/v1', { headers: once })).status === 200, 20_000, 'the CRD served');
    const root = objectsKey(env.clusterId);
    const created = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    env.server.store.transaction(() => {
      putConfigMaps(env, 2 * STORED, created);
      // Edited by hand: the load refuses it, and discovery during the load does not serve it either.
      env.server.store.put(`${root}/apiextensions.k8s.io/customresourcedefinitions//broken.example.com`, {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'broken.example.com' },
        spec: 'none',
      });
    });
    await env.server.close();

    const lines: string[] = [];
    const serving = () => lines.filter((l) => l.includes(' serving again after '));
    const starting = startServer({ home: env.home, port: 0, log: (line) => lines.push(line) });
    await eventually(() => existsSync(join(env.home, 'endpoint.json')), 30_000, 'the endpoint file');
    const asked: [string, string][] = [];
    for (const accept of [
      'application/json',
      'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json',
      'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList',
    ])
      for (const path of ['/api', '/apis']) asked.push([path, accept]);
    for (const path of ['/api/v1', '/apis/apps', '/apis/apps/v1', '/apis/stable.example.com', '/apis/stable.example.com/v1', '/apis/example.com', '/api/v2'])
      asked.push([path, 'application/json']);
    const discovery = () =>
      Promise.all(asked.map(([path, accept]) => api(env, 'GET', path, { headers: { accept } }))).then((all) => all.map((r) => `${r.status} ${r.text}`));
    const answered = await Promise.race([discovery(), starting.then(() => undefined)]);
    const servedBefore = serving().length === 0;
    env.server = Object.assign(await starting, { logLines: lines });
    assert.ok(answered && servedBefore, 'every discovery document was answered before the cluster served again');
    const after = await discovery();
    for (const [i, text] of answered.entries()) assert.equal(text, after[i], `${asked[i]![0]} (${asked[i]![1]})`);
    assert.deepEqual(
      answered.map((t) => Number(t.slice(0, 3))),
      [200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 404, 404],
    );
    assert.ok(answered[1]!.includes('"stable.example.com"'), 'the saved CRD is served');
    assert.ok(!answered.some((t) => t.includes('broken.example.com')));
  }));
