// Service-account tokens and the per-node API socket: every container gets the projected
// /var/run/secrets/kubernetes.io/serviceaccount files; the token authenticates a real request over the node's
// unix socket <nodeRoot>/run/aksemu/apiserver.sock (plain HTTP, the cluster's API); a forged or expired one, or
// none, is the apiserver's 401 Status.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { describe, test } from 'node:test';
import { join } from 'node:path';
import { NODE_API_SOCKET } from '../../src/cni/plugins/node-api.js';
import { shortSocketPath } from '../../src/cni/unix-socket-path.js';
import type { Program } from '../../src/cluster/images/program.js';
import { nodeRootDir } from '../../src/cluster/nodefs/paths.js';
import { unauthorized as unauthorizedStatus } from '../../src/cluster/apimachinery/status.js';
import { issueServiceAccountToken, serviceAccountKey, serviceAccountOf } from '../../src/cluster/apiserver/service-account-tokens.js';
import { eventually, HAVE_KUBECTL, kubectl, withCluster } from './harness.js';
import { applyNodePod, catalogued } from './node-runtime-harness.js';

const seen = new Map<string, Record<string, string | null | undefined>>();
const reader: Program = async (ctx) => {
  const dir = '/var/run/secrets/kubernetes.io/serviceaccount';
  seen.set(ctx.pod.metadata.name, {
    token: ctx.files.read(`${dir}/token`),
    ca: ctx.files.read(`${dir}/ca.crt`),
    namespace: ctx.files.read(`${dir}/namespace`),
  });
  return 0;
};
catalogued({ image: /^example\.com\/aksemu\/token-reader$/, programs: { '/read': reader } });

function get(socketPath: string, path: string, token?: string): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const short = shortSocketPath(socketPath);
    const req = request({ socketPath: short.path, agent: false, path, headers: token ? { Authorization: `Bearer ${token}` } : {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> }));
    });
    req.on('error', reject);
    req.on('close', short.release);
    req.end();
  });
}

describe('service-account tokens', () => {
  test('signed, bound to the key, expiring', () => {
    const key = serviceAccountKey('secret');
    const who = { namespace: 'kube-system', serviceAccount: 'calico-cni-plugin', pod: { name: 'p', uid: 'u' }, node: 'n' };
    const t = issueServiceAccountToken(key, who, Date.parse('2026-01-01T00:00:00Z'));
    assert.equal(serviceAccountOf(key, t, Date.parse('2026-06-01T00:00:00Z')), 'system:serviceaccount:kube-system:calico-cni-plugin');
    assert.equal(serviceAccountOf(key, t, Date.parse('2027-01-02T00:00:00Z')), undefined, 'a year, then expired');
    assert.equal(serviceAccountOf(serviceAccountKey('other'), t), undefined);
    const [h, p, s] = t.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...claims, sub: 'system:serviceaccount:kube-system:admin' })).toString('base64url');
    assert.equal(serviceAccountOf(key, `${h}.${forged}.${s}`), undefined);
    assert.equal(serviceAccountOf(key, 'x'.repeat(10_000)), undefined);
  });

  test(
    'projected into containers; accepted over the node socket; forged and missing tokens get 401',
    { skip: !HAVE_KUBECTL && 'no kubectl', timeout: 120_000 },
    () =>
      withCluster(
        { networkPlugin: 'none' },
        async (env) => {
          const nodes = (await kubectl(env, ['get', 'nodes', '-o', 'jsonpath={.items[*].metadata.name}'])).stdout.trim().split(/\s+/);
          const n0 = nodes[0]!;
          await applyNodePod(env, {
            name: 'reader',
            node: n0,
            container: "{name: read, image: 'example.com/aksemu/token-reader:v1', command: [/read]}",
            extra: '  restartPolicy: Never\n  serviceAccountName: calico-cni-plugin\n',
          });
          await eventually(() => seen.has('reader'), 30_000, 'the program read its files');
          const files = seen.get('reader')!;
          assert.equal(files['namespace'], 'kube-system');
          assert.match(String(files['ca']), /^-----BEGIN CERTIFICATE-----/);
          const token = String(files['token']);
          assert.match(token, /^[\w-]+\.[\w-]+\.[\w-]+$/);

          const root = nodeRootDir(env.home, 'rg', 'c1', n0);
          const socket = join(root, NODE_API_SOCKET);
          await eventually(() => existsSync(socket), 10_000, 'the node socket');
          const ok = await get(socket, '/api/v1/namespaces/kube-system/pods/reader', token);
          assert.equal(ok.status, 200);
          assert.equal((ok.body['metadata'] as { name: string }).name, 'reader');
          const unauthorized = unauthorizedStatus().toStatus();
          assert.deepEqual(await get(socket, '/api/v1/pods', `${token.slice(0, -4)}AAAA`), { status: 401, body: unauthorized });
          assert.deepEqual(await get(socket, '/api/v1/pods'), { status: 401, body: unauthorized });
        },
        { count: 1 },
      ),
  );
});
