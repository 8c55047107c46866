// The watch history is bounded in bytes as well as in changes (issue 25): a client rewriting a large object
// cannot make every version of it stay in memory; a watch from before the window gets 410 Gone (and relists).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ObjectStore } from '../../src/cluster/apiserver/storage/store.js';
import { CONFIGMAPS, EVENTS } from '../../src/cluster/apimachinery/resources.js';
import type { Change } from '../../src/cluster/apiserver/storage/store.js';

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

test('a replay gives each change of its type in order: its revision, type, object and version before, complete and as told', () => {
  const objects = new ObjectStore();
  const first = objects.resourceVersion;
  const told: Change[] = [];
  objects.subscribe((c) => told.push(c));
  const event = (name: string, message: string) => ({
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace: 'default' },
    involvedObject: { kind: 'Pod', namespace: 'default', name: 'p', uid: '00000000-0000-4000-8000-000000000001' },
    reason: 'Test',
    message,
    type: 'Normal',
  });
  // ConfigMaps held as they are and Events held packed, interleaved: created, updated, deleted.
  objects.put(CONFIGMAPS, cm(1));
  objects.put(EVENTS, event('e1', 'one'));
  objects.put(CONFIGMAPS, cm(2));
  objects.put(EVENTS, event('e1', 'two'));
  objects.delete(EVENTS, 'default', 'e1');
  objects.delete(CONFIGMAPS, 'default', 'big');
  const wire = (c: Change) => JSON.stringify(c);
  for (const [r, from] of [
    [CONFIGMAPS, first],
    [EVENTS, first],
    [CONFIGMAPS, first + 1],
    [EVENTS, first + 2],
  ] as const) {
    const replay = objects.since(r, from);
    assert.ok(Array.isArray(replay));
    const expected = told.filter((c) => c.rv > from && c.resource === told.find((t) => t.object.kind === r.kind)!.resource);
    assert.deepEqual(replay.map(wire), expected.map(wire), `${r.resource} from ${from}`);
    assert.deepEqual(
      replay.map((c) => [c.type, c.previous === undefined]),
      expected.map((c) => [c.type, c.type === 'ADDED']),
    );
  }
  // Each read is a new object (a reader changing it changes nothing held).
  const [a] = objects.since(EVENTS, first) as Change[];
  const [b] = objects.since(EVENTS, first) as Change[];
  assert.notEqual(a!.object, b!.object);
  assert.deepEqual(a!.object, b!.object);
  // Past the last change, nothing; a fractional version, from the change after it.
  assert.deepEqual(objects.since(CONFIGMAPS, objects.resourceVersion), []);
  assert.deepEqual(objects.since(CONFIGMAPS, objects.resourceVersion + 10), []);
  assert.deepEqual(
    ((objects.since(CONFIGMAPS, first + 0.5) as Change[]) ?? []).map((c) => c.rv),
    [first + 1, first + 3, first + 6],
  );
});

test('a write that fails after taking its revision starts the window anew: older watches get 410 Gone, newer replay', () => {
  const objects = new ObjectStore();
  const first = objects.resourceVersion;
  objects.put(CONFIGMAPS, cm(1));
  // A member JSON cannot write: the store throws after taking the revision (no change is made for it).
  assert.throws(() => objects.put(CONFIGMAPS, { ...cm(2), data: { i: 1n } } as never));
  objects.put(CONFIGMAPS, cm(3));
  assert.equal(objects.since(CONFIGMAPS, first), 'gone');
  const after = objects.since(CONFIGMAPS, objects.resourceVersion - 1);
  assert.ok(
    Array.isArray(after) && after.length === 1 && (after[0]!.object as ReturnType<typeof cm>).data.i === '3' && after[0]!.rv === objects.resourceVersion,
  );
  assert.equal(objects.oldestResourceVersion, objects.resourceVersion - 1);
});
