// `aksemu start --dataplane …`: the modes commander accepts, and the up-front check that refuses netns
// without root before anything is created (run as the unprivileged user nobody).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';

const BIN = fileURLToPath(new URL('../../../bin/aksemu.js', import.meta.url));
const NOBODY = 65534;

function start(args: string[], options: { uid?: number; gid?: number } = {}): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [BIN, 'start', ...args], { cwd: tmpdir(), stdio: ['ignore', 'ignore', 'pipe'], ...options });
    let stderr = '';
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    proc.on('error', reject);
    proc.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('aksemu start --dataplane', () => {
  it('accepts only none and netns', async () => {
    const r = await start(['--dataplane', 'vxlan', '--port', '0']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /argument 'vxlan' is invalid\. Allowed choices are none, netns/);
  });

  it('netns without root stops with one clear sentence and leaves nothing', {
    skip: process.getuid?.() !== 0 && 'needs root to switch to nobody',
  }, async () => {
    const home = mkdtempSync(join(tmpdir(), 'aksemu-dp-'));
    chmodSync(home, 0o777);
    try {
      const r = await start(['--dataplane', 'netns', '--port', '0', '--home', home], { uid: NOBODY, gid: NOBODY });
      assert.equal(r.code, 1);
      assert.equal(r.stderr, 'aksemu: --dataplane netns needs root (it creates network namespaces); run aksemu start as root, or use --dataplane none\n');
      assert.equal(existsSync(join(home, 'endpoint.json')), false);
      assert.equal(existsSync(join(home, 'state.db')), false);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
