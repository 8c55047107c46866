// The layer order of docs/architecture.md §1, enforced (§5): every relative import in src/ (static `import … from`,
// `import '…'`, `export … from`, a literal `import('…')`; type-only ones too) may name only a folder in a lower
// layer. Fails listing file:line for each import of a folder in the same or a higher layer, and for each pair of
// folders that import each other.
import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { test } from 'node:test';
import { importsUnder, SRC } from './imports.js';

/** docs/architecture.md §1, top to bottom: a folder may import only folders in later rows. */
const LAYERS: readonly (readonly string[])[] = [
  ['cli'],
  ['server'],
  ['dashboard'],
  ['cluster'],
  ['dataplane'],
  ['providers'],
  ['templates'],
  ['arm'],
  ['model'],
  ['aks', 'cni'],
  ['store'],
  ['net', 'http', 'ids'],
];

const layerOf = new Map(LAYERS.flatMap((folders, i) => folders.map((f) => [f, i] as const)));

interface FolderImport {
  /** src-relative, with the line: `src/cluster/server.ts:10`. */
  at: string;
  from: string;
  to: string;
}

/** The top-level folder under src/ a path lies in, or undefined (outside src/, or a file directly in it). */
function folderOf(path: string): string | undefined {
  const parts = relative(SRC, path).split(sep);
  return parts.length > 1 && parts[0] !== '..' ? parts[0] : undefined;
}

/** Every relative import between two top-level folders. */
function crossFolderImports(): FolderImport[] {
  return importsUnder(SRC).flatMap((i) => {
    const from = folderOf(i.file)!;
    const to = folderOf(i.target);
    return to && to !== from ? [{ at: i.at, from, to }] : [];
  });
}

test('architecture: every folder of src/ has a layer in docs/architecture.md §1', () => {
  const folders = readdirSync(SRC).filter((f) => statSync(join(SRC, f)).isDirectory());
  assert.deepEqual(
    folders.filter((f) => !layerOf.has(f)),
    [],
    'folders missing from LAYERS (and from docs/architecture.md §1)',
  );
  // The scan itself works: the server's import of the store is among what it finds.
  assert.ok(crossFolderImports().some((i) => i.from === 'server' && i.to === 'store'));
});

test('architecture: no folder imports a folder in its own or a higher layer', () => {
  const upward = crossFolderImports().filter((i) => layerOf.has(i.from) && layerOf.has(i.to) && layerOf.get(i.to)! <= layerOf.get(i.from)!);
  const lines = upward.map((i) => `${i.at}: ${i.from} (layer ${layerOf.get(i.from)! + 1}) imports ${i.to} (layer ${layerOf.get(i.to)! + 1})`);
  assert.equal(lines.length, 0, `imports against the layer order:\n${lines.join('\n')}`);
});

test('architecture: no two folders import each other', () => {
  const imports = crossFolderImports();
  const edges = new Set(imports.map((i) => `${i.from}>${i.to}`));
  const lines = imports.filter((i) => edges.has(`${i.to}>${i.from}`)).map((i) => `${i.at}: ${i.from} imports ${i.to}, which imports ${i.from}`);
  assert.equal(lines.length, 0, `folders that import each other:\n${lines.join('\n')}`);
});
