// Keeps the knowledge in the repository (issue 12): code cites docs/ by section, `// docs/aks-rules.md §2.5`,
// and this test fails, listing file:line, when
// - a cited docs/<file>.md does not exist, or a cited §N[.N…] is not a numbered heading of that file;
// - a § on a line belongs to no docs/ citation (a bare `spec §6`, `(§2.5)`, `kubectl-compat §4`), unless it is an
//   RFC's or a project issue's section (`RFC 5952 §5`, `issue 4 §5`);
// - anything still points at the research outside the repository: a shared/ path, spec/<name>.md, or the
//   names of those documents.
// It reads src/, test/ and bench/ (every file), and docs/*.md themselves, where a § with no docs/ before it on
// the line means a section of the same document.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

/** dist/test/docs/ → the repository root. */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DOCS = join(ROOT, 'docs');
const SCANNED = ['src', 'test', 'bench'];

/** This file describes the forbidden forms, so it is not scanned for them. */
const SELF = 'test/docs/citations.test.ts';

/** The places that may name a folder beside the repository: the optional seed documents and third-party fixtures,
 * skipped when absent. */
const BESIDE_LINES = [
  { file: 'test/deployments/harness.ts', line: /^export const SEEDS_DIR = resolve\(REPO, '\.\.\/shared\/seeds'\);$/ },
  { file: 'test/third-party.ts', line: /^export const SHARED_FIXTURES = resolve\(REPO, '\.\.\/shared\/fixtures'\);$/ },
];

/** References to the research documents that live outside the repository. */
const OUTSIDE: Array<[RegExp, string]> = [
  [/(?<![\w.-])shared\//, 'a shared/ path (outside the repository)'],
  [/(?<![\w.-])spec\/[\w-]+\.md\b/, 'a spec/<name>.md path (outside the repository)'],
  [/\b(aks-network-rules|az-cli-compat|kubectl-compat|anchors)(\.md)?\b/, 'a research document outside the repository'],
  [/\bspec\s*§/i, 'a bare "spec §" citation'],
];

const DOC_REF = /(?<![\w./-])docs\/([\w-]+\.md)\b/g;
const SECTION = /§\s?(\d+(?:\.\d+)*)?/g;
/** A § that cites something other than our docs. */
const EXTERNAL_BEFORE = /(\bRFC\s?\d+|\bissue\s\d+)\s*$/i;

interface Problem {
  where: string;
  what: string;
}

const rel = (path: string): string => relative(ROOT, path).split(sep).join('/');

function walk(dir: string, out: string[] = []): string[] {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else out.push(path);
  }
  return out;
}

/** The section numbers of a markdown file: headings `## 1. …`, `### 1.1 …`, `#### 3.4.1 …`. */
function sectionsOf(markdown: string): string[] {
  const out: string[] = [];
  for (const line of markdown.split('\n')) {
    const m = /^#{2,6}\s+(\d+(?:\.\d+)*)\.?\s/.exec(line);
    if (m) out.push(m[1]!);
  }
  return out;
}

const docFiles = (): string[] => readdirSync(DOCS).filter((f) => f.endsWith('.md'));

function loadSections(): Map<string, Set<string>> {
  const map = new Map<string, Set<string>>();
  for (const f of docFiles()) map.set(f, new Set(sectionsOf(readFileSync(join(DOCS, f), 'utf8'))));
  return map;
}

/**
 * Every docs/ citation and every § of one line. `self` is the docs file being read (a § with no docs/ citation
 * before it then means its own section), undefined for code.
 */
function checkLine(line: string, where: string, sections: Map<string, Set<string>>, self: string | undefined): Problem[] {
  const problems: Problem[] = [];
  const refs = [...line.matchAll(DOC_REF)].map((m) => ({ index: m.index!, file: m[1]! }));
  for (const r of refs) {
    if (!sections.has(r.file)) problems.push({ where, what: `docs/${r.file} does not exist` });
  }
  for (const m of line.matchAll(SECTION)) {
    const at = m.index!;
    const number = m[1];
    const owner = refs.filter((r) => r.index < at).pop()?.file ?? self;
    if (!owner) {
      if (EXTERNAL_BEFORE.test(line.slice(0, at))) continue;
      problems.push({ where, what: `"${line.slice(Math.max(0, at - 30), at + 12).trim()}": § without a docs/<file>.md citation before it on the line` });
      continue;
    }
    if (!sections.has(owner)) continue; // reported above
    if (number === undefined) {
      problems.push({ where, what: `docs/${owner} § without a section number` });
    } else if (!sections.get(owner)!.has(number)) {
      problems.push({ where, what: `docs/${owner} has no section ${number}` });
    }
  }
  return problems;
}

function scanCode(sections: Map<string, Set<string>>): { problems: Problem[]; citations: number } {
  const problems: Problem[] = [];
  let citations = 0;
  for (const dir of SCANNED) {
    for (const path of walk(join(ROOT, dir))) {
      const file = rel(path);
      if (file === SELF) continue;
      const text = readFileSync(path, 'utf8');
      if (text.includes('\u0000')) continue; // binary
      text.split('\n').forEach((line, i) => {
        const where = `${file}:${i + 1}`;
        const found = checkLine(line, where, sections, undefined);
        const seeds = BESIDE_LINES.some((b) => file === b.file && b.line.test(line));
        for (const [re, what] of OUTSIDE) if (re.test(line) && !seeds) found.push({ where, what: `${what}: ${line.trim()}` });
        citations += [...line.matchAll(DOC_REF)].length;
        problems.push(...found);
      });
    }
  }
  return { problems, citations };
}

const report = (problems: Problem[]): string => problems.map((p) => `  ${p.where}: ${p.what}`).join('\n');

test('docs/: every document has numbered sections, each number once', () => {
  const files = docFiles();
  assert.ok(files.includes('README.md'), 'docs/README.md (the index) is missing');
  const problems: Problem[] = [];
  for (const f of files.filter((f) => f !== 'README.md')) {
    const numbers = sectionsOf(readFileSync(join(DOCS, f), 'utf8'));
    if (numbers.length === 0) problems.push({ where: `docs/${f}`, what: 'no numbered sections' });
    const seen = new Set<string>();
    for (const n of numbers) {
      if (seen.has(n)) problems.push({ where: `docs/${f}`, what: `section ${n} appears twice` });
      seen.add(n);
    }
  }
  assert.equal(problems.length, 0, `\n${report(problems)}`);
});

test('docs/: citations between and within the documents resolve', () => {
  const sections = loadSections();
  const problems: Problem[] = [];
  for (const f of docFiles()) {
    readFileSync(join(DOCS, f), 'utf8')
      .split('\n')
      // Inline code is quoted, not cited (the index shows the citation style with placeholders).
      .forEach((line, i) => problems.push(...checkLine(line.replace(/`[^`]*`/g, ''), `docs/${f}:${i + 1}`, sections, f)));
  }
  assert.equal(problems.length, 0, `\n${report(problems)}`);
});

test('src/, test/, bench/: every citation names an existing docs section, and nothing cites research outside the repository', (t) => {
  const { problems, citations } = scanCode(loadSections());
  t.diagnostic(`${citations} docs/ citations checked`);
  assert.ok(citations > 0, 'no docs/ citation found at all: is ROOT right?');
  assert.equal(problems.length, 0, `${problems.length} broken citation(s):\n${report(problems)}`);
});
