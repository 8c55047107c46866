#!/usr/bin/env node
// Copies flannel's kube-flannel.yml, byte for byte, from a clone of flannel-io/flannel at a release tag into
// test/fixtures/flannel/<tag>/ (ignored by git, see test/fixtures/flannel/SOURCE.md), and checks its SHA-256
// against SOURCE.md.
//
// Run:
//   node tools/copy-flannel-manifest.mjs <flannel clone or git dir> [tag, default v0.28.9]
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const FILE = 'kube-flannel.yml';
const [repo, tag = 'v0.28.9'] = process.argv.slice(2);
if (!repo) {
  process.stderr.write('usage: node tools/copy-flannel-manifest.mjs <flannel clone or git dir> [tag]\n');
  process.exit(2);
}
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'test', 'fixtures', 'flannel');
const source = readFileSync(join(root, 'SOURCE.md'), 'utf8');
const out = join(root, tag);
mkdirSync(out, { recursive: true });
const bytes = execFileSync('git', ['--git-dir', gitDir(repo), 'show', `${tag}:Documentation/${FILE}`], { maxBuffer: 16 * 1024 * 1024 });
const sum = createHash('sha256').update(bytes).digest('hex');
const expected = new RegExp(`\\| ${FILE.replace('.', '\\.')} \\|[^\\n]*\\| ([0-9a-f]{64}) \\|`).exec(source)?.[1];
writeFileSync(join(out, FILE), bytes);
const ok = expected === sum;
process.stdout.write(`${ok ? 'ok ' : 'SHA-256 differs from SOURCE.md:'} ${FILE} ${bytes.length} bytes\n`);
process.exit(ok ? 0 : 1);

/** The git directory of a clone (its .git) or of a bare repository. */
function gitDir(path) {
  try {
    return execFileSync('git', ['-C', path, 'rev-parse', '--absolute-git-dir'], { encoding: 'utf8' }).trim();
  } catch {
    return path;
  }
}
