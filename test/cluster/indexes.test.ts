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

test('owners of a few dependents (a list) and of many (a compact table) answer alike through moves between them', () => {
  // Owners hold a list up to a few dependents and a compact table past them (docs/performance.md §7.9): pods move
  // between owners, are updated and deleted at random, so owners cross that size both ways.
  const store = new ObjectStore();
  const index = new Indexes(store);
  store.subscribe((c) => index.apply(c));
  let seed = 3;
  const random = () => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return seed / 2 ** 32;
  };
  const owners = ['o-a', 'o-b', 'o-c', 'o-d', 'o-e'];
  const expected = new Map<string, string[]>(owners.map((o) => [o, []]));
  const ownerOf = new Map<string, string>();
  for (let step = 0; step < 6_000; step++) {
    const n = `p${Math.floor(random() * 60)}`;
    // Few owners take most pods for a while, then the pods spread out, so owners grow past the list and shrink.
    const o = owners[Math.floor(random() * (Math.floor(step / 1_500) % 2 === 0 ? 2 : owners.length))]!;
    const was = ownerOf.get(n);
    if (was !== undefined)
      expected.set(
        was,
        expected.get(was)!.filter((x) => x !== n),
      );
    if (was !== undefined && random() < 0.2) {
      store.delete(PODS, 'default', n);
      ownerOf.delete(n);
    } else {
      store.put(PODS, pod(n, `Phase${step}`, o));
      ownerOf.set(n, o);
      expected.get(o)!.push(n);
    }
    if (step % 97 === 0)
      for (const owner of owners)
        assert.deepEqual(
          index.dependents(owner).map((p) => p.metadata.name),
          expected.get(owner),
          `${owner} at step ${step}`,
        );
  }
});

test("a controller's tally of active and ready pods is what a walk of its pods finds, through every kind of change", () => {
  const store = new ObjectStore();
  const index = new Indexes(store);
  store.subscribe((c) => index.apply(c));
  const owners = [OWNER, 'rs-uid-2', 'rs-uid-3'];
  const walked = (uid: string, from: Indexes) => {
    let active = 0;
    let ready = 0;
    from.eachDependent(uid, 'Pod', (p) => {
      const ref = (p.metadata['ownerReferences'] as Array<{ uid: string; controller?: boolean }>).find((r) => r.controller);
      const phase = (p['status'] as { phase?: string }).phase;
      if (ref?.uid !== uid || p.metadata.deletionTimestamp || phase === 'Succeeded' || phase === 'Failed') return;
      active++;
      const conditions = (p['status'] as { conditions?: Array<{ type: string; status: string }> }).conditions ?? [];
      if (conditions.some((c) => c.type === 'Ready' && c.status === 'True')) ready++;
    });
    return { active, ready };
  };
  // A fixed pseudo-random walk: creates, phase and readiness changes, deletions marked and done, owner changes.
  let seed = 7;
  const next = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return Math.floor(seed / 65536) % n;
  };
  const phases = ['Pending', 'Running', 'Succeeded', 'Failed'];
  let sawReady = 0;
  for (let step = 0; step < 3000; step++) {
    const name = `p${next(60)}`;
    const there = store.get(PODS, 'default', name);
    if (there && next(10) === 0) store.delete(PODS, 'default', name);
    else {
      const p = pod(name, phases[next(4)]!, owners[next(3)]);
      if (next(3) === 0) (p['status'] as Record<string, unknown>)['conditions'] = [{ type: 'Ready', status: next(2) ? 'True' : 'False' }];
      // A pod owned without being controlled counts for nobody.
      if (next(20) === 0) (p.metadata['ownerReferences'] as Array<Record<string, unknown>>)[0]!['controller'] = false;
      if (there && next(8) === 0) p.metadata.deletionTimestamp = '2026-12-07T00:00:00Z';
      store.put(PODS, p);
    }
    for (const uid of owners) {
      assert.deepEqual({ ...index.tallyOf(uid) }, walked(uid, index), `step ${step}, owner ${uid}`);
      sawReady = Math.max(sawReady, index.tallyOf(uid).ready);
    }
  }
  // An index made from the stored pods (a restart) starts with the same tallies.
  const restored = new Indexes(store);
  for (const uid of owners) assert.deepEqual({ ...restored.tallyOf(uid) }, walked(uid, index));
  assert.ok(sawReady > 1, 'the walk reached owners with ready pods');
});

/** Two indexes told the store's changes from now on: the first asked at once (built), the second not. */
function toldEveryChange(store: ObjectStore): [Indexes, Indexes] {
  const eager = new Indexes(store);
  eager.tallyOf(OWNER);
  const lazy = new Indexes(store);
  store.subscribe((c) => {
    eager.apply(c);
    lazy.apply(c);
  });
  return [eager, lazy];
}

test('an index built at its first question (after a restart) answers as one built with the runtime and told every change', () => {
  const store = new ObjectStore();
  const names = Array.from({ length: 12 }, (_, i) => `p${String(i).padStart(2, '0')}`);
  for (const n of names) store.put(PODS, pod(n, 'Pending'));
  // Told every change from its start, asked at once (as before), and one asked only after the same changes.
  const [eager, lazy] = toldEveryChange(store);
  store.put(PODS, pod('p03', 'Running'));
  store.put(PODS, pod('p20', 'Pending'));
  store.delete(PODS, 'default', 'p05');
  store.put(PODS, pod('p01', 'Running'));
  store.put(PODS, pod('p03', 'Succeeded'));
  store.put(PODS, pod('p07', 'Running', 'rs-uid-2'));
  const answer = (index: Indexes) => ({
    owner: index.dependents(OWNER).map((p) => `${p.metadata.name} ${(p as { status?: { phase?: string } }).status?.phase}`),
    other: index.dependents('rs-uid-2').map((p) => p.metadata.name),
    tally: { ...index.tallyOf(OWNER) },
  });
  assert.deepEqual(answer(lazy), answer(eager));
  assert.deepEqual(answer(lazy).owner.slice(-3), ['p20 Pending', 'p01 Running', 'p03 Succeeded']);
  // Changes after the build as before; and more changes than it keeps before a question: built then.
  store.put(PODS, pod('p00', 'Running'));
  assert.deepEqual(answer(lazy), answer(eager));
  const [eagerToo, many] = toldEveryChange(store);
  store.put(PODS, pod('p04', 'Running'));
  for (let i = 0; i < 5000; i++) store.put(PODS, pod(`q${i}`, 'Pending'));
  store.put(PODS, pod('p02', 'Running'));
  assert.deepEqual(answer(many), answer(eagerToo));
});
