// Bicep as current files are written: modules, imports, user-defined types and functions, optional
// parameters, safe access, lambdas, spread, load functions. The AKS fixture (test/fixtures/templates/bicep-aks)
// against its golden JSON (written after Bicep's own baselines: nested deployments with inner scope at
// api-version 2025-04-01, languageVersion 2.0 with `definitions` and `__bicep` functions, imported
// declarations with `__bicep_imported_from!`), the forms Bicep emits for each construct, and Bicep's
// diagnostics (code, message, line and column) for what is wrong.
// UPDATE_GOLDEN=1 rewrites the golden JSON files from the compiler's output.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { compileBicep, compileBicepFile, MODULE_API_VERSION } from '../../src/templates/bicep/compile.js';
import { BicepError } from '../../src/templates/bicep/diagnostics.js';
import type { SourceFiles } from '../../src/templates/bicep/files.js';

const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const GOLDEN = join(REPO, 'test/templates/golden');
const AKS = join(REPO, 'test/fixtures/templates/bicep-aks');

function golden(name: string, actual: unknown): void {
  const file = join(GOLDEN, name);
  const text = `${JSON.stringify(actual, null, 2)}\n`;
  if (process.env['UPDATE_GOLDEN']) writeFileSync(file, text);
  assert.equal(text, readFileSync(file, 'utf8'), `${name} differs from the compiler's output`);
}

/** Files in memory, by absolute path. */
function memory(files: Record<string, string>): SourceFiles {
  return {
    read(path, limit) {
      const text = files[path];
      if (text === undefined) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
      const bytes = Buffer.from(text);
      if (bytes.length > limit) throw new RangeError(`size ${bytes.length}`);
      return bytes;
    },
  };
}

function compile(files: Record<string, string>, main = '/w/main.bicep'): any {
  return compileBicepFile(main, memory(files));
}

function fails(files: Record<string, string>, code: string, line: number, column: number, message: RegExp, file?: string): void {
  assert.throws(
    () => compile(files),
    (e: unknown) => {
      assert.ok(e instanceof BicepError, String(e));
      assert.equal(e.code, code, e.message);
      assert.deepEqual([e.line, e.column], [line, column], e.message);
      assert.match(e.detail, message);
      assert.equal(e.file, file);
      return true;
    },
  );
}

describe('Bicep AKS fixture (modules, imports, types, funcs, lambdas)', () => {
  test('main.bicep compiles to its golden JSON', () => golden('bicep-aks-main.json', compileBicepFile(join(AKS, 'main.bicep'))));
  test('sub.bicep (subscription scope, a resource group and main.bicep as a module in it) compiles to its golden JSON', () =>
    golden('bicep-aks-sub.json', compileBicepFile(join(AKS, 'sub.bicep'))));

  test('the shape Bicep gives modules, imports and types', () => {
    const t = compileBicepFile(join(AKS, 'main.bicep')) as any;
    assert.equal(t.languageVersion, '2.0');
    assert.deepEqual(Object.keys(t), [
      '$schema',
      'languageVersion',
      'contentVersion',
      'metadata',
      'definitions',
      'functions',
      'parameters',
      'variables',
      'resources',
      'outputs',
    ]);
    const network = t.resources.network;
    assert.equal(network.type, 'Microsoft.Resources/deployments');
    assert.equal(network.apiVersion, MODULE_API_VERSION);
    assert.deepEqual(network.properties.expressionEvaluationOptions, { scope: 'inner' });
    assert.equal(network.properties.mode, 'Incremental');
    assert.deepEqual(network.properties.parameters.addressPrefix, { value: '10.10.0.0/16' });
    assert.equal(network.properties.template.resources[0].type, 'Microsoft.Network/virtualNetworks', 'the VNet module is in the classic form');
    assert.equal(t.resources.cluster.properties.template.languageVersion, '2.0');
    assert.deepEqual(t.resources.cluster.dependsOn, ['network']);
    assert.equal(t.resources.cluster.properties.parameters.nodeSubnetId.value, "[reference('network').outputs.subnetIds.value.nodes]");
    assert.equal(t.outputs.clusterName.value, "[reference('cluster').outputs.name.value]");
    assert.equal(t.parameters.networkPlugin.$ref, '#/definitions/networkPluginType');
    assert.deepEqual(t.definitions.networkPluginType.allowedValues, ['azure', 'kubenet', 'none']);
    assert.deepEqual(t.parameters.kubernetesVersion, {
      type: 'string',
      nullable: true,
      metadata: { description: "The Kubernetes version; AKS's default when not given." },
    });
    assert.deepEqual(t.definitions.networkPluginType.metadata['__bicep_imported_from!'], { sourceTemplate: 'types.bicep' });
    assert.match(t.functions[0].members.resourceName.output.value, /^\[if\(empty\(coalesce\(parameters\('suffix'\), ''\)\)/);
    assert.deepEqual(t.variables.defaultTags, { managedBy: 'bicep', workload: 'aks-networking' });
    assert.equal(t.variables['_1.tagNote'], "[format('{0}: tags from tags.json', variables('_1.notExported'))]");
  });
});

describe('Bicep modules as Bicep emits them', () => {
  const child = "param location string\nparam count int = 1\noutput id string = 'x-${location}'\noutput n int = count\n";

  test('a module in the classic form: nested deployment, params as values, outputs through reference()', () => {
    const t = compile({
      '/w/main.bicep': "module m './mod.bicep' = {\n  name: 'modA'\n  params: {\n    location: 'westus'\n  }\n}\noutput o string = m.outputs.id\n",
      '/w/mod.bicep': child,
    });
    assert.equal(t.languageVersion, undefined);
    assert.deepEqual(t.resources[0].properties.parameters, { location: { value: 'westus' } });
    assert.equal(t.resources[0].properties.template.parameters.count.defaultValue, 1);
    assert.equal(t.outputs.o.value, "[reference(resourceId('Microsoft.Resources/deployments', 'modA'), '2025-04-01').outputs.id.value]");
  });

  test('loops and conditions over modules; dependsOn a module; the loop variable in the name and params', () => {
    const t = compile({
      '/w/main.bicep': [
        "var regions = ['eastus', 'westus']",
        "module ms './mod.bicep' = [for (r, i) in regions: {",
        "  name: 'm-${r}'",
        '  params: {',
        '    location: r',
        '    count: i + 1',
        '  }',
        '}]',
        "module c './mod.bicep' = if (length(regions) > 1) {",
        "  name: 'cond'",
        '  params: {',
        '    location: ms[1].outputs.id',
        '  }',
        '  dependsOn: [',
        '    ms',
        '  ]',
        '}',
        'output first string = ms[0].outputs.id',
        '',
      ].join('\n'),
      '/w/mod.bicep': child,
    });
    const [loop, cond] = t.resources;
    assert.deepEqual(loop.copy, { name: 'ms', count: "[length(variables('regions'))]" });
    assert.equal(loop.name, "[format('m-{0}', variables('regions')[copyIndex()])]");
    assert.deepEqual(loop.properties.parameters.count, { value: '[add(copyIndex(), 1)]' });
    assert.equal(cond.condition, "[greater(length(variables('regions')), 1)]");
    assert.equal(
      cond.properties.parameters.location.value,
      "[reference(resourceId('Microsoft.Resources/deployments', format('m-{0}', variables('regions')[1])), '2025-04-01').outputs.id.value]",
    );
    assert.deepEqual(cond.dependsOn, ['ms']);
    assert.equal(
      t.outputs.first.value,
      "[reference(resourceId('Microsoft.Resources/deployments', format('m-{0}', variables('regions')[0])), '2025-04-01').outputs.id.value]",
    );
  });

  test('a module without a name gets the generated name and languageVersion 2.0', () => {
    const t = compile({ '/w/main.bicep': "module m './mod.bicep' = {\n  params: {\n    location: 'x'\n  }\n}\n", '/w/mod.bicep': child });
    assert.equal(t.languageVersion, '2.0');
    assert.equal(t.resources.m.name, "[format('m-{0}', uniqueString('m', deployment().name))]");
  });

  test('scope: resourceGroup(…) from a resource group file, and a resource group symbol from a subscription file', () => {
    const rg = compile({
      '/w/main.bicep':
        "module m './mod.bicep' = {\n  name: 'a'\n  scope: resourceGroup('other')\n  params: {\n    location: 'x'\n  }\n}\noutput o string = m.outputs.id\n",
      '/w/mod.bicep': child,
    });
    assert.equal(rg.resources[0].resourceGroup, 'other');
    assert.equal(rg.outputs.o.value, "[reference(resourceId('other', 'Microsoft.Resources/deployments', 'a'), '2025-04-01').outputs.id.value]");
    const sub = compile({
      '/w/main.bicep':
        "targetScope = 'subscription'\nmodule s './submod.bicep' = {\n  name: 's'\n}\nmodule m './mod.bicep' = {\n  name: 'a'\n  scope: resourceGroup('g')\n  params: {\n    location: s.outputs.where\n  }\n}\n",
      '/w/mod.bicep': child,
      '/w/submod.bicep': "targetScope = 'subscription'\noutput where string = 'eastus'\n",
    });
    assert.equal(sub.$schema, 'https://schema.management.azure.com/schemas/2018-05-01/subscriptionDeploymentTemplate.json#');
    assert.equal(sub.resources[0].location, '[deployment().location]');
    assert.deepEqual(sub.resources[1].dependsOn, ["[subscriptionResourceId('Microsoft.Resources/deployments', 's')]"]);
    assert.equal(
      sub.resources[1].properties.parameters.location.value,
      "[reference(subscriptionResourceId('Microsoft.Resources/deployments', 's'), '2025-04-01').outputs.where.value]",
    );
  });

  test('a module file that does not exist: BCP091', () =>
    fails(
      { '/w/main.bicep': "\nmodule m './nope.bicep' = {\n  name: 'x'\n}\n" },
      'BCP091',
      2,
      10,
      /^An error occurred reading file\. Could not find file '\/w\/nope\.bicep'\.$/,
    ));

  test('a module that references itself: BCP094; files in a cycle: BCP095', () => {
    fails({ '/w/main.bicep': "module m './main.bicep' = {\n  name: 'x'\n}\n" }, 'BCP094', 1, 10, /^This module references itself, which is not allowed\.$/);
    fails(
      {
        '/w/main.bicep': "module a './a.bicep' = {\n  name: 'a'\n}\n",
        '/w/a.bicep': "module b 'sub/b.bicep' = {\n  name: 'b'\n}\n",
        '/w/sub/b.bicep': "module a '../main.bicep' = {\n  name: 'c'\n}\n",
      },
      'BCP095',
      1,
      10,
      /^The file is involved in a cycle \("main\.bicep" -> "a\.bicep" -> "sub\/b\.bicep" -> "main\.bicep"\)\.$/,
      'sub/b.bicep',
    );
  });

  test("the module's params and outputs are checked against its file", () => {
    const mod = { '/w/mod.bicep': child };
    fails(
      { ...mod, '/w/main.bicep': "module m './mod.bicep' = {\n  name: 'x'\n  params: {\n    location: 'a'\n    colour: 'red'\n  }\n}\n" },
      'BCP037',
      5,
      5,
      /^The property "colour" is not allowed on objects of type "params"\. Permissible properties include "location", "count"\.$/,
    );
    fails(
      { ...mod, '/w/main.bicep': "module m './mod.bicep' = {\n  name: 'x'\n  params: {}\n}\n" },
      'BCP035',
      3,
      3,
      /^The specified "object" declaration is missing the following required properties: "location"\.$/,
    );
    fails(
      { ...mod, '/w/main.bicep': "module m './mod.bicep' = {\n  name: 'x'\n  params: {\n    location: 'a'\n  }\n}\noutput o string = m.outputs.nope\n" },
      'BCP053',
      7,
      19,
      /^The type "outputs" does not contain property "nope"\. Available properties include "id", "n"\.$/,
    );
  });

  test('a module of another scope without scope: BCP134', () =>
    fails(
      { '/w/main.bicep': "module m './s.bicep' = {\n  name: 'x'\n}\n", '/w/s.bicep': "targetScope = 'subscription'\n" },
      'BCP134',
      1,
      1,
      /^Scope "resource group" is not valid for this module\. Permitted scopes: "subscription"\.$/,
    ));

  test("an error inside a module's file names that file", () =>
    fails(
      { '/w/main.bicep': "module m './bad.bicep' = {\n  name: 'x'\n}\n", '/w/bad.bicep': 'var a = nope\n' },
      'BCP057',
      1,
      9,
      /"nope" does not exist/,
      'bad.bicep',
    ));
});

describe('Bicep syntax of current files', () => {
  test('imports: named and wildcard, only what is exported (BCP360)', () => {
    const types = "@export()\ntype size = 'S' | 'M'\n@export()\nfunc double(x int) int => x * 2\nvar hidden = 1\n";
    const t = compile({
      '/w/main.bicep':
        "import { size, double } from 'types.bicep'\nimport * as ty from 'types.bicep'\nparam s size = 'S'\nparam t ty.size = 'M'\noutput d int = double(2)\n",
      '/w/types.bicep': types,
    });
    assert.equal(t.parameters.s.$ref, '#/definitions/size');
    assert.equal(t.parameters.t.$ref, '#/definitions/size');
    assert.equal(t.outputs.d.value, '[__bicep.double(2)]');
    assert.equal(t.functions[0].members.double.output.value, "[mul(parameters('x'), 2)]");
    fails(
      { '/w/main.bicep': "import { hidden } from 'types.bicep'\n", '/w/types.bicep': types },
      'BCP360',
      1,
      10,
      /^The 'hidden' symbol was not found in \(or was not exported by\) the imported template\.$/,
    );
  });

  test('user-defined types: unions, objects, arrays, tuples, @sealed, @discriminator, nullable', () => {
    const t = compile({
      '/w/main.bicep': [
        "type a = { kind: 'a', x: int }",
        "type b = { kind: 'b', y: string }",
        "@discriminator('kind')",
        'type ab = a | b',
        '@sealed()',
        'type pair = { first: string, second: [int, string]? }',
        'param p ab',
        'param q (1 | 2 | 3)[] = [1]',
        'param r pair?',
        '',
      ].join('\n'),
    });
    assert.deepEqual(t.definitions.ab, {
      type: 'object',
      discriminator: { propertyName: 'kind', mapping: { a: { $ref: '#/definitions/a' }, b: { $ref: '#/definitions/b' } } },
    });
    assert.deepEqual(t.definitions.pair.properties.second, {
      type: 'array',
      prefixItems: [{ type: 'int' }, { type: 'string' }],
      items: false,
      nullable: true,
    });
    assert.equal(t.definitions.pair.additionalProperties, false);
    assert.deepEqual(t.parameters.q, { type: 'array', allowedValues: [1, 2, 3], defaultValue: [1] });
    assert.deepEqual(t.parameters.r, { $ref: '#/definitions/pair', nullable: true });
  });

  test('safe access, ?? , lambdas, spread, #disable-next-line, metadata', () => {
    const t = compile({
      '/w/main.bicep': [
        "metadata owner = 'team'",
        'param o object = { a: { b: 1 } }',
        '#disable-next-line no-unused-vars',
        'var deep = o.?a.b.c',
        "var firstOrNone = o.?list[?0] ?? 'none'",
        'var merged = { ...o, extra: true }',
        'var joined = [0, ...range(1, 3)]',
        'var evens = filter(range(0, 10), i => i % 2 == 0)',
        'var sum = reduce([1, 2], 0, (acc, x) => acc + x)',
        '',
      ].join('\n'),
    });
    assert.equal(t.metadata.owner, 'team');
    assert.equal(t.variables.deep, "[tryGet(parameters('o'), 'a', 'b', 'c')]");
    assert.equal(t.variables.firstOrNone, "[coalesce(tryGet(tryGet(parameters('o'), 'list'), 0), 'none')]");
    assert.equal(t.variables.merged, "[shallowMerge(createArray(parameters('o'), createObject('extra', true())))]");
    assert.equal(t.variables.joined, '[flatten(createArray(createArray(0), range(1, 3)))]');
    assert.equal(t.variables.evens, "[filter(range(0, 10), lambda('i', equals(mod(lambdaVariables('i'), 2), 0)))]");
    assert.equal(t.variables.sum, "[reduce(createArray(1, 2), 0, lambda('acc', 'x', add(lambdaVariables('acc'), lambdaVariables('x'))))]");
    assert.equal(t.languageVersion, undefined, 'nothing here makes Bicep switch to 2.0');
  });

  test('load functions read at compile time, relative to the file; too large is BCP184', () => {
    const t = compile({
      '/w/main.bicep':
        "var script = loadTextContent('files/init.sh')\nvar cfg = loadJsonContent('files/cfg.json', '$.a')\nvar b64 = loadFileAsBase64('files/init.sh')\nvar both = '${loadTextContent('files/init.sh')}!'\n",
      '/w/files/init.sh': 'echo hi\n',
      '/w/files/cfg.json': '{"a": {"b": "[x]"}}',
    });
    assert.equal(t.variables.script, 'echo hi\n');
    assert.deepEqual(t.variables.cfg, { b: '[[x]' });
    assert.equal(t.variables.b64, Buffer.from('echo hi\n').toString('base64'));
    assert.equal(t.variables.both, "[format('{0}!', 'echo hi\n')]");
    fails(
      { '/w/main.bicep': "var big = loadFileAsBase64('big.bin')\n", '/w/big.bin': 'x'.repeat(100_000) },
      'BCP184',
      1,
      28,
      /^File '\/w\/big\.bin' exceeded maximum size of 98304 bytes\.$/,
    );
  });

  test('scope on an extension resource, existing resources in 2.0', () => {
    const t = compile({
      '/w/main.bicep': [
        'type unused = string',
        "resource vnet 'Microsoft.Network/virtualNetworks@2023-04-01' existing = {",
        "  name: 'v'",
        '}',
        "resource ra 'Microsoft.Authorization/roleAssignments@2022-04-01' = {",
        "  name: guid(vnet.id, 'x')",
        '  scope: vnet',
        '  properties: {',
        "    roleDefinitionId: 'r'",
        "    principalId: 'p'",
        '  }',
        '}',
        'output space array = vnet.properties.addressSpace.addressPrefixes',
        '',
      ].join('\n'),
    });
    assert.deepEqual(t.resources.vnet, { existing: true, type: 'Microsoft.Network/virtualNetworks', apiVersion: '2023-04-01', name: 'v' });
    assert.equal(t.resources.ra.scope, "[resourceId('Microsoft.Network/virtualNetworks', 'v')]");
    assert.equal(t.outputs.space.value, "[reference('vnet').addressSpace.addressPrefixes]");
  });

  test('diagnostics: literals of the wrong type for a parameter or output', () => {
    fails({ '/w/main.bicep': "param n int = 'three'\n" }, 'BCP033', 1, 15, /^Expected a value of type "int" but the provided value is of type "'three'"\.$/);
    fails(
      { '/w/main.bicep': 'output s string = 3\n' },
      'BCP026',
      1,
      19,
      /^The output expects a value of type "string" but the provided value is of type "3"\.$/,
    );
    fails({ '/w/main.bicep': 'param a array = {}\n' }, 'BCP033', 1, 17, /^Expected a value of type "array" but the provided value is of type "object"\.$/);
  });

  test('diagnostics: unknown functions, banned ones, targetScope', () => {
    fails({ '/w/main.bicep': 'var a = nosuch(1)\n' }, 'BCP057', 1, 9, /^The name "nosuch" does not exist in the current context\.$/);
    fails({ '/w/main.bicep': 'var a = add(1, 2)\n' }, 'BCP069', 1, 9, /^The function "add" is not supported\. Use the "\+" operator instead\.$/);
    fails({ '/w/main.bicep': "targetScope = 'tenant'\n" }, 'BCP033', 1, 15, /targetScope must be 'resourceGroup' or 'subscription'/);
  });

  test('bounded: module files nested too deep', () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 40; i++) files[`/w/${i === 0 ? 'main' : `m${i}`}.bicep`] = `module n './m${i + 1}.bicep' = {\n  name: 'n'\n}\n`;
    files['/w/m40.bicep'] = '';
    assert.throws(
      () => compile(files),
      (e: unknown) => e instanceof BicepError && e.code === 'BCP000' && /nested more than 16 deep/.test(e.detail),
    );
  });

  test('source text without a file still compiles (modules relative to the current directory)', () => {
    assert.equal((compileBicep("param p string = 'x'\n") as any).parameters.p.defaultValue, 'x');
  });
});

describe('Bicep inputs that would make the compiler unbounded', () => {
  test('modules shared at every level would inline their templates exponentially: refused past 4 MB', () => {
    const files: Record<string, string> = { '/w/m12.bicep': `var pad = '${'x'.repeat(2000)}'\n` };
    for (let i = 0; i < 12; i++) {
      const path = i === 0 ? '/w/main.bicep' : `/w/m${i}.bicep`;
      files[path] = `module a './m${i + 1}.bicep' = {\n  name: 'a'\n}\nmodule b './m${i + 1}.bicep' = {\n  name: 'b'\n}\n`;
    }
    assert.throws(
      () => compile(files),
      (e: unknown) => e instanceof BicepError && e.code === 'BCP000' && /inline more than 4194304 characters/.test(e.detail),
    );
  });

  test('types nested 10,000 deep', () => {
    for (const source of [
      `param p string${'[]'.repeat(10000)}\n`,
      `param p ${'('.repeat(10000)}string${')'.repeat(10000)}\n`,
      `type t = ${'{a: '.repeat(10000)}int${'}'.repeat(10000)}\n`,
    ]) {
      assert.throws(
        () => compile({ '/w/main.bicep': source }),
        (e: unknown) => e instanceof BicepError && e.code === 'BCP000',
      );
    }
  });

  test('lambdas nested 10,000 deep', () => {
    assert.throws(
      () => compile({ '/w/main.bicep': `var f = map([1], ${'x => '.repeat(10000)}1)\n` }),
      (e: unknown) => e instanceof BicepError && e.code === 'BCP000',
    );
  });

  test('files that import each other: BCP095', () => {
    fails(
      {
        '/w/main.bicep': "import { a } from 'x.bicep'\noutput o string = a\n",
        '/w/x.bicep': "import { b } from 'y.bicep'\n@export()\nvar a = b\n",
        '/w/y.bicep': "import { a } from 'x.bicep'\n@export()\nvar b = 'y'\n",
      },
      'BCP095',
      1,
      19,
      /^The file is involved in a cycle \("x\.bicep" -> "y\.bicep" -> "x\.bicep"\)\.$/,
      'y.bicep',
    );
  });
});
