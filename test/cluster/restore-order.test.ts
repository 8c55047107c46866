// The order restored pods' networks are rebuilt in (pod-lifecycle.ts resync): one of each namespace in turn.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { byNamespaceInTurn } from '../../src/cluster/kubelet/pod-lifecycle.js';

test('byNamespaceInTurn: the first of each namespace, then the second of each, each namespace in its order', () => {
  const pods = ['calico-system/a', 'calico-system/b', 'calico-system/c', 'default/web-0', 'default/web-1', 'kube-system/coredns'];
  assert.deepEqual(
    byNamespaceInTurn(pods, (p) => p.split('/')[0]!),
    ['calico-system/a', 'default/web-0', 'kube-system/coredns', 'calico-system/b', 'default/web-1', 'calico-system/c'],
  );
  assert.deepEqual(
    byNamespaceInTurn([], (p: string) => p),
    [],
  );
});
