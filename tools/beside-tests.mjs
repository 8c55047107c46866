// The compiled test files that read the workplace's files beside the repository (test/third-party.ts: other projects'
// manifests, charts and the REST spec examples; test/deployments/harness.ts: the seed documents' templates), found by
// following each test file's relative imports. .ci/run runs these in the checkout, where those files are, and the
// whole suite in a lone clone, where they skip: every test runs once where it can do the most.
// Usage: node tools/beside-tests.mjs [dist/test]  → one path per line.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const root = resolve(process.argv[2] ?? 'dist/test');
const BESIDE = new Set([join(root, 'third-party.js'), join(root, 'deployments', 'harness.js')]);
// Static imports and re-exports (also over several lines), side-effect imports and dynamic imports of relative paths.
const IMPORT = /\b(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+\.js)['"]/g;

/** Each file's relative imports, read once. */
const importsOf = new Map();
function imports(file) {
  if (!importsOf.has(file)) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      // Not a file of ours (a path the regular expression took from a string): no imports.
    }
    importsOf.set(
      file,
      [...text.matchAll(IMPORT)].map((m) => resolve(dirname(file), m[1])),
    );
  }
  return importsOf.get(file);
}

/** Does `test` import, at any depth, one of the modules that read beside the repository? */
function reachesBeside(test) {
  const seen = new Set([test]);
  const queue = [test];
  while (queue.length > 0) {
    const file = queue.pop();
    if (BESIDE.has(file)) return true;
    for (const next of imports(file)) {
      if (!seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
    }
  }
  return false;
}

const tests = readdirSync(root, { recursive: true })
  .map(String)
  .filter((f) => f.endsWith('.test.js'))
  .map((f) => join(root, f))
  .sort();
const beside = tests.filter((f) => reachesBeside(f));
if (beside.length === 0) {
  console.error(`beside-tests: no test under ${root} reads files beside the repository`);
  process.exit(1);
}
console.log(beside.join('\n'));
