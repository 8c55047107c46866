// `aksemu start` as a user runs it: a child process, found through endpoint.json, stopped by a signal.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { EndpointInfo } from '../../src/server/endpointFile.js';
import { https, removeHome, tempHome } from './harness.js';

const BIN = fileURLToPath(new URL('../../../bin/aksemu.js', import.meta.url));

interface Child {
  proc: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<number | null>;
}

function aksemu(args: string[], env: NodeJS.ProcessEnv = process.env): Child {
  const proc = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exit = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  return { proc, stdout: () => out, stderr: () => err, exit };
}

async function waitForEndpoint(home: string, child: Child): Promise<EndpointInfo> {
  const file = join(home, 'endpoint.json');
  for (let i = 0; i < 300; i++) {
    if (existsSync(file) && child.stderr().includes('serving ARM')) return JSON.parse(readFileSync(file, 'utf8')) as EndpointInfo;
    if (child.proc.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`aksemu start did not come up: ${child.stderr()}`);
}

test('aksemu start serves HTTPS, writes endpoint.json, logs requests without secrets, stops on SIGTERM', async () => {
  const home = tempHome();
  const child = aksemu(['start', '--port', '0'], { ...process.env, AKSEMU_HOME: home });
  try {
    const info = await waitForEndpoint(home, child);
    assert.match(info.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(info.activeDirectory, `${info.url}/adfs`);
    assert.equal(statSync(join(home, 'endpoint.json')).mode & 0o077, 0, 'endpoint.json holds a secret: owner only');
    assert.match(
      info.az.cloudRegister,
      /^az cloud register -n aksemu --endpoint-resource-manager https:\/\/127\.0\.0\.1:\d+\/ --endpoint-active-directory https:\/\/127\.0\.0\.1:\d+\/adfs /,
    );
    const target = { url: info.url, caPem: readFileSync(info.caFile, 'utf8') };

    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: info.clientId,
      client_secret: info.clientSecret,
      scope: 'https://management.core.windows.net//.default',
    });
    const tokenRes = await https(target, 'POST', '/adfs/oauth2/token', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
    });
    assert.equal(tokenRes.status, 200);
    const subs = await https(target, 'GET', '/subscriptions?api-version=2019-11-01', {
      headers: { authorization: `Bearer ${tokenRes.json.access_token}` },
    });
    assert.equal(subs.status, 200);
    assert.equal(subs.json.value[0].subscriptionId, info.subscriptionId);

    child.proc.kill('SIGTERM');
    assert.equal(await child.exit, 0);
    assert.equal(existsSync(join(home, 'endpoint.json')), false, 'a stopped server leaves no endpoint.json');
    // It said what to do next, with a command that runs from any directory.
    assert.match(child.stderr(), new RegExp(`^  eval "\\$\\((aksemu|node /\\S+/bin/aksemu\\.js) az-env\\)" `, 'm'));
    assert.match(child.stderr(), /^  az aks get-credentials -g myResourceGroup -n myAKSCluster$/m);
    const log = child.stdout();
    assert.match(log, /^POST \/adfs\/oauth2\/token 200 [\d.]+ms [0-9a-f-]{36}$/m);
    assert.match(log, /^GET \/subscriptions\?api-version=2019-11-01 200 [\d.]+ms [0-9a-f-]{36}$/m);
    assert.ok(!log.includes(info.clientSecret) && !child.stderr().includes(info.clientSecret));
    assert.ok(!log.includes(tokenRes.json.access_token));
  } finally {
    if (child.proc.exitCode === null) child.proc.kill('SIGKILL');
    removeHome(home);
  }
});

test('aksemu start --port rejects a non-port', async () => {
  const child = aksemu(['start', '--port', 'eighty']);
  assert.equal(await child.exit, 2);
  assert.match(child.stderr(), /expected a port number/);
});
