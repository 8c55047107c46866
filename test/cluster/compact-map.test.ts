// The sets and maps with an entry per held pod (apimachinery/compact-map.ts: the scheduler's Unschedulable pods,
// the recorder's memory) hold their keys in a table of their own (docs/performance.md §7.7);
// they must answer as a Set or Map would, in the same order, through growth, deletes that move keys back along a
// probe run, and the lists' closing of their holes. The store's buckets hold each namespace's names in one
// (docs/performance.md §7.8): their lists and paging keys must stay in etcd key order whatever the table's order.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CompactMap, KeyedSet } from '../../src/cluster/apimachinery/compact-map.js';
import { compareKeys, type KubeObject } from '../../src/cluster/apimachinery/object.js';
import { Bucket } from '../../src/cluster/apiserver/storage/bucket.js';
import { PodSet } from '../../src/cluster/scheduler/pod-set.js';

/** A small deterministic generator, so a failure names the step that broke. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

test('the set answers as a Set of namespace/name keys, in its order', () => {
  const random = rng(7);
  const set = new PodSet();
  const reference = new Set<string>();
  const namespaces = ['default', 'kube-system', '', 'a'];
  // Few names per namespace so adds, deletes and re-adds meet; many steps so tables grow, shrink and remake.
  const name = (n: number) => `web-7d4b9c8f6d-${n.toString(36).padStart(5, '0')}`;
  for (let step = 0; step < 200_000; step++) {
    const ns = namespaces[Math.floor(random() * namespaces.length)]!;
    const phase = Math.floor(step / 25_000) % 2; // alternately growing and draining
    const n = name(Math.floor(random() * (step % 50_000 < 25_000 ? 3_000 : 300)));
    const key = `${ns}/${n}`;
    const r = random();
    if (r < (phase === 0 ? 0.6 : 0.3)) {
      set.add(ns === '' ? undefined : ns, n);
      reference.add(key);
    } else if (r < 0.95) {
      assert.equal(set.delete(ns === '' ? undefined : ns, n), reference.delete(key), `delete at step ${step}`);
    } else if (r < 0.999) {
      assert.equal(set.has(ns, n), reference.has(key), `has at step ${step}`);
    } else {
      set.clear();
      reference.clear();
    }
    assert.equal(set.size, reference.size, `size at step ${step}`);
    if (step % 5_000 === 0) {
      for (const [ns2, probe] of [...reference].slice(0, 200).map((k) => k.split('/') as [string, string]))
        assert.ok(set.has(ns2, probe), `has ${ns2}/${probe} at step ${step}`);
      // Each namespace's keys in the order added (the Set's: one deleted and added again goes last).
      const byNs = (keys: Iterable<string>) => {
        const out = new Map<string, string[]>();
        for (const k of keys) {
          const ns2 = k.slice(0, k.indexOf('/'));
          out.set(ns2, [...(out.get(ns2) ?? []), k]);
        }
        return out;
      };
      const mine = byNs(set.keys());
      const theirs = byNs(reference);
      assert.deepEqual(new Set(mine.keys()), new Set(theirs.keys()), `namespaces at step ${step}`);
      for (const [ns2, keys] of theirs) assert.deepEqual(mine.get(ns2), keys, `order in ${ns2} at step ${step}`);
    }
  }
});

test('names that share a home slot are each found and deleted', () => {
  const set = new PodSet();
  const names = Array.from({ length: 5_000 }, (_, i) => `p${i}`);
  for (const n of names) set.add('ns', n);
  // Delete every other name, then check the rest are found and the deleted are not.
  for (let i = 0; i < names.length; i += 2) assert.ok(set.delete('ns', names[i]!));
  for (let i = 0; i < names.length; i++) assert.equal(set.has('ns', names[i]!), i % 2 === 1, names[i]);
  assert.equal(set.size, 2_500);
  assert.deepEqual(
    [...set.keys()],
    names.filter((_, i) => i % 2 === 1).map((n) => `ns/${n}`),
  );
  for (let i = 1; i < names.length; i += 2) assert.ok(set.delete('ns', names[i]!));
  assert.equal(set.size, 0);
  assert.deepEqual([...set.keys()], []);
  assert.equal(set.has('ns', 'p1'), false);
});

test('a CompactMap answers as a Map, in its order: a key set again keeps its place, one deleted and set goes last', () => {
  const random = rng(11);
  const map = new CompactMap<number>();
  const reference = new Map<string, number>();
  for (let step = 0; step < 200_000; step++) {
    // Alternately growing and draining, over a range of keys that shrinks and grows.
    const growing = Math.floor(step / 20_000) % 2 === 0;
    const key = `uid-${Math.floor(random() * (step % 40_000 < 20_000 ? 4_000 : 400))}`;
    const r = random();
    if (r < (growing ? 0.45 : 0.2)) {
      map.set(key, step);
      reference.set(key, step);
    } else if (r < (growing ? 0.6 : 0.5)) {
      // Deleted and set again, or set last in one step (the index of dependents' update): it goes last.
      if (step % 2 === 0) {
        map.delete(key);
        map.set(key, -step);
      } else map.setLast(key, -step);
      reference.delete(key);
      reference.set(key, -step);
    } else if (r < 0.95) {
      assert.equal(map.delete(key), reference.delete(key), `delete at step ${step}`);
    } else if (r < 0.9995) {
      assert.equal(map.get(key), reference.get(key), `get at step ${step}`);
      assert.equal(map.has(key), reference.has(key), `has at step ${step}`);
    } else {
      map.clear();
      reference.clear();
    }
    assert.equal(map.size, reference.size, `size at step ${step}`);
    if (step % 4_000 === 0) {
      assert.deepEqual([...map.keys()], [...reference.keys()], `keys at step ${step}`);
      assert.deepEqual([...map.values()], [...reference.values()], `values at step ${step}`);
    }
  }
});

test("a store's bucket lists in etcd key order through adds, updates and deletes, whatever its tables' order", () => {
  const random = rng(11);
  const bucket = new Bucket();
  const reference = new Map<string, KubeObject>();
  // `a/` sorts after `a-b/`; `` is a cluster-scoped object's namespace.
  const namespaces = ['a', 'a-b', 'b', '', 'kube-system'];
  for (let step = 0; step < 60_000; step++) {
    const ns = namespaces[Math.floor(random() * namespaces.length)]!;
    // Names added out of order, half of them deleted in the draining phases, so the tables remake and reorder.
    const name = `pod-${Math.floor(random() * (step % 20_000 < 10_000 ? 2_000 : 200)).toString(36)}`;
    const key = `${ns}/${name}`;
    if (random() < (step % 20_000 < 10_000 ? 0.25 : 0.7)) {
      assert.equal(bucket.delete(ns, name), reference.delete(key), `delete at step ${step}`);
    } else {
      const obj: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns, uid: String(step) } };
      bucket.set(ns, name, obj);
      reference.set(key, obj);
    }
    assert.equal(bucket.size, reference.size, `size at step ${step}`);
    if (step % 997 === 0) {
      const keys = [...reference.keys()].sort(compareKeys);
      assert.deepEqual(bucket.keys(), keys, `keys at step ${step}`);
      assert.deepEqual(
        bucket.list(),
        keys.map((k) => reference.get(k)),
        `list at step ${step}`,
      );
      const inB = keys.filter((k) => k.startsWith('b/'));
      assert.deepEqual(
        bucket.list('b'),
        inB.map((k) => reference.get(k)),
        `list of b at step ${step}`,
      );
      for (const k of keys) assert.equal(bucket.byKey(k), reference.get(k));
    }
  }
});

test("each entry's hash moves with it: a pod's updates set it last, through remakes, deletes and keys copied anew", () => {
  // The index of dependents' load (docs/performance.md §7.9): every pod set, then each set last again and again in a
  // scrambled order, a third deleted; a lookup by a copy of the key (a string of its own) must find the same entry.
  // The index holds the pods themselves, keyed by their uids (a KeyedSet): it must answer as the CompactMap does.
  const random = rng(5);
  const map = new CompactMap<number>();
  const pods = new KeyedSet<{ uid: string; round: number }>((p) => p.uid);
  const reference = new Map<string, number>();
  const keys = Array.from({ length: 20_000 }, (_, i) => `${i.toString(16).padStart(8, '0')}-4b9c-8f6d-a1b2-c3d4e5f6a7b8`);
  for (const k of keys) {
    map.set(k, 0);
    pods.set({ uid: k, round: 0 });
    reference.set(k, 0);
  }
  for (let round = 1; round <= 4; round++) {
    for (let i = 0; i < keys.length; i++) {
      const k = keys[Math.floor(random() * keys.length)]!;
      if (round === 3 && i % 3 === 0) {
        assert.equal(pods.delete(k), reference.has(k), `delete ${k} from the pods in round ${round}`);
        assert.equal(map.delete(k), reference.delete(k), `delete ${k} in round ${round}`);
        continue;
      }
      map.setLast(k, round);
      // A new version of the pod: alternately set last, and set in its place after a delete (so also last).
      if (i % 2 === 0) pods.setLast({ uid: k, round });
      else {
        pods.delete(k);
        pods.set({ uid: k, round });
      }
      reference.delete(k);
      reference.set(k, round);
    }
    assert.equal(map.size, reference.size, `size in round ${round}`);
    assert.deepEqual(map.keys(), [...reference.keys()], `order in round ${round}`);
    assert.equal(pods.size, reference.size, `pods in round ${round}`);
    assert.deepEqual(
      pods.values(),
      [...reference].map(([uid, r]) => ({ uid, round: r })),
      `pods' order in round ${round}`,
    );
    for (const k of keys) {
      const copy = k.split('').join('');
      assert.equal(map.get(copy), reference.get(k), `${k} in round ${round}`);
      assert.equal(pods.get(copy)?.round, reference.get(k), `pod ${k} in round ${round}`);
    }
  }
  // A set of a pod already there replaces it in its place.
  const first = pods.values()[0]!;
  pods.set({ uid: first.uid, round: 99 });
  assert.deepEqual(pods.values()[0], { uid: first.uid, round: 99 });
});
