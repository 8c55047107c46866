#!/usr/bin/env node
// Copies Cilium's packaged Helm chart, byte for byte, from a clone of cilium/charts into
// test/fixtures/cilium/v<version>/ (ignored by git, see test/fixtures/cilium/SOURCE.md), and checks its SHA-256
// against the table in SOURCE.md.
//
// Run:
//   node tools/copy-cilium-chart.mjs <cilium/charts clone or git dir> [version, default 1.19.6]
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const [repo, version = '1.19.6'] = process.argv.slice(2);
if (!repo) {
  process.stderr.write('usage: node tools/copy-cilium-chart.mjs <cilium/charts clone or git dir> [version]\n');
  process.exit(2);
}
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'test', 'fixtures', 'cilium');
const source = readFileSync(join(root, 'SOURCE.md'), 'utf8');
const file = `cilium-${version}.tgz`;
// The commit SOURCE.md names for the file (the charts repository keeps every release at its root).
const commit = /at commit ([0-9a-f]{40})/.exec(source)?.[1] ?? 'HEAD';
const bytes = execFileSync('git', ['--git-dir', gitDir(repo), 'show', `${commit}:${file}`], { maxBuffer: 64 * 1024 * 1024 });
const sum = createHash('sha256').update(bytes).digest('hex');
const expected = new RegExp(`\\| ${file.replaceAll('.', '\\.')} \\|[^\\n]*\\| ([0-9a-f]{64}) \\|`).exec(source)?.[1];
const out = join(root, `v${version}`);
mkdirSync(out, { recursive: true });
writeFileSync(join(out, file), bytes);
const ok = expected === sum;
process.stdout.write(`${ok ? 'ok ' : 'SHA-256 differs from SOURCE.md:'} ${file} ${bytes.length} bytes\n`);
process.exit(ok ? 0 : 1);

/** The git directory of a clone (its .git) or of a bare repository. */
function gitDir(path) {
  try {
    return execFileSync('git', ['-C', path, 'rev-parse', '--absolute-git-dir'], { encoding: 'utf8' }).trim();
  } catch {
    return path;
  }
}
