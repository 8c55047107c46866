// A restored container whose program aksemu does not emulate is the same container after a restart, still running
// (docs/performance.md §2.18): its run told the user so (a line in its log, a NotEmulated Warning) and did nothing
// else, so the runtime (kubelet/init-containers.ts) does not run it again: no second line, no second Event, the
// same restartCount; a session that attaches still hears the line. A container whose process did something before
// it met such a program (a shell's script) runs again as before.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ObjectStore } from '../../src/cluster/apiserver/storage/store.js';
import type { KubeObject } from '../../src/cluster/apimachinery/object.js';
import type { Container } from '../../src/cluster/apimachinery/types.js';
import { createContainerRunner, type InitHost } from '../../src/cluster/kubelet/init-containers.js';
import { ContainerIo } from '../../src/cluster/kubelet/container-io.js';
import { restart } from '../network/harness.js';
import { eventually, HAVE_KUBECTL, kubectl, runningPod, withCluster, type ClusterEnv } from './harness.js';

type Obj = Record<string, any>;

const turn = () => new Promise((r) => setImmediate(r));
const LINE =
  'aksemu: image example.com/team/app:1.0 runs "/app --serve --node=n1", which aksemu does not emulate: the container runs idle until it is stopped (docs/clients.md §5.16)\n';

test('a resumed container of a program aksemu does not emulate is not run again: nothing written or posted, the line told to sessions', async () => {
  const root = mkdtempSync(join(tmpdir(), 'aksemu-unemulated-'));
  const host: InitHost = {
    objects: new ObjectStore(),
    kubelets: { nodeRoot: () => root },
    serviceAccounts: { key: Buffer.alloc(32) } as unknown as InitHost['serviceAccounts'],
  };
  const runner = createContainerRunner(host);
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', uid: 'u1' }, spec: { nodeName: 'n1' } };
  const start = (container: Container, resumed: boolean, init = false) => {
    const out: string[] = [];
    const events: string[] = [];
    const told: Array<() => string> = [];
    const process = runner.start({
      pod: pod as KubeObject,
      node: 'n1',
      container,
      init,
      write: (_, text) => out.push(text),
      notice: (text) => out.push(text),
      told: (text) => told.push(text),
      event: (type, reason, message) => events.push(`${type} ${reason} ${message}`),
      ...(resumed ? { resumed } : {}),
    });
    return { process, out, events, told };
  };
  const app: Container = {
    name: 'app',
    image: 'example.com/team/app:1.0',
    command: ['/app', '--serve', '--node=$(NODE)'],
    env: [{ name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }],
  };
  try {
    // Its first run tells, and runs idle.
    const first = start(app, false);
    await turn();
    await turn();
    assert.deepEqual(first.out, [LINE]);
    assert.equal(first.events.length, 1);
    assert.match(first.events[0]!, /^Warning NotEmulated aksemu does not emulate "\/app --serve --node=n1"/);
    first.process.stop();
    assert.equal(await first.process.exited, 137);

    // Resumed: nothing written, nothing posted; the line as sessions will hear it; running until stopped (137).
    for (const c of [app, { name: 'agent', image: 'mcr.microsoft.com/aks/ip-masq-agent-v2:v0.1.15' }, { ...app, stdin: true }]) {
      const resumed = start(c, true);
      await turn();
      await turn();
      assert.deepEqual([resumed.out, resumed.events], [[], []], `${c.image}: nothing told again`);
      assert.equal(resumed.told.length, 1);
      let code: number | undefined;
      void resumed.process.exited.then((x) => (code = x));
      await turn();
      assert.equal(code, undefined, 'still running');
      resumed.process.stop();
      assert.equal(await resumed.process.exited, 137);
    }
    assert.equal(start(app, true).told[0]!(), LINE);
    assert.match(start({ name: 'agent', image: 'mcr.microsoft.com/aks/ip-masq-agent-v2:v0.1.15' }, true).told[0]!(), /runs its entrypoint, which aksemu/);

    // A session that attaches to a resumed container's streams hears the line; the log gets nothing new.
    const logged: string[] = [];
    const io = new ContainerIo({ tty: false, stdin: false, stdinOnce: false, log: (_, text) => logged.push(text) });
    io.told(() => LINE);
    const heard: string[] = [];
    io.attach(false, { output: (_, text) => heard.push(text), ended: () => undefined });
    assert.deepEqual([heard, logged], [[LINE], []]);

    // What did something before it met the program runs again, as does an init container and a tool.
    const again: Array<[Container, boolean, RegExp]> = [
      [{ name: 's', image: 'example.com/team/app:1.0', command: ['sh', '-c', 'echo hi; /app'] }, false, /^hi\naksemu: image .* runs "\/app"/],
      [{ name: 'i', image: 'example.com/team/app:1.0', command: ['/install'] }, true, /the init container exits 0 at once/],
      [{ name: 'e', image: 'example.com/team/app:1.0', command: ['echo', 'hi'] }, false, /^hi\n$/],
      [{ name: 'w', image: 'example.com/team/app:1.0', command: ['/app', '>/dev/null'] }, false, /does not emulate/],
    ];
    for (const [c, init, line] of again) {
      const { process, out, told } = start(c, true, init);
      await turn();
      await turn();
      await turn();
      assert.match(out.join(''), line, `${JSON.stringify(c.command)} runs`);
      assert.deepEqual(told, []);
      process.stop();
      await process.exited;
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

async function ok(env: ClusterEnv, args: string[]): Promise<string> {
  const r = await kubectl(env, args);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

test(
  'with the real kubectl, across a restart: a resumed container aksemu does not emulate shows the one line and the one Event it had',
  { skip: HAVE_KUBECTL ? false : 'no /usr/bin/kubectl on this machine' },
  () =>
    withCluster({ networkPlugin: 'kubenet' }, async (env) => {
      const line = 'aksemu: image example.com/team/app:1.0 runs "/app --serve", which aksemu does not emulate: the container runs idle until it is stopped';
      for (const name of ['app', 'old']) {
        await runningPod(env, {
          metadata: { name },
          spec: { containers: [{ name: 'app', image: 'example.com/team/app:1.0', command: ['/app', '--serve'] }] },
        });
        await eventually(async () => (await kubectl(env, ['logs', name])).stdout !== '', 20_000, 'the log line');
      }
      const warnings = async (pod: string) =>
        JSON.parse(await ok(env, ['get', 'events', '--field-selector', `involvedObject.name=${pod},reason=NotEmulated`, '-o', 'json'])).items.map((e: Obj) => [
          e.type,
          e.message,
          e.count,
          e.involvedObject.fieldPath,
        ]);
      const shown = async (name: string) =>
        ok(env, [
          'get',
          'pod',
          name,
          '-o',
          'jsonpath={.status.phase} {.status.podIP} {.status.containerStatuses[0].restartCount} {.status.containerStatuses[0].containerID}',
        ]);
      const exec = async () => {
        const r = await kubectl(env, ['exec', 'app', '--', 'echo', 'in', 'app']);
        return [r.code, r.stdout, r.stderr];
      };
      const before = { shown: await shown('app'), warnings: await warnings('app'), exec: await exec() };
      assert.equal(before.warnings.length, 1);
      // An Event gone before the restart (as they go after an hour) is not posted again: the log line stays.
      await ok(env, ['delete', 'events', '--field-selector', 'involvedObject.name=old']);
      assert.deepEqual(await warnings('old'), []);

      await restart(env);
      await eventually(async () => (await shown('app')).startsWith('Running'), 20_000, 'running');
      assert.equal(await shown('app'), before.shown);
      assert.equal((await ok(env, ['logs', 'app'])).trimEnd(), `${line} (docs/clients.md §5.16)`);
      assert.equal((await ok(env, ['logs', 'old'])).trimEnd(), `${line} (docs/clients.md §5.16)`);
      // Long enough for a container that was run again to have told again.
      await new Promise((r) => setTimeout(r, 500));
      assert.deepEqual(await warnings('app'), before.warnings);
      assert.deepEqual(await warnings('old'), []);
      const described = await ok(env, ['describe', 'pod', 'app']);
      assert.match(described, /Restart Count:\s+0\n/);
      assert.equal(described.split('NotEmulated').length, 2, described);
      assert.equal((await ok(env, ['logs', 'app'])).split('\n').length, 2);
      assert.deepEqual(await exec(), before.exec);

      const deleted = await kubectl(env, ['delete', 'pod', 'app', '--wait=true'], 60_000);
      assert.equal(deleted.code, 0, deleted.stderr);
      assert.match((await kubectl(env, ['get', 'pod', 'app'])).stderr, /NotFound/);
    }),
);
