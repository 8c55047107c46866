// aksemu az aks get-credentials: the kubeconfig ARM returns, merged into a file, used by the real kubectl.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { removeHome, startTestServer, tempHome, type TestServer } from '../e2e/harness.js';
import { az } from './helpers.js';

let server: TestServer;
let home: string;

before(async () => {
  home = tempHome();
  server = await startTestServer({ home });
  for (const args of [
    ['group', 'create', '-l', 'eastus', '-n', 'myResourceGroup'],
    ['aks', 'create', '-g', 'myResourceGroup', '-n', 'myAKSCluster', '--network-plugin', 'none', '--generate-ssh-keys', '-o', 'none'],
  ]) {
    const r = await az(home, args);
    assert.equal(r.code, 0, r.stderr);
  }
});

after(async () => {
  await server.close();
  removeHome(home);
});

function kubectl(kubeconfig: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('kubectl', args, { env: { ...process.env, KUBECONFIG: kubeconfig } }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

test('get-credentials merges the kubeconfig into --file, and kubectl sees the NotReady nodes', {
  skip: !existsSync('/usr/bin/kubectl') && 'kubectl is not installed',
}, async () => {
  const file = join(home, 'kube', 'config');
  const r = await az(home, ['aks', 'get-credentials', '-g', 'myResourceGroup', '-n', 'myAKSCluster', '--file', file]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, `Merged "myAKSCluster" as current context in ${file}\n`);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  const nodes = await kubectl(file, ['get', 'nodes', '--no-headers']);
  assert.equal(nodes.code, 0, nodes.stderr);
  const rows = nodes.stdout.trim().split('\n');
  assert.equal(rows.length, 3);
  for (const row of rows) assert.match(row, /^aks-nodepool1-\d{8}-vmss00000[0-2]\s+NotReady\s+agent\s/);
});

test('a different entry of the same name needs --overwrite-existing; -f - prints the YAML', async () => {
  const file = join(home, 'other-config');
  writeFileSync(file, 'apiVersion: v1\nkind: Config\nclusters:\n- name: myAKSCluster\n  cluster:\n    server: https://example.invalid\n');
  const refused = await az(home, ['aks', 'get-credentials', '-g', 'myResourceGroup', '-n', 'myAKSCluster', '-f', file]);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /A different object named myAKSCluster already exists in your kubeconfig file\./);
  const forced = await az(home, ['aks', 'get-credentials', '-g', 'myResourceGroup', '-n', 'myAKSCluster', '-f', file, '--overwrite-existing']);
  assert.equal(forced.code, 0, forced.stderr);
  assert.doesNotMatch(readFileSync(file, 'utf8'), /example\.invalid/);
  const printed = await az(home, ['aks', 'get-credentials', '-g', 'myResourceGroup', '-n', 'myAKSCluster', '--admin', '-f', '-']);
  assert.equal(printed.code, 0, printed.stderr);
  assert.match(printed.stdout, /^apiVersion: v1/m);
  assert.match(printed.stdout, /current-context: myAKSCluster-admin/);
});
