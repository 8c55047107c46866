// What emulated containers do and how the kubelet reports it, through the real kubectl: `kubectl logs` (-c,
// --previous, -f, --tail, --timestamps) of what the processes printed, the pods/log errors worded as the
// apiserver and kubelet word them, a failing init container shown on that container with its exit code
// (Init:Error, Init:CrashLoopBackOff), restartPolicy, CrashLoopBackOff with the kubelet's doubling back-off
// (shortened here through CRASH_BACKOFF), and the probe defaults the apiserver fills.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { stringify } from 'yaml';
import { CRASH_BACKOFF } from '../../src/cluster/kubelet/pod-lifecycle.js';
import { api, eventually, HAVE_KUBECTL, kubectl, withCluster, type ClusterEnv } from './harness.js';

const skip = HAVE_KUBECTL ? false : 'no /usr/bin/kubectl on this machine';

type Obj = Record<string, any>;

function pod(name: string, spec: Obj): Obj {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec };
}

const sh = (name: string, script: string, extra: Obj = {}) => ({ name, image: 'busybox:1.36', command: ['sh', '-c', script], ...extra });

async function apply(env: ClusterEnv, objects: Obj[]): Promise<void> {
  const file = join(env.scratch, `objects-${Date.now()}.yaml`);
  writeFileSync(file, objects.map((o) => stringify(o)).join('---\n'));
  const r = await kubectl(env, ['apply', '-f', file]);
  assert.equal(r.code, 0, r.stderr);
}

async function getPod(env: ClusterEnv, name: string): Promise<Obj> {
  return (await api(env, 'GET', `/api/v1/namespaces/default/pods/${name}`)).json;
}

async function statusCell(env: ClusterEnv, name: string): Promise<string> {
  const r = await kubectl(env, ['get', 'pod', name, '--no-headers']);
  return r.stdout.trim().split(/\s+/)[2] ?? '';
}

describe('container processes, logs and pod status', { skip }, () => {
  test('kubectl logs, init failures, restart policies and the crash-loop back-off', () =>
    withCluster({ networkPlugin: 'kubenet' }, async (env) => {
      CRASH_BACKOFF.initialMs = 400;
      CRASH_BACKOFF.maxMs = 1600;
      await apply(env, [
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg' }, data: { greeting: 'hello from a configmap\n' } },
        { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'sec' }, data: { token: Buffer.from('s3cr3t').toString('base64') } },
        pod('lines', {
          containers: [
            sh('lines', 'echo one; echo two >&2; printf "%s=%d\\n" three 3; echo "$GREETING $(NAME)"; sleep infinity', {
              env: [
                { name: 'GREETING', value: 'hi' },
                { name: 'NAME', value: 'unused' },
              ],
            }),
          ],
        }),
        pod('duo', {
          containers: [
            sh('main', 'echo main; while true; do sleep 3600; done'),
            sh('side', 'cat /etc/cfg/greeting /etc/sec/token; echo; cat /etc/cfg/nope; sleep 3600', {
              volumeMounts: [
                { name: 'cfg', mountPath: '/etc/cfg' },
                { name: 'sec', mountPath: '/etc/sec' },
              ],
            }),
          ],
          volumes: [
            { name: 'cfg', configMap: { name: 'cfg' } },
            { name: 'sec', secret: { secretName: 'sec' } },
          ],
        }),
        pod('done', { restartPolicy: 'Never', containers: [sh('done', 'echo bye')] }),
        pod('ticker', { restartPolicy: 'Never', containers: [sh('ticker', 'echo a; sleep 1; echo b; sleep 1; echo c; exit 4')] }),
        pod('crash', { containers: [sh('crash', 'echo attempt; exit 3')] }),
        pod('initfail', { restartPolicy: 'Never', initContainers: [sh('setup', 'echo setting up; exit 7')], containers: [{ name: 'app', image: 'nginx' }] }),
        pod('initloop', { initContainers: [sh('setup', 'exit 5')], containers: [{ name: 'app', image: 'nginx' }] }),
        pod('initwait', { initContainers: [sh('wait', 'sleep 3600')], containers: [{ name: 'app', image: 'nginx' }] }),
        pod('server', {
          containers: [
            { name: 'nginx', image: 'nginx:1.27', livenessProbe: { httpGet: { path: '/', port: 80 } }, readinessProbe: { tcpSocket: { port: 80 } } },
          ],
        }),
      ]);

      // Restarts of the crash-looping container, timed as they are seen, and the back-off messages by restart count.
      const seen = new Map<number, number>();
      const messages = new Map<number, string>();
      const watching = (async () => {
        while (!seen.has(5)) {
          const s = (await getPod(env, 'crash')).status?.containerStatuses?.[0];
          if (s && s.state?.waiting?.reason !== 'ContainerCreating' && !seen.has(s.restartCount)) seen.set(s.restartCount, Date.now());
          if (s?.state?.waiting?.message) messages.set(s.restartCount, s.state.waiting.message);
          await new Promise((r) => setTimeout(r, 20));
        }
      })();

      // A long-running process: what it printed, both streams in order; --tail; --timestamps.
      await eventually(async () => (await kubectl(env, ['logs', 'lines'])).stdout.includes('hi'), 10_000, 'the logs of lines');
      assert.equal((await kubectl(env, ['logs', 'lines'])).stdout, 'one\ntwo\nthree=3\nhi unused\n');
      assert.equal((await kubectl(env, ['logs', 'lines', '--tail=2'])).stdout, 'three=3\nhi unused\n');
      const stamped = (await kubectl(env, ['logs', 'lines', '--timestamps', '--tail=1'])).stdout;
      assert.match(stamped, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z hi unused\n$/);
      assert.equal(await statusCell(env, 'lines'), 'Running');
      const limited = await api(env, 'GET', '/api/v1/namespaces/default/pods/lines/log?limitBytes=6&sinceSeconds=3600');
      assert.deepEqual([limited.status, limited.text], [200, 'one\ntw']);
      const negative = await api(env, 'GET', '/api/v1/namespaces/default/pods/lines/log?tailLines=-1');
      assert.equal(negative.status, 422);
      assert.equal(negative.json.message, 'PodLogOptions "lines" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0');
      assert.equal((await api(env, 'GET', '/api/v1/namespaces/default/pods/nope/log')).json.message, 'pods "nope" not found');

      // Two containers: -c picks one; the API without a container names the choices; files mounted from a
      // ConfigMap and a Secret are what cat prints; a missing file is busybox's error on stderr.
      await eventually(async () => (await kubectl(env, ['logs', 'duo', '-c', 'side'])).stdout.includes("can't open"), 10_000, 'the side logs');
      assert.equal(
        (await kubectl(env, ['logs', 'duo', '-c', 'side'])).stdout,
        "hello from a configmap\ns3cr3t\ncat: can't open '/etc/cfg/nope': No such file or directory\n",
      );
      assert.equal((await kubectl(env, ['logs', 'duo', '-c', 'main'])).stdout, 'main\n');
      const noContainer = await api(env, 'GET', '/api/v1/namespaces/default/pods/duo/log');
      assert.equal(noContainer.status, 400);
      assert.equal(noContainer.json.message, 'a container name must be specified for pod duo, choose one of: [main side]');
      const bogus = await kubectl(env, ['logs', 'duo', '-c', 'nope']);
      assert.notEqual(bogus.code, 0);
      assert.match(bogus.stderr, /container nope is not valid for pod duo/);

      // A script that ends: the pod Succeeded (kubectl: Completed), its log still readable.
      await eventually(async () => (await getPod(env, 'done')).status?.phase === 'Succeeded', 10_000, 'done to succeed');
      assert.equal(await statusCell(env, 'done'), 'Completed');
      assert.equal((await kubectl(env, ['logs', 'done'])).stdout, 'bye\n');
      const terminated = (await getPod(env, 'done')).status.containerStatuses[0].state.terminated;
      assert.deepEqual([terminated.exitCode, terminated.reason], [0, 'Completed']);

      // -f follows until the container ends (exit 4: the pod Failed, kubectl prints Error).
      const followed = await kubectl(env, ['logs', '-f', 'ticker'], 20_000);
      assert.equal(followed.code, 0, followed.stderr);
      assert.equal(followed.stdout, 'a\nb\nc\n');
      await eventually(async () => (await getPod(env, 'ticker')).status?.phase === 'Failed', 5000, 'ticker to fail');
      assert.equal(await statusCell(env, 'ticker'), 'Error');

      // A failing init container under restartPolicy Never: the pod Failed, shown on that container with its code.
      await eventually(async () => (await getPod(env, 'initfail')).status?.phase === 'Failed', 10_000, 'initfail to fail');
      const initfail = await getPod(env, 'initfail');
      assert.equal(initfail.status.initContainerStatuses[0].state.terminated.exitCode, 7);
      assert.equal(initfail.status.initContainerStatuses[0].state.terminated.reason, 'Error');
      assert.equal(await statusCell(env, 'initfail'), 'Init:Error');
      assert.equal((await kubectl(env, ['logs', 'initfail', '-c', 'setup'])).stdout, 'setting up\n');
      const never = await kubectl(env, ['logs', 'initfail', '-c', 'app']);
      assert.match(never.stderr, /container "app" in pod "initfail" is waiting to start: PodInitializing/);

      // Under restartPolicy Always it restarts with back-off: Init:CrashLoopBackOff, its last exit code kept.
      await eventually(async () => (await statusCell(env, 'initloop')) === 'Init:CrashLoopBackOff', 10_000, 'Init:CrashLoopBackOff');
      const initloop = (await getPod(env, 'initloop')).status.initContainerStatuses[0];
      assert.equal(initloop.lastState.terminated.exitCode, 5);
      assert.ok(initloop.restartCount >= 1);
      const waiting = await kubectl(env, ['logs', 'initwait', '-c', 'app']);
      assert.match(waiting.stderr, /container "app" in pod "initwait" is waiting to start: PodInitializing/);
      assert.equal(await statusCell(env, 'initwait'), 'Init:0/1');

      // CrashLoopBackOff: restarted at once (no back-off before restart 1), then after 400ms, 800ms, 1.6s, 1.6s (the maximum).
      await watching;
      const gap = (n: number) => seen.get(n)! - seen.get(n - 1)!;
      const gaps = [2, 3, 4, 5].map(gap);
      // (Restart 1 may come before the first look, so its time is only bounded.)
      assert.ok(gaps[0]! < 1000, `400ms: ${gaps}`);
      assert.ok(gaps[1]! >= 750 && gaps[1]! < 1400, `800ms: ${gaps}`);
      assert.ok(gaps[2]! >= 1500 && gaps[2]! < 2300, `1.6s: ${gaps}`);
      assert.ok(gaps[3]! >= 1500 && gaps[3]! < 2300, `1.6s, the maximum: ${gaps}`);
      const crash = await getPod(env, 'crash');
      const uid = crash.metadata.uid;
      const expected = (d: string) => `back-off ${d} restarting failed container=crash pod=crash_default(${uid})`;
      assert.deepEqual(
        [messages.get(0), messages.get(1), messages.get(2), messages.get(3), messages.get(4)],
        [undefined, expected('400ms'), expected('800ms'), expected('1.6s'), expected('1.6s')],
      );
      assert.equal(crash.status.containerStatuses[0].lastState.terminated.exitCode, 3);
      assert.equal((await kubectl(env, ['logs', 'crash', '--previous'])).stdout, 'attempt\n');
      const events = (await api(env, 'GET', '/api/v1/namespaces/default/events')).json.items as Obj[];
      const backOff = events.find((e) => e.involvedObject.name === 'crash' && e.reason === 'BackOff');
      assert.equal(backOff?.message, `Back-off restarting failed container crash in pod crash_default(${uid})`);
      assert.equal(backOff?.type, 'Warning');
      const previous = await kubectl(env, ['logs', 'lines', '--previous']);
      assert.match(previous.stderr, /previous terminated container "lines" in pod "lines" not found/);

      // Probe defaults as the apiserver fills them.
      const server = (await getPod(env, 'server')).spec.containers[0];
      for (const probe of [server.livenessProbe, server.readinessProbe]) {
        assert.deepEqual([probe.timeoutSeconds, probe.periodSeconds, probe.successThreshold, probe.failureThreshold], [1, 10, 1, 3]);
      }
      assert.equal(server.livenessProbe.httpGet.scheme, 'HTTP');
    }));
});
