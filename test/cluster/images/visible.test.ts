// What a user sees when aksemu cannot run what a container asks, through the real kubectl on a cluster without
// a data plane (docs/clients.md §5.16): an image whose program aksemu does not emulate logs one line naming the
// image and what runs instead, with a NotEmulated Warning on the pod; a network tool in a pod with no network
// namespace says in the log why it cannot reach anything, exits 1 (the pod Failed) and warns NoPodNetwork.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eventually, HAVE_KUBECTL, kubectl, withCluster, type ClusterEnv } from '../harness.js';

const skip = HAVE_KUBECTL ? false : 'no /usr/bin/kubectl on this machine';
type Obj = Record<string, any>;

async function ok(env: ClusterEnv, args: string[]): Promise<string> {
  const r = await kubectl(env, args);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

async function warnings(env: ClusterEnv, pod: string): Promise<Obj[]> {
  return JSON.parse(await ok(env, ['get', 'events', '--field-selector', `involvedObject.name=${pod},type=Warning`, '-o', 'json'])).items;
}

describe('programs aksemu cannot run, visibly', { skip }, () => {
  test('an unknown image and a network tool without a data plane', () =>
    withCluster({ networkPlugin: 'kubenet' }, async (env) => {
      await ok(env, ['run', 'app', '--image=example.com/team/app:1.0', '--command', '--', '/app', '--serve']);
      await eventually(async () => (await kubectl(env, ['logs', 'app'])).stdout !== '', 20_000, 'the log line');
      assert.equal(
        (await kubectl(env, ['logs', 'app'])).stdout,
        'aksemu: image example.com/team/app:1.0 runs "/app --serve", which aksemu does not emulate: the container runs idle until it is stopped (docs/clients.md §5.16)\n',
      );
      const [w] = await warnings(env, 'app');
      assert.deepEqual(
        [w?.reason, w?.message, w?.involvedObject?.fieldPath, w?.source?.component],
        [
          'NotEmulated',
          'aksemu does not emulate "/app --serve" of image example.com/team/app:1.0 (container app): the container runs idle until it is stopped',
          'spec.containers{app}',
          'kubelet',
        ],
      );
      assert.equal(JSON.parse(await ok(env, ['get', 'pod', 'app', '-o', 'json'])).status.phase, 'Running');

      await ok(env, ['run', 'fetch', '--restart=Never', '--image=busybox', '--', 'wget', '-qO-', '--timeout=2', 'http://web']);
      await eventually(async () => JSON.parse(await ok(env, ['get', 'pod', 'fetch', '-o', 'json'])).status.phase === 'Failed', 20_000, 'fetch to fail');
      const pod = JSON.parse(await ok(env, ['get', 'pod', 'fetch', '-o', 'json']));
      assert.equal(pod.status.containerStatuses[0].state.terminated.exitCode, 1);
      assert.equal(
        (await kubectl(env, ['logs', 'fetch'])).stdout,
        'aksemu: wget cannot reach anything: pod fetch has no network namespace: aksemu runs network tools only with a data plane (aksemu start --dataplane netns, as root) (docs/clients.md §5.16)\n',
      );
      assert.deepEqual(
        (await warnings(env, 'fetch')).map((e) => e.reason),
        ['NoPodNetwork'],
      );

      // Arguments without a command are the unknown image's entrypoint's (an ingress-nginx certgen Job's shape).
      await ok(env, ['run', 'certgen', '--image=registry.k8s.io/ingress-nginx/kube-webhook-certgen:v1.4.4', '--', 'create', '--host=x']);
      await eventually(async () => (await kubectl(env, ['logs', 'certgen'])).stdout !== '', 20_000, 'the certgen log line');
      assert.match(
        (await kubectl(env, ['logs', 'certgen'])).stdout,
        /^aksemu: image registry\.k8s\.io\/ingress-nginx\/kube-webhook-certgen:v1\.4\.4 runs its entrypoint with the arguments "create --host=x", which aksemu does not emulate: the container runs idle/,
      );

      // An image that knows its CMD: busybox's `sh` with no stdin ends at once, as on a node.
      await ok(env, ['run', 'shell', '--restart=Never', '--image=busybox']);
      await eventually(async () => JSON.parse(await ok(env, ['get', 'pod', 'shell', '-o', 'json'])).status.phase === 'Succeeded', 20_000, 'sh to end');
      assert.deepEqual(await warnings(env, 'shell'), []);
    }));
});
