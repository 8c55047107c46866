// Lists the exports of src/ that no other file uses (src/, test/, bench/ and bin/), one `file:line name kind` a
// line: each is dead code, or an `export` to drop. Run from the repository root: `node tools/dead-exports.mjs`.
// Each identifier of the program is resolved once (aliases followed), so one pass finds every use outside the
// declaring file; a namespace import, an `export *` and a dynamic import of a literal path count as using all of
// a module's exports, and bin/*.js's imports of the compiled dist/src/… count for the source module.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const root = path.resolve(process.argv[2] ?? '.');
const ts = createRequire(path.join(root, 'package.json'))('typescript');
const cfg = ts.getParsedCommandLineOfConfigFile(path.join(root, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
const program = ts.createProgram(cfg.fileNames, cfg.options);
const checker = program.getTypeChecker();
const ours = program.getSourceFiles().filter((sf) => !sf.isDeclarationFile && !sf.fileName.includes('/node_modules/'));
const used = new Set(); // symbols used outside their declaring file
const wholeModules = new Set(); // module symbols all of whose exports count as used
const resolve = (s) => (s && s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s);
for (const sf of ours) {
  const visit = (node) => {
    if (ts.isNamespaceImport(node) || (ts.isExportDeclaration(node) && !node.exportClause && node.moduleSpecifier)) {
      const spec = ts.isNamespaceImport(node) ? node.parent.parent.moduleSpecifier : node.moduleSpecifier;
      const m = checker.getSymbolAtLocation(spec);
      if (m) wholeModules.add(m);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const arg = node.arguments[0];
      if (arg && ts.isStringLiteralLike(arg)) {
        const m = checker.getSymbolAtLocation(arg);
        if (m) wholeModules.add(m);
      } else
        console.error(
          `note: dynamic import of a computed path at ${path.relative(root, sf.fileName)}:${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1}`,
        );
    } else if (ts.isIdentifier(node)) {
      let s = checker.getSymbolAtLocation(node);
      if (s && ts.isShorthandPropertyAssignment(node.parent)) s = checker.getShorthandAssignmentValueSymbol(node.parent) ?? s;
      for (const t of [s, resolve(s)]) {
        if (!t) continue;
        const elsewhere = (t.declarations ?? []).some((d) => d.getSourceFile() !== sf);
        if (elsewhere) used.add(t);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
}
/** `src/cli/main.ts` → names bin/*.js import from its compiled form. */
const binImports = new Map();
for (const file of readdirSync(path.join(root, 'bin')).filter((f) => f.endsWith('.js'))) {
  for (const m of readFileSync(path.join(root, 'bin', file), 'utf8').matchAll(/import\s*\{([^}]*)\}\s*from\s*'\.\.\/dist\/(src\/[^']+)\.js'/g)) {
    const names = binImports.get(`${m[2]}.ts`) ?? new Set();
    for (const n of m[1].split(',')) names.add(n.trim().split(/\s+as\s+/)[0]);
    binImports.set(`${m[2]}.ts`, names);
  }
}

const out = [];
for (const sf of ours) {
  const rel = path.relative(root, sf.fileName);
  if (!rel.startsWith(`src${path.sep}`)) continue;
  const mod = checker.getSymbolAtLocation(sf);
  if (!mod || wholeModules.has(mod)) continue;
  for (const exp of checker.getExportsOfModule(mod)) {
    const target = resolve(exp);
    if (used.has(exp) || used.has(target) || binImports.get(rel.split(path.sep).join('/'))?.has(exp.name)) continue;
    const d = (exp.declarations ?? [])[0];
    if (!d || d.getSourceFile() !== sf) continue; // re-exported from another module: judged there
    const line = sf.getLineAndCharacterOfPosition((d.name ?? d).getStart(sf)).line + 1;
    out.push(`${rel}:${line}\t${exp.name}\t${ts.SyntaxKind[d.kind]}`);
  }
}
console.log(out.sort().join('\n'));
console.error(`${out.length} exports of src/ that nothing outside their own file uses`);
