// The kubelet's pod lifecycle and the controllers against sandboxes and init containers we control: a
// cluster created through ARM, and a ClusterRuntime of its own (its own home) given fakes that fail when told
// to, driven through ClusterApi as the HTTP server would. Sandbox failures and their retry, init container
// back-off, graceful deletion releasing the sandbox, nodes going away, restoring running pods after a
// restart, rolling updates.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { ClusterApi } from '../../src/cluster/apiserver/api.js';
import { ClusterRuntime } from '../../src/cluster/cluster.js';
import type { KubeObject } from '../../src/cluster/apimachinery/object.js';
import { NODES as NODES_R, PODS } from '../../src/cluster/apimachinery/resources.js';
import { SandboxRecords } from '../../src/cluster/kubelet/runtime-state.js';
import type { ContainerRunner, ContainerStart, PodSandboxes, SandboxRequest } from '../../src/cluster/kubelet/sandbox.js';
import type { Process } from '../../src/cluster/images/processes.js';
import { CRASH_BACKOFF } from '../../src/cluster/kubelet/pod-lifecycle.js';
import { nodesDir } from '../../src/cluster/nodefs/paths.js';
import type { ClusterRecord } from '../../src/model/cluster-records.js';
import { aksClient, cluster, POLL } from '../containerservice/harness.js';
import { withServer, type Env } from '../network/harness.js';
import { eventually } from './harness.js';

type Obj = any;

/** Sandboxes that hand out 10.99.0.N, fail for a pod while failures.get(name) > 0, and remember every call. */
class FakeSandboxes implements PodSandboxes {
  readonly failures = new Map<string, number>();
  next = 2;
  readonly setUps: SandboxRequest[] = [];
  readonly tearDowns: SandboxRequest[] = [];
  readonly restored: Array<{ req: SandboxRequest; ip: string }> = [];
  /** Every setUp and restore in the order asked: `<call> <pod>`. */
  readonly calls: string[] = [];

  async setUp(req: SandboxRequest) {
    this.setUps.push(req);
    this.calls.push(`setUp ${req.name}`);
    const left = this.failures.get(req.name) ?? 0;
    if (left > 0) {
      this.failures.set(req.name, left - 1);
      return { ok: false as const, message: `plugin type="host-local" failed (add): no IP addresses available in range set: 10.99.0.1-10.99.0.254` };
    }
    return { ok: true as const, ip: req.hostNetwork ? '10.224.0.4' : `10.99.0.${this.next++}` };
  }

  async tearDown(req: SandboxRequest) {
    this.tearDowns.push(req);
  }

  restore(req: SandboxRequest, ip: string) {
    this.restored.push({ req, ip });
    this.calls.push(`restore ${req.name}`);
  }
}

/** Init containers end at once (failing `failures` times first); app containers run until stopped. */
class FakeInit implements ContainerRunner {
  failures = 0;
  runs = 0;
  start({ init }: ContainerStart): Process {
    if (!init) return { exited: new Promise<number>(() => {}), stop: () => {} };
    this.runs++;
    if (this.failures > 0) {
      this.failures--;
      return { exited: Promise.resolve(1), stop: () => {}, message: "cp: can't create '/host/etc/cni/net.d/10-flannel.conflist': Permission denied" };
    }
    return { exited: Promise.resolve(0), stop: () => {} };
  }
}

interface Rig {
  env: Env;
  record: ClusterRecord;
  home: string;
  runtime: ClusterRuntime;
  api: ClusterApi;
  sandboxes: FakeSandboxes;
  init: FakeInit;
}

async function withRig(network: Obj, fn: (rig: Rig) => Promise<void>): Promise<void> {
  await withServer(async (env) => {
    const created = await aksClient(env.server).managedClusters.beginCreateOrUpdateAndWait('rg', 'c1', cluster(network), POLL);
    const record = env.server.store.get<ClusterRecord>(created.id!)!;
    const home = mkdtempSync(join(tmpdir(), 'aksemu-lifecycle-'));
    const sandboxes = new FakeSandboxes();
    const init = new FakeInit();
    const runtime = new ClusterRuntime(env.server.store, home, record, { sandboxes, containers: init });
    runtime.start();
    try {
      await fn({ env, record, home, runtime, api: new ClusterApi(runtime), sandboxes, init });
    } finally {
      runtime.close();
      rmSync(home, { recursive: true, force: true });
    }
  });
}

function call(api: ClusterApi, method: string, path: string, body?: unknown, contentType = 'application/json'): Obj {
  const res = api.handle({ method, path, query: new URLSearchParams(), contentType, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  assert.ok('status' in res, 'not a watch');
  assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

function pod(runtime: ClusterRuntime, name: string): Obj {
  return runtime.objects.get(PODS, 'default', name);
}

function events(api: ClusterApi, name: string): Obj[] {
  return call(api, 'GET', '/api/v1/namespaces/default/events').items.filter((e: Obj) => e.involvedObject.name === name);
}

const POD = (name: string, extra: Obj = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'app', image: 'nginx:1.25' }], ...extra },
});

test('a failing sandbox leaves the pod ContainerCreating with FailedCreatePodSandBox, and is retried until it works; deletion releases it', () =>
  withRig({ networkPlugin: 'kubenet' }, async ({ runtime, api, sandboxes }) => {
    sandboxes.failures.set('p1', 2);
    call(api, 'POST', '/api/v1/namespaces/default/pods', POD('p1'));
    await eventually(() => events(api, 'p1').some((e) => e.reason === 'FailedCreatePodSandBox'), 10_000, 'the first failure');
    const waiting = pod(runtime, 'p1');
    assert.equal(waiting.status.phase, 'Pending');
    assert.deepEqual(waiting.status.containerStatuses[0].state, { waiting: { reason: 'ContainerCreating' } });
    assert.equal(waiting.status.podIP, undefined);
    const failed = events(api, 'p1').find((e) => e.reason === 'FailedCreatePodSandBox');
    assert.deepEqual(
      [failed.type, failed.source.component, failed.source.host, failed.message],
      [
        'Warning',
        'kubelet',
        waiting.spec.nodeName,
        'Failed to create pod sandbox: plugin type="host-local" failed (add): no IP addresses available in range set: 10.99.0.1-10.99.0.254',
      ],
    );
    // Each failed attempt's sandbox is torn down; the third attempt succeeds.
    await eventually(() => pod(runtime, 'p1')?.status?.phase === 'Running', 20_000, 'the retry to succeed');
    const setUps = sandboxes.setUps.filter((r) => r.name === 'p1');
    const tearDowns = () => sandboxes.tearDowns.filter((r) => r.name === 'p1');
    assert.equal(setUps.length, 3);
    assert.equal(new Set(setUps.map((r) => r.sandboxId)).size, 3);
    for (const r of setUps) assert.match(r.sandboxId, /^[0-9a-f]{64}$/);
    assert.deepEqual(
      tearDowns().map((r) => r.sandboxId),
      setUps.slice(0, 2).map((r) => r.sandboxId),
    );
    const running = pod(runtime, 'p1');
    assert.match(running.status.podIP, /^10\.99\.0\.\d+$/);
    assert.deepEqual(running.status.podIPs, [{ ip: running.status.podIP }]);
    assert.equal(events(api, 'p1').find((e) => e.reason === 'FailedCreatePodSandBox').count, 2);

    const deleted = call(api, 'DELETE', '/api/v1/namespaces/default/pods/p1');
    assert.ok(deleted.metadata.deletionTimestamp);
    await eventually(() => pod(runtime, 'p1') === undefined, 5000, 'the pod to go');
    await eventually(() => tearDowns().length === 3, 5000, 'the sandbox to be released');
    assert.equal(tearDowns()[2]!.sandboxId, setUps[2]!.sandboxId);
  }));

test('init containers run after the sandbox; a failure backs off (Init:CrashLoopBackOff) and is retried', () =>
  withRig({ networkPlugin: 'kubenet' }, async ({ runtime, api, init }) => {
    // The kubelet restarts a failed container at once the first time, then backs off (shortened here).
    CRASH_BACKOFF.initialMs = 1000;
    init.failures = 2;
    call(api, 'POST', '/api/v1/namespaces/default/pods', POD('p2', { initContainers: [{ name: 'install-cni', image: 'busybox:1.36', command: ['cp'] }] }));
    await eventually(() => events(api, 'p2').some((e) => e.reason === 'BackOff'), 10_000, 'the back-off');
    const table = api.handle({
      method: 'GET',
      path: '/api/v1/namespaces/default/pods/p2',
      query: new URLSearchParams(),
      accept: 'application/json;as=Table;v=v1;g=meta.k8s.io',
    }) as Obj;
    assert.equal(table.body.rows[0].cells[2], 'Init:CrashLoopBackOff');
    const failing = pod(runtime, 'p2');
    assert.equal(
      failing.status.initContainerStatuses[0].lastState.terminated.message,
      "cp: can't create '/host/etc/cni/net.d/10-flannel.conflist': Permission denied",
    );
    assert.ok(failing.status.podIP, 'the sandbox stays up while init containers retry');
    await eventually(() => pod(runtime, 'p2')?.status?.phase === 'Running', 10_000, 'the init retry');
    const done = pod(runtime, 'p2');
    assert.equal(init.runs, 3);
    assert.equal(done.status.initContainerStatuses[0].restartCount, 2);
    assert.equal(done.status.initContainerStatuses[0].state.terminated.reason, 'Completed');
    assert.ok(done.status.conditions.find((c: Obj) => c.type === 'Initialized').status === 'True');
  }));

test('a pod whose sync throws is synced again with back-off, as the kubelet requeues a failed pod worker', () =>
  withRig({ networkPlugin: 'kubenet' }, async ({ record, home, runtime, api }) => {
    // The node's run/ is a file: the kubelet cannot save the pod's sandbox record, and its sync throws after the
    // sandbox is made. Nothing about the pod changes afterwards, so only the kubelet's own retry can finish it.
    const node = runtime.objects.list(NODES_R)[0]!.metadata.name;
    const nodeDir = join(nodesDir(home, record.resourceGroup, record.name), node);
    rmSync(join(nodeDir, 'run'), { recursive: true, force: true });
    mkdirSync(nodeDir, { recursive: true });
    writeFileSync(join(nodeDir, 'run'), 'not a directory\n');
    call(api, 'POST', '/api/v1/namespaces/default/pods', POD('p3', { nodeName: node }));
    await eventually(() => pod(runtime, 'p3')?.status?.hostIP !== undefined, 10_000, 'the kubelet at work on the pod');
    await new Promise((r) => setTimeout(r, 300));
    assert.notEqual(pod(runtime, 'p3').status.phase, 'Running', 'no record, no start');
    rmSync(join(nodeDir, 'run'));
    await eventually(() => pod(runtime, 'p3')?.status?.phase === 'Running', 10_000, 'the pod running after its failed syncs');
  }));

test('a pod tolerating not-ready waits for the node network (NetworkNotReady); host-network pods do not', () =>
  withRig({ networkPlugin: 'none' }, async ({ runtime, api, sandboxes }) => {
    const tolerate = { tolerations: [{ operator: 'Exists' }] };
    call(api, 'POST', '/api/v1/namespaces/default/pods', POD('netpod', tolerate));
    call(api, 'POST', '/api/v1/namespaces/default/pods', POD('hostpod', { ...tolerate, hostNetwork: true }));
    await eventually(() => pod(runtime, 'hostpod')?.status?.phase === 'Running', 10_000, 'the host-network pod');
    await eventually(() => events(api, 'netpod').some((e) => e.reason === 'NetworkNotReady'), 10_000, 'NetworkNotReady');
    assert.equal(pod(runtime, 'netpod').status.containerStatuses[0].state.waiting.reason, 'ContainerCreating');
    assert.ok(!sandboxes.setUps.some((r) => r.name === 'netpod'), 'no sandbox without a pod network');
    assert.equal(pod(runtime, 'hostpod').status.podIP, '10.224.0.4');
  }));

test("a restart restores running pods' sandboxes instead of setting them up again; a node that goes away takes its pods", () =>
  withRig({ networkPlugin: 'kubenet' }, async ({ env, record, home, runtime, api, sandboxes }) => {
    call(api, 'POST', '/api/v1/namespaces/default/pods', POD('keep'));
    await eventually(() => pod(runtime, 'keep')?.status?.phase === 'Running', 10_000, 'keep running');
    const before = pod(runtime, 'keep');
    const saved = runtime.objects.list(PODS).map((p) => structuredClone(p));
    runtime.close();

    // The same objects in a new runtime on the same home, as persistence restores them.
    const fresh = new FakeSandboxes();
    const again = new ClusterRuntime(env.server.store, home, record, { sandboxes: fresh, containers: new FakeInit() });
    for (const p of saved) again.objects.put(PODS, p as KubeObject);
    const rv = again.objects.get(PODS, 'default', 'keep')!.metadata.resourceVersion;
    again.start();
    try {
      await new Promise((r) => setTimeout(r, 300));
      const restored = fresh.restored.find((x) => x.req.name === 'keep');
      assert.ok(restored, 'keep restored');
      assert.equal(restored.ip, before.status.podIP);
      assert.equal(restored.req.sandboxId, sandboxes.setUps.find((r) => r.name === 'keep')!.sandboxId);
      assert.ok(!fresh.setUps.some((r) => r.name === 'keep'), 'not set up twice');
      assert.equal(again.objects.get(PODS, 'default', 'keep')!.metadata.resourceVersion, rv, 'a restored running pod is not rewritten');

      // Scale the pool down: the removed nodes' pods are deleted and their sandboxes released.
      const pool = await aksClient(env.server).agentPools.get('rg', 'c1', 'nodepool1');
      await aksClient(env.server).agentPools.beginCreateOrUpdateAndWait('rg', 'c1', 'nodepool1', { ...pool, count: 1 }, POLL);
      again.sync();
      const remaining = new Set(again.objects.list(NODES_R).map((n) => n.metadata.name));
      assert.equal(remaining.size, 1);
      const orphans = again.objects.list(PODS).filter((p: Obj) => p.spec.nodeName && !remaining.has(p.spec.nodeName));
      assert.deepEqual(
        orphans.map((p) => p.metadata.name),
        [],
      );
      if (!remaining.has(before.spec.nodeName)) {
        assert.equal(again.objects.get(PODS, 'default', 'keep'), undefined);
        await eventually(() => fresh.tearDowns.some((r) => r.name === 'keep'), 5000, 'keep released');
      }
    } finally {
      again.close();
    }
  }));

test("after a restart the running pods' sandbox records are read after the start, node by node, and before their node gives an address", () =>
  withRig({ networkPlugin: 'kubenet' }, async ({ env, record, home, runtime, api, sandboxes }) => {
    const [x, y] = runtime.objects.list(NODES_R).map((n) => n.metadata.name);
    for (const [name, node] of [
      ['a', x],
      ['b', x],
      ['e', y],
    ] as const)
      call(api, 'POST', '/api/v1/namespaces/default/pods', POD(name, { nodeName: node }));
    await eventually(() => ['a', 'b', 'e'].every((n) => pod(runtime, n)?.status?.phase === 'Running'), 10_000, 'a, b and e running');
    const sandboxOf = (name: string) => sandboxes.setUps.find((r) => r.name === name)!.sandboxId;
    const saved = runtime.objects.list(PODS).map((p) => structuredClone(p));
    runtime.close();
    // The record of a pod deleted while the server was down.
    const gone = {
      uid: 'c0ffee00-0000-4000-8000-000000000000',
      namespace: 'default',
      name: 'gone',
      sandboxId: 'f'.repeat(64),
      hostNetwork: false,
      ip: '10.99.0.250',
    };
    const goneFile = join(nodesDir(home, record.resourceGroup, record.name), y!, 'run', 'sandboxes', `${gone.uid}.json`);
    // Kept as earlier builds kept a record (a file per pod), beside the node's records file: both are read.
    mkdirSync(dirname(goneFile), { recursive: true });
    writeFileSync(goneFile, JSON.stringify(gone));

    const fresh = new FakeSandboxes();
    const again = new ClusterRuntime(env.server.store, home, record, { sandboxes: fresh, containers: new FakeInit() });
    for (const p of saved) again.objects.put(PODS, p as KubeObject);
    again.start();
    try {
      // Nothing of the records in the start's turn: the restored pods are counted as resuming.
      assert.equal(fresh.restored.length, 0);
      assert.ok(again.workloads.restoring >= 3, `${again.workloads.restoring} resuming`);
      // A new pod on y, in the same turn: y's running pod has its address claimed before the new one asks.
      new ClusterApi(again).handle({
        method: 'POST',
        path: '/api/v1/namespaces/default/pods',
        query: new URLSearchParams(),
        contentType: 'application/json',
        body: JSON.stringify(POD('f', { nodeName: y })),
      });
      assert.deepEqual(
        fresh.calls.filter((c) => c === 'restore e' || c === 'setUp f'),
        ['restore e', 'setUp f'],
      );
      // A pod deleted before its node's records were read gives back the sandbox its record names.
      again.objects.delete(PODS, 'default', 'a');
      assert.equal(fresh.restored.find((r) => r.req.name === 'a')?.req.sandboxId, sandboxOf('a'));
      await eventually(() => fresh.tearDowns.some((r) => r.name === 'a' && r.sandboxId === sandboxOf('a')), 5000, "a's sandbox released");
      await eventually(() => again.workloads.restoring === 0, 10_000, 'every record read');
      assert.equal(fresh.restored.find((r) => r.req.name === 'b')?.req.sandboxId, sandboxOf('b'));
      assert.equal(fresh.restored.find((r) => r.req.name === 'e')?.req.sandboxId, sandboxOf('e'));
      assert.ok(!fresh.setUps.some((r) => ['a', 'b', 'e'].includes(r.name)), 'not set up twice');
      // The sandbox of the pod gone is torn down and its record removed.
      await eventually(() => fresh.tearDowns.some((r) => r.uid === gone.uid && r.sandboxId === gone.sandboxId), 5000, 'the sandbox of the pod gone torn down');
      assert.ok(!existsSync(goneFile));
      // What a next start reads of y: e's record, and nothing of the pod gone.
      const onDisk = new SandboxRecords(() => nodesDir(home, record.resourceGroup, record.name));
      assert.equal(onDisk.load(y!, gone.uid), undefined);
      assert.equal(onDisk.load(y!, String(pod(again, 'e')?.metadata.uid))?.sandboxId, sandboxOf('e'));
    } finally {
      again.close();
    }
  }));

/** A Deployment `web` of nginx:1.25 rolled out, then its image changed to nginx:1.27 and that rollout waited for. */
async function rollOut(api: ClusterApi, replicas: number, strategy?: Obj): Promise<{ get: () => Obj; sets: Obj[] }> {
  const deploy = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: {
      replicas,
      ...(strategy ? { strategy } : {}),
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.25' }] } },
    },
  };
  call(api, 'POST', '/apis/apps/v1/namespaces/default/deployments', deploy);
  const get = () => call(api, 'GET', '/apis/apps/v1/namespaces/default/deployments/web');
  await eventually(() => get().status?.availableReplicas === replicas, 10_000, 'first rollout');
  call(
    api,
    'PATCH',
    '/apis/apps/v1/namespaces/default/deployments/web',
    { spec: { template: { spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] } } } },
    'application/strategic-merge-patch+json',
  );
  await eventually(
    () => {
      const status = get().status;
      return status?.observedGeneration === 2 && status.updatedReplicas === replicas && status.availableReplicas === replicas && status.replicas === replicas;
    },
    15_000,
    'second rollout',
  );
  const sets = call(api, 'GET', '/apis/apps/v1/namespaces/default/replicasets').items.filter((r: Obj) => r.metadata.ownerReferences?.[0]?.name === 'web');
  return { get, sets };
}

test('a template change rolls out a new ReplicaSet one pod at a time (maxSurge 1, maxUnavailable 0 of 3); the old one scales to 0; revision annotations follow', () =>
  withRig({ networkPlugin: 'kubenet' }, async ({ runtime, api }) => {
    const { get, sets: rss } = await rollOut(api, 3);
    assert.equal(rss.length, 2);
    const byRevision = new Map(rss.map((r: Obj) => [r.metadata.annotations['deployment.kubernetes.io/revision'], r]));
    assert.equal((byRevision.get('1') as Obj).spec.replicas, 0);
    assert.equal((byRevision.get('2') as Obj).spec.replicas, 3);
    assert.equal(get().metadata.annotations['deployment.kubernetes.io/revision'], '2');
    await eventually(
      () =>
        runtime.objects
          .list(PODS)
          .filter((p: Obj) => p.metadata.labels?.app === 'web')
          .every((p: Obj) => p.spec.containers[0].image === 'nginx:1.27'),
      10_000,
      'old pods gone',
    );
    const progressing = get().status.conditions.find((c: Obj) => c.type === 'Progressing');
    assert.deepEqual([progressing.status, progressing.reason], ['True', 'NewReplicaSetAvailable']);
    // maxSurge 25% of 3 is 1 and maxUnavailable 0: one new pod at a time, an old one gone as each becomes available.
    const scaled = events(api, 'web')
      .filter((e) => e.reason === 'ScalingReplicaSet')
      .map((e) => e.message);
    const [first, second] = [byRevision.get('1') as Obj, byRevision.get('2') as Obj].map((r) => r.metadata.name);
    assert.deepEqual(scaled, [
      `Scaled up replica set ${first} from 0 to 3`,
      `Scaled up replica set ${second} from 0 to 1`,
      `Scaled down replica set ${first} from 3 to 2`,
      `Scaled up replica set ${second} from 1 to 2`,
      `Scaled down replica set ${first} from 2 to 1`,
      `Scaled up replica set ${second} from 2 to 3`,
      `Scaled down replica set ${first} from 1 to 0`,
    ]);
  }));

test('a Recreate Deployment scales the old ReplicaSet to 0 and makes the new one only when its pods are gone', () =>
  withRig({ networkPlugin: 'kubenet' }, async ({ api }) => {
    const { sets } = await rollOut(api, 2, { type: 'Recreate' });
    const [first, second] = ['1', '2'].map((r) => sets.find((s) => s.metadata.annotations['deployment.kubernetes.io/revision'] === r)!);
    assert.ok(Date.parse(second.metadata.creationTimestamp) >= Date.parse(first.metadata.creationTimestamp));
    const scaled = events(api, 'web')
      .filter((e) => e.reason === 'ScalingReplicaSet')
      .map((e) => e.message);
    assert.deepEqual(scaled, [
      `Scaled up replica set ${first.metadata.name} from 0 to 2`,
      `Scaled down replica set ${first.metadata.name} from 2 to 0`,
      `Scaled up replica set ${second.metadata.name} from 0 to 2`,
    ]);
  }));
