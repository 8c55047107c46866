// The nodes' sync (cluster.ts) rebuilds only the nodes whose records changed and those of a pool whose basis
// changed (docs/performance.md §6.3); what a full rebuild did must still happen: a pool's new labels reach its
// nodes (and no other pool's), a Node deleted through the API while its VM is there comes back, and a Node
// with no VM behind it goes, at the cluster's next change.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { aksClient, POLL } from '../containerservice/harness.js';
import { api, HAVE_KUBECTL, kubectl, withCluster, type ClusterEnv } from './harness.js';

interface NodeList {
  items: Array<{ metadata: { name: string; labels: Record<string, string> } }>;
}

/** The cluster's nodes once `done` holds of them (kubectl get nodes, polled for at most 20 s). */
async function nodesWhen(env: ClusterEnv, done: (nodes: NodeList['items']) => boolean): Promise<NodeList['items']> {
  const until = Date.now() + 20_000;
  for (;;) {
    const got = await kubectl(env, ['get', 'nodes', '-o', 'json']);
    assert.equal(got.code, 0, got.stderr);
    const nodes = (JSON.parse(got.stdout) as NodeList).items;
    if (done(nodes) || Date.now() > until) return nodes;
    await new Promise((r) => setTimeout(r, 200));
  }
}

test(
  'node sync: a pool add brings back a deleted Node and removes one with no VM; a pool label update reaches that pool’s nodes only',
  { skip: !HAVE_KUBECTL && 'no kubectl' },
  () =>
    withCluster(
      { networkPlugin: 'kubenet' },
      async (env) => {
        const aks = aksClient(env.server);
        const first = await nodesWhen(env, (nodes) => nodes.length === 2);
        const names = first.map((n) => n.metadata.name).sort();
        assert.equal(names.length, 2);
        assert.equal((await kubectl(env, ['delete', 'node', names[0]!])).code, 0);
        const stray = await api(env, 'POST', '/api/v1/nodes', { body: JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'stray' } }) });
        assert.equal(stray.status, 201, stray.text);

        const added = await aks.agentPools.beginCreateOrUpdateAndWait('rg', 'c1', 'extra', { count: 1, vmSize: 'Standard_DS2_v2', mode: 'User' }, POLL);
        assert.equal(added.provisioningState, 'Succeeded');
        const after = await nodesWhen(env, (nodes) => nodes.length === 3 && !nodes.some((n) => n.metadata.name === 'stray'));
        const pools = after.map((n) => `${n.metadata.labels['agentpool']}/${n.metadata.name}`).sort();
        assert.deepEqual(
          pools.filter((p) => p.startsWith('nodepool1/')),
          names.map((n) => `nodepool1/${n}`),
          'the deleted Node is there again',
        );
        assert.equal(pools.filter((p) => p.startsWith('extra/')).length, 1);
        assert.ok(!after.some((n) => n.metadata.name === 'stray'), 'a Node without a VM goes');

        const pool = await aks.agentPools.get('rg', 'c1', 'nodepool1');
        const updated = await aks.agentPools.beginCreateOrUpdateAndWait('rg', 'c1', 'nodepool1', { ...pool, nodeLabels: { team: 'blue' } }, POLL);
        assert.equal(updated.provisioningState, 'Succeeded');
        const labelled = await nodesWhen(env, (nodes) => nodes.filter((n) => n.metadata.labels['team'] === 'blue').length === 2);
        for (const n of labelled) {
          assert.equal(n.metadata.labels['team'], n.metadata.labels['agentpool'] === 'nodepool1' ? 'blue' : undefined, n.metadata.name);
        }
      },
      { count: 2 },
    ),
);
