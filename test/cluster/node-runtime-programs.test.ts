// Catalogued CNI agent programs run as containers (images/runner.ts, init-containers.ts): a test-only image
// is added to the catalogue; its program reads and writes through the cluster API (the AgentClient, in-process),
// watches, writes the node's conf dir through its hostPath mount, logs, and says when it is ready. Asserted with
// the real kubectl: READY follows setReady, the node turns Ready when the conflist lands, `kubectl logs` shows what
// it printed, deleting the pod aborts its signal; `sh -c 'exec /agent …'` finds the same program.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { programFor } from '../../src/cluster/images/catalogue.js';
import type { ImageSpec, Program } from '../../src/cluster/images/program.js';
import { eventually, HAVE_KUBECTL, kubectl, withCluster, type ClusterEnv } from './harness.js';
import { applyNodePod, catalogued } from './node-runtime-harness.js';

const stopped: string[] = [];
const agent: Program = async (ctx) => {
  ctx.setReady(false);
  ctx.write('stdout', `agent on ${ctx.node} (${ctx.nodeIp}) argv=${ctx.argv.join(' ')}\n`);
  const made = ctx.api.create('/api/v1/namespaces/kube-system/configmaps', { metadata: { name: `agent-${ctx.node}` }, data: { node: ctx.node } });
  ctx.write('stdout', `created configmap: ${made.status}\n`);
  await new Promise<void>((resolve) => {
    const stop = ctx.api.watch('/api/v1/namespaces/kube-system/configmaps', (type, o) => {
      if (type !== 'DELETED' && o.metadata.name === 'go') {
        stop();
        resolve();
      }
    });
    ctx.signal.addEventListener('abort', () => {
      stop();
      resolve();
    });
  });
  if (ctx.signal.aborted) return 0;
  ctx.files.write('/host/etc/cni/net.d/10-agent.conflist', JSON.stringify({ cniVersion: '1.0.0', name: 'agent', plugins: [{ type: 'bridge' }] }));
  ctx.write('stdout', 'conflist written\n');
  ctx.setReady(true);
  await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()));
  stopped.push(ctx.node);
  return 0;
};

catalogued({ image: /^example\.com\/aksemu\/test-agent$/, programs: { '/agent': agent } });

async function nodeNames(env: ClusterEnv): Promise<string[]> {
  const r = await kubectl(env, ['get', 'nodes', '-o', 'jsonpath={.items[*].metadata.name}']);
  assert.equal(r.code, 0, r.stderr);
  return r.stdout.trim().split(/\s+/);
}

describe('catalogued programs as containers', { skip: !HAVE_KUBECTL && 'no kubectl' }, () => {
  test('argv resolution: the program, a shell script that execs it, a script path', () => {
    const spec: ImageSpec = { image: /x/, programs: { '/agent': agent, 'install-plugin.sh': agent }, entrypoint: ['/agent', '--default'] };
    assert.deepEqual(programFor(spec, ['/agent', '-v'], {})?.argv, ['/agent', '-v']);
    assert.deepEqual(programFor(spec, [], {})?.argv, ['/agent', '--default']);
    assert.deepEqual(programFor(spec, ['sh', '-ec', 'exec /agent --iface "$IFACE"; echo never'], { IFACE: 'eth0' })?.argv, ['/agent', '--iface', 'eth0']);
    assert.deepEqual(programFor(spec, ['/bin/bash', '/install-plugin.sh', 'a'], {})?.argv, ['/install-plugin.sh', 'a']);
    assert.equal(programFor(spec, ['sh', '-c', 'cp /a /b && /agent'], {}), undefined, 'a script whose first command is not the program');
    assert.equal(programFor(spec, ['nginx'], {}), undefined);
  });

  test('API, watch, hostPath, logs and readiness through kubectl; delete aborts the program', { timeout: 120_000 }, () =>
    withCluster({ networkPlugin: 'none' }, async (env) => {
      const [n0] = (await nodeNames(env)) as [string];
      await applyNodePod(env, {
        name: 'agent',
        node: n0,
        container: `{name: agent, image: 'example.com/aksemu/test-agent:v1', command: [sh, -c, 'exec /agent --node "$(NODE)"'],
    env: [{name: NODE, valueFrom: {fieldRef: {fieldPath: spec.nodeName}}}], volumeMounts: [{name: cni, mountPath: /host/etc/cni/net.d}]}`,
        extra: '  volumes: [{name: cni, hostPath: {path: /etc/cni/net.d}}]\n',
      });
      const row = async () => (await kubectl(env, ['get', 'pod', '-n', 'kube-system', 'agent', '--no-headers'])).stdout;
      await eventually(async () => /\s0\/1\s+Running\s/.test(await row()), 30_000, 'agent running, not ready');
      const cm = await kubectl(env, ['get', 'configmap', '-n', 'kube-system', `agent-${n0}`, '-o', 'jsonpath={.data.node}']);
      assert.equal(cm.stdout, n0, 'the program created an object through the API');

      assert.equal((await kubectl(env, ['create', 'configmap', '-n', 'kube-system', 'go'])).code, 0);
      await eventually(async () => /\s1\/1\s+Running\s/.test(await row()), 30_000, 'agent ready');
      const wait = await kubectl(env, ['wait', '--for=condition=Ready', `node/${n0}`, '--timeout=30s'], 60_000);
      assert.equal(wait.code, 0, wait.stderr);
      const logs = await kubectl(env, ['logs', '-n', 'kube-system', 'agent']);
      assert.match(logs.stdout, new RegExp(`^agent on ${n0} \\(10\\.[0-9.]+\\) argv=/agent --node ${n0}\ncreated configmap: 201\nconflist written\n$`));

      assert.equal((await kubectl(env, ['delete', 'pod', '-n', 'kube-system', 'agent', '--wait=true'], 60_000)).code, 0);
      await eventually(() => stopped.includes(n0), 10_000, 'the program saw its signal');
    }),
  );
});
