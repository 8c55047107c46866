// The kubelet's probes without a data plane (src/cluster/kubelet/probes.ts), through the real kubectl: a catalogued
// server's probes judged by what it serves (nginx on 80: a tcpSocket probe passes, an httpGet on 8080 is refused in
// pkg/probe's words), a network probe of a container aksemu cannot reach said to be not run (an `errored` event, the
// pod not Ready: nothing was checked), exec probes read as the container's shell would run them (a ConfigMap file
// there or not; a program aksemu does not emulate: not run), a startup probe gating the others and killing the
// container, and a liveness failure under restartPolicy Never ending the pod.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { stringify } from 'yaml';
import { CRASH_BACKOFF } from '../../src/cluster/kubelet/pod-lifecycle.js';
import { api, eventually, HAVE_KUBECTL, kubectl, withCluster, type ClusterEnv } from './harness.js';

const skip = HAVE_KUBECTL ? false : 'no /usr/bin/kubectl on this machine';

type Obj = Record<string, any>;

const pod = (name: string, spec: Obj): Obj => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec });
const sleeper = (name: string, extra: Obj = {}): Obj => ({ name, image: 'busybox:1.36', command: ['sleep', '3600'], ...extra });

async function apply(env: ClusterEnv, objects: Obj[]): Promise<void> {
  const file = join(env.scratch, `objects-${Date.now()}.yaml`);
  writeFileSync(file, objects.map((o) => stringify(o)).join('---\n'));
  const r = await kubectl(env, ['apply', '-f', file]);
  assert.equal(r.code, 0, r.stderr);
}

const getPod = async (env: ClusterEnv, name: string): Promise<Obj> => (await api(env, 'GET', `/api/v1/namespaces/default/pods/${name}`)).json;

async function events(env: ClusterEnv, name: string): Promise<string[]> {
  const r = await kubectl(env, ['get', 'events', '--field-selector', `involvedObject.name=${name}`, '-o', 'json']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout).items.map((e: Obj) => `${e.type} ${e.reason} ${e.message}`);
}

async function hasEvent(env: ClusterEnv, name: string, event: string): Promise<void> {
  await eventually(async () => (await events(env, name)).includes(event), 15_000, `${name}: ${event}`);
}

describe('probes without a data plane', { skip }, () => {
  test('servers, unreachable containers, exec, startup gating and restartPolicy Never', () =>
    withCluster({ networkPlugin: 'kubenet' }, async (env) => {
      CRASH_BACKOFF.initialMs = 400;
      CRASH_BACKOFF.maxMs = 1600;
      await apply(env, [
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'health' }, data: { ok: 'fine\n' } },
        pod('tcp80', { containers: [{ name: 'web', image: 'nginx', readinessProbe: { tcpSocket: { port: 80 }, periodSeconds: 1 } }] }),
        pod('healthz', { containers: [{ name: 'web', image: 'nginx', readinessProbe: { httpGet: { path: '/healthz', port: 80 }, periodSeconds: 1 } }] }),
        pod('http8080', { containers: [{ name: 'web', image: 'nginx', readinessProbe: { httpGet: { port: 8080 }, periodSeconds: 1 } }] }),
        pod('unreached', { containers: [sleeper('app', { readinessProbe: { httpGet: { path: '/ready', port: 8080 }, periodSeconds: 1 } })] }),
        pod('execs', {
          containers: [
            sleeper('app', {
              volumeMounts: [{ name: 'health', mountPath: '/etc/health' }],
              readinessProbe: { exec: { command: ['cat', '/etc/health/ok'] }, periodSeconds: 1 },
              livenessProbe: { exec: { command: ['cat', '/etc/health/missing'] }, initialDelaySeconds: 3, periodSeconds: 1, failureThreshold: 1 },
            }),
          ],
          volumes: [{ name: 'health', configMap: { name: 'health' } }],
        }),
        pod('named', { containers: [sleeper('app', { readinessProbe: { tcpSocket: { port: 'http' }, periodSeconds: 1 } })] }),
        pod('slowexec', { containers: [sleeper('app', { readinessProbe: { exec: { command: ['sleep', '5'] }, periodSeconds: 1, timeoutSeconds: 1 } })] }),
        pod('pg', { containers: [sleeper('db', { readinessProbe: { exec: { command: ['pg_isready', '-U', 'postgres'] }, periodSeconds: 1 } })] }),
        pod('slowstart', {
          containers: [
            sleeper('app', {
              startupProbe: { exec: { command: ['false'] }, periodSeconds: 1, failureThreshold: 2 },
              readinessProbe: { exec: { command: ['true'] }, periodSeconds: 1 },
            }),
          ],
        }),
        pod('never', {
          restartPolicy: 'Never',
          containers: [sleeper('app', { livenessProbe: { exec: { command: ['sh', '-c', 'exit 3'] }, periodSeconds: 1, failureThreshold: 2 } })],
        }),
      ]);

      // nginx serves 80: the tcpSocket probe passes.
      await eventually(async () => (await getPod(env, 'tcp80')).status?.containerStatuses?.[0]?.ready === true, 15_000, 'tcp80 Ready');

      // nginx's default site has no /healthz: 404.
      await hasEvent(env, 'healthz', 'Warning Unhealthy Readiness probe failed: HTTP probe failed with statuscode: 404');
      assert.equal((await getPod(env, 'healthz')).status.containerStatuses[0].ready, false);

      // Nothing serves 8080 in the nginx pod: refused, in the kubelet's words.
      const http = await getPod(env, 'http8080');
      await eventually(async () => (await getPod(env, 'http8080')).status?.podIP !== undefined, 10_000, 'http8080 has an address');
      const ip = (await getPod(env, 'http8080')).status.podIP;
      await hasEvent(env, 'http8080', `Warning Unhealthy Readiness probe failed: Get "http://${ip}:8080/": dial tcp ${ip}:8080: connect: connection refused`);
      assert.equal((await getPod(env, 'http8080')).status.containerStatuses[0].ready, false, JSON.stringify(http.status));

      // A container aksemu cannot reach without a data plane: said so, never Ready.
      const unreached = await getPod(env, 'unreached');
      await hasEvent(
        env,
        'unreached',
        `Warning Unhealthy Readiness probe errored and resulted in unknown state: aksemu cannot send a httpGet probe to ${unreached.status.podIP}:8080 without a data plane (aksemu start --dataplane netns, as root); nothing was checked`,
      );
      const notReady = (await getPod(env, 'unreached')).status;
      assert.equal(notReady.containerStatuses[0].ready, false);
      assert.equal(notReady.conditions.find((c: Obj) => c.type === 'Ready').status, 'False');

      // exec: the ConfigMap's file is there (Ready); the missing one fails liveness (after its delay): killed and restarted.
      await eventually(async () => (await getPod(env, 'execs')).status?.containerStatuses?.[0]?.ready === true, 15_000, 'execs Ready');
      await hasEvent(env, 'execs', "Warning Unhealthy Liveness probe failed: cat: can't open '/etc/health/missing': No such file or directory\n");
      await hasEvent(env, 'execs', 'Normal Killing Container app failed liveness probe, will be restarted');
      await eventually(async () => ((await getPod(env, 'execs')).status?.containerStatuses?.[0]?.restartCount ?? 0) >= 1, 15_000, 'execs restarted');

      // A port name the container does not declare; an exec probe past its timeout.
      await hasEvent(env, 'named', 'Warning Unhealthy Readiness probe errored and resulted in unknown state: strconv.Atoi: parsing "http": invalid syntax');
      await hasEvent(env, 'slowexec', 'Warning Unhealthy Readiness probe failed: command timed out: "sleep 5" timed out after 1s');

      // A program aksemu does not emulate: the probe is not run, and says why.
      await hasEvent(
        env,
        'pg',
        'Warning Unhealthy Readiness probe errored and resulted in unknown state: aksemu cannot run "pg_isready -U postgres" in the container: aksemu does not emulate "pg_isready" of the image busybox:1.36',
      );
      assert.equal((await getPod(env, 'pg')).status.containerStatuses[0].ready, false);

      // The startup probe fails: not started, readiness never probed, killed as the startup probe says.
      await hasEvent(env, 'slowstart', 'Normal Killing Container app failed startup probe, will be restarted');
      const slow = await getPod(env, 'slowstart');
      assert.equal(slow.status.containerStatuses[0].ready, false);
      const slowEvents = await events(env, 'slowstart');
      assert.ok(slowEvents.includes('Warning Unhealthy Startup probe failed: '), slowEvents.join('\n'));
      assert.ok(!slowEvents.some((e) => e.includes('Readiness probe')), slowEvents.join('\n'));
      const running = await getPod(env, 'slowstart');
      const status = running.status.containerStatuses[0];
      if (status.state.running) assert.equal(status.started, false);

      // restartPolicy Never: killed, not restarted; the pod ends Failed with 137.
      await hasEvent(env, 'never', 'Normal Killing Container app failed liveness probe');
      await eventually(async () => (await getPod(env, 'never')).status?.phase === 'Failed', 15_000, 'never Failed');
      const never = (await getPod(env, 'never')).status.containerStatuses[0];
      assert.equal(never.state.terminated.exitCode, 137);
      assert.equal(never.restartCount, 0);
    }));
});
