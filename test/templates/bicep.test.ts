// Bicep → ARM JSON: golden files (test/templates/golden/*.bicep and the JSON they compile to, plus
// the seed documents' Bicep when they are beside the checkout), our BYO CNI fixture against its ARM JSON
// twin, and compiler errors with their BCP code, line and column.
// UPDATE_GOLDEN=1 rewrites the JSON files from the compiler's output.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { compileBicep } from '../../src/templates/bicep/compile.js';
import { BicepError } from '../../src/templates/bicep/diagnostics.js';
import { FIXTURE, SEEDS_SKIP, seedTemplates } from '../deployments/harness.js';

/** The sources, not dist: <repo>/test/templates/golden. */
const GOLDEN = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../../test/templates/golden');

function golden(name: string, actual: unknown): void {
  const file = join(GOLDEN, name);
  const text = `${JSON.stringify(actual, null, 2)}\n`;
  if (process.env['UPDATE_GOLDEN']) writeFileSync(file, text);
  assert.equal(text, readFileSync(file, 'utf8'), `${name} differs from the compiler's output`);
}

describe('Bicep golden files', () => {
  for (const file of readdirSync(GOLDEN)
    .filter((f) => f.endsWith('.bicep'))
    .sort()) {
    test(file, () => golden(file.replace(/\.bicep$/, '.json'), compileBicep(readFileSync(join(GOLDEN, file), 'utf8'))));
  }
  for (const seed of seedTemplates()) {
    test(`seed ${seed.file}`, () => golden(`seed-${seed.file.slice(0, 3)}.json`, compileBicep(seed.bicep)));
  }
  function sameAsArm(bicep: string, armText: string): void {
    const fromBicep = compileBicep(bicep) as any;
    const arm = JSON.parse(armText);
    assert.deepEqual(fromBicep.resources, arm.resources);
    assert.deepEqual(fromBicep.outputs, arm.outputs);
    for (const [name, p] of Object.entries(arm.parameters)) assert.deepEqual(fromBicep.parameters[name], p);
  }
  test('the BYO CNI fixture Bicep compiles to its ARM JSON twin', () => sameAsArm(FIXTURE.bicep, FIXTURE.arm));
  test('the seed Bicep compiles to what the seed ARM JSON says', { skip: SEEDS_SKIP }, () => {
    const seed = seedTemplates().find((s) => s.file.startsWith('001'))!;
    sameAsArm(seed.bicep, seed.arm);
  });
});

describe('Bicep compiler errors', () => {
  const cases: Array<[string, string, number, number, RegExp]> = [
    ['var a = nope\n', 'BCP057', 1, 9, /The name "nope" does not exist in the current context\./],
    ['param p string\nparam p int\n', 'BCP028', 2, 1, /Identifier "p" is declared multiple times/],
    ['param p strin\n', 'BCP302', 1, 9, /The name "strin" is not a valid type/],
    ["resource r 'Microsoft.Network/virtualNetworks' = {\n  name: 'x'\n}\n", 'BCP029', 1, 12, /The resource type is not valid/],
    ["var s = 'open\n", 'BCP004', 1, 9, /The string at this location is not terminated/],
    ['foo bar\n', 'BCP007', 1, 1, /This declaration type is not recognized/],
    ['var a = 1 var b = 2\n', 'BCP019', 1, 11, /Expected a new line character at this location\./],
    ['var a = (1\n', 'BCP018', 1, 11, /Expected the "\)" character at this location\./],
    ['/* never closed\n', 'BCP002', 1, 1, /The multi-line comment at this location is not terminated/],
    ["var x = 'a\\qb'\n", 'BCP006', 1, 11, /The specified escape sequence is not recognized/],
    [
      "resource r 'Microsoft.Network/virtualNetworks@2022-01-01' = [for i in range(0, 2): {\n  name: 'n${i}'\n}]\noutput o string = r.id\n",
      'BCP144',
      4,
      19,
      /Apply an array indexer/,
    ],
  ];
  for (const [source, code, line, column, message] of cases) {
    test(`${code} at ${line}:${column}`, () => {
      assert.throws(
        () => compileBicep(source),
        (e: unknown) => e instanceof BicepError && e.code === code && e.line === line && e.column === column && message.test(e.detail),
      );
    });
  }
  test('the CLI format names the file', () => {
    const e = new BicepError('BCP057', 'The name "x" does not exist in the current context.', 3, 9);
    assert.equal(e.format('main.bicep'), 'main.bicep(3,9) : Error BCP057: The name "x" does not exist in the current context.');
  });
});
