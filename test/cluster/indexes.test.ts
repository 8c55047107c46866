// The controllers' index of dependents (client/indexes.ts) answers in the order its objects last changed: the
// ReplicaSet controller's ties on deletion follow it. The index remakes an owner's table once deleted slots pile up
// (docs/performance.md §7.3); what it answers must stay the same through that.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ObjectStore } from '../../src/cluster/apiserver/storage/store.js';
import { Indexes } from '../../src/cluster/client/indexes.js';
import type { KubeObject } from '../../src/cluster/apimachinery/object.js';
import { PODS } from '../../src/cluster/apimachinery/resources.js';

const OWNER = 'rs-uid-1';

const pod = (name: string, phase: string, owner = OWNER): KubeObject =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: owner, controller: true }] },
    spec: { containers: [{ name: 'c', image: 'nginx' }] },
    status: { phase },
  }) as KubeObject;

test('dependents come in the order they last changed, the latest versions, through many updates and deletes', () => {
  const store = new ObjectStore();
  const index = new Indexes(store);
  store.subscribe((c) => index.apply(c));
  const names = Array.from({ length: 300 }, (_, i) => `p${i}`);
  for (const n of names) store.put(PODS, pod(n, 'Pending'));
  // The order the index should answer in: each change moves its pod to the end.
  let expected = [...names];
  const touch = (n: string, phase: string) => {
    store.put(PODS, pod(n, phase));
    expected = [...expected.filter((x) => x !== n), n];
  };
  // Rounds of updates in a scrambled order (each round moves every pod, leaving a deleted slot per pod).
  for (let round = 0; round < 5; round++) {
    for (let i = 0; i < names.length; i++) touch(names[(i * 7 + round * 13) % names.length]!, `Phase${round}`);
    const got = index.dependents(OWNER, 'Pod');
    assert.deepEqual(
      got.map((p) => p.metadata.name),
      expected,
    );
    // Each the stored version, not one from before.
    for (const p of got) assert.equal(p, store.get(PODS, 'default', p.metadata.name));
  }
  // Deletes, then updates again: gone ones stay gone.
  for (const n of names.slice(0, 100)) {
    store.delete(PODS, 'default', n);
    expected = expected.filter((x) => x !== n);
  }
  for (const n of names.slice(100, 250)) touch(n, 'Running');
  assert.deepEqual(
    index.dependents(OWNER).map((p) => p.metadata.name),
    expected,
  );
  // A pod that changes owner leaves the old owner's list and joins the new one's end.
  store.put(PODS, pod('p260', 'Running', 'rs-uid-2'));
  expected = expected.filter((x) => x !== 'p260');
  assert.deepEqual(
    index.dependents(OWNER).map((p) => p.metadata.name),
    expected,
  );
  assert.deepEqual(
    index.dependents('rs-uid-2').map((p) => p.metadata.name),
    ['p260'],
  );
  // All gone: nothing left under the owner.
  for (const n of expected) store.delete(PODS, 'default', n);
  assert.deepEqual(index.dependents(OWNER), []);
});
