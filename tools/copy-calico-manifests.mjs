#!/usr/bin/env node
// Copies Calico's manifests (the operator's and calico.yaml), byte for byte, from a clone of projectcalico/calico at a release tag into
// test/fixtures/calico/<tag>/ (ignored by git, see test/fixtures/calico/SOURCE.md), and checks each file's
// SHA-256 against the table in SOURCE.md.
//
// Run:
//   node tools/copy-calico-manifests.mjs <calico clone or git dir> [tag, default v3.32.1]
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const FILES = ['operator-crds.yaml', 'tigera-operator.yaml', 'custom-resources.yaml', 'calico.yaml'];
const [repo, tag = 'v3.32.1'] = process.argv.slice(2);
if (!repo) {
  process.stderr.write('usage: node tools/copy-calico-manifests.mjs <calico clone or git dir> [tag]\n');
  process.exit(2);
}
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'test', 'fixtures', 'calico');
const source = readFileSync(join(root, 'SOURCE.md'), 'utf8');
const out = join(root, tag);
mkdirSync(out, { recursive: true });
let bad = 0;
for (const file of FILES) {
  const bytes = execFileSync('git', ['--git-dir', gitDir(repo), 'show', `${tag}:manifests/${file}`], { maxBuffer: 64 * 1024 * 1024 });
  const sum = createHash('sha256').update(bytes).digest('hex');
  const expected = new RegExp(`\\| ${file.replace('.', '\\.')} \\|[^\\n]*\\| ([0-9a-f]{64}) \\|`).exec(source)?.[1];
  writeFileSync(join(out, file), bytes);
  const ok = expected === sum;
  if (!ok) bad++;
  process.stdout.write(`${ok ? 'ok ' : 'SHA-256 differs from SOURCE.md:'} ${file} ${bytes.length} bytes\n`);
}
process.exit(bad ? 1 : 0);

/** The git directory of a clone (its .git) or of a bare repository. */
function gitDir(path) {
  try {
    return execFileSync('git', ['-C', path, 'rev-parse', '--absolute-git-dir'], { encoding: 'utf8' }).trim();
  } catch {
    return path;
  }
}
