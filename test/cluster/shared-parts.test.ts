// Stored objects share equal parts in memory (apiserver/storage/sharing.ts): pods stamped from one template hold
// one copy of what they have alike, versions of one object one copy of what a write left alone. The parts are
// frozen, so no in-process reader changes another object through them; a writer's copy is its own; every object
// reads back complete and as written.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ObjectStore } from '../../src/cluster/apiserver/storage/store.js';
import { clone, type KubeObject } from '../../src/cluster/apimachinery/object.js';
import { PODS } from '../../src/cluster/apimachinery/resources.js';
import { ClusterApi, type ApiServerHost } from '../../src/cluster/apiserver/api.js';
import { agentClient } from '../../src/cluster/client/agent-client.js';
import { layOverChecked } from '../../src/cluster/apiserver/storage/sharing.js';
import { kindShape } from '../../src/cluster/apiserver/validation/shape.js';
import { storedProblem } from '../../src/cluster/apiserver/validation/object.js';
import { MAX_DEPTH } from '../../src/cluster/apiserver/validation/limits.js';

const pod = (name: string, replica: string): KubeObject =>
  JSON.parse(
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name,
        namespace: 'default',
        labels: { app: 'web' },
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-1', uid: 'u1', controller: true }],
      },
      spec: {
        containers: [{ name: 'nginx', image: 'nginx:1.25', env: [{ name: 'REPLICA', value: replica }], resources: { requests: { cpu: '100m' } } }],
        tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
        restartPolicy: 'Always',
      },
      status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }] },
    }),
  );

const spec = (o: KubeObject) => o['spec'] as any;

test('pods from one template share their equal parts, frozen; each reads back complete and as written', () => {
  const store = new ObjectStore();
  const a = store.put(PODS, pod('a', '1'));
  const b = store.put(PODS, pod('b', '2'));
  assert.equal(spec(b).tolerations, spec(a).tolerations);
  assert.equal(spec(b).containers[0].resources, spec(a).containers[0].resources);
  assert.equal(b.metadata.labels, a.metadata.labels);
  assert.equal(b.metadata['ownerReferences'], a.metadata['ownerReferences']);
  assert.equal(b['status'], a['status']);
  // What differs stays each pod's own; the object and its metadata are never shared.
  assert.notEqual(spec(b).containers, spec(a).containers);
  assert.equal(spec(b).containers[0].env[0].value, '2');
  assert.notEqual(b.metadata, a.metadata);
  assert.ok(Object.isFrozen(spec(a).tolerations) && Object.isFrozen(spec(a).tolerations[0]));
  assert.ok(!Object.isFrozen(a) && !Object.isFrozen(a.metadata));
  // No reader changes b through a: a shared part refuses the write.
  assert.throws(() => spec(a).tolerations.push({ key: 'x' }), TypeError);
  assert.throws(() => {
    spec(a).tolerations[0].tolerationSeconds = 1;
  }, TypeError);
  assert.equal(spec(b).tolerations[0].tolerationSeconds, 300);
  // Complete and as written.
  for (const [o, replica] of [
    [store.get(PODS, 'default', 'a')!, '1'],
    [store.get(PODS, 'default', 'b')!, '2'],
  ] as const) {
    const want = pod(o.metadata.name, replica);
    const got = JSON.parse(JSON.stringify(o));
    for (const k of ['spec', 'status'] as const) assert.deepEqual(got[k], want[k]);
    assert.deepEqual(got.metadata.labels, want.metadata.labels);
  }
});

test('a writer changes its own copy: the other pod and the version before stay as they were', () => {
  const store = new ObjectStore();
  const a = store.put(PODS, pod('a', '1'));
  store.put(PODS, pod('b', '1'));
  const before = store.resourceVersion;
  const edited = clone(store.get(PODS, 'default', 'b')!);
  assert.ok(!Object.isFrozen(spec(edited).tolerations), 'a copy is thawed');
  spec(edited).tolerations[0].tolerationSeconds = 60;
  (edited['status'] as any).phase = 'Running';
  const b2 = store.put(PODS, edited);
  assert.equal(spec(b2).tolerations[0].tolerationSeconds, 60);
  assert.equal(spec(a).tolerations[0].tolerationSeconds, 300);
  assert.equal((a['status'] as any).phase, 'Pending');
  // The new version shares with the version before what the write left alone.
  const [change] = store.since(PODS, before) as any[];
  assert.equal(change.type, 'MODIFIED');
  assert.equal((change.previous.status as any).phase, 'Pending');
  assert.equal(spec(change.previous).tolerations[0].tolerationSeconds, 300);
  assert.equal(spec(b2).restartPolicy, 'Always');
  assert.equal(spec(b2).containers[0].resources, spec(change.previous).containers[0].resources);
});

test("an agent's client gets its own copies: changing what it read (as Calico's IPAM does) neither throws nor reaches the store", async () => {
  const objects = new ObjectStore();
  const host = { objects, kubernetesVersion: '1.33.2', record: {}, workloads: { logs: {} }, serviceAccounts: { key: Buffer.alloc(32) } };
  const api = new ClusterApi(host as unknown as ApiServerHost);
  const client = agentClient(() => api, 'calico-node/aksemu');
  objects.put(PODS, pod('a', '1'));
  objects.put(PODS, pod('b', '1'));
  const read = client.get('/api/v1/namespaces/default/pods/b')!;
  spec(read).tolerations.push({ key: 'x' });
  spec(read).containers[0].env[0].value = 'changed';
  const listed = client.list('/api/v1/namespaces/default/pods');
  spec(listed[0]!).tolerations.length = 0;
  const heard: KubeObject[] = [];
  const stop = client.watch('/api/v1/namespaces/default/pods', (_type, o) => heard.push(o));
  assert.equal(client.patch('/api/v1/namespaces/default/pods/a', { metadata: { labels: { seen: 'yes' } } }).status, 200);
  await new Promise((r) => setImmediate(r));
  stop();
  assert.ok(heard.length > 0);
  for (const o of heard) spec(o).tolerations.push({ key: 'y' });
  for (const name of ['a', 'b']) {
    const stored = objects.get(PODS, 'default', name)!;
    assert.equal(spec(stored).tolerations.length, 1, name);
    assert.equal(spec(stored).containers[0].env[0].value, '1', name);
  }
});

test("a status written alike to several pods (the scheduler's Unschedulable) is shared across them, and each version reads back as written", () => {
  const store = new ObjectStore();
  const message = '0/3 nodes are available: 3 node(s) had untolerated taint {node.kubernetes.io/not-ready: }.';
  const unschedulable = (o: KubeObject, time: string): KubeObject => {
    const next = clone(o);
    next['status'] = { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', lastTransitionTime: time, reason: 'Unschedulable', message }] };
    return next;
  };
  store.put(PODS, pod('a', '1'));
  store.put(PODS, pod('b', '2'));
  const a = store.put(PODS, unschedulable(store.get(PODS, 'default', 'a')!, '2026-01-01T00:00:00Z'));
  const b = store.put(PODS, unschedulable(store.get(PODS, 'default', 'b')!, '2026-01-01T00:00:01Z'));
  const cond = (o: KubeObject) => (o['status'] as any).conditions[0];
  // Written at another time: the condition is b's own.
  assert.notEqual(cond(b), cond(a));
  assert.equal(cond(b).lastTransitionTime, '2026-01-01T00:00:01Z');
  assert.equal(cond(a).lastTransitionTime, '2026-01-01T00:00:00Z');
  // a written again as b was: its version before has another status, and the pod stored last (b) the same one,
  // which c then holds, frozen.
  const c = store.put(PODS, unschedulable(store.get(PODS, 'default', 'a')!, '2026-01-01T00:00:01Z'));
  assert.equal(c['status'], b['status']);
  assert.ok(Object.isFrozen(c['status']));
  assert.deepEqual(JSON.parse(JSON.stringify(c['status'])), {
    phase: 'Pending',
    conditions: [{ type: 'PodScheduled', status: 'False', lastTransitionTime: '2026-01-01T00:00:01Z', reason: 'Unschedulable', message }],
  });
  // The spec stays shared with the pod's own version before.
  assert.equal(spec(c).containers[0].env[0].value, '1');
  assert.equal(spec(c).containers, spec(a).containers);
});

test("a restore lays each object over the one before it and checks, in the same walk, only what it does not share: each damage is found with the apiserver's message, and the parts equal to the neighbour's are the neighbour's", () => {
  const first = pod('web-a', '1');
  assert.equal(storedProblem(PODS, first), undefined);
  const nested = (levels: number): unknown => {
    let v: unknown = {};
    for (let i = 0; i < levels; i++) v = { x: v };
    return v;
  };
  // Each a sibling of `first` with one damage: in a part the neighbour has alike but for it, in one it lacks, deep.
  const damaged: Array<(p: KubeObject) => void> = [
    (p) => ((p.spec as { containers: { image: unknown }[] }).containers[0]!.image = 7),
    (p) => ((p.spec as { tolerations: { tolerationSeconds: unknown }[] }).tolerations[0]!.tolerationSeconds = 'soon'),
    (p) => ((p.spec as { containers: { resources: unknown }[] }).containers[0]!.resources = { requests: { cpu: 'lots' } }),
    (p) => ((p.status as { conditions: unknown }).conditions = { type: 'Ready' }),
    (p) => (p.metadata.labels = { app: 5 } as never),
    (p) => ((p.spec as Record<string, unknown>)['extra'] = nested(600)),
    (p) => ((p.spec as { containers: Record<string, unknown>[] }).containers[0]!['extra'] = nested(496)),
    (p) => ((p.metadata as Record<string, unknown>)['finalizers'] = ['a/b/c']),
    // Metadata that decodes but does not validate, beside the neighbour's valid members (checked whole: not theirs).
    (p) => (p.metadata.labels = { app: 'web', 'bad key!': 'x' }),
    (p) => ((p.metadata as Record<string, unknown>)['annotations'] = { 'a/b/c': 'x' }),
    (p) => {
      const refs = p.metadata['ownerReferences'] as Record<string, unknown>[];
      refs.push({ ...refs[0]!, name: 'web-2', uid: 'u2' });
    },
  ];
  for (const damage of damaged) {
    const neighbour = pod('web-a', '1');
    layOverChecked(neighbour, pod('web-0', '1'), kindShape('Pod'), MAX_DEPTH);
    const alone = pod('web-b', '1');
    damage(alone);
    const expected = storedProblem(PODS, alone);
    assert.notEqual(expected, undefined);
    const laid = pod('web-b', '1');
    damage(laid);
    const walked = layOverChecked(laid, neighbour, kindShape('Pod'), MAX_DEPTH);
    // As the load asks it: the members that are the neighbour's own parts were found valid with it.
    assert.equal(storedProblem(PODS, laid, walked, walked ? neighbour.metadata : undefined), expected);
    assert.equal(JSON.stringify(laid), JSON.stringify(alone));
  }
  // Undamaged, it takes the neighbour's equal parts (frozen) and passes; its own metadata and spec stay its own.
  const neighbour = pod('web-a', '1');
  const next = pod('web-b', '1');
  assert.equal(layOverChecked(next, neighbour, kindShape('Pod'), MAX_DEPTH), true);
  assert.equal(storedProblem(PODS, next, true, neighbour.metadata), undefined);
  assert.equal(next.spec, neighbour.spec);
  assert.ok(Object.isFrozen(neighbour.spec));
  assert.equal(next.metadata.labels, neighbour.metadata.labels);
  assert.notEqual(next.metadata, neighbour.metadata);
  assert.equal(next.metadata.name, 'web-b');
  const other = pod('web-c', '2');
  assert.equal(layOverChecked(other, neighbour, kindShape('Pod'), MAX_DEPTH), true);
  assert.notEqual(other.spec, neighbour.spec);
  assert.equal((other.spec as { tolerations: unknown }).tolerations, (neighbour.spec as { tolerations: unknown }).tolerations);
});

test("a restore's walk takes a part as the neighbour's only when its members are the neighbour's, all of them, in the same order", () => {
  const neighbour = pod('web-a', '1');
  const theirs = () => spec(neighbour).containers[0].resources as Record<string, unknown>;
  theirs()['limits'] = { cpu: '1', memory: '1Gi' };
  assert.equal(layOverChecked(neighbour, pod('web-0', '1'), kindShape('Pod'), MAX_DEPTH), true);
  const withResources = (resources: unknown) => {
    const p = pod('web-b', '1');
    spec(p).containers[0].resources = JSON.parse(JSON.stringify(resources));
    assert.equal(layOverChecked(p, neighbour, kindShape('Pod'), MAX_DEPTH), true);
    return p;
  };
  // Alike: the neighbour's own part.
  const alike = withResources({ requests: { cpu: '100m' }, limits: { cpu: '1', memory: '1Gi' } });
  assert.equal(spec(alike).containers, spec(neighbour).containers);
  // The same members in another order, one fewer, one more: each keeps its own part, as written, its equal members shared.
  const cases = [
    { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '100m' } },
    { requests: { cpu: '100m' }, limits: { memory: '1Gi', cpu: '1' } },
    { requests: { cpu: '100m' } },
    { requests: { cpu: '100m' }, limits: { cpu: '1', memory: '1Gi' }, claims: [] },
  ];
  for (const resources of cases) {
    const p = withResources(resources);
    const mine = spec(p).containers[0].resources;
    assert.notEqual(mine, theirs());
    assert.equal(JSON.stringify(mine), JSON.stringify(resources));
    assert.ok(!Object.isFrozen(mine));
    assert.equal(mine.requests, theirs()['requests']);
  }
});

test("a restore's walk keeps a pod's own values as written when they repeat within it (its conditions' times, its IPs)", () => {
  const neighbour = pod('web-a', '1');
  const status = (ip: string, at: string) => ({
    phase: 'Running',
    conditions: ['Initialized', 'Ready', 'PodScheduled'].map((type) => ({ type, status: 'True', lastTransitionTime: at })),
    hostIP: ip,
    hostIPs: [{ ip }],
    startTime: at,
  });
  neighbour.status = status('10.0.0.4', '2026-01-01T00:00:00Z');
  const next = pod('web-b', '1');
  next.status = JSON.parse(JSON.stringify(status('10.0.0.5', '2026-01-01T00:00:09Z')));
  const written = JSON.stringify(next);
  assert.equal(layOverChecked(next, neighbour, kindShape('Pod'), MAX_DEPTH), true);
  assert.equal(JSON.stringify(next), written);
  // A damaged value after a repeated one is still found.
  const bad = pod('web-c', '1');
  bad.status = { ...status('10.0.0.6', '2026-01-01T00:00:09Z'), startTime: 5 };
  assert.equal(layOverChecked(bad, neighbour, kindShape('Pod'), MAX_DEPTH), false);
});
