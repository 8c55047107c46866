// The nodes' sync in slices (cluster.ts syncInSlices, docs/performance.md §6.9): a sync of many new node records
// builds them over several turns, says so by `settling()` until the last is built, builds a record as it is at its
// slice (one deleted meanwhile is not built), lets a second sync in slices join it, and is finished at once by a
// plain sync(). The later slices' conf dirs are made in the thread pool first (docs/performance.md §6.11).
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
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

interface Fixture {
  store: Store;
  record: ClusterRecord;
  runtime: ClusterRuntime;
  /** The cluster's first node record, for moreNodes. */
  like: NodeRecord;
  failed: (e: unknown) => void;
  failures: unknown[];
}

/** A 3-node BYO CNI cluster's runtime in a home of its own, started; closed, settled and its home removed after `body`: the home. */
async function withRuntime(body: (f: Fixture) => Promise<void>): Promise<string> {
  const home = mkdtempSync(join(tmpdir(), 'aksemu-slices-'));
  await withServer(async (env) => {
    const created = await aksClient(env.server).managedClusters.beginCreateOrUpdateAndWait('rg', 'c1', cluster({ networkPlugin: 'none' }), POLL);
    const record = env.server.store.get<ClusterRecord>(created.id!)!;
    const runtime = new ClusterRuntime(env.server.store, home, record);
    runtime.start();
    const failures: unknown[] = [];
    try {
      const like = nodesOf(env.server.store, record)[0]!;
      await body({ store: env.server.store, record, runtime, like, failed: (e) => failures.push(e), failures });
    } finally {
      runtime.close();
      await runtime.settled();
      rmSync(home, { recursive: true, force: true });
    }
  });
  return home;
}

test('node sync in slices: built over turns, settling until done, a deleted record skipped, a second sync joins, sync() finishes it', async () => {
  await withRuntime(async ({ store, record, runtime, like, failed, failures }) => {
    {
      const count = () => runtime.objects.count(NODES);
      assert.equal(count(), 3);
      assert.equal(runtime.settling(), undefined);

      // A small sync ends in its call, as sync() does.
      runtime.syncInSlices(moreNodes(store, record, like, 'small', 5), failed);
      assert.equal(runtime.settling(), undefined);
      assert.equal(count(), 8);

      // Many: the first slice now, the rest on later turns.
      const first = moreNodes(store, record, like, 'a', 1000);
      runtime.syncInSlices(first, failed);
      const settling = runtime.settling();
      assert.ok(settling, 'a sync of 1,000 nodes is not done in one slice');
      assert.ok(count() < 8 + 1000, `${count()} nodes after the first slice`);
      // Deleted before its slice: not built.
      store.delete(nodeKey(record.id, 'a0999'));
      // A second sync in slices joins the first.
      runtime.syncInSlices(moreNodes(store, record, like, 'b', 100), failed);
      assert.equal(runtime.settling(), settling);
      await settling;
      assert.equal(runtime.settling(), undefined);
      assert.equal(count(), 8 + 999 + 100);
      assert.equal(runtime.objects.get(NODES, undefined, 'a0999'), undefined);
      assert.ok(runtime.objects.get(NODES, undefined, 'b0099'));

      // sync() while slices are left builds them before it returns.
      runtime.syncInSlices(moreNodes(store, record, like, 'c', 1000), failed);
      assert.ok(runtime.settling());
      runtime.sync(new Set());
      assert.equal(runtime.settling(), undefined);
      assert.equal(count(), 8 + 999 + 100 + 1000);
      assert.deepEqual(failures, []);
    }
  });
});

test("node sync in slices: the later nodes' conf dirs made in the thread pool, a deleted record's removed, sync() and close() meanwhile", async () => {
  const home = await withRuntime(async ({ store, record, runtime, like, failed, failures }) => {
    const kubelets = runtime.kubelets;
    const asked = new Set<string>();
    const prepare = kubelets.prepareConfDirs.bind(kubelets);
    kubelets.prepareConfDirs = (names) => {
      for (const n of names) asked.add(n);
      return prepare(names);
    };
    /** Every named node is a Node, tracked by its kubelet, with its conf dir. */
    const complete = (names: Iterable<string>) => {
      for (const name of names) {
        assert.ok(runtime.objects.get(NODES, undefined, name), `Node ${name}`);
        assert.ok(kubelets.state(name), `kubelet of ${name}`);
        assert.ok(existsSync(kubelets.confDir(name)), `conf dir of ${name}`);
      }
    };
    {
      const a = moreNodes(store, record, like, 'a', 1000);
      runtime.syncInSlices(a, failed);
      store.delete(nodeKey(record.id, 'a0999'));
      await runtime.settling();
      assert.ok(asked.size > 500, `${asked.size} conf dirs made in the thread pool`);
      assert.ok(asked.has('a0999'));
      a.delete('a0999');
      complete(a);
      // Its conf dir was made before its record went: it goes with it, as if never made.
      assert.equal(runtime.objects.get(NODES, undefined, 'a0999'), undefined);
      assert.equal(existsSync(kubelets.nodeRoot('a0999')), false);
      assert.equal(kubelets.state('a0999'), undefined);

      // sync() while the thread pool makes them: every node complete when it returns.
      const b = moreNodes(store, record, like, 'b', 1000);
      runtime.syncInSlices(b, failed);
      await new Promise((r) => setImmediate(r));
      runtime.sync(new Set());
      complete(b);
      assert.deepEqual(failures, []);

      // close() while they are being made: settled() waits for them, so the home removed then stays removed.
      runtime.syncInSlices(moreNodes(store, record, like, 'c', 1000), failed);
      await new Promise((r) => setImmediate(r));
    }
  });
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(existsSync(home), false);
});
