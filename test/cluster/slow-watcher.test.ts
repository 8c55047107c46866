// Watches as the apiserver serves them: a client that stops reading is cut off once it is WATCH_BUFFER_BYTES
// behind (counted in /metrics), and its informer (@kubernetes/client-node 1.4, in its own process, stopped with
// SIGSTOP) watches again and ends holding exactly what the server holds; bookmarks (the initial-events-end one of
// sendInitialEvents, and the one before the timeout); a watch from before the kept history is 410 Expired.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, test } from 'node:test';
import { type ApiServerHost, ClusterApi } from '../../src/cluster/apiserver/api.js';
import { ObjectStore } from '../../src/cluster/apiserver/storage/store.js';
import { fileURLToPath } from 'node:url';
import { api, eventually, HAVE_KUBECTL, kubectl, withCluster } from './harness.js';

const CHILD = join(fileURLToPath(new URL('.', import.meta.url)), 'informer-child.js');
const NS = 'slow-watch-test';

const configMap = (name: string, bytes = 0) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { blob: 'x'.repeat(bytes) } });

interface Line {
  ev: string;
  names?: string[];
  code?: number;
}

function watchLines(text: string): Array<{ type: string; object: any }> {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));
}

describe('slow watchers and bookmarks', { skip: !HAVE_KUBECTL && 'kubectl missing' }, () => {
  test('a client-node informer that stops reading is cut off, watches again and ends with the right objects', () =>
    withCluster({ networkPlugin: 'none' }, async (env) => {
      assert.equal((await api(env, 'POST', '/api/v1/namespaces', { body: JSON.stringify({ metadata: { name: NS } }) })).status, 201);
      for (const n of ['keep-1', 'keep-2', 'gone-1'])
        assert.equal((await api(env, 'POST', `/api/v1/namespaces/${NS}/configmaps`, { body: configMap(n) })).status, 201);
      const child = spawn(process.execPath, [CHILD, env.kubeconfig, NS], { stdio: ['pipe', 'pipe', 'inherit'] });
      const lines: Line[] = [];
      createInterface({ input: child.stdout! }).on('line', (l) => lines.push(JSON.parse(l)));
      const count = (ev: string) => lines.filter((l) => l.ev === ev).length;
      try {
        await eventually(() => count('started') === 1, 20_000, 'the informer started');
        assert.equal(count('connect'), 1);
        child.kill('SIGSTOP');
        // ~36 MB of events for a client that reads none: more than the socket buffers and the watch's 8 MiB.
        for (let i = 0; i < 40; i++) {
          const r = await api(env, 'POST', `/api/v1/namespaces/${NS}/configmaps`, { body: configMap(`big-${i}`, 900_000) });
          assert.equal(r.status, 201, JSON.stringify(r.json));
        }
        const metrics = async () => (await kubectl(env, ['get', '--raw', '/metrics'])).stdout;
        await eventually(
          async () => /apiserver_terminated_watchers_total\{group="",resource="configmaps"\} [1-9]/.test(await metrics()),
          30_000,
          'the configmaps watcher cut off',
        );
        // Changes after the cut-off reach the client only through its new watch.
        assert.equal((await api(env, 'DELETE', `/api/v1/namespaces/${NS}/configmaps/gone-1`)).status, 200);
        for (let i = 0; i < 40; i += 2) assert.equal((await api(env, 'DELETE', `/api/v1/namespaces/${NS}/configmaps/big-${i}`)).status, 200);
        assert.equal((await api(env, 'POST', `/api/v1/namespaces/${NS}/configmaps`, { body: configMap('after-cut') })).status, 201);
        child.kill('SIGCONT');
        await eventually(() => count('connect') >= 2, 30_000, 'the informer watching again');
        const list = await api(env, 'GET', `/api/v1/namespaces/${NS}/configmaps`);
        const want = (list.json.items as Array<{ metadata: { name: string } }>).map((o) => o.metadata.name).sort();
        assert.ok(want.includes('after-cut') && !want.includes('gone-1') && want.length === 23, want.join(' '));
        let held: string[] = [];
        await eventually(
          async () => {
            const before = lines.length;
            child.stdin!.write('dump\n');
            await eventually(() => lines.slice(before).some((l) => l.ev === 'cache'), 5_000, 'a dump');
            held = lines.slice(before).find((l) => l.ev === 'cache')!.names!;
            return held.join(' ') === want.join(' ');
          },
          20_000,
          'the informer holding what the server holds',
        );
        assert.deepEqual(held, want);
        assert.equal(count('error'), 0, JSON.stringify(lines.filter((l) => l.ev === 'error')));
      } finally {
        child.kill('SIGCONT');
        child.kill('SIGKILL');
      }
    }));

  test('bookmarks: the end of initial events, the one before the timeout; 410 Expired from before the history', () =>
    withCluster({ networkPlugin: 'none' }, async (env) => {
      const one = await api(env, 'POST', '/api/v1/namespaces/default/configmaps', { body: configMap('one') });
      assert.equal(one.status, 201);
      const base = '/api/v1/namespaces/default/configmaps?watch=true';
      const initial = await api(env, 'GET', `${base}&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=1`);
      assert.equal(initial.status, 200);
      const events = watchLines(initial.text);
      const names = events.filter((e) => e.type === 'ADDED').map((e) => e.object.metadata.name);
      assert.ok(names.includes('one'), names.join(' '));
      const end = events.find((e) => e.type === 'BOOKMARK');
      assert.ok(end, initial.text);
      assert.equal(events.indexOf(end), names.length, 'the bookmark follows the initial events');
      assert.equal(end.object.kind, 'ConfigMap');
      assert.equal(end.object.metadata.annotations['k8s.io/initial-events-end'], 'true');
      const list = await api(env, 'GET', '/api/v1/namespaces/default/configmaps');
      const endRv = Number(end.object.metadata.resourceVersion);
      assert.ok(endRv >= Number(one.json.metadata.resourceVersion) && endRv <= Number(list.json.metadata.resourceVersion), String(endRv));

      // sendInitialEvents=false: from now on, nothing before.
      const none = await api(env, 'GET', `${base}&sendInitialEvents=false&resourceVersionMatch=NotOlderThan&timeoutSeconds=1`);
      assert.deepEqual(watchLines(none.text), []);

      // Without sendInitialEvents, resourceVersionMatch is refused as ValidateListOptions refuses it.
      const bad = await api(env, 'GET', `${base}&resourceVersionMatch=NotOlderThan`);
      assert.equal(bad.status, 422);
      assert.equal(
        bad.json.message,
        'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
      );
      const wrongMatch = await api(env, 'GET', `${base}&sendInitialEvents=true&resourceVersionMatch=Exact`);
      assert.equal(wrongMatch.status, 422);
      assert.match(wrongMatch.json.message, /sendInitialEvents requires setting resourceVersionMatch to NotOlderThan/);

      // A periodic bookmark 2 s before the timeout, with the current resourceVersion.
      const rv = list.json.metadata.resourceVersion as string;
      const timed = await api(env, 'GET', `${base}&resourceVersion=${rv}&allowWatchBookmarks=true&timeoutSeconds=4`, { timeoutMs: 15_000 });
      const marks = watchLines(timed.text).filter((e) => e.type === 'BOOKMARK');
      assert.equal(marks.length, 1, timed.text);
      assert.ok(Number(marks[0]!.object.metadata.resourceVersion) >= Number(rv));
      assert.equal(marks[0]!.object.metadata.annotations, undefined);

      // Initial events are the state asked for, sent whole: ~11 MB of them is no reason to cut a watch off.
      for (let i = 0; i < 12; i++)
        assert.equal((await api(env, 'POST', '/api/v1/namespaces/default/configmaps', { body: configMap(`big-${i}`, 900_000) })).status, 201);
      const whole = await api(env, 'GET', `${base}&timeoutSeconds=2`, { timeoutMs: 30_000 });
      const bigs = watchLines(whole.text).filter((e) => e.type === 'ADDED' && e.object.metadata.name.startsWith('big-'));
      assert.equal(bigs.length, 12);
      assert.doesNotMatch((await kubectl(env, ['get', '--raw', '/metrics'])).stdout, /apiserver_terminated_watchers_total\{/);

      // From before the kept history: one ERROR event, 410 Expired, naming the oldest version a watch may start from.
      const old = await api(env, 'GET', `${base}&resourceVersion=5`);
      const [err] = watchLines(old.text);
      assert.equal(err!.type, 'ERROR');
      assert.equal(err!.object.code, 410);
      assert.equal(err!.object.reason, 'Expired');
      assert.match(err!.object.message, /^too old resource version: 5 \(\d+\)$/);
    }));
});

test('sendInitialEvents before 1.32 is refused as the WatchList feature gate (off) refuses it', () => {
  const host = { objects: new ObjectStore(), kubernetesVersion: '1.31.5', record: {}, workloads: { logs: {} }, serviceAccounts: { key: Buffer.alloc(32) } };
  const api = new ClusterApi(host as unknown as ApiServerHost);
  const res = api.handle({
    method: 'GET',
    path: '/api/v1/namespaces/default/configmaps',
    query: new URLSearchParams('watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true'),
  });
  assert.ok('status' in res && res.status === 422);
  assert.equal(
    (res.body as { message: string }).message,
    'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled',
  );
});
