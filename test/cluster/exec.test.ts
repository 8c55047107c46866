// pods/exec and pods/portforward without a data plane (docs/clients.md §5.18), with the real kubectl and raw
// requests: the refusal says why (no network namespace: aksemu start --dataplane netns), the apiserver's and
// kubelet's errors come first in their words (unknown pod or container, no node, no streams), upgrades are
// authenticated like every request, and a plain request is told an upgrade is required.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { request as httpsRequest } from 'node:https';
import { WebSocket } from 'ws';
import { api, apiEndpoint, eventually, HAVE_KUBECTL, KUBECTL, kubectl, runTool, withCluster, type ClusterEnv } from './harness.js';

const skip = HAVE_KUBECTL ? false : 'no /usr/bin/kubectl on this machine';

/** A websocket upgrade to `path`: the HTTP status and body of a refusal, or 101 and the subprotocol. */
function upgrade(
  env: ClusterEnv,
  path: string,
  options: { token?: string | null; protocols?: string[] } = {},
): Promise<{ status: number; body: any; protocol?: string }> {
  const endpoint = apiEndpoint(env);
  const token = options.token === undefined ? endpoint.token : options.token;
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${endpoint.url.replace(/^https/, 'wss')}${path}`, options.protocols ?? ['v5.channel.k8s.io'], {
      ca: endpoint.caPem,
      headers: token === null ? {} : { authorization: `Bearer ${token}` },
    });
    ws.on('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    ws.on('open', () => {
      resolve({ status: 101, body: undefined, protocol: ws.protocol });
      ws.terminate();
    });
    ws.on('error', (e) => (e.message.startsWith('Unexpected server response') ? undefined : reject(e)));
  });
}

/** A SPDY/3.1 upgrade as kubectl's fallback sends it: the refusal's status and body. */
function spdyUpgrade(env: ClusterEnv, path: string, token: string | null): Promise<{ status: number; body: any }> {
  const endpoint = apiEndpoint(env);
  return new Promise((resolve, reject) => {
    const req = httpsRequest(`${endpoint.url}${path}`, {
      method: 'POST',
      ca: endpoint.caPem,
      headers: {
        connection: 'Upgrade',
        upgrade: 'SPDY/3.1',
        'x-stream-protocol-version': 'v4.channel.k8s.io',
        ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      },
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('upgrade', () => reject(new Error('upgraded')));
    req.on('error', reject);
    req.end();
  });
}

describe('kubectl exec and port-forward without a data plane', { skip }, () => {
  test('clear refusals in the apiserver and kubelet words; upgrades authenticated', () =>
    withCluster({ networkPlugin: 'kubenet' }, async (env) => {
      const pods = [
        { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { containers: [{ name: 'web', image: 'nginx' }] } },
        {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'nowhere' },
          spec: { nodeSelector: { 'no-such': 'node' }, containers: [{ name: 'c', image: 'nginx' }] },
        },
      ];
      for (const p of pods) assert.equal((await api(env, 'POST', '/api/v1/namespaces/default/pods', { body: JSON.stringify(p) })).status, 201);
      await eventually(async () => (await api(env, 'GET', '/api/v1/namespaces/default/pods/web')).json.status?.phase === 'Running', 20_000, 'web running');

      const exec = await kubectl(env, ['exec', 'web', '--', 'ip', 'addr']);
      assert.equal(exec.code, 1);
      assert.match(exec.stderr, /container not found \("web"\): pod web has no network namespace/);
      assert.match(exec.stderr, /aksemu start --dataplane netns/);

      const container = await kubectl(env, ['exec', 'web', '-c', 'nope', '--', 'ip', 'addr']);
      assert.equal(container.code, 1);
      assert.match(container.stderr, /container nope is not valid for pod web/);

      const unscheduled = await kubectl(env, ['exec', 'nowhere', '--', 'ip', 'addr']);
      assert.equal(unscheduled.code, 1);
      assert.match(unscheduled.stderr, /pod nowhere does not have a host assigned/);

      const forward = await kubectl(env, ['port-forward', 'pod/web', ':8080'], 30_000);
      assert.equal(forward.code, 1);
      assert.match(forward.stderr, /pod web has no network namespace/);

      // Raw requests: the apiserver's wording, never a 5xx.
      const base = '/api/v1/namespaces/default/pods';
      const plain = await api(env, 'POST', `${base}/web/exec?command=ip&stdout=true`);
      assert.deepEqual([plain.status, plain.json.message], [400, 'Upgrade request required']);
      const missing = await api(env, 'GET', `${base}/nope/exec?command=ip&stdout=true`);
      assert.deepEqual([missing.status, missing.json.message], [404, 'pods "nope" not found']);
      assert.equal((await api(env, 'PUT', `${base}/web/portforward`)).status, 405);

      assert.deepEqual(await upgrade(env, `${base}/web/exec?command=ip&stdout=true`, { token: null }), {
        status: 401,
        body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 },
      });
      const noStreams = await upgrade(env, `${base}/web/exec?command=ip`);
      assert.deepEqual([noStreams.status, noStreams.body.message], [400, 'you must specify at least 1 of stdin, stdout, stderr']);
      const noCommand = await upgrade(env, `${base}/web/exec?stdout=1`);
      assert.deepEqual([noCommand.status, noCommand.body.message], [400, 'you must specify at least one command for the container']);
      const nul = await upgrade(env, `${base}/web/exec?stdout=1&command=ip%00x`);
      assert.equal(nul.status, 400);
      const tooMany = await upgrade(env, `${base}/web/exec?stdout=1&${'command=x&'.repeat(2000)}`);
      assert.match(tooMany.body.message, /the command is too long/);
      const unknown = await upgrade(env, `${base}/nope/exec?command=ip&stdout=1`);
      assert.deepEqual([unknown.status, unknown.body.reason], [404, 'NotFound']);
      // attach joins the container's process: served without a data plane (docs/clients.md §5.20).
      const attached = await upgrade(env, `${base}/web/attach?stdout=1`);
      assert.deepEqual([attached.status, attached.protocol], [101, 'v5.channel.k8s.io']);
      const badPath = await upgrade(env, `${base}/web/attached?stdout=1`);
      assert.equal(badPath.status, 404);
      assert.deepEqual((await api(env, 'POST', `${base}/web/attach?stdout=true`)).json.message, 'Upgrade request required');
      const noAttachStreams = await upgrade(env, `${base}/web/attach`);
      assert.deepEqual([noAttachStreams.status, noAttachStreams.body.message], [400, 'you must specify at least 1 of stdin, stdout, stderr']);
      const spdyAnonymous = await spdyUpgrade(env, `${base}/web/exec?command=ip&stdout=1`, null);
      assert.deepEqual([spdyAnonymous.status, spdyAnonymous.body.reason], [401, 'Unauthorized']);
      const spdyForward = await spdyUpgrade(env, `${base}/web/portforward`, apiEndpoint(env).token);
      assert.equal(spdyForward.status, 400);
      assert.match(spdyForward.body.message, /no network namespace/);
      // kubectl run -i without a data plane: the shell reads kubectl's stdin; exit N is kubectl's exit code.
      const shell = await runTool(
        KUBECTL,
        [`--cache-dir=${env.scratch}/cache-run-i`, 'run', 'console', '--rm', '-i', '--restart=Never', '--image=busybox', '--', 'sh'],
        { KUBECONFIG: env.kubeconfig, HOME: env.scratch },
        60_000,
        'false\necho "hello, status $?"\nexit 2\n',
      );
      assert.equal(shell.code, 2, shell.stderr);
      assert.match(shell.stdout, /^hello, status 1$/m);

      // An image aksemu does not emulate: kubectl run -i hears why nothing happens (it runs idle until stopped).
      const idle = await runTool(
        KUBECTL,
        [`--cache-dir=${env.scratch}/cache-run-idle`, 'run', 'idle', '-i', '--restart=Never', '--image=example.com/myapp:1'],
        { KUBECONFIG: env.kubeconfig, HOME: env.scratch },
        15_000,
      );
      assert.match(idle.stderr, /aksemu: image example\.com\/myapp:1 runs its entrypoint, which aksemu does not emulate: the container runs idle/);

      // The checks above come before the protocol: a pod without a namespace is refused whatever is asked.
      const refused = await upgrade(env, `${base}/web/exec?command=ip&stdout=1`, { protocols: ['channel.k8s.io'] });
      assert.equal(refused.status, 400);
      assert.match(refused.body.message, /no network namespace/);
    }));
});
