// What the fixture copy tools share (copy-calico-manifests, copy-flannel-manifest, copy-cilium-chart): files
// taken byte for byte from a local clone of a CNI project's repository at a revision into a git-ignored directory
// under test/fixtures/<project>/, each checked against the SHA-256 its SOURCE.md table gives.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** test/fixtures/<project>, and its SOURCE.md's text. */
export function fixtureDir(project) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'test', 'fixtures', project);
  return { root, source: readFileSync(join(root, 'SOURCE.md'), 'utf8') };
}

/** The arguments `<clone> [default]`, or the usage line and exit 2. */
export function args(usage, fallback) {
  const [repo, rev = fallback] = process.argv.slice(2);
  if (!repo) {
    process.stderr.write(`usage: ${usage}\n`);
    process.exit(2);
  }
  return { repo, rev };
}

/**
 * Copies `<rev>:<path>` of the repository to `<outDir>/<basename>` and checks it against the SOURCE.md row of that
 * name; prints one line and returns whether it matched.
 */
export function copyChecked({ repo, rev, path, source, outDir }) {
  const file = path.slice(path.lastIndexOf('/') + 1);
  const bytes = execFileSync('git', ['--git-dir', gitDir(repo), 'show', `${rev}:${path}`], { maxBuffer: 64 * 1024 * 1024 });
  const sum = createHash('sha256').update(bytes).digest('hex');
  const expected = new RegExp(`\\| ${file.replaceAll('.', '\\.')} \\|[^\\n]*\\| ([0-9a-f]{64}) \\|`).exec(source)?.[1];
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, file), bytes);
  const ok = expected === sum;
  process.stdout.write(`${ok ? 'ok ' : 'SHA-256 differs from SOURCE.md:'} ${file} ${bytes.length} bytes\n`);
  return ok;
}

/** The git directory of a clone (its .git) or of a bare repository. */
function gitDir(path) {
  try {
    return execFileSync('git', ['-C', path, 'rev-parse', '--absolute-git-dir'], { encoding: 'utf8' }).trim();
  } catch {
    return path;
  }
}
