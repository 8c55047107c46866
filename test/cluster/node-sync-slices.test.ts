// The nodes' sync in slices (cluster.ts syncInSlices, docs/performance.md §6.9): a sync of many new node records
// builds them over several turns, says so by `settling()` until the last is built, builds a record as it is at its
// slice (one deleted meanwhile is not built), lets a second sync in slices join it, and is finished at once by a
// plain sync().
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ClusterRuntime } from '../../src/cluster/cluster.js';
import { NODES } from '../../src/cluster/apimachinery/resources.js';
import { nodeKey, nodesOf, type ClusterRecord, type NodeRecord } from '../../src/model/cluster-records.js';
import { aksClient, cluster, POLL } from '../containerservice/harness.js';
import { withServer } from '../network/harness.js';
import type { Store } from '../../src/store/store.js';

/** Copies of the cluster's first node record under new names, written to the store in one transaction: their names. */
function moreNodes(store: Store, record: ClusterRecord, like: NodeRecord, prefix: string, count: number): Set<string> {
  const names = new Set<string>();
  store.transaction(() => {
    for (let i = 0; i < count; i++) {
      const name = `${prefix}${String(i).padStart(4, '0')}`;
      store.put(nodeKey(record.id, name), { ...like, name });
      names.add(name);
    }
  });
  return names;
}

test('node sync in slices: built over turns, settling until done, a deleted record skipped, a second sync joins, sync() finishes it', async () => {
  await withServer(async (env) => {
    const created = await aksClient(env.server).managedClusters.beginCreateOrUpdateAndWait('rg', 'c1', cluster({ networkPlugin: 'none' }), POLL);
    const record = env.server.store.get<ClusterRecord>(created.id!)!;
    const home = mkdtempSync(join(tmpdir(), 'aksemu-slices-'));
    const runtime = new ClusterRuntime(env.server.store, home, record);
    runtime.start();
    const failures: unknown[] = [];
    const failed = (e: unknown) => failures.push(e);
    try {
      const like = nodesOf(env.server.store, record)[0]!;
      const count = () => runtime.objects.count(NODES);
      assert.equal(count(), 3);
      assert.equal(runtime.settling(), undefined);

      // A small sync ends in its call, as sync() does.
      runtime.syncInSlices(moreNodes(env.server.store, record, like, 'small', 5), failed);
      assert.equal(runtime.settling(), undefined);
      assert.equal(count(), 8);

      // Many: the first slice now, the rest on later turns.
      const first = moreNodes(env.server.store, record, like, 'a', 1000);
      runtime.syncInSlices(first, failed);
      const settling = runtime.settling();
      assert.ok(settling, 'a sync of 1,000 nodes is not done in one slice');
      assert.ok(count() < 8 + 1000, `${count()} nodes after the first slice`);
      // Deleted before its slice: not built.
      env.server.store.delete(nodeKey(record.id, 'a0999'));
      // A second sync in slices joins the first.
      runtime.syncInSlices(moreNodes(env.server.store, record, like, 'b', 100), failed);
      assert.equal(runtime.settling(), settling);
      await settling;
      assert.equal(runtime.settling(), undefined);
      assert.equal(count(), 8 + 999 + 100);
      assert.equal(runtime.objects.get(NODES, undefined, 'a0999'), undefined);
      assert.ok(runtime.objects.get(NODES, undefined, 'b0099'));

      // sync() while slices are left builds them before it returns.
      runtime.syncInSlices(moreNodes(env.server.store, record, like, 'c', 1000), failed);
      assert.ok(runtime.settling());
      runtime.sync(new Set());
      assert.equal(runtime.settling(), undefined);
      assert.equal(count(), 8 + 999 + 100 + 1000);
      assert.deepEqual(failures, []);
    } finally {
      runtime.close();
      await runtime.settled();
      rmSync(home, { recursive: true, force: true });
    }
  });
});
