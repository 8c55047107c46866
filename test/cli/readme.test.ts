// The README's walk-through, run as written: its shell blocks, in a shell whose `aksemu` is this checkout's,
// against a running server, with the real az and kubectl and a scratch HOME. The output must show what the
// README shows: every node NotReady with the kubelet's message, then Ready once the CNI is installed.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { removeHome, startTestServer, tempHome } from '../e2e/harness.js';
import { AZ } from '../az/real-az-env.js';
import { HAVE_KUBECTL } from '../cluster/harness.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const NOT_READY =
  'container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized';
const skip = !existsSync(AZ) ? `${AZ} is not installed` : !HAVE_KUBECTL ? 'kubectl is not installed' : false;

/** The ```sh blocks of the README section that starts with heading. */
function shellBlocks(heading: string): string[] {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const from = readme.indexOf(`\n${heading}\n`);
  assert.ok(from >= 0, `README has no "${heading}"`);
  // The section ends at the next heading of any level (the README goes on with "Install a CNI").
  const section = readme.slice(from + 1).split(/\n##+ /)[0]!;
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

test('README walk-through: bring your own CNI, with the real az and kubectl', { skip }, async () => {
  const blocks = shellBlocks('### Walk-through: bring your own CNI');
  assert.equal(blocks.length, 2);
  const home = tempHome();
  const user = mkdtempSync(join(tmpdir(), 'aksemu-user-'));
  const server = await startTestServer({ home });
  const run = (script: string) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
      const env = {
        PATH: process.env['PATH'] ?? '/usr/bin:/bin',
        HOME: user,
        AKSEMU_HOME: home,
        HTTPS_PROXY: 'http://127.0.0.1:9',
        NO_PROXY: '127.0.0.1,localhost',
      };
      const prelude = `set -euo pipefail\ncd ${JSON.stringify(user)}\naksemu() { node ${JSON.stringify(join(REPO, 'bin', 'aksemu.js'))} "$@"; }\n`;
      execFile('bash', ['-c', prelude + script], { env, timeout: 240_000 }, (err, stdout, stderr) =>
        done({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
      );
    });
  try {
    const first = await run(blocks[0]!);
    assert.equal(first.code, 0, first.stderr);
    // az prints its JSON first; kubectl's table ends the output.
    const lines = first.stdout.trim().split('\n');
    const table = lines.slice(lines.findIndex((l) => /^NAME\s+STATUS$/.test(l)));
    assert.match(table[0]!, /^NAME\s+STATUS$/);
    assert.equal(table.length, 4, first.stdout);
    for (const row of table.slice(1))
      assert.match(row, new RegExp(`^aks-nodepool1-\\d{8}-vmss00000\\d\\s+${NOT_READY.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));

    // The second block runs in a new shell, as a reader pasting it would: it sets up az again.
    const second = await run(`eval "$(aksemu az-env)"\n${blocks[1]!}`);
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, /Installed CNI network 'mynet' \(bridge\) on 3 node\(s\) of myAKSCluster/);
    assert.equal((second.stdout.match(/condition met/g) ?? []).length, 3, second.stdout);
    assert.match(second.stdout, /deployment\.apps\/web created/);
    const nodes = await run('kubectl get nodes --no-headers');
    assert.equal(
      nodes.stdout
        .trim()
        .split('\n')
        .filter((l) => /\sReady\s+agent\s/.test(l)).length,
      3,
      nodes.stdout,
    );
  } finally {
    await server.close();
    removeHome(home);
    rmSync(user, { recursive: true, force: true });
  }
});
