// Ephemeral containers (docs/clients.md §5.22) with the real kubectl, without a data plane: `kubectl debug POD
// --image=busybox --target=C -- CMD` patches pods/NAME/ephemeralcontainers (strategic merge), the kubelet starts
// the container in the running pod, its output is `kubectl logs POD -c debugger-…`, its status is in
// status.ephemeralContainerStatuses and its events name spec.ephemeralContainers{…}. The subresource's validation
// as the apiserver does it, through strategic-merge and JSON patches and a PUT; kubectl 1.27's and 1.33's debug too.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { api, eventually, HAVE_KUBECTL, KUBECTL, kubectl, runningPod, runTool, withCluster } from './harness.js';

const skip = HAVE_KUBECTL ? false : 'no /usr/bin/kubectl on this machine';
const POD = '/api/v1/namespaces/default/pods/dbg';
const EPHEMERAL = `${POD}/ephemeralcontainers`;

describe('kubectl debug: ephemeral containers', { skip }, () => {
  test('kubectl debug runs a command beside the target; the subresource validates as the apiserver does', () =>
    withCluster({ networkPlugin: 'kubenet' }, async (env) => {
      await runningPod(env, { metadata: { name: 'dbg' }, spec: { containers: [{ name: 'app', image: 'busybox', command: ['sleep', '3600'] }] } });

      const debug = await kubectl(env, ['debug', 'dbg', '--image=busybox', '--target=app', '--', 'echo', 'hello from the debugger']);
      assert.equal(debug.code, 0, debug.stderr);
      // kubectl names it debugger-xxxxx (it says so only when it attaches).
      const name: string = (await api(env, 'GET', POD)).json.spec.ephemeralContainers?.[0]?.name;
      assert.match(name, /^debugger-[a-z0-9]{5}$/, debug.stdout + debug.stderr);
      let status: any;
      await eventually(
        async () => {
          status = (await api(env, 'GET', POD)).json.status?.ephemeralContainerStatuses?.find((s: any) => s.name === name);
          return status?.state?.terminated !== undefined;
        },
        20_000,
        'the debugger ended',
      );
      assert.equal(status.state.terminated.exitCode, 0);
      assert.equal(status.ready, false);
      const logs = await kubectl(env, ['logs', 'dbg', '-c', name]);
      assert.equal(logs.stdout, 'hello from the debugger\n', logs.stderr);
      // The pod itself goes on running; its spec keeps the ephemeral container as kubectl wrote it, defaulted.
      const stored = (await api(env, 'GET', EPHEMERAL)).json;
      assert.equal(stored.kind, 'Pod');
      assert.equal(stored.status.phase, 'Running');
      const ec = stored.spec.ephemeralContainers[0];
      assert.deepEqual([ec.name, ec.targetContainerName, ec.terminationMessagePolicy, ec.imagePullPolicy], [name, 'app', 'File', 'Always']);
      const events = (await kubectl(env, ['get', 'events', '--field-selector', 'involvedObject.name=dbg', '-o', 'json'])).stdout;
      const started = JSON.parse(events).items.find((e: any) => e.reason === 'Started' && e.involvedObject.fieldPath === `spec.ephemeralContainers{${name}}`);
      assert.equal(started?.message, `Started container ${name}`);

      // Validation: the apiserver's words, 422.
      const smp = (body: unknown) => api(env, 'PATCH', EPHEMERAL, { body: JSON.stringify(body), contentType: 'application/strategic-merge-patch+json' });
      const forbidden = await smp({
        spec: { ephemeralContainers: [{ name: 'bad', image: 'busybox', ports: [{ containerPort: 80 }], readinessProbe: { tcpSocket: { port: 80 } } }] },
      });
      assert.equal(forbidden.status, 422);
      assert.equal(
        forbidden.json.message,
        'Pod "dbg" is invalid: [spec.ephemeralContainers[1].ports: Forbidden: cannot be set for an Ephemeral Container, spec.ephemeralContainers[1].readinessProbe: Forbidden: cannot be set for an Ephemeral Container]',
      );
      const dup = await smp({ spec: { ephemeralContainers: [{ name: 'app', image: 'busybox' }] } });
      assert.equal(dup.status, 422);
      assert.match(dup.json.message, /spec\.ephemeralContainers\[1\]\.name: Duplicate value: "app"/);
      const target = await smp({ spec: { ephemeralContainers: [{ name: 'x', image: 'busybox', targetContainerName: 'nope' }] } });
      assert.match(target.json.message, /spec\.ephemeralContainers\[1\]\.targetContainerName: Not found: "nope"/);
      const removed = await api(env, 'PATCH', EPHEMERAL, {
        body: JSON.stringify([{ op: 'remove', path: '/spec/ephemeralContainers/0' }]),
        contentType: 'application/json-patch+json',
      });
      assert.equal(removed.status, 422);
      assert.match(removed.json.message, new RegExp(`spec.ephemeralContainers: Forbidden: existing ephemeral containers "${name}" may not be removed`));
      const changed = await api(env, 'PATCH', EPHEMERAL, {
        body: JSON.stringify([{ op: 'replace', path: '/spec/ephemeralContainers/0/image', value: 'alpine' }]),
        contentType: 'application/json-patch+json',
      });
      assert.match(changed.json.message, new RegExp(`existing ephemeral containers "${name}" may not be changed`));

      // Server-side apply through the subresource is held to the same rules.
      const applied = await api(env, 'PATCH', `${EPHEMERAL}?fieldManager=test`, {
        body: JSON.stringify({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'dbg' },
          spec: { ephemeralContainers: [{ name: 'x', image: 'b', ports: [{ containerPort: 1 }] }] },
        }),
        contentType: 'application/apply-patch+yaml',
      });
      assert.equal(applied.status, 422, JSON.stringify(applied.json));

      // A PUT adds one (a JSON patch could too); only spec.ephemeralContainers is taken from the body.
      const current = (await api(env, 'GET', EPHEMERAL)).json;
      current.spec.ephemeralContainers.push({ name: 'second', image: 'busybox', command: ['echo', 'two'] });
      current.metadata.labels = { ignored: 'yes' };
      const put = await api(env, 'PUT', EPHEMERAL, { body: JSON.stringify(current) });
      assert.equal(put.status, 200, JSON.stringify(put.json));
      assert.equal(put.json.metadata.labels, undefined);
      assert.deepEqual(
        put.json.spec.ephemeralContainers.map((c: any) => c.name),
        [name, 'second'],
      );
      await eventually(async () => (await kubectl(env, ['logs', 'dbg', '-c', 'second'])).stdout === 'two\n', 20_000, 'the second debugger logged');
      // The oldest and newest kubectl builds the dispatcher has send the same patch (docs/clients.md §5.1: called directly here).
      const dir = dirname(realpathSync(KUBECTL));
      for (const minor of [27, 33]) {
        const build = join(dir, `kubectl.1.${minor}`);
        if (!existsSync(build)) continue;
        const r = await runTool(
          build,
          ['debug', 'dbg', '--image=busybox', '--', 'echo', `from 1.${minor}`],
          { KUBECONFIG: env.kubeconfig, HOME: env.scratch },
          60_000,
        );
        assert.equal(r.code, 0, r.stderr);
        const added: string = (await api(env, 'GET', POD)).json.spec.ephemeralContainers.at(-1).name;
        await eventually(async () => (await kubectl(env, ['logs', 'dbg', '-c', added])).stdout === `from 1.${minor}\n`, 20_000, `1.${minor}'s debugger logged`);
      }
      // Not a subresource of other kinds.
      assert.equal((await api(env, 'GET', '/api/v1/namespaces/default/services/kubernetes/ephemeralcontainers')).status, 404);
    }));
});
