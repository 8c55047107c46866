// Cluster objects survive restarts: what the real kubectl creates is written through to the store (one
// transaction per event-loop turn), restored with the same uid and creationTimestamp when the server starts
// again, resourceVersions keep growing, deletes stay deleted, bootstrap adds only what is missing, and
// deleting the cluster through ARM leaves no `aksemu:k8s` keys.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { objectsKey, ObjectPersistence } from '../../src/cluster/apiserver/storage/persistence.js';
import { ObjectStore } from '../../src/cluster/apiserver/storage/store.js';
import { ObjectBudget, ObjectCeiling } from '../../src/cluster/apiserver/storage/ceiling.js';
import { eventExpired, recentEventTail } from '../../src/cluster/client/events.js';
import type { Event } from '../../src/cluster/apimachinery/types.js';
import type { KubeObject } from '../../src/cluster/apimachinery/object.js';
import { findResource } from '../../src/cluster/apimachinery/resources.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/store.js';
import { aksClient, POLL } from '../containerservice/harness.js';
import { restart } from '../network/harness.js';
import { eventually, HAVE_KUBECTL, kubectl, withCluster, type ClusterEnv } from './harness.js';

const CONFIGMAPS = findResource('', 'v1', 'configmaps')!;
const NODES = findResource('', 'v1', 'nodes')!;
const DEPLOYMENTS = findResource('apps', 'v1', 'deployments')!;
const EVENTS = findResource('', 'v1', 'events')!;
const NAMESPACES = findResource('', 'v1', 'namespaces')!;
const skip = HAVE_KUBECTL ? false : 'no /usr/bin/kubectl on this machine';

const MANIFEST = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: team
  labels: {app: web}
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: nginx
        image: nginx:1.25
        ports:
        - containerPort: 80
---
apiVersion: v1
kind: Pod
metadata:
  name: probe
  namespace: team
  labels: {role: probe}
spec:
  containers:
  - name: busybox
    image: busybox:1.36
    command: [sleep, "3600"]
`;

/** A store that counts its transactions. */
function counting(store: Store): Store & { transactions: number } {
  const counted = Object.assign(Object.create(store) as Store, { transactions: 0 });
  counted.transaction = <T>(fn: () => T): T => {
    counted.transactions++;
    return store.transaction(fn);
  };
  return counted;
}

const turn = () => new Promise((r) => setImmediate(r));
/** The late read's pace is the event loop's idle time (ObjectStore.readLater): a wait of a few milliseconds. */
const pause = () => new Promise((r) => setTimeout(r, 10));

/** A kubelet's Started Event of the pod web, last seen at `lastTimestamp`. */
function startedEvent(name: string, lastTimestamp: string) {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace: 'default' },
    involvedObject: { kind: 'Pod', namespace: 'default', name: 'web' },
    reason: 'Started',
    message: 'Started container nginx',
    type: 'Normal',
    count: 1,
    firstTimestamp: lastTimestamp,
    lastTimestamp,
  };
}

/** A store that counts the rows it parses for reads of many (each: a restore's). */
function parsing(store: Store): Store & { parsed: number } {
  const counted = Object.assign(Object.create(store) as Store, { parsed: 0 });
  counted.each = <T>(prefix: string, options: Parameters<Store['each']>[1], take: (key: string, value: T) => void): number => {
    const n = store.each<T>(prefix, options, take);
    counted.parsed += n;
    return n;
  };
  return counted;
}

async function json(env: ClusterEnv, args: string[]): Promise<any> {
  const got = await kubectl(env, [...args, '-o', 'json']);
  assert.equal(got.code, 0, `kubectl ${args.join(' ')}: ${got.stderr}`);
  return JSON.parse(got.stdout);
}

/** uid, creationTimestamp and resourceVersion of every object kubectl lists of these kinds. */
async function identities(env: ClusterEnv, kinds: string): Promise<Map<string, { uid: string; created: string; rv: number }>> {
  const list = await json(env, ['get', kinds, '-A']);
  return new Map(
    list.items.map((o: any) => [
      `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`,
      { uid: o.metadata.uid, created: o.metadata.creationTimestamp, rv: Number(o.metadata.resourceVersion) },
    ]),
  );
}

describe('cluster objects persist', () => {
  test('writes of one turn share one transaction; a new ObjectStore restores objects, uids and the revision; nodes are not kept', async () => {
    const store = counting(new SqliteStore(':memory:'));
    const id = '/subscriptions/s/resourcegroups/rg/providers/Microsoft.ContainerService/managedClusters/c1';
    const objects = new ObjectStore(1000, new ObjectPersistence(store, id));
    for (let i = 0; i < 100; i++)
      objects.put(CONFIGMAPS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, namespace: 'default' }, data: { i: String(i) } });
    objects.put(NODES, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'aks-nodepool1-1-vmss000000' } });
    objects.put(DEPLOYMENTS, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'team' }, spec: { replicas: 1 } });
    objects.delete(CONFIGMAPS, 'default', 'cm-7');
    assert.equal(store.transactions, 0, 'nothing is written before the turn ends');
    await turn();
    assert.equal(store.transactions, 1);
    const keys = store.list(`${objectsKey(id)}/`).map((e) => e.key);
    assert.equal(keys.length, 100, keys.join('\n'));
    assert.ok(keys.includes(`${objectsKey(id)}/apps/deployments/team/web`));
    assert.ok(keys.includes(`${objectsKey(id)}//configmaps/default/cm-0`));
    assert.ok(!keys.some((k) => k.includes('/nodes/')), 'nodes come from the node records');
    assert.deepEqual(store.get(objectsKey(id)), { revision: objects.resourceVersion });

    const persistence = new ObjectPersistence(store, id);
    const again = new ObjectStore(1000, persistence);
    assert.equal(again.resourceVersion, objects.resourceVersion);
    assert.equal(again.count(CONFIGMAPS), 99);
    assert.equal(again.get(CONFIGMAPS, 'default', 'cm-7'), undefined);
    assert.deepEqual(again.get(DEPLOYMENTS, 'team', 'web'), objects.get(DEPLOYMENTS, 'team', 'web'));
    assert.equal(again.count(NODES), 0);
    const bootstrap = again.putIfAbsent(CONFIGMAPS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm-1', namespace: 'default' }, data: {} });
    assert.equal(bootstrap.created, false);
    assert.deepEqual(bootstrap.object.data, { i: '1' });
    assert.equal(again.putIfAbsent(CONFIGMAPS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm-7', namespace: 'default' } }).created, true);
    assert.ok(Number(again.get(CONFIGMAPS, 'default', 'cm-7')!.metadata.resourceVersion) > objects.resourceVersion);
    persistence.close();
    assert.ok(store.get(`${objectsKey(id)}//configmaps/default/cm-7`), 'close writes what is queued');
    store.close();
  });

  test("rows a restore dropped go after the API's writes, not in the turn that builds the nodes; a name made again keeps its new row", async () => {
    const id = '/subscriptions/s/resourcegroups/rg/providers/Microsoft.ContainerService/managedClusters/c1';
    const saved = new SqliteStore(':memory:');
    const before = new ObjectStore(1000, new ObjectPersistence(saved, id));
    for (let i = 0; i < 2500; i++) before.put(CONFIGMAPS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `old-${i}`, namespace: 'default' } });
    for (let i = 0; i < 3; i++) await turn();
    assert.equal(saved.list(`${objectsKey(id)}//configmaps/`).length, 2500);
    const store = counting(saved);
    // Every ConfigMap went while the server was down (as Events past their TTL do): dropped at load.
    const persistence = new ObjectPersistence(
      store,
      id,
      () => {},
      (bucket) => bucket === '/configmaps',
    );
    const objects = new ObjectStore(1000, persistence);
    assert.equal(objects.count(CONFIGMAPS), 0);
    // Nodes of ~600 KB of JSON in one turn: past the queue's flush size, were their JSON counted.
    const labels = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`example.com/label-${i}`, 'x'.repeat(40)]));
    for (let i = 0; i < 200; i++) objects.put(NODES, { apiVersion: 'v1', kind: 'Node', metadata: { name: `aks-nodepool1-1-vmss${i}`, labels } });
    assert.equal(store.transactions, 0, 'nothing written in the turn that built the nodes');
    // One of the dropped names is made again before the rows go.
    objects.put(CONFIGMAPS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'old-7', namespace: 'default' }, data: { again: 'yes' } });
    assert.equal(store.list(`${objectsKey(id)}//configmaps/`).length, 2500);
    await turn();
    // 2,000 dropped rows a flush, after what the API wrote: the new row is written in the first.
    assert.equal(store.list<any>(`${objectsKey(id)}//configmaps/default/old-7`)[0]?.value.data?.again, 'yes');
    assert.equal(store.list(`${objectsKey(id)}//configmaps/`).length, 500);
    await turn();
    const rows = store.list<any>(`${objectsKey(id)}//configmaps/`);
    assert.deepEqual(
      rows.map((r) => r.value.data),
      [{ again: 'yes' }],
      'the dropped rows went; the new one stays',
    );
    assert.equal(store.list(`${objectsKey(id)}//nodes/`).length, 0, 'nodes come from the node records');
    assert.deepEqual(store.get(objectsKey(id)), { revision: objects.resourceVersion });
    // Written again and deleted later: the later flush does not take the new row either.
    objects.put(CONFIGMAPS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'new', namespace: 'default' } });
    persistence.close();
    assert.equal(new ObjectStore(1000, new ObjectPersistence(saved, id)).count(CONFIGMAPS), 2);
    saved.close();
  });

  test('the Events are read after the rest: on their first read, or once the event loop is idle; as a whole restore reads them', async () => {
    const id = '/subscriptions/s/resourcegroups/rg/providers/Microsoft.ContainerService/managedClusters/c1';
    const store = new SqliteStore(':memory:');
    const before = new ObjectStore(1000, new ObjectPersistence(store, id));
    const event = startedEvent;
    const recent = new Date(Date.now() - 10 * 60_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const old = new Date(Date.now() - 2 * 3600_000).toISOString().replace(/\.\d+Z$/, 'Z');
    for (let i = 0; i < 1500; i++) before.put(EVENTS, event(`web.recent-${String(i).padStart(4, '0')}`, recent));
    for (let i = 0; i < 1500; i++) before.put(EVENTS, event(`web.z-old-${String(i).padStart(4, '0')}`, old));
    // Kinds on both sides of the Events in key order: configmaps, (events), namespaces.
    before.put(CONFIGMAPS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default' } });
    before.put(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } });
    for (let i = 0; i < 3; i++) await turn();
    // A damaged Event (a string count), as an edit on disk leaves it.
    const damaged = `${objectsKey(id)}//events/default/web.recent-0007`;
    store.put(damaged, { ...event('web.recent-0007', recent), count: 'one' });

    const restart = () => {
      const lines: string[] = [];
      const persistence = new ObjectPersistence(
        store,
        id,
        (l) => lines.push(l),
        (bucket, obj) => bucket === '/events' && eventExpired(obj as Event, Date.now()),
      );
      return { lines, persistence };
    };
    // Read on first use: nothing of the Events before it, every other kind at once.
    const first = restart();
    const objects = new ObjectStore(1000, first.persistence);
    assert.equal(objects.restoring(EVENTS), true);
    assert.equal(objects.count(CONFIGMAPS), 1);
    assert.equal(objects.count(NAMESPACES), 1);
    assert.deepEqual(first.lines, []);
    assert.equal(objects.count(EVENTS), 1499, 'the recent ones but the damaged one; the old ones dropped');
    assert.equal(objects.restoring(EVENTS), false);
    assert.equal(first.lines.length, 1, first.lines.join('\n'));
    assert.match(first.lines[0]!, /skipped stored object .*\/events\/default\/web\.recent-0007: /);
    assert.equal(objects.get(EVENTS, 'default', 'web.recent-0008')?.message, 'Started container nginx');
    assert.equal(objects.ceiling.count.events, 1499);
    first.persistence.close();
    assert.ok(store.get(damaged), 'a damaged row is kept');

    // Read once the event loop is idle, untouched; then the dropped rows go.
    for (let i = 0; i < 1500; i++) before.put(EVENTS, event(`web.z-old-${String(i).padStart(4, '0')}`, old));
    for (let i = 0; i < 3; i++) await turn();
    const second = restart();
    const later = new ObjectStore(1000, second.persistence);
    assert.equal(later.restoring(EVENTS), true);
    for (let i = 0; i < 200 && later.restoring(EVENTS); i++) await pause();
    assert.equal(later.restoring(EVENTS), false, 'read once idle');
    assert.equal(later.ceiling.count.events, 1499);
    assert.equal(second.lines.length, 1, second.lines.join('\n'));
    for (let i = 0; i < 5; i++) await turn();
    assert.equal(store.list(`${objectsKey(id)}//events/`).length, 1500, 'the old rows went');

    // A create of another cluster on the same server is admitted against every cluster's whole restore.
    const budget = new ObjectBudget({ objects: 250_000, events: 1500 });
    const third = restart();
    const restored = new ObjectStore(1000, third.persistence, new ObjectCeiling(budget));
    const other = new ObjectStore(1000, undefined, new ObjectCeiling(budget));
    // The restored cluster's unread rows may not all be Events (their names do not say): a slice is read to judge it.
    other.put(EVENTS, event('other.1', recent));
    assert.throws(() => other.put(EVENTS, event('other.2', recent)), /exceeded quota: aksemu-server-objects/);
    assert.equal(restored.restoring(EVENTS), false, 'read to the end to know the server full');
    assert.equal(restored.ceiling.count.events, 1499);
    third.persistence.close();
    store.close();
  });

  test('a restart still reading its Events admits a new one, and reads one by its key for a get or a write, without the rest read', async () => {
    const id = '/subscriptions/s/resourcegroups/rg/providers/Microsoft.ContainerService/managedClusters/c1';
    const store = new SqliteStore(':memory:');
    const before = new ObjectStore(1000, new ObjectPersistence(store, id));
    const at = Date.now() - 10 * 60_000;
    const stamp = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
    // Named as the recorders name them: the object's name and the time made, in nanoseconds, in hex.
    const named = (ms: number, i: number) => `web.${(BigInt(ms) * 1_000_000n + BigInt(i)).toString(16)}`;
    const event = (name: string, ms: number) => startedEvent(name, stamp(ms));
    const names: string[] = [];
    for (let i = 0; i < 3000; i++) before.put(EVENTS, event((names[i] = named(at, i)), at));
    for (let i = 0; i < 3; i++) await turn();

    const restart = (budget?: ObjectBudget, limits?: { objects: number; events: number }) => {
      const rows = parsing(store);
      const now = Date.now();
      const persistence = new ObjectPersistence(
        rows,
        id,
        () => {},
        (bucket, obj) => bucket === '/events' && eventExpired(obj as Event, now),
        recentEventTail(now),
      );
      const objects = new ObjectStore(1000, persistence, new ObjectCeiling(budget, limits));
      return { rows, persistence, objects };
    };

    // A new Event, an old one's update (the recorder's count + 1), a get and a delete: each reads its own row alone.
    const first = restart();
    const { objects } = first;
    assert.equal(objects.restoring(EVENTS), true);
    assert.equal(objects.ceiling.count.events, 3000, 'the unread rows counted');
    objects.put(EVENTS, event(named(Date.now(), 0), Date.now()));
    const old = objects.get(EVENTS, 'default', names[2500]!) as Event;
    assert.equal(old?.count, 1);
    objects.put(EVENTS, { ...old, count: 2 } as KubeObject);
    assert.ok(objects.delete(EVENTS, 'default', names[2600]!));
    assert.equal(objects.get(EVENTS, 'default', names[2601]!)?.metadata.name, names[2601]);
    assert.equal(first.rows.parsed, 0, 'no slice read');
    assert.equal(objects.restoring(EVENTS), true);
    assert.equal(objects.ceiling.count.events, 3000);
    // The rest once idle, the objects read or written already not read again.
    for (let i = 0; i < 200 && objects.restoring(EVENTS); i++) await pause();
    assert.equal(objects.restoring(EVENTS), false);
    assert.ok(first.rows.parsed >= 3000, 'the rest read in slices');
    assert.equal(objects.count(EVENTS), 3000);
    assert.equal(objects.ceiling.count.events, 3000);
    assert.equal((objects.get(EVENTS, 'default', names[2500]!) as Event).count, 2);
    assert.equal(objects.get(EVENTS, 'default', names[2600]!), undefined);
    first.persistence.close();
    for (let i = 0; i < 3; i++) await turn();

    // A full cluster (its limit is the rows, whose names say they are recent) refuses a new Event, nothing read.
    const full = restart(undefined, { objects: 150_000, events: 3000 });
    assert.equal(full.objects.ceiling.refuses(EVENTS), true);
    assert.throws(() => full.objects.put(EVENTS, event(named(Date.now(), 1), Date.now())), /exceeded quota: aksemu-cluster-objects/);
    assert.equal(full.rows.parsed, 0);
    full.persistence.close();

    // Rows whose names do not say they are recent (made two hours ago): a slice is read to judge, not the rest.
    const store2 = new SqliteStore(':memory:');
    const two = new ObjectStore(1000, new ObjectPersistence(store2, id));
    const long = Date.now() - 2 * 3600_000;
    for (let i = 0; i < 3000; i++) two.put(EVENTS, event(named(long, i), i < 2990 ? long : at));
    for (let i = 0; i < 3; i++) await turn();
    const rows = parsing(store2);
    const now = Date.now();
    const expiredOnes = new ObjectStore(
      1000,
      new ObjectPersistence(
        rows,
        id,
        () => {},
        (bucket, obj) => bucket === '/events' && eventExpired(obj as Event, now),
        recentEventTail(now),
      ),
      new ObjectCeiling(undefined, { objects: 150_000, events: 3000 }),
    );
    expiredOnes.put(EVENTS, event(named(Date.now(), 2), Date.now()));
    assert.equal(rows.parsed, 1000, 'one slice');
    assert.equal(expiredOnes.restoring(EVENTS), true);
    for (let i = 0; i < 200 && expiredOnes.restoring(EVENTS); i++) await pause();
    assert.equal(expiredOnes.count(EVENTS), 11, 'the ten recent and the new one');
    assert.equal(expiredOnes.ceiling.count.events, 11);
    store2.close();
    store.close();
  });

  test('a deletion in progress is finished on restore; a cluster whose id prefixes another keeps its neighbour', async () => {
    const store = new SqliteStore(':memory:');
    const c1 = '/subscriptions/s/resourcegroups/rg/providers/Microsoft.ContainerService/managedClusters/c1';
    const c10 = `${c1}0`;
    const one = new ObjectPersistence(store, c1);
    const objects = new ObjectStore(1000, one);
    const ten = new ObjectStore(1000, new ObjectPersistence(store, c10));
    const pods = findResource('', 'v1', 'pods')!;
    objects.put(pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'going', namespace: 'default', deletionTimestamp: '2030-01-01T00:00:00Z' } });
    objects.put(pods, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'held', namespace: 'default', deletionTimestamp: '2030-01-01T00:00:00Z', finalizers: ['x'] },
    });
    ten.put(pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'stays', namespace: 'default' } });
    await turn();
    const restored = new ObjectStore(1000, new ObjectPersistence(store, c1));
    assert.deepEqual(
      restored.list(pods).map((p) => p.metadata.name),
      ['held'],
    );
    await turn();
    assert.equal(store.list(`${objectsKey(c1)}/`).length, 1, 'the finished deletion is written back');
    one.destroy();
    assert.equal(store.list(objectsKey(c1)).filter((e) => !e.key.toLowerCase().startsWith(objectsKey(c10))).length, 0);
    assert.equal(store.list(`${objectsKey(c10)}/`).length, 1);
    store.close();
  });

  test('what kubectl creates is still there after a restart, with the same uids; deletes stay deleted; deleting the cluster removes every key', { skip }, () =>
    withCluster({ networkPlugin: 'none' }, async (env) => {
      const ok = async (args: string[]) => {
        const got = await kubectl(env, args);
        assert.equal(got.code, 0, `kubectl ${args.join(' ')}: ${got.stderr}`);
        return got.stdout;
      };
      // kubectl's typed creates, as a user runs them (protobuf bodies on the wire).
      assert.equal((await ok(['create', 'configmap', 'app-config', '--from-literal=greeting=hello'])).trim(), 'configmap/app-config created');
      assert.equal((await ok(['create', 'namespace', 'team'])).trim(), 'namespace/team created');
      assert.equal((await ok(['create', 'configmap', 'doomed', '--from-literal=a=b'])).trim(), 'configmap/doomed created');
      await ok(['label', 'namespace', 'default', 'owner=me']);
      const manifest = join(env.scratch, 'web.yaml');
      writeFileSync(manifest, MANIFEST);
      assert.deepEqual((await ok(['apply', '-f', manifest])).trim().split('\n'), ['deployment.apps/web created', 'pod/probe created']);
      await ok(['delete', 'configmap', 'doomed']);

      // Written through already: a second reader of the database file sees it while the server runs (a crash
      // now would keep it).
      const reader = new SqliteStore(join(env.home, 'state.db'));
      try {
        const root = objectsKey(env.clusterId);
        const saved = reader.get<any>(`${root}//configmaps/default/app-config`);
        assert.deepEqual(saved?.data, { greeting: 'hello' });
        assert.equal(reader.get(`${root}//configmaps/default/doomed`), undefined);
        assert.ok(reader.get(`${root}/apps/deployments/team/web`));
        assert.equal(reader.list(`${root}//nodes/`).length, 0);
      } finally {
        reader.close();
      }

      const kinds = 'namespaces,configmaps,services,deployments,pods';
      const before = await identities(env, kinds);
      const listRv = Number((await json(env, ['get', 'configmaps', '-A'])).metadata.resourceVersion);
      assert.ok(before.has('Deployment/team/web') && before.has('Pod/team/probe') && before.has('Namespace//team'));

      // Events whose --event-ttl (one hour) ran out while the server was down are not restored, and their rows go;
      // a recent one stays.
      const event = (name: string, at: number) => ({
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name, namespace: 'team', uid: `u-${name}`, creationTimestamp: new Date(at).toISOString().replace(/\.\d+Z$/, 'Z') },
        involvedObject: { kind: 'Pod', namespace: 'team', name: 'probe' },
        reason: 'Tested',
        message: name,
        type: 'Normal',
        lastTimestamp: new Date(at).toISOString().replace(/\.\d+Z$/, 'Z'),
        count: 1,
      });
      const eventsRoot = `${objectsKey(env.clusterId)}//events/team`;
      env.server.store.put(`${eventsRoot}/probe.old`, event('probe.old', Date.now() - 2 * 3600_000));
      env.server.store.put(`${eventsRoot}/probe.recent`, event('probe.recent', Date.now() - 600_000));
      await restart(env);
      const events = (await json(env, ['get', 'events', '-n', 'team'])).items.map((e: { metadata: { name: string } }) => e.metadata.name);
      assert.ok(events.includes('probe.recent') && !events.includes('probe.old'), events.join(' '));
      await eventually(() => env.server.store.get(`${eventsRoot}/probe.old`) === undefined, 10_000, 'the expired event to be removed');
      assert.ok(env.server.store.get(`${eventsRoot}/probe.recent`));
      // The log says when the cluster serves again, once, with its time and what it holds.
      const serving = env.server.logLines.filter((l) => l.startsWith('cluster ') && l.includes(' serving again after '));
      assert.equal(serving.length, 1, env.server.logLines.join('\n'));
      assert.match(serving[0]!, /^cluster \S+ serving again after \d+ ms: 3 nodes, \d+ pods \(\d+ resuming in the background\)$/);

      const after = await identities(env, kinds);
      // Every object is back with its identity (and nothing was bootstrapped twice).
      for (const [key, was] of before) {
        const now = after.get(key);
        assert.ok(now, `${key} is gone after the restart`);
        assert.equal(now.uid, was.uid, key);
        assert.equal(now.created, was.created, key);
      }
      assert.deepEqual((await ok(['get', 'namespaces', '-o', 'name'])).trim().split('\n'), [
        'namespace/default',
        'namespace/kube-node-lease',
        'namespace/kube-public',
        'namespace/kube-system',
        'namespace/team',
      ]);
      assert.equal((await json(env, ['get', 'namespace', 'default'])).metadata.labels.owner, 'me', 'bootstrap must not overwrite a restored namespace');
      assert.deepEqual((await json(env, ['get', 'configmap', 'app-config'])).data, { greeting: 'hello' });
      assert.equal((await json(env, ['get', 'deployment', 'web', '-n', 'team'])).spec.template.spec.containers[0].image, 'nginx:1.25');
      const gone = await kubectl(env, ['get', 'configmap', 'doomed']);
      assert.equal(gone.code, 1);
      assert.match(gone.stderr, /Error from server \(NotFound\): configmaps "doomed" not found/);
      // kubectl's last-applied annotation came back too, so apply sees nothing to do.
      assert.deepEqual((await ok(['apply', '-f', manifest])).trim().split('\n'), ['deployment.apps/web unchanged', 'pod/probe unchanged']);

      // resourceVersions keep growing across the restart.
      assert.ok(Number((await json(env, ['get', 'configmaps', '-A'])).metadata.resourceVersion) >= listRv);
      await ok(['annotate', 'configmap', 'app-config', 'touched=yes']);
      const touched = Number((await json(env, ['get', 'configmap', 'app-config'])).metadata.resourceVersion);
      assert.ok(touched > listRv, `${touched} > ${listRv}`);
      assert.ok([...before.values()].every((o) => touched > o.rv));

      // Once more, with a change made after the first restart.
      await ok(['delete', 'deployment', 'web', '-n', 'team']);
      await restart(env);
      assert.equal((await json(env, ['get', 'configmap', 'app-config'])).metadata.annotations.touched, 'yes');
      assert.equal((await kubectl(env, ['get', 'deployment', 'web', '-n', 'team'])).code, 1);

      assert.ok(env.server.store.list('aksemu:k8s').length > 0);
      await aksClient(env.server).managedClusters.beginDeleteAndWait('rg', 'c1', POLL);
      await eventually(() => env.server.store.list('aksemu:k8s').length === 0, 10_000, 'the cluster objects to be removed');
    }),
  );
});
