// The watch history is bounded in bytes as well as in changes (issue 25): a client rewriting a large object
// cannot make every version of it stay in memory; a watch from before the window gets 410 Gone (and relists).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ObjectStore } from '../../src/cluster/apiserver/storage/store.js';
import { CONFIGMAPS, EVENTS, PODS } from '../../src/cluster/apimachinery/resources.js';
import type { Change } from '../../src/cluster/apiserver/storage/store.js';
import { parseFieldSelector, parseLabelSelector } from '../../src/cluster/apimachinery/selectors.js';
import { openWatch } from '../../src/cluster/apiserver/watch.js';
import { WatchHistory } from '../../src/cluster/apiserver/storage/history.js';
import { compactHeap } from '../../src/cluster/apiserver/storage/idle-compaction.js';
import type { KubeObject } from '../../src/cluster/apimachinery/object.js';

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

test('a selector watch replayed from a resourceVersion sends what the live watch sent: pods leaving and entering by a label and by a field', () => {
  const objects = new ObjectStore();
  const pod = (name: string, app: string, nodeName?: string, phase = 'Pending') => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', labels: { app, tier: 'web' } },
    spec: { containers: [{ name: 'c', image: 'nginx' }], ...(nodeName ? { nodeName } : {}) },
    status: { phase },
  });
  const first = objects.resourceVersion;
  const selectors = {
    label: { labels: parseLabelSelector('app=web'), fields: [] },
    field: { labels: [], fields: parseFieldSelector('spec.nodeName=n1,status.phase!=Succeeded') },
    both: { labels: parseLabelSelector('app in (web),tier'), fields: parseFieldSelector('spec.nodeName=n1') },
  };
  const line = (e: { type: string; object: unknown }) => JSON.stringify(e);
  const live = Object.fromEntries(Object.keys(selectors).map((k) => [k, [] as string[]])) as Record<keyof typeof selectors, string[]>;
  const watches = (Object.keys(selectors) as (keyof typeof selectors)[]).map((k) =>
    openWatch(objects, PODS, 'default', selectors[k], { resourceVersion: String(first) }, { send: (e) => live[k].push(line(e)), close: () => {} }),
  );
  objects.put(PODS, pod('a', 'web'));
  objects.put(CONFIGMAPS, cm(1));
  objects.put(PODS, pod('b', 'db', 'n1'));
  objects.put(PODS, pod('a', 'web', 'n1')); // a enters the field selector
  objects.put(PODS, pod('a', 'db', 'n1')); // a leaves the label selector
  objects.put(PODS, pod('b', 'web', 'n1')); // b enters the label selector
  objects.put(PODS, pod('a', 'db', 'n1', 'Succeeded')); // a leaves the field selector by its phase
  objects.put(PODS, pod('b', 'web', 'n2')); // b leaves the field selector by its node
  objects.put(PODS, pod('a', 'web', 'n1', 'Running')); // a enters both again
  objects.delete(PODS, 'default', 'b');
  objects.delete(PODS, 'default', 'a');
  for (const w of watches) w.stop();
  const rvOf = (l: string) => Number((JSON.parse(l) as { object: { metadata: { resourceVersion: string } } }).object.metadata.resourceVersion) - first;
  const seen = (lines: string[]) => lines.map((l) => `${(JSON.parse(l) as { type: string }).type} ${JSON.parse(l).object.metadata.name} ${rvOf(l)}`);
  assert.deepEqual(seen(live.label), ['ADDED a 1', 'MODIFIED a 4', 'DELETED a 5', 'ADDED b 6', 'MODIFIED b 8', 'ADDED a 9', 'DELETED b 10', 'DELETED a 11']);
  assert.deepEqual(seen(live.field), ['ADDED b 3', 'ADDED a 4', 'MODIFIED a 5', 'MODIFIED b 6', 'DELETED a 7', 'DELETED b 8', 'ADDED a 9', 'DELETED a 11']);
  assert.deepEqual(seen(live.both), ['ADDED a 4', 'DELETED a 5', 'ADDED b 6', 'DELETED b 8', 'ADDED a 9', 'DELETED a 11']);
  // A leave sends the version the watch last matched, at the change's resourceVersion (the apiserver's cache watcher).
  const left = JSON.parse(live.label[2]!).object;
  assert.equal(left.metadata.labels.app, 'web');
  assert.equal(left.spec.nodeName, 'n1');
  assert.equal(rvOf(live.label[2]!), 5);
  const leftByPhase = JSON.parse(live.field[4]!).object;
  assert.equal(leftByPhase.status.phase, 'Pending');
  assert.equal(leftByPhase.metadata.labels.app, 'db');
  // Replayed from the history from every version on, each line as the live watch sent it.
  for (const k of Object.keys(selectors) as (keyof typeof selectors)[]) {
    for (let from = first; from < objects.resourceVersion; from++) {
      const replay: string[] = [];
      openWatch(objects, PODS, 'default', selectors[k], { resourceVersion: String(from) }, { send: (e) => replay.push(line(e)), close: () => {} }).stop();
      assert.deepEqual(
        replay,
        live[k].filter((l) => rvOf(l) > from - first),
        `${k} from ${from - first}`,
      );
    }
  }
});

test('each change keeps its resource apart from the others; when the resources outnumber their places, the window starts anew', () => {
  const history = new WatchHistory(0, 100, 1e9, 3);
  const change = (rv: number, resource: string, weight: number) => {
    const object = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${rv}`, resourceVersion: String(rv) } };
    history.add({ rv, type: rv % 2 ? 'ADDED' : 'DELETED', resource, object }, weight, object, rv % 2 ? undefined : object);
  };
  const seen = (key: string, from: number) => {
    const got = history.since(key, from);
    return got === 'gone' ? got : got.map((c) => `${c.rv} ${c.type} ${c.resource}`);
  };
  // Weights of every size, a fraction among them: a weight never spills into the resource's or type's digits.
  change(1, '/configmaps', 0);
  change(2, 'apps/deployments', 1.5);
  change(3, '/configmaps', 2 ** 28);
  change(4, '/pods', 2 ** 40);
  change(5, 'apps/deployments', 7);
  assert.deepEqual(seen('/configmaps', 0), ['1 ADDED /configmaps', '3 ADDED /configmaps']);
  assert.deepEqual(seen('apps/deployments', 0), ['2 DELETED apps/deployments', '5 ADDED apps/deployments']);
  assert.deepEqual(seen('/pods', 0), ['4 DELETED /pods']);
  assert.deepEqual(seen('/secrets', 0), []);
  // A fourth resource: its places ran out, so the window starts at its change; watches from before relist.
  change(6, '/secrets', 10);
  assert.equal(history.oldest, 5);
  assert.equal(seen('/configmaps', 0), 'gone');
  assert.deepEqual(seen('/secrets', 5), ['6 DELETED /secrets']);
  change(7, '/configmaps', 10);
  assert.deepEqual(seen('/configmaps', 5), ['7 ADDED /configmaps']);
  assert.deepEqual(seen('/secrets', 5), ['6 DELETED /secrets']);
});

/** A pod's version as a status write leaves it: the same spec and labels as the version before, another status. */
const spec = { containers: [{ name: 'c', image: 'nginx' }] };
const labels = { app: 'web' };
const podAt = (name: string, rv: number, phase: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default', labels, uid: `uid-${name}`, resourceVersion: String(rv) },
  spec,
  status: { phase },
});

test('a version before whose own change has left the window is not kept whole, and reads back the same to the byte', async () => {
  const history = new WatchHistory(0, 10, 1e9);
  let rv = 0;
  const add = (type: 'ADDED' | 'MODIFIED', resource: string, object: KubeObject, previous?: KubeObject) => {
    rv++;
    history.add(previous ? { rv, type, resource, object, previous } : { rv, type, resource, object }, 100, object, previous);
  };
  // Made in a function of their own so that only their JSON and a weak reference stay here.
  const versions = () => {
    const a1 = podAt('a', 1, 'Pending') as unknown as KubeObject;
    const b1 = podAt('b', 2, 'Pending') as unknown as KubeObject;
    const b2 = podAt('b', 3, 'Running') as unknown as KubeObject;
    add('ADDED', '/pods', a1);
    add('ADDED', '/pods', b1);
    // b's status write while b's create is held: its version before is that change's object, held whole (it costs nothing).
    add('MODIFIED', '/pods', b2, b1);
    // Nine more changes: the tenth past the bound trims the window to 10, and b's create (rv 2) leaves it.
    for (let i = 0; i < 9; i++) add('ADDED', '/configmaps', cm(i) as unknown as KubeObject);
    assert.equal(history.oldest, 2);
    // a's status write after a's create has left.
    add('MODIFIED', '/pods', podAt('a', 13, 'Running') as unknown as KubeObject, a1);
    return { a1: JSON.stringify(a1), b1: JSON.stringify(b1), weak: [new WeakRef(a1), new WeakRef(b1), new WeakRef(a1.metadata), new WeakRef(b1.metadata)] };
  };
  const { a1, b1, weak } = versions();
  // A weak reference holds its object until the turn that made it ends.
  await new Promise((r) => setImmediate(r));
  compactHeap();
  assert.deepEqual(
    weak.map((w) => w.deref() === undefined),
    [true, true, true, true],
    'the versions before (their objects and metadata) are no longer held',
  );
  const replay = history.since('/pods', 2);
  assert.ok(Array.isArray(replay));
  assert.deepEqual(
    replay.map((c) => [c.rv, c.type, JSON.stringify(c.previous)]),
    [
      [3, 'MODIFIED', b1],
      [13, 'MODIFIED', a1],
    ],
  );
  // What it shares with its successor is the successor's, not a copy.
  assert.equal((replay[0]!.previous as unknown as { spec: unknown }).spec, spec);
});

test("a selector watch replayed after a pod's create has left the history sends its leave as the live watch sent it", () => {
  const objects = new ObjectStore();
  const pod = (app: string, phase: string) => ({ ...podAt('a', 0, phase), metadata: { name: 'a', namespace: 'default', labels: { app } } });
  const line = (e: { type: string; object: unknown }) => JSON.stringify(e);
  const selectors = {
    label: { labels: parseLabelSelector('app=web'), fields: [] },
    field: { labels: [], fields: parseFieldSelector('status.phase=Pending') },
  };
  const live = { label: [] as string[], field: [] as string[] };
  const first = objects.resourceVersion;
  const watches = (['label', 'field'] as const).map((k) =>
    openWatch(objects, PODS, 'default', selectors[k], { resourceVersion: String(first) }, { send: (e) => live[k].push(line(e)), close: () => {} }),
  );
  objects.put(PODS, pod('web', 'Pending'));
  // The pod's create leaves the history's window (20,000 changes, trimmed a tenth past that).
  for (let i = 0; i < 22_100; i++) objects.put(CONFIGMAPS, cm(i));
  const from = objects.resourceVersion;
  assert.ok(objects.oldestResourceVersion > first + 1);
  objects.put(PODS, pod('db', 'Pending')); // leaves the label selector
  objects.put(PODS, pod('web', 'Running')); // enters it again, leaves the field selector
  objects.put(PODS, pod('web', 'Pending')); // enters the field selector again
  for (const w of watches) w.stop();
  const after = (lines: string[]) => lines.filter((l) => Number(JSON.parse(l).object.metadata.resourceVersion) > from);
  assert.deepEqual(
    after(live.label).map((l) => JSON.parse(l).type),
    ['DELETED', 'ADDED', 'MODIFIED'],
  );
  assert.deepEqual(
    after(live.field).map((l) => JSON.parse(l).type),
    ['MODIFIED', 'DELETED', 'ADDED'],
  );
  for (const k of ['label', 'field'] as const) {
    for (let at = from; at < objects.resourceVersion; at++) {
      const replay: string[] = [];
      openWatch(objects, PODS, 'default', selectors[k], { resourceVersion: String(at) }, { send: (e) => replay.push(line(e)), close: () => {} }).stop();
      assert.deepEqual(
        replay,
        after(live[k]).filter((l) => Number(JSON.parse(l).object.metadata.resourceVersion) > at),
        `${k} from ${at - from}`,
      );
    }
  }
});
