// The store's write path without second serializations (docs/performance.md §6.1): a write-if-changed decides as
// comparing the two objects' JSON texts would (apimachinery/json-equal.ts sameJson), and the write-behind saves the
// text the store's copy was made from, which is the stored object's JSON.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sameJson } from '../../src/cluster/apimachinery/json-equal.js';
import { ObjectStore } from '../../src/cluster/apiserver/storage/store.js';
import { ObjectPersistence, objectsKey } from '../../src/cluster/apiserver/storage/persistence.js';
import { CONFIGMAPS, PODS } from '../../src/cluster/apimachinery/resources.js';
import type { KubeObject } from '../../src/cluster/apimachinery/object.js';
import { SqliteStore } from '../../src/store/sqlite.js';

test('sameJson says what comparing JSON.stringify texts says: member order, left-out members, nulls in lists, toJSON', () => {
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const atoms = [
    undefined,
    null,
    0,
    -0,
    1,
    2,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    '',
    'a',
    '1',
    true,
    false,
    () => 1,
    new Date(0),
    '1970-01-01T00:00:00.000Z',
  ];
  const value = (depth: number): unknown => {
    const r = rnd();
    if (depth > 3 || r < 0.4) return atoms[Math.floor(rnd() * atoms.length)];
    if (r < 0.7) return Array.from({ length: Math.floor(rnd() * 3) }, () => value(depth + 1));
    const o: Record<string, unknown> = {};
    // Members in either order, so texts that differ only in order are among the pairs.
    for (const k of rnd() < 0.5 ? ['a', 'b', '1'] : ['b', 'a', '1']) if (rnd() < 0.6) o[k] = value(depth + 1);
    return o;
  };
  let equal = 0;
  for (let i = 0; i < 50_000; i++) {
    const a = value(0);
    const b = rnd() < 0.3 ? structuredCloneOrSame(a) : value(0);
    const want = JSON.stringify(a) === JSON.stringify(b);
    if (want) equal++;
    assert.equal(sameJson(a, b), want, `${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
  }
  assert.ok(equal > 10_000, `only ${equal} equal pairs: the comparison of equal values went untested`);
});

/** A copy where one can be made (functions cannot be cloned: then the value itself). */
function structuredCloneOrSame(v: unknown): unknown {
  try {
    return structuredClone(v);
  } catch {
    return v;
  }
}

test('a write-if-changed skips what serializes alike but for the resourceVersion, and writes any other change', () => {
  const store = new ObjectStore();
  const pod = store.put(PODS, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default' },
    spec: { containers: [] },
    status: { phase: 'Pending' },
  });
  // A member JSON leaves out is no change; nor is an older resourceVersion.
  const same = { ...pod, metadata: { ...pod.metadata, resourceVersion: '1' }, status: { phase: 'Pending', message: undefined } } as KubeObject;
  assert.equal(store.put(PODS, same, { onlyIfChanged: true }), pod);
  // The members' order is a change of the text, as it was when the texts were compared.
  const { status, ...rest } = pod as KubeObject & { status: unknown };
  const moved = store.put(PODS, { status, ...rest } as KubeObject, { onlyIfChanged: true });
  assert.notEqual(moved, pod);
  assert.equal(Number(moved.metadata.resourceVersion), Number(pod.metadata.resourceVersion) + 1);
  const running = store.put(PODS, { ...moved, status: { phase: 'Running' } } as KubeObject, { onlyIfChanged: true });
  assert.notEqual(running, moved);
  assert.equal(Number(running.metadata.resourceVersion), Number(moved.metadata.resourceVersion) + 1);
});

test('the write-behind saves each stored object as its JSON, the last write of a turn winning, deletes as removals', () => {
  const db = new SqliteStore(':memory:');
  try {
    const persistence = new ObjectPersistence(db, 'cluster-a');
    const store = new ObjectStore(1000, persistence);
    const cm = (name: string, data: Record<string, string>) =>
      ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data }) as KubeObject;
    store.put(CONFIGMAPS, cm('a', { k: '1' }));
    const a = store.put(CONFIGMAPS, cm('a', { k: '2' }));
    const b = store.put(CONFIGMAPS, cm('b', { k: '3' }));
    store.put(CONFIGMAPS, cm('c', { k: '4' }));
    store.delete(CONFIGMAPS, 'default', 'c');
    persistence.flush();
    const root = objectsKey('cluster-a');
    const saved = (name: string) => db.list<KubeObject>(`${root}//configmaps/default/${name}`)[0]?.value;
    assert.equal(JSON.stringify(saved('a')), JSON.stringify(a));
    assert.equal(JSON.stringify(saved('b')), JSON.stringify(b));
    assert.equal(saved('c'), undefined);
    // What a restart loads is what was stored.
    const again = new ObjectStore(1000, new ObjectPersistence(db, 'cluster-a'));
    assert.equal(JSON.stringify(again.get(CONFIGMAPS, 'default', 'a')), JSON.stringify(a));
  } finally {
    db.close();
  }
});
