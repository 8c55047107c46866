// `aksemu start` body modes (docs/aks-rules.md §1.5): --strict or AKSEMU_STRICT=1 refuses unknown request members
// everywhere, --loose drops them, the two together are refused before anything starts; the banner names the mode.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';

const BIN = fileURLToPath(new URL('../../../bin/aksemu.js', import.meta.url));

/** Runs `aksemu start`; once it says it serves (or it ends), stops the process it started and gives its stderr. */
function start(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stderr: string }> {
  const home = mkdtempSync(join(tmpdir(), 'aksemu-modes-'));
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [BIN, 'start', '--port', '0', '--home', home, ...args], {
      cwd: tmpdir(),
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, AKSEMU_STRICT: '', ...env },
    });
    let stderr = '';
    proc.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (/serving ARM/.test(stderr)) proc.kill('SIGTERM');
    });
    proc.on('error', reject);
    proc.on('close', (code) => {
      rmSync(home, { recursive: true, force: true });
      resolve({ code, stderr });
    });
  });
}

describe('aksemu start: --strict, AKSEMU_STRICT and --loose', () => {
  it('--loose with --strict, or with AKSEMU_STRICT=1, is refused', async () => {
    for (const [args, env] of [
      [['--loose', '--strict'], {}],
      [['--loose'], { AKSEMU_STRICT: '1' }],
    ] as const) {
      const r = await start([...args], env);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /--loose and --strict \(or AKSEMU_STRICT=1\) contradict each other/);
    }
  });

  it('the banner names the mode: default, strict (flag or environment), loose', async () => {
    for (const [args, env, mode] of [
      [[], {}, 'default'],
      [['--strict'], {}, 'strict'],
      [[], { AKSEMU_STRICT: '1' }, 'strict'],
      [['--loose'], {}, 'loose'],
    ] as const) {
      const r = await start([...args], env);
      assert.match(r.stderr, new RegExp(`serving ARM at https://127\\.0\\.0\\.1:\\d+/ \\(${mode} mode,`), r.stderr);
    }
  });
});
