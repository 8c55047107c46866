// Running the README's walk-throughs as a reader pastes them: the ```sh blocks of a section, read from README.md
// itself (so a test breaks when the README drifts), each in a new bash whose `aksemu` is this checkout's, with a
// scratch HOME, the server's $AKSEMU_HOME and a dead proxy (nothing may leave the machine).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = fileURLToPath(new URL('../../../', import.meta.url));

/** The text of the README section that starts with heading, up to the next heading of any level. */
export function readmeSection(heading: string): string {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const from = readme.indexOf(`\n${heading}\n`);
  assert.ok(from >= 0, `README has no "${heading}"`);
  return readme.slice(from + 1).split(/\n##+ /)[0]!;
}

/** The ```sh blocks of the README section that starts with heading. */
export function shellBlocks(heading: string): string[] {
  return [...readmeSection(heading).matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

export interface ShellResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A reader's shell: HOME of its own, the server's home, `aksemu` this checkout's CLI, extra dirs first on PATH. */
export class ReaderShell {
  readonly user = mkdtempSync(join(tmpdir(), 'aksemu-user-'));

  constructor(
    readonly home: string,
    readonly options: { cwd?: string; path?: string[]; timeoutMs?: number } = {},
  ) {}

  run(script: string): Promise<ShellResult> {
    return new Promise((done) => {
      const env = {
        PATH: [...(this.options.path ?? []), process.env['PATH'] ?? '/usr/bin:/bin'].join(':'),
        HOME: this.user,
        AKSEMU_HOME: this.home,
        HTTPS_PROXY: 'http://127.0.0.1:9',
        HTTP_PROXY: 'http://127.0.0.1:9',
        NO_PROXY: '127.0.0.1,localhost',
      };
      const prelude = `set -euo pipefail\ncd ${JSON.stringify(this.options.cwd ?? this.user)}\naksemu() { node ${JSON.stringify(join(REPO, 'bin', 'aksemu.js'))} "$@"; }\n`;
      execFile('bash', ['-c', prelude + script], { env, timeout: this.options.timeoutMs ?? 240_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) =>
        done({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
      );
    });
  }

  /** Runs script and asserts it exited 0, showing what it printed when it did not. */
  async ok(script: string): Promise<ShellResult> {
    const r = await this.run(script);
    assert.equal(r.code, 0, `exit ${r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`);
    return r;
  }

  remove(): void {
    rmSync(this.user, { recursive: true, force: true });
  }
}
