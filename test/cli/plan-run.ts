// Runs the real `aksemu plan` binary (bin/aksemu.js) as a user would, for the plan tests.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../../bin/aksemu.js', import.meta.url));

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export function aksemu(...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** `aksemu plan -o json …`: its exit code and the plan; nothing may be written to stderr. */
export async function planJson(...args: string[]) {
  const r = await aksemu('plan', '-o', 'json', ...args);
  assert.equal(r.stderr, '', r.stderr);
  return { code: r.code, plan: JSON.parse(r.stdout) };
}
