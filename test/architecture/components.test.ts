// The cluster as Kubernetes' own components (docs/architecture.md §10), enforced: every folder of src/cluster/ is
// one component with a row in COMPONENTS; a file may import only components in later rows (not its own row's
// neighbours, not a row above); no file-level import cycle exists anywhere under src/cluster/; and the components
// above the apiserver reach it only through apiserver/index.ts. Each check fails listing file:line, and each is first
// shown to catch a deliberate bad import.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { test } from 'node:test';
import { type Import, importsUnder, ROOT, SRC } from './imports.js';

const CLUSTER = join(SRC, 'cluster');
const APISERVER = join(CLUSTER, 'apiserver');
const APISERVER_SURFACE = join(APISERVER, 'index.ts');
/** The files directly in src/cluster/: the assembly that wires the components into one cluster and serves them. */
const ASSEMBLY = '.';

/** docs/architecture.md §10, top to bottom: a component may import only components in later rows. */
const COMPONENTS: readonly (readonly string[])[] = [
  [ASSEMBLY],
  ['cloud'],
  ['controllers'],
  ['scheduler', 'kubelet'],
  ['proxy', 'network-policy'],
  ['images'],
  ['dns'],
  ['client'],
  ['nodefs'],
  ['apiserver'],
  ['apimachinery'],
];
const rowOf = new Map(COMPONENTS.flatMap((row, i) => row.map((c) => [c, i] as const)));
/** A row as docs/architecture.md §10 numbers it. */
const row = (i: number | undefined): string => (i === undefined ? 'none' : String(i + 1));

/** The component a file under src/cluster/ belongs to, or undefined outside it. */
function componentOf(path: string): string | undefined {
  const parts = relative(CLUSTER, path).split(sep);
  if (parts[0] === '..') return undefined;
  return parts.length > 1 ? parts[0] : ASSEMBLY;
}

/** Imports of a component in the same or an earlier row (an unknown component counts as wrong too). */
function againstTheOrder(imports: readonly Import[]): string[] {
  return imports.flatMap((i) => {
    const from = componentOf(i.file);
    const to = componentOf(i.target);
    if (from === undefined || to === undefined || from === to) return [];
    const a = rowOf.get(from);
    const b = rowOf.get(to);
    return a !== undefined && b !== undefined && b > a ? [] : [`${i.at}: ${from} (row ${row(a)}) imports ${to} (row ${row(b)})`];
  });
}

/** Imports from outside the apiserver of anything in it but its surface, apiserver/index.ts. */
function pastTheSurface(imports: readonly Import[]): string[] {
  return imports
    .filter((i) => componentOf(i.file) !== 'apiserver' && componentOf(i.target) === 'apiserver' && i.target !== APISERVER_SURFACE)
    .map((i) => `${i.at}: imports ${relative(ROOT, i.target)}; use apiserver/index.ts`);
}

/** The import cycles among files (Tarjan's strongly connected components of more than one file, or a self-import). */
function fileCycles(imports: readonly Import[]): string[][] {
  const edges = new Map<string, string[]>();
  for (const i of imports) edges.set(i.file, [...(edges.get(i.file) ?? []), i.target]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const scc: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      scc.push(w);
    } while (w !== v);
    if (scc.length > 1 || (edges.get(v) ?? []).includes(v)) cycles.push(scc.map((f) => relative(ROOT, f)).sort());
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return cycles;
}

/** Imports as the scan reports them, for the checks' own tests. */
const fake = (file: string, target: string): Import => ({ at: `src/cluster/${file}:1`, file: join(CLUSTER, file), target: join(CLUSTER, target) });

test('architecture: the component checks catch a deliberate bad import', () => {
  // kubelet is below controllers; proxy and network-policy share a row; an unknown folder has no row.
  assert.equal(againstTheOrder([fake('kubelet/a.ts', 'controllers/b.ts')]).length, 1);
  assert.equal(againstTheOrder([fake('proxy/a.ts', 'network-policy/b.ts')]).length, 1);
  assert.equal(againstTheOrder([fake('misc/a.ts', 'apimachinery/b.ts')]).length, 1);
  assert.deepEqual(againstTheOrder([fake('controllers/a.ts', 'kubelet/b.ts'), fake('kubelet/a.ts', 'kubelet/c.ts')]), []);
  // A way into the apiserver other than its surface; the apiserver's own files may import each other.
  assert.equal(pastTheSurface([fake('controllers/a.ts', 'apiserver/storage/store.ts')]).length, 1);
  assert.deepEqual(pastTheSurface([fake('controllers/a.ts', 'apiserver/index.ts'), fake('apiserver/api.ts', 'apiserver/kinds.ts')]), []);
  // A cycle of three files, however long the way round, and none in a chain.
  const ring = [fake('a.ts', 'b.ts'), fake('b.ts', 'c.ts'), fake('c.ts', 'a.ts'), fake('c.ts', 'd.ts')];
  assert.deepEqual(fileCycles(ring), [['src/cluster/a.ts', 'src/cluster/b.ts', 'src/cluster/c.ts']]);
  assert.deepEqual(fileCycles(ring.slice(0, 2)), []);
});

test('architecture: every folder of src/cluster/ is a component of docs/architecture.md §10', () => {
  const folders = readdirSync(CLUSTER).filter((f) => statSync(join(CLUSTER, f)).isDirectory());
  assert.deepEqual(
    folders.filter((f) => !rowOf.has(f)),
    [],
    'folders missing from COMPONENTS (and from docs/architecture.md §10)',
  );
  const doc = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8');
  assert.deepEqual(
    folders.filter((f) => !doc.includes(`\`${f}/\``)),
    [],
    'component folders docs/architecture.md does not name',
  );
});

test('architecture: no component imports one in its own or an earlier row', () => {
  const imports = importsUnder(CLUSTER);
  // The scan itself works: the kubelet's use of the apiserver's surface is among what it finds.
  assert.ok(imports.some((i) => componentOf(i.file) === 'kubelet' && i.target === APISERVER_SURFACE));
  const found = againstTheOrder(imports);
  assert.equal(found.length, 0, `imports against the component order:\n${found.join('\n')}`);
});

test('architecture: the components reach the apiserver only through apiserver/index.ts', () => {
  const found = pastTheSurface(importsUnder(SRC));
  assert.equal(found.length, 0, `imports past the apiserver's surface:\n${found.join('\n')}`);
});

test('architecture: no import cycle among the files of src/cluster/', () => {
  const imports = importsUnder(CLUSTER).filter((i) => componentOf(i.target) !== undefined);
  const cycles = fileCycles(imports);
  assert.equal(cycles.length, 0, `import cycles:\n${cycles.map((c) => c.join(' → ')).join('\n')}`);
});
