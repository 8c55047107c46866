// @kubernetes/client-node 1.4 (the Node 20 line) against a cluster's API: list with the kubeconfig from
// listClusterUserCredential (client certificate), a label-selected list, and a Watch that sees the BYO CNI
// nodes turn Ready when a conflist lands in their conf dirs.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { installCni } from '../../src/cluster/install.js';
import { eventually, withCluster } from './harness.js';

describe('@kubernetes/client-node 1.4', () => {
  test('lists nodes, selects by label, and watches them turn Ready after a CNI install', () =>
    withCluster({ networkPlugin: 'none' }, async (env) => {
      const kc = new k8s.KubeConfig();
      kc.loadFromString(env.kubeconfigYaml);
      const core = kc.makeApiClient(k8s.CoreV1Api);
      const list = await core.listNode();
      assert.equal(list.items.length, 3);
      const rv = list.metadata!.resourceVersion!;
      assert.match(rv, /^\d+$/);
      for (const node of list.items) {
        assert.equal(node.metadata?.labels?.['kubernetes.io/role'], 'agent');
        const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
        assert.equal(ready?.status, 'False');
        assert.equal(ready?.reason, 'KubeletNotReady');
        assert.ok(node.metadata?.creationTimestamp instanceof Date);
      }
      const first = list.items[0]!.metadata!.name!;
      const selected = await core.listNode({ labelSelector: `kubernetes.io/hostname=${first}` });
      assert.deepEqual(
        selected.items.map((n) => n.metadata?.name),
        [first],
      );
      const byField = await core.listNode({ fieldSelector: `metadata.name!=${first}` });
      assert.equal(byField.items.length, 2);
      const none = await core.listNode({ labelSelector: 'kubernetes.azure.com/mode in (user)' });
      assert.equal(none.items.length, 0);
      const ns = await core.readNamespace({ name: 'kube-system' });
      assert.equal(ns.status?.phase, 'Active');

      const events: Array<[string, string, string]> = [];
      const watch = new k8s.Watch(kc);
      const controller = await watch.watch(
        '/api/v1/nodes',
        { resourceVersion: rv, allowWatchBookmarks: true },
        (phase, obj: k8s.V1Node) => {
          events.push([phase, obj.metadata!.name!, obj.status?.conditions?.find((c) => c.type === 'Ready')?.status ?? '']);
        },
        () => {},
      );
      try {
        const conflist = join(env.scratch, '05-bridge.conflist');
        writeFileSync(
          conflist,
          JSON.stringify({
            cniVersion: '1.0.0',
            name: 'bridge',
            plugins: [{ type: 'bridge', bridge: 'br0', ipam: { type: 'host-local', ranges: [[{ subnet: '10.9.0.0/16' }]] } }],
          }),
        );
        const result = installCni({ home: env.home, resourceGroup: 'rg', cluster: 'c1', conflistFile: conflist });
        assert.equal(result.nodes.length, 3);
        await eventually(() => events.length >= 3, 10_000, 'three MODIFIED events');
        assert.deepEqual(
          events.map((e) => [e[0], e[2]]),
          [
            ['MODIFIED', 'True'],
            ['MODIFIED', 'True'],
            ['MODIFIED', 'True'],
          ],
        );
        assert.deepEqual(events.map((e) => e[1]).sort(), list.items.map((n) => n.metadata!.name!).sort());
      } finally {
        controller.abort();
      }
      const lease = await kc.makeApiClient(k8s.CoordinationV1Api).readNamespacedLease({ name: first, namespace: 'kube-node-lease' });
      assert.equal(lease.spec?.holderIdentity, first);
    }));
});
