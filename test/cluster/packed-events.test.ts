// Events are held packed in the store (apiserver/storage/packing.ts: the shape they share and their own values,
// docs/performance.md §7.4); every reader gets the complete object as written, a new one each time: a get, a list,
// the watch history (a change's object and the version before it), a delete's last version, and a restart's restore.
// And the event recorder, which holds its memory of a pod with one Event as that Event's name (client/events.ts):
// a repeat updates the one Event, and an Event gone is posted anew.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type KubeObject, memberAt } from '../../src/cluster/apimachinery/object.js';
import { EVENTS, PODS, resourceKey } from '../../src/cluster/apimachinery/resources.js';
import type { Event } from '../../src/cluster/apimachinery/types.js';
import { microTime } from '../../src/cluster/apimachinery/time.js';
import { pack, packingOf } from '../../src/cluster/apiserver/storage/packing.js';
import { ObjectBudget, ObjectCeiling } from '../../src/cluster/apiserver/storage/ceiling.js';
import { type Change, FIRST_REVISION, ObjectStore, type StoreBackend } from '../../src/cluster/apiserver/storage/store.js';
import { EventRecorder, eventExpired } from '../../src/cluster/client/events.js';

/** A backend that keeps the JSON each write made (what the write-behind saves) and restores from it. */
function keeping(): StoreBackend & { json: Map<string, string>; log: { change: Change; json: string }[] } {
  const json = new Map<string, string>();
  const log: { change: Change; json: string }[] = [];
  return {
    json,
    log,
    load: () => ({ revision: 0, objects: [...json.values()].map((j) => ({ resource: '/events', object: JSON.parse(j) as KubeObject })), written: [] }),
    record(change, _revision, text) {
      const j = text ?? JSON.stringify(change.object);
      log.push({ change, json: j });
      if (change.resource !== '/events') return;
      if (change.type === 'DELETED') json.delete(change.object.metadata.name);
      else json.set(change.object.metadata.name, j);
    },
  };
}

const pod = (name: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'team' },
  spec: { containers: [{ name: 'c', image: 'nginx' }] },
});

/** An Event as a client might write one: labels, annotations, a fieldPath, a related object, whole-second times. */
const custom = (name: string, pod: string, message: string, count: number, first: string | null): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name, namespace: 'team', labels: { a: 'b' }, annotations: { note: 'x' } },
  involvedObject: { kind: 'Pod', name: pod, namespace: 'team', fieldPath: 'spec.containers{c}' },
  reason: 'Custom',
  message,
  type: 'Normal',
  count,
  firstTimestamp: first,
  lastTimestamp: '2026-01-01T00:01:00Z',
  related: { kind: 'Node', name: 'n1' },
});

/** Events of every kind of content, besides those the recorders post. */
function oddEvents(): KubeObject[] {
  const base = { apiVersion: 'v1', kind: 'Event' };
  return [
    custom('hand.1', 'p', 'one', 7, '2026-01-01T00:00:00Z'),
    {
      ...base,
      metadata: { name: 'hand.2', namespace: 'team', managedFields: [{ manager: 'kubectl', operation: 'Update', fieldsV1: { 'f:message': {} } }] },
      involvedObject: { kind: 'Node', name: 'n1', uid: 'n1', resourceVersion: '0042' },
      reason: 'Odd',
      message: '',
      eventTime: '2026-01-01T00:00:00.123456Z',
      series: { count: 3, lastObservedTime: '2026-01-01T00:02:00.000000Z' },
      action: 'Act',
      reportingController: 'me',
      reportingInstance: 'me-1',
      deprecatedCount: 0,
    },
    { ...base, metadata: { name: 'hand.3', namespace: 'other' }, involvedObject: {}, reason: 'Bare' },
    // hand.1's shape with other values at its holes, a null where it had a time, and a member it had not.
    { ...custom('hand.4', 'q', 'two', 1, null), extra: [1, { b: null }] },
  ];
}

test('events read back as written from every reader: get, list, the watch history, a delete, a restore', () => {
  const backend = keeping();
  const store = new ObjectStore(1000, backend);
  const from = store.resourceVersion;
  const recorder = new EventRecorder(store);
  const pods = ['web-1', 'web-2', 'web-3'].map((n) => store.put(PODS, pod(n)));
  const t0 = Date.parse('2026-12-06T10:00:00.250Z');
  for (const p of pods) {
    recorder.record(
      p,
      { type: 'Warning', reason: 'FailedScheduling', message: '0/3 nodes are available.', component: 'default-scheduler', action: 'Scheduling' },
      t0,
    );
    recorder.record(
      p,
      { type: 'Normal', reason: 'Pulled', message: `pulled for ${p.metadata.name}`, component: 'kubelet', host: 'node-1', fieldPath: 'spec.containers{c}' },
      t0,
    );
  }
  // A repeat updates the one Event (the version before it goes to the history as such).
  recorder.record(
    pods[0]!,
    { type: 'Warning', reason: 'FailedScheduling', message: '0/3 nodes are available.', component: 'default-scheduler', action: 'Scheduling' },
    t0 + 5000,
  );
  for (const e of oddEvents()) store.put(EVENTS, e);
  const gone = store.delete(EVENTS, 'other', 'hand.3')!;

  const written = (name: string) => backend.json.get(name);
  const events = store.list(EVENTS);
  assert.equal(events.length, 9);
  for (const e of events) {
    assert.equal(JSON.stringify(e), written(e.metadata.name), `list: ${e.metadata.name}`);
    assert.equal(JSON.stringify(store.get(EVENTS, e.metadata.namespace, e.metadata.name)), written(e.metadata.name), `get: ${e.metadata.name}`);
  }
  // Each reader gets an object of its own: changing one leaves the store's and the next reader's as they were.
  const one = store.get(EVENTS, 'team', 'hand.1')!;
  one['message'] = 'changed';
  (one.metadata as Record<string, unknown>)['name'] = 'changed';
  assert.equal(JSON.stringify(store.get(EVENTS, 'team', 'hand.1')), written('hand.1'));

  // The history: every change to events since `from`, each object (and the version before it) as it was written.
  const changes = store.since(EVENTS, from);
  assert.ok(changes !== 'gone');
  const told = backend.log.filter((l) => l.change.resource === '/events');
  assert.equal(changes.length, told.length);
  changes.forEach((c, i) => {
    assert.equal(c.type, told[i]!.change.type);
    assert.equal(JSON.stringify(c.object), told[i]!.change.type === 'DELETED' ? JSON.stringify(gone) : told[i]!.json);
    assert.equal(JSON.stringify(c.previous), JSON.stringify(told[i]!.change.previous));
  });
  const repeat = changes.find((c) => c.type === 'MODIFIED')!;
  assert.equal((repeat.object as Event).series?.count, 2);
  assert.equal((repeat.previous as Event).series, undefined);
  assert.equal(changes.at(-1)!.type, 'DELETED');
  const added = told.find((l) => l.change.type === 'ADDED' && l.change.object.metadata.name === 'hand.3')!;
  assert.equal(JSON.stringify(changes.at(-1)!.previous), added.json);

  // A restart restores each as written.
  const again = new ObjectStore(1000, backend);
  assert.equal(again.count(EVENTS), 9);
  for (const [name, json] of backend.json) {
    const e = JSON.parse(json) as KubeObject;
    assert.equal(JSON.stringify(again.get(EVENTS, e.metadata.namespace, name)), json, `restored: ${name}`);
  }
});

test("the recorder's memory of a pod's one Event: a repeat updates it; once it is gone, the next is posted anew", () => {
  const store = new ObjectStore();
  const recorder = new EventRecorder(store);
  const p = store.put(PODS, pod('web-1'));
  const spec = {
    type: 'Warning' as const,
    reason: 'FailedScheduling',
    message: '0/3 nodes are available.',
    component: 'default-scheduler',
    action: 'Scheduling',
  };
  const t0 = Date.parse('2026-12-06T10:00:00.250Z');
  recorder.record(p, spec, t0);
  recorder.record(p, spec, t0 + 1000);
  recorder.record(p, spec, t0 + 2000);
  let events = store.list(EVENTS) as Event[];
  assert.equal(events.length, 1);
  assert.deepEqual(events[0]!.series, { count: 3, lastObservedTime: microTime(t0 + 2000) });
  assert.equal(events[0]!['eventTime'], microTime(t0));

  // Another message of the same reason is an Event of its own, and the first is still updated on its repeat.
  recorder.record(p, { ...spec, message: '0/4 nodes are available.' }, t0 + 3000);
  recorder.record(p, spec, t0 + 4000);
  events = store.list(EVENTS) as Event[];
  assert.equal(events.length, 2);
  assert.deepEqual(events.map((e) => [e.message, e.series?.count ?? 1]).sort(), [
    ['0/3 nodes are available.', 4],
    ['0/4 nodes are available.', 1],
  ]);

  // Gone (deleted, or expired), the Event is posted anew at the next occurrence.
  const q = store.put(PODS, pod('web-2'));
  recorder.record(q, spec, t0);
  const first = (store.list(EVENTS) as Event[]).find((e) => e.involvedObject?.name === 'web-2')!;
  store.delete(EVENTS, 'team', first.metadata.name);
  recorder.record(q, spec, t0 + 61_000);
  const next = (store.list(EVENTS) as Event[]).filter((e) => e.involvedObject?.name === 'web-2');
  assert.equal(next.length, 1);
  assert.notEqual(next[0]!.metadata.name, first.metadata.name);
  assert.equal(next[0]!.series, undefined);
  assert.equal(next[0]!['eventTime'], microTime(t0 + 61_000));

  // Past ten messages of one reason within ten minutes, the rest are combined (client-go's EventAggregator).
  const r = store.put(PODS, pod('web-3'));
  for (let i = 0; i < 12; i++) recorder.record(r, { ...spec, message: `message ${i}` }, t0 + i);
  const mine = (store.list(EVENTS) as Event[]).filter((e) => e.involvedObject?.name === 'web-3');
  assert.equal(mine.length, 10);
  assert.equal(mine.filter((e) => e.message?.startsWith('(combined from similar events): ')).length, 1);
});

test('a full events pool: a new Event is dropped (not built, no 403 thrown out), a repeat of a stored one still updates it', () => {
  const store = new ObjectStore(FIRST_REVISION, undefined, new ObjectCeiling(new ObjectBudget(), { objects: 100, events: 1 }));
  const recorder = new EventRecorder(store);
  const p = store.put(PODS, pod('web-1'));
  const t0 = Date.parse('2026-12-06T10:00:00.250Z');
  const pulled = { type: 'Normal' as const, reason: 'Pulled', message: 'pulled', component: 'kubelet', host: 'node-1', fieldPath: 'spec.containers{c}' };
  recorder.record(p, pulled, t0);
  assert.equal(store.count(EVENTS), 1);
  assert.equal(store.ceiling.refuses(EVENTS), true);
  const rv = store.resourceVersion;
  // A new Event (another reason) past the ceiling: nothing is written, and record() does not throw.
  recorder.record(p, { type: 'Warning', reason: 'NotEmulated', message: 'not emulated', component: 'kubelet', host: 'node-1' }, t0 + 10);
  assert.equal(store.count(EVENTS), 1);
  assert.equal(store.resourceVersion, rv);
  // The stored one's repeat is an update, which the ceiling never refuses.
  recorder.record(p, pulled, t0 + 1000);
  const [ev] = store.list(EVENTS) as Event[];
  assert.equal(ev?.count, 2);
  assert.equal(ev?.reason, 'Pulled');
});

test("a held Event's members read in place are the unpacked Event's, and the expiry scan deletes what a full read would", () => {
  const store = new ObjectStore();
  const recorder = new EventRecorder(store);
  const t0 = Date.parse('2026-12-06T10:00:00.250Z');
  ['web-1', 'web-2', 'web-3'].forEach((n, i) => {
    const p = store.put(PODS, pod(n));
    const scheduling = { type: 'Warning', reason: 'FailedScheduling', message: '0/3.', component: 'default-scheduler', action: 'Scheduling' } as const;
    recorder.record(p, scheduling, t0 + i * 3_600_000);
    // A repeat gives web-1's Event a series: its last time is the series'.
    if (i === 0) recorder.record(p, scheduling, t0 + 2 * 3_600_000);
    recorder.record(p, { type: 'Normal', reason: 'Pulled', message: `pulled ${n}`, component: 'kubelet', host: 'node-1' }, t0 + i * 3_600_000);
  });
  for (const e of oddEvents()) store.put(EVENTS, e);
  const paths = [
    ['metadata', 'name'],
    ['metadata', 'uid'],
    ['metadata', 'creationTimestamp'],
    ['metadata', 'namespace'],
    ['metadata', 'labels', 'a'],
    ['metadata'],
    ['involvedObject', 'uid'],
    ['involvedObject'],
    ['series', 'lastObservedTime'],
    ['series', 'count'],
    ['lastTimestamp'],
    ['firstTimestamp'],
    ['eventTime'],
    ['source', 'host'],
    ['message', 'length'],
    ['related', 'name'],
    ['extra', '1', 'b'],
    ['nothing', 'here'],
    ['reason'],
  ];
  const reads: unknown[][] = [];
  const all = store.select(EVENTS, (member) => {
    reads.push(paths.map((p) => member(p)));
    return true;
  });
  assert.equal(all.length, 10);
  all.forEach((e, i) => {
    assert.deepEqual(
      reads[i],
      paths.map((p) => memberAt(e, p)),
      e.metadata.name,
    );
  });
  // The expiry an hour and a half after web-2's Events: those of web-1 (its Pulled; its scheduling Event was seen
  // again an hour later) and the hand-written ones of 2026-01-01 go, as a full read of each says.
  const now = t0 + 1.5 * 3_600_000 + 3_600_000;
  const expected = store
    .list(EVENTS)
    .filter((e) => eventExpired(e as Event, now))
    .map((e) => e.metadata.name);
  assert.ok(expected.length >= 4 && expected.length < 10, expected.join());
  recorder.expire(undefined, now);
  const left = store.list(EVENTS).map((e) => e.metadata.name);
  assert.deepEqual(
    left.filter((n) => expected.includes(n)),
    [],
  );
  assert.equal(left.length, 10 - expected.length);
});

test('events of many shapes in turn (a restore in key order) each pack and read back as written', () => {
  const backend = keeping();
  const store = new ObjectStore(1000, backend);
  const reasons = ['Scheduled', 'Pulling', 'Pulled', 'Created', 'Started', 'NotEmulated', 'Killing', 'BackOff', 'Unhealthy', 'Failed'];
  const event = (i: number, reason: string | undefined, extra: Record<string, unknown> = {}): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: `web-${i}.${reason}`, namespace: 'team', creationTimestamp: '2026-01-01T00:00:00Z' },
    involvedObject: { kind: 'Pod', name: `web-${i}`, namespace: 'team', uid: `uid-${i}` },
    ...(reason === undefined ? {} : { reason }),
    message: `${reason} web-${i}`,
    type: reason === 'NotEmulated' ? 'Warning' : 'Normal',
    source: { component: 'kubelet', host: `node-${i % 3}` },
    ...extra,
  });
  const written: KubeObject[] = [];
  for (let i = 0; i < 6; i++) for (const reason of reasons) written.push(event(i, reason));
  // Shapes a shared member's quick test must not take for another: no reason at all, and members a prototype has.
  written.push(event(7, undefined), event(8, 'Pulled', { constructor: 'Pulled', toString: 'x' }), event(9, 'Pulled', { toString: 'y' }));
  for (const e of written) store.put(EVENTS, e);
  const again = new ObjectStore(1000, backend);
  assert.equal(again.count(EVENTS), written.length);
  for (const [name, json] of backend.json) {
    assert.equal(JSON.stringify(store.get(EVENTS, 'team', name)), json, `held: ${name}`);
    assert.equal(JSON.stringify(again.get(EVENTS, 'team', name)), json, `restored: ${name}`);
  }
});

test("an Event's MicroTimes read back as written from year 0 to 9999, and one of now is held as a small integer", () => {
  const store = new ObjectStore(1000);
  const now = Date.now();
  const day = 86_400_000;
  // Near now (held as 32-bit integers of milliseconds from the packing's base), around the edge of that range
  // (~24.8 days either side), and from year 0 to 9999 (held as numbers of their own).
  const times = [now, now - 1, now + 999, now - 24 * day, now + 24 * day, now - 26 * day, now + 26 * day, -62_167_219_200_000, 253_402_300_799_999];
  for (let i = 0; i < 3000; i++) times.push(Math.floor(Math.random() * (253_402_300_800_000 + 62_167_219_200_000)) - 62_167_219_200_000);
  for (let i = 0; i < 3000; i++) times.push(now + Math.floor((Math.random() - 0.5) * 60 * day));
  const written = times.map(
    (ms, i): KubeObject => ({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `p.${i}`, namespace: 'team' },
      involvedObject: { kind: 'Pod', name: 'p', namespace: 'team' },
      reason: 'FailedScheduling',
      eventTime: microTime(ms),
      series: { count: 2, lastObservedTime: microTime(ms + 1) },
    }),
  );
  for (const e of written) {
    const stored = store.put(EVENTS, e);
    const read = store.get(EVENTS, 'team', e.metadata.name)!;
    assert.equal(JSON.stringify(read), JSON.stringify(stored));
    assert.equal(read['eventTime'], e['eventTime']);
    assert.deepEqual(read['series'], e['series']);
  }
  // Without the base, a time of now is ~1.8e12 ms: a number object of its own in the packed array.
  const held = pack(written[0]!, packingOf(resourceKey(EVENTS))!)!;
  assert.ok(
    held.every((v) => typeof v !== 'number' || v === (v | 0)),
    'every number held is a small integer',
  );
});

test("a combined Event's repeats in one run of work are one write, and leave it as the repeats one by one would", async () => {
  const t0 = Date.parse('2026-12-06T10:00:00.250Z');
  const created = { type: 'Normal' as const, reason: 'SuccessfulCreate', component: 'replicaset-controller' };
  /** A store, its writes, and an owner whose 30 pods are created in one run or each in a run of its own. */
  const burst = async (oneRun: boolean) => {
    const backend = keeping();
    const store = new ObjectStore(FIRST_REVISION, backend);
    const recorder = new EventRecorder(store);
    const rs = store.put(PODS, pod('web'));
    for (let i = 0; i < 30; i++) {
      recorder.record(rs, { ...created, message: `Created pod: web-${i}` }, t0 + i * 1000);
      if (!oneRun) await Promise.resolve();
    }
    await Promise.resolve();
    // What two runs cannot share (names, uids, the stores' clocks and counters) left out.
    const events = (store.list(EVENTS) as Event[]).map((e) => ({
      ...e,
      metadata: { namespace: e.metadata.namespace },
      involvedObject: { ...e.involvedObject, uid: undefined },
    }));
    return { events, writes: backend.log.filter((l) => l.change.resource === '/events').length };
  };
  const each = await burst(false);
  const once = await burst(true);
  // Ten Events: nine of their own and the combined one (client-go's aggregation), its count grown by every repeat.
  assert.equal(once.events.length, 10);
  const combined = once.events.find((e) => e.message?.startsWith('(combined from similar events): '));
  assert.equal(combined?.message, '(combined from similar events): Created pod: web-29');
  assert.equal(combined?.count, 21);
  assert.equal(combined?.lastTimestamp, '2026-12-06T10:00:29Z');
  // The same Events as written one repeat at a time, in 11 writes instead of 30.
  assert.deepEqual(
    once.events.map((e) => JSON.stringify(e)),
    each.events.map((e) => JSON.stringify(e)),
  );
  assert.equal(each.writes, 30);
  assert.equal(once.writes, 11);
});
