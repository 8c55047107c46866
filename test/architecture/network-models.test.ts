// One module per network model (docs/architecture.md §6): outside src/aks/network-models/, nothing decides by a
// plugin's name. Fails listing file:line for each comparison of a plugin or plugin-mode field (a name holding
// "plugin": `networkPlugin`, `networkPluginMode`, `pluginDefault`, `str(args, 'networkPluginMode')`) with
// 'kubenet', 'azure', 'none' or 'overlay': === / !== / == / != either side, a `case` of a switch on such a field,
// and `[…].includes(field)`. The wire values may still appear as data (enums, schemas, defaults, CLI choices).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { NETWORK_MODELS } from '../../src/aks/network-models/index.js';
import { RULES } from '../../src/aks/rules.js';

/** dist/test/architecture/ → the repository root. */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SRC = join(ROOT, 'src');
/** The one place that may compare them: index.ts's table and the models' own declarations. */
const MODELS_DIR = join(SRC, 'aks', 'network-models');

const NAMES: ReadonlySet<string> = new Set(['kubenet', 'azure', 'none', 'overlay']);
const EQUALITY: ReadonlySet<ts.SyntaxKind> = new Set([
  ts.SyntaxKind.EqualsEqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsEqualsToken,
  ts.SyntaxKind.EqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsToken,
]);

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return path === MODELS_DIR ? [] : sources(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

const pluginName = (literal: ts.Node): boolean => (ts.isStringLiteral(literal) || ts.isNoSubstitutionTemplateLiteral(literal)) && NAMES.has(literal.text);

/** The names an expression reads a value by: an identifier, a member, a string key, a call's callee and string arguments. */
function namesOf(e: ts.Expression): string[] {
  if (ts.isParenthesizedExpression(e) || ts.isNonNullExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression(e)) return namesOf(e.expression);
  if (ts.isIdentifier(e)) return [e.text];
  if (ts.isPropertyAccessExpression(e)) return [e.name.text];
  if (ts.isElementAccessExpression(e)) return ts.isStringLiteral(e.argumentExpression) ? [e.argumentExpression.text] : [];
  if (ts.isCallExpression(e)) return [...namesOf(e.expression), ...e.arguments.flatMap((a) => (ts.isStringLiteral(a) ? [a.text] : []))];
  return [];
}

const isPluginField = (e: ts.Expression): boolean => namesOf(e).some((n) => /plugin/i.test(n));

/** Every comparison of a plugin field with a plugin name in one file's text, as `file:line: code`. */
function pluginComparisons(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const report = (node: ts.Node) => {
    const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    found.push(`${file}:${line}: ${node.getText(source).replace(/\s+/g, ' ')}`);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isBinaryExpression(node) && EQUALITY.has(node.operatorToken.kind)) {
      if ((pluginName(node.right) && isPluginField(node.left)) || (pluginName(node.left) && isPluginField(node.right))) report(node);
    } else if (ts.isSwitchStatement(node) && isPluginField(node.expression)) {
      for (const clause of node.caseBlock.clauses) if (ts.isCaseClause(clause) && pluginName(clause.expression)) report(clause.expression);
    } else if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.name.text === 'includes' &&
      ts.isArrayLiteralExpression(node.expression.expression) &&
      node.expression.expression.elements.some(pluginName) &&
      node.arguments.some((a) => isPluginField(a))
    ) {
      report(node);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

test('architecture: the plugin-name scan finds each form it looks for', () => {
  const text = [
    "if (cluster.resolved.network.networkPlugin === 'kubenet') x();",
    "const o = 'overlay' !== net.networkPluginMode;",
    "if (str(args, 'networkPluginMode') != 'overlay') x();",
    "switch (plugin) { case 'azure': break; case 'calico': break; }",
    "if (['azure', 'kubenet'].includes(plugin!)) x();",
    "if (net.networkPolicy === 'azure' || mode === 'transparent') x();",
  ].join('\n');
  assert.deepEqual(
    pluginComparisons('x.ts', text).map((f) => f.split(': ')[0]),
    ['x.ts:1', 'x.ts:2', 'x.ts:3', 'x.ts:4', 'x.ts:5'],
  );
});

test('architecture: outside src/aks/network-models/ nothing compares a plugin field with a plugin name', () => {
  const files = sources(SRC);
  assert.ok(files.some((f) => f.endsWith(join('aks', 'rules.ts'))) && !files.some((f) => f.startsWith(MODELS_DIR)));
  const found = files.flatMap((f) => {
    const text = readFileSync(f, 'utf8');
    // Only files that mention both a plugin field and a plugin name are worth parsing.
    if (!/plugin/i.test(text) || !/(['"`])(kubenet|azure|none|overlay)\1/.test(text)) return [];
    return pluginComparisons(relative(ROOT, f).split(sep).join('/'), text);
  });
  assert.equal(found.length, 0, `plugin names compared outside src/aks/network-models/ (ask networkModelOf instead):\n${found.join('\n')}`);
});

test('architecture: the models enable model-specific rules of the table, and each such rule has a model', () => {
  const perModel = new Set(RULES.filter((r) => r.perModel).map((r) => r.id));
  const enabled = new Set(NETWORK_MODELS.flatMap((m) => m.rules.enables));
  assert.deepEqual(
    [...enabled].filter((id) => !perModel.has(id)),
    [],
    'enabled ids that name no perModel rule',
  );
  assert.deepEqual(
    [...perModel].filter((id) => !enabled.has(id)),
    [],
    'perModel rules no model enables',
  );
});
