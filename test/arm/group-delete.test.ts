// Deleting a resource group that holds many clusters (issue 11, defect 7): the delete proceeds one
// cluster per transaction, yielding the event loop between them, so other requests are answered
// meanwhile; and a delete cut short (the server stopped between two slices, as a kill would stop it:
// SQLite rolls back the slice in flight) finishes after a restart, with no cluster half-deleted.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { nodesPrefix } from '../../src/model/cluster-records.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/store.js';
import { removeHome, startTestServer, tempHome, type TestServer } from '../e2e/harness.js';
import { arm, pathOf, waitForOperation, waitForResult } from './helpers.js';

const RG = '2021-04-01';
const AKS = '2022-11-01';
const CLUSTERS = 16;

const CLUSTER_KEY = /\/providers\/Microsoft\.ContainerService\/managedClusters\/[^/]+$/i;

function clusterBody(i: number) {
  return {
    location: 'eastus',
    identity: { type: 'SystemAssigned' },
    properties: {
      dnsPrefix: `c${i}`,
      agentPoolProfiles: [{ name: 'nodepool1', count: 1, vmSize: 'Standard_DS2_v2', mode: 'System', osType: 'Linux' }],
      networkProfile: { networkPlugin: 'kubenet' },
    },
  };
}

/** A group `big` of CLUSTERS clusters and a group `other` of one, every operation finished. */
async function populate(server: TestServer): Promise<{ big: string; other: string }> {
  const sub = server.identity.subscriptionId;
  const big = `/subscriptions/${sub}/resourceGroups/big`;
  const other = `/subscriptions/${sub}/resourceGroups/other`;
  for (const g of [big, other]) assert.equal((await arm(server, 'PUT', `${g}?api-version=${RG}`, { body: { location: 'eastus' } })).status, 201);
  const puts = [
    ...Array.from({ length: CLUSTERS }, (_, i) =>
      arm(server, 'PUT', `${big}/providers/Microsoft.ContainerService/managedClusters/c${i}?api-version=${AKS}`, { body: clusterBody(i) }),
    ),
    arm(server, 'PUT', `${other}/providers/Microsoft.ContainerService/managedClusters/keep?api-version=${AKS}`, { body: clusterBody(99) }),
  ];
  for (const res of await Promise.all(puts)) {
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal((await waitForOperation(server, pathOf(res.headers['azure-asyncoperation']))).status, 'Succeeded');
  }
  return { big, other };
}

function clustersUnder(store: Store, group: string): string[] {
  return store
    .list(`${group}/providers/Microsoft.ContainerService/managedClusters/`)
    .filter((e) => CLUSTER_KEY.test(e.key))
    .map((e) => e.key);
}

/** Every key a cluster owns: its record, pools, node records, node resource group and what is in it. */
function keysOf(store: Store, clusterId: string, nodeResourceGroupId: string): string[] {
  return [
    ...store.list(clusterId).map((e) => e.key),
    ...store.list(nodesPrefix(clusterId)).map((e) => e.key),
    ...store.list(nodeResourceGroupId).map((e) => e.key),
  ];
}

describe('deleting a resource group of many clusters', () => {
  test('proceeds in slices: requests are answered while clusters remain', async () => {
    const home = tempHome();
    const server = await startTestServer({ home });
    try {
      const { big } = await populate(server);
      const del = await arm(server, 'DELETE', `${big}?api-version=${RG}`);
      assert.equal(del.status, 202);
      const seen: number[] = [];
      for (;;) {
        const list = await arm(server, 'GET', `${big}/providers/Microsoft.ContainerService/managedClusters?api-version=${AKS}`);
        if (list.status !== 200) break;
        seen.push(list.body.value.length);
      }
      assert.ok(
        seen.some((n) => n > 0 && n < CLUSTERS),
        `the delete answered nothing between its start and its end: ${seen}`,
      );
      const result = await waitForResult(server, del.headers['location']);
      assert.equal(result.status, 204);
      assert.deepEqual(
        server.store.list(`${big}`).map((e) => e.key),
        [],
      );
    } finally {
      await server.close();
      removeHome(home);
    }
  });

  test('cut short between slices, it finishes after a restart; no cluster is ever half-deleted', async () => {
    const home = tempHome();
    let server = await startTestServer({ home });
    let closed = false;
    try {
      const { big, other } = await populate(server);
      const clusters = clustersUnder(server.store, big).map((id) => {
        const record = server.store.get<{ nodeResourceGroup: string }>(id)!;
        return { id, nodeRg: `/subscriptions/${server.identity.subscriptionId}/resourceGroups/${record.nodeResourceGroup}` };
      });
      const complete = new Map(clusters.map((c) => [c.id, keysOf(server.store, c.id, c.nodeRg).length]));
      assert.ok(
        [...complete.values()].every((n) => n >= 4),
        'each cluster has a record, a pool, a node and a node resource group',
      );

      const del = await arm(server, 'DELETE', `${big}?api-version=${RG}`);
      assert.equal(del.status, 202);
      // Stop the server as soon as one slice has committed: the rest of the work is cut short.
      while (clustersUnder(server.store, big).length === CLUSTERS) await new Promise((r) => setImmediate(r));
      const stopping = server.close();
      const left = clustersUnder(server.store, big).length;
      await stopping;
      closed = true;
      assert.ok(left > 0 && left < CLUSTERS, `cut short with ${left} of ${CLUSTERS} clusters left`);

      // Nothing half-deleted: in the store as the stop left it, every cluster is whole or entirely gone.
      const stored = new SqliteStore(join(home, 'state.db'));
      try {
        for (const c of clusters) {
          const n = keysOf(stored, c.id, c.nodeRg).length;
          assert.ok(n === 0 || n === complete.get(c.id), `${c.id}: ${n} of ${complete.get(c.id)} keys`);
        }
        assert.equal(clustersUnder(stored, big).length, left);
      } finally {
        stored.close();
      }

      // The restart resumes the operation and finishes it.
      server = await startTestServer({ home });
      closed = false;
      const result = await waitForResult(server, del.headers['location']);
      assert.equal(result.status, 204);
      assert.deepEqual(
        server.store.list(big).map((e) => e.key),
        [],
      );
      for (const c of clusters) assert.deepEqual(keysOf(server.store, c.id, c.nodeRg), [], c.id);
      assert.deepEqual(
        server.store
          .list('aksemu:clusterapi')
          .map((e) => e.key)
          .filter((k) => k.includes('/resourcegroups/big/')),
        [],
      );
      // The other group is untouched.
      const keep = await arm(server, 'GET', `${other}/providers/Microsoft.ContainerService/managedClusters/keep?api-version=${AKS}`);
      assert.equal(keep.status, 200);
      assert.equal(keep.body.properties.provisioningState, 'Succeeded');
    } finally {
      if (!closed) await server.close();
      removeHome(home);
    }
  });
});
