// The watch history is bounded in bytes as well as in changes (issue 25): a client rewriting a large object
// cannot make every version of it stay in memory; a watch from before the window gets 410 Gone (and relists).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ObjectStore } from '../../src/cluster/apiserver/storage/store.js';
import { CONFIGMAPS } from '../../src/cluster/apimachinery/resources.js';

const cm = (i: number) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big', namespace: 'default' }, data: { i: String(i) } });

test('versions of a large object leave the watch history by size: older watches are gone, recent ones replay', () => {
  const objects = new ObjectStore();
  const first = objects.resourceVersion;
  const big = 1.4 * 1024 * 1024;
  for (let i = 0; i < 100; i++) objects.put(CONFIGMAPS, cm(i), { bytes: big });
  assert.equal(objects.since(CONFIGMAPS, first), 'gone');
  const recent = objects.since(CONFIGMAPS, objects.resourceVersion - 5);
  assert.ok(Array.isArray(recent) && recent.length === 5);
  // About 32 MiB of versions (each change counts its object and the version before it): ~11 changes, not 100.
  let from = first;
  while (objects.since(CONFIGMAPS, from) === 'gone') from++;
  const kept = objects.resourceVersion - from;
  assert.ok(kept >= 10 && kept <= 15, `${kept} changes kept`);
});

test('small objects are bounded by count as before: 20,000 changes', () => {
  const objects = new ObjectStore();
  const first = objects.resourceVersion;
  for (let i = 0; i < 1000; i++) objects.put(CONFIGMAPS, cm(i));
  const all = objects.since(CONFIGMAPS, first);
  assert.ok(Array.isArray(all) && all.length === 1000);
});
