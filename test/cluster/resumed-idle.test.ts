// A restored container whose program would only wait for its stop is not run again after a restart
// (docs/performance.md §2.16): the runtime (kubelet/init-containers.ts) gives a process that waits to be stopped and
// ends with 137, when the kubelet says nothing observes it (no probes, no stdin, no data plane) and its image says
// the program its command names only waits (nginx, agnhost's subcommands that just run). Anything else runs as before.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ObjectStore } from '../../src/cluster/apiserver/storage/store.js';
import type { KubeObject } from '../../src/cluster/apimachinery/object.js';
import { PODS } from '../../src/cluster/apimachinery/resources.js';
import type { Container } from '../../src/cluster/apimachinery/types.js';
import { ClusterApi } from '../../src/cluster/apiserver/api.js';
import { ClusterRuntime } from '../../src/cluster/cluster.js';
import { createContainerRunner, type InitHost } from '../../src/cluster/kubelet/init-containers.js';
import type { ContainerRunner, ContainerStart, PodSandboxes, ProbeTarget, SandboxRequest } from '../../src/cluster/kubelet/sandbox.js';
import type { Process } from '../../src/cluster/images/processes.js';
import type { ClusterRecord } from '../../src/model/cluster-records.js';
import { aksClient, cluster, POLL } from '../containerservice/harness.js';
import { restart, withServer } from '../network/harness.js';
import { eventually, HAVE_KUBECTL, kubectl, runningPod, withCluster } from './harness.js';

type Obj = any;

const turn = () => new Promise((r) => setImmediate(r));

/** Starts the container on node n1 of a pod of the runner's store, recording what it writes and tells. */
function started(runner: ContainerRunner, container: Container, resumedUnobserved: boolean) {
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', uid: 'u1' }, spec: { nodeName: 'n1', containers: [container] } };
  const out: string[] = [];
  const targets: ProbeTarget[] = [];
  const process = runner.start({
    pod: pod as KubeObject,
    node: 'n1',
    container,
    init: false,
    write: (_, text) => out.push(text),
    probeTarget: (t) => targets.push(t),
    ...(resumedUnobserved ? { resumedUnobserved } : {}),
  });
  return { process, out, targets };
}

test('a resumed container whose program only waits is not run: its process waits for its stop and ends with 137; any other runs', async () => {
  const root = mkdtempSync(join(tmpdir(), 'aksemu-idle-'));
  const prepared: string[] = [];
  const host: InitHost = {
    objects: new ObjectStore(),
    kubelets: { nodeRoot: () => root, prepare: (n) => prepared.push(n) },
    serviceAccounts: { key: Buffer.alloc(32) } as unknown as InitHost['serviceAccounts'],
  };
  const runner = createContainerRunner(host);
  try {
    const idle: Container[] = [
      { name: 'web', image: 'nginx:1.25' },
      { name: 'web', image: 'docker.io/library/nginx', command: ['nginx', '-g', 'daemon off;'] },
      { name: 'pause', image: 'registry.k8s.io/e2e-test-images/agnhost:2.53', args: ['pause'] },
      { name: 'plain', image: 'registry.k8s.io/e2e-test-images/agnhost:2.53' },
    ];
    for (const c of idle) {
      const { process, out, targets } = started(runner, c, true);
      await turn();
      assert.deepEqual(out, [], `${c.image}: nothing written`);
      assert.deepEqual(targets, [], `${c.image}: no program told what it serves`);
      let code: number | undefined;
      void process.exited.then((x) => (code = x));
      await turn();
      assert.equal(code, undefined, `${c.image}: still running`);
      process.stop();
      assert.equal(await process.exited, 137);
    }
    // A run that goes on as it was reads nothing of the node's root: it is prepared when something first does.
    assert.deepEqual(prepared, [], "no resumed idle container prepares the node's root");

    // The same nginx started anew (not a resumption) runs its program: it says what it serves.
    const fresh = started(runner, idle[0]!, false);
    await turn();
    assert.deepEqual(prepared, ['n1'], "a start prepares the node's root");
    assert.deepEqual(
      fresh.targets.map((t) => t.kind),
      ['listeners', 'listeners'],
    );
    fresh.process.stop();
    assert.equal(await fresh.process.exited, 137);

    // Programs that write or read their environment run, resumed or not.
    const running: Array<[Container, RegExp]> = [
      [{ name: 'h', image: 'registry.k8s.io/e2e-test-images/agnhost:2.53', args: ['serve-hostname'] }, /Serving on port 9376\./],
      [
        { name: 'n', image: 'registry.k8s.io/e2e-test-images/agnhost:2.53', args: ['netexec', '--http-port=$(PORT)'], env: [{ name: 'PORT', value: '8080' }] },
        /port 8080/,
      ],
      [{ name: 'r', image: 'redis:7' }, /does not emulate/],
    ];
    for (const [c, line] of running) {
      const { process, out } = started(runner, c, true);
      await turn();
      await turn();
      assert.match(out.join(''), line, `${c.image} ${JSON.stringify(c.args ?? c.command)} runs`);
      process.stop();
      assert.equal(await process.exited, 137);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

/** Sandboxes that hand out 10.99.0.N. */
class Sandboxes implements PodSandboxes {
  next = 2;
  async setUp(req: SandboxRequest) {
    return { ok: true as const, ip: req.hostNetwork ? '10.224.0.4' : `10.99.0.${this.next++}` };
  }
  async tearDown() {}
  restore() {}
}

/** App containers run until stopped; every start is remembered. */
class Recording implements ContainerRunner {
  readonly starts: ContainerStart[] = [];
  start(c: ContainerStart): Process {
    this.starts.push(c);
    let stop = () => {};
    const exited = new Promise<number>((r) => (stop = () => r(137)));
    return { exited, stop: () => stop() };
  }
}

/** Pods posted to a cluster and Running, its runtime closed, then a second runtime (with `runner`) restoring them. */
function restartedWith(pods: Array<[string, Container]>, runner: ContainerRunner, check: (again: ClusterRuntime) => Promise<void>) {
  return withServer(async (env) => {
    const created = await aksClient(env.server).managedClusters.beginCreateOrUpdateAndWait('rg', 'c1', cluster({ networkPlugin: 'kubenet' }), POLL);
    const record = env.server.store.get<ClusterRecord>(created.id!)!;
    const home = mkdtempSync(join(tmpdir(), 'aksemu-idle-'));
    const runtime = new ClusterRuntime(env.server.store, home, record, { sandboxes: new Sandboxes(), containers: new Recording() });
    runtime.start();
    const api = new ClusterApi(runtime);
    try {
      for (const [name, c] of pods) {
        const res = api.handle({
          method: 'POST',
          path: '/api/v1/namespaces/default/pods',
          query: new URLSearchParams(),
          contentType: 'application/json',
          body: JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [c] } }),
        });
        assert.ok('status' in res && res.status === 201, JSON.stringify(res));
      }
      const running = () => pods.every(([n]) => (runtime.objects.get(PODS, 'default', n) as Obj)?.status?.phase === 'Running');
      await eventually(running, 10_000, 'every pod running');
    } finally {
      runtime.close();
    }
    const saved = runtime.objects.list(PODS).map((p) => structuredClone(p));
    const again = new ClusterRuntime(env.server.store, home, record, { sandboxes: new Sandboxes(), containers: runner });
    for (const p of saved) again.objects.put(PODS, p as KubeObject);
    again.start();
    try {
      await check(again);
    } finally {
      again.close();
      rmSync(home, { recursive: true, force: true });
    }
  });
}

test('after a restart the kubelet says which resumed containers nothing observes: not one with a probe or stdin', () => {
  const pods: Array<[string, Container]> = [
    ['plain', { name: 'app', image: 'nginx:1.25' }],
    ['probed', { name: 'app', image: 'nginx:1.25', readinessProbe: { httpGet: { path: '/', port: 80 } } }],
    ['live', { name: 'app', image: 'nginx:1.25', livenessProbe: { tcpSocket: { port: 80 } } }],
    ['stdin', { name: 'app', image: 'nginx:1.25', stdin: true }],
  ];
  const runner = new Recording();
  return restartedWith(pods, runner, async (again) => {
    await eventually(() => again.workloads.restoring === 0 && runner.starts.length >= pods.length, 10_000, 'every pod resumed');
    const mine = runner.starts.filter((s) => s.pod.metadata.namespace === 'default');
    const said = Object.fromEntries(mine.map((s) => [s.pod.metadata.name, s.resumedUnobserved === true]));
    assert.deepEqual(said, { plain: true, probed: false, live: false, stdin: false });
    // The resumed pod is Running as it was.
    assert.equal((again.objects.get(PODS, 'default', 'plain') as Obj).status.phase, 'Running');
  });
});

test(
  'with the real kubectl, across a restart: a resumed nginx shows what it showed, its log stays empty, and its delete ends it',
  { skip: HAVE_KUBECTL ? false : 'no /usr/bin/kubectl on this machine' },
  () =>
    withCluster({ networkPlugin: 'kubenet' }, async (env) => {
      await runningPod(env, { metadata: { name: 'web' }, spec: { containers: [{ name: 'web', image: 'nginx:1.25' }] } });
      const hostname = { name: 'h', image: 'registry.k8s.io/e2e-test-images/agnhost:2.53', args: ['serve-hostname'] };
      await runningPod(env, { metadata: { name: 'hostname' }, spec: { containers: [hostname] } });
      const shown = async (name: string) => {
        const r = await kubectl(env, ['get', 'pod', name, '-o', 'jsonpath={.status.phase} {.status.podIP} {.status.containerStatuses[0].restartCount}']);
        assert.equal(r.code, 0, r.stderr);
        return r.stdout;
      };
      const before = await shown('web');
      const exec = async () => {
        const r = await kubectl(env, ['exec', 'web', '--', 'ip', 'addr']);
        return [r.code, r.stderr.replace(/\s+/g, ' ')];
      };
      const refused = await exec();
      await restart(env);
      await eventually(async () => (await shown('hostname')).startsWith('Running'), 20_000, 'running');
      await eventually(async () => (await kubectl(env, ['logs', 'hostname'])).stdout.split('Serving on port').length === 3, 20_000, 'serve-hostname ran again');
      assert.equal(await shown('web'), before);
      const logs = await kubectl(env, ['logs', 'web']);
      assert.deepEqual([logs.code, logs.stdout], [0, '']);
      assert.deepEqual(await exec(), refused);
      const deleted = await kubectl(env, ['delete', 'pod', 'web', '--wait=true'], 60_000);
      assert.equal(deleted.code, 0, deleted.stderr);
      const gone = await kubectl(env, ['get', 'pod', 'web']);
      assert.match(gone.stderr, /NotFound/);
    }),
);

/** Recording, and a runner that says every resumed container asked about only waits (resumesIdle). */
class SaysIdle extends Recording {
  readonly asked: string[] = [];
  resumesIdle(c: Pick<ContainerStart, 'pod' | 'node' | 'container'>): boolean {
    this.asked.push(c.pod.metadata.name);
    return true;
  }
}

test('a resumed container the runner says only waits is not started: the kubelet holds its process, a session attaches, a delete ends it', () => {
  const pods: Array<[string, Container]> = [
    ['plain', { name: 'app', image: 'nginx:1.25' }],
    ['probed', { name: 'app', image: 'nginx:1.25', readinessProbe: { httpGet: { path: '/', port: 80 } } }],
  ];
  const runner = new SaysIdle();
  return restartedWith(pods, runner, async (again) => {
    await eventually(() => again.workloads.restoring === 0 && runner.starts.some((s) => s.pod.metadata.name === 'probed'), 10_000, 'every pod resumed');
    // Asked about the one nothing observes only, and that one not started.
    assert.ok(runner.asked.includes('plain') && !runner.asked.includes('probed'), JSON.stringify(runner.asked));
    assert.deepEqual(
      runner.starts.filter((s) => s.pod.metadata.namespace === 'default').map((s) => s.pod.metadata.name),
      ['probed'],
    );
    const plain = again.objects.get(PODS, 'default', 'plain') as Obj;
    assert.equal(plain.status.phase, 'Running');
    assert.equal(plain.status.containerStatuses[0].restartCount, 0);
    // A session attaches to its streams (made now), hears nothing, and hears the end when the pod is deleted.
    const io = again.workloads.attach('default', 'plain', 'app');
    assert.ok(io, 'the resumed container can be attached to');
    assert.equal(again.workloads.attach('default', 'plain', 'app'), io, 'the same streams for the next session');
    const heard: string[] = [];
    let ended = false;
    io.attach(false, { output: (_, text) => heard.push(text), ended: () => (ended = true) });
    const res = new ClusterApi(again).handle({
      method: 'DELETE',
      path: '/api/v1/namespaces/default/pods/plain',
      query: new URLSearchParams(),
      contentType: 'application/json',
      body: '',
    });
    assert.ok('status' in res && res.status === 200, JSON.stringify(res));
    await eventually(() => ended && !again.objects.get(PODS, 'default', 'plain'), 10_000, 'the pod deleted, its process ended');
    assert.deepEqual(heard, []);
    assert.equal(again.workloads.attach('default', 'plain', 'app'), undefined);
  });
});
