// A restart reads each cluster's objects in slices between turns (apiserver/storage/persistence.ts preload,
// cluster/server.ts): ARM answers meanwhile, and a request to the cluster's API made while its objects load waits for
// them: a list sees every object, a write is kept once, and the log says once when the cluster serves again.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { objectsKey } from '../../src/cluster/apiserver/storage/persistence.js';
import { startServer } from '../../src/server/server.js';
import { https } from '../e2e/harness.js';
import { restart } from '../network/harness.js';
import { api, eventually, withCluster } from './harness.js';

/** Enough ConfigMaps that their load takes many slices (1,000 rows a turn), each turn a few milliseconds at least. */
const STORED = 20_000;

test('while a restart loads the objects, ARM answers and the cluster API waits: a list sees them all, a write is kept once', () =>
  withCluster({ networkPlugin: 'none' }, async (env) => {
    const root = objectsKey(env.clusterId);
    const created = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    env.server.store.transaction(() => {
      for (let i = 0; i < STORED; i++)
        env.server.store.put(`${root}//configmaps/default/bulk-${i}`, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `bulk-${i}`, namespace: 'default', uid: `uid-${i}`, creationTimestamp: created, resourceVersion: '1' },
          data: { index: String(i), filler: 'x'.repeat(200) },
        });
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
