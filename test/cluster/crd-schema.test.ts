// The CRD schema machinery on its own, with golden cases: validation messages as the apiextensions apiserver
// words them (field path, then `Invalid value: …: <path> in body …`), defaulting, pruning, the structural
// rules a CRD's schema must follow, printer-column JSONPath and discovery's version order.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { evaluate, parseJsonPath, columnsPrinter } from '../../src/cluster/apiserver/crd/columns.js';
import { compareVersions } from '../../src/cluster/apiserver/crd/definition.js';
import { applyDefaults, compileSchema, prune, unknownFields, validateObjectAgainst } from '../../src/cluster/apiserver/crd/schema.js';
import { validateDefinition } from '../../src/cluster/apiserver/crd/validate.js';
import { compilePattern, patternShape } from '../../src/cluster/apiserver/crd/patterns.js';
import type { KubeObject } from '../../src/cluster/apimachinery/object.js';

const SCHEMA = compileSchema({
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['name'],
      properties: {
        name: { type: 'string', minLength: 2, maxLength: 5, pattern: '^[a-z]+$' },
        replicas: { type: 'integer', minimum: 1, maximum: 10, default: 1 },
        ratio: { type: 'number', exclusiveMaximum: true, maximum: 1 },
        mode: { type: 'string', enum: ['Fast', 'Slow'], default: 'Slow' },
        when: { type: 'string', format: 'date-time' },
        cidr: { type: 'string', format: 'cidr' },
        tags: { type: 'array', maxItems: 2, uniqueItems: true, items: { type: 'string' } },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        port: { 'x-kubernetes-int-or-string': true },
        free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        maybe: { type: 'string', nullable: true },
        nested: { type: 'object', properties: { on: { type: 'boolean', default: true } } },
      },
    },
  },
});

/** Golden cases: a spec, and the causes' `field: message` lines the apiserver answers with. */
const CASES: Array<[string, Record<string, unknown>, string[]]> = [
  ['valid', { name: 'ab', replicas: 3, port: 80, free: { any: [1] }, maybe: null }, []],
  ['int-or-string takes a string', { name: 'ab', port: 'http' }, []],
  ['required', {}, ['spec.name: Required value']],
  ['wrong type', { name: 5 }, ['spec.name: Invalid value: "integer": spec.name in body must be of type string: "integer"']],
  ['integer, not number', { name: 'ab', replicas: 1.5 }, ['spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number"']],
  ['maximum', { name: 'ab', replicas: 11 }, ['spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10']],
  ['minimum', { name: 'ab', replicas: 0 }, ['spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1']],
  ['exclusive maximum', { name: 'ab', ratio: 1 }, ['spec.ratio: Invalid value: 1: spec.ratio in body should be less than 1']],
  ['enum', { name: 'ab', mode: 'Medium' }, ['spec.mode: Unsupported value: "Medium": supported values: "Fast", "Slow"']],
  ['pattern', { name: 'AB' }, ['spec.name: Invalid value: "AB": spec.name in body should match \'^[a-z]+$\'']],
  ['minLength', { name: 'a' }, ['spec.name: Invalid value: "a": spec.name in body should be at least 2 chars long']],
  ['maxLength', { name: 'abcdef' }, ['spec.name: Too long: may not be more than 5 bytes']],
  ['format', { name: 'ab', when: 'yesterday' }, ['spec.when: Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday"']],
  ['cidr', { name: 'ab', cidr: '10.0.0.0/33' }, ['spec.cidr: Invalid value: "10.0.0.0/33": spec.cidr in body must be of type cidr: "10.0.0.0/33"']],
  ['maxItems', { name: 'ab', tags: ['a', 'b', 'c'] }, ['spec.tags: Too many: 3: must have at most 2 items']],
  ['uniqueItems', { name: 'ab', tags: ['a', 'a'] }, ['spec.tags: Invalid value: ["a","a"]: spec.tags in body shouldn\'t contain duplicates']],
  ['items', { name: 'ab', tags: [1] }, ['spec.tags[0]: Invalid value: "integer": spec.tags[0] in body must be of type string: "integer"']],
  [
    'additionalProperties',
    { name: 'ab', labels: { a: 1 } },
    ['spec.labels.a: Invalid value: "integer": spec.labels.a in body must be of type string: "integer"'],
  ],
  [
    'int-or-string refuses a bool',
    { name: 'ab', port: true },
    ['spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"'],
  ],
  ['null in a list', { name: 'ab', tags: [null] }, ['spec.tags[0]: Invalid value: "null": spec.tags[0] in body must be of type string: "null"']],
];

function lines(spec: Record<string, unknown>): string[] {
  return validateObjectAgainst({ apiVersion: 'x.io/v1', kind: 'X', metadata: { name: 'x' }, spec }, SCHEMA).map((c) => `${c.field}: ${c.message}`);
}

describe('CRD schemas', () => {
  for (const [name, spec, expected] of CASES) {
    test(`validation: ${name}`, () => assert.deepEqual(lines(spec), expected));
  }

  test('defaulting fills absent fields and non-nullable nulls (removed without a default), then pruning drops unknown fields (kept where preserved)', () => {
    const obj: Record<string, unknown> = {
      apiVersion: 'x.io/v1',
      kind: 'X',
      metadata: { name: 'x', labels: { a: 'b' } },
      spec: { name: 'ab', nested: {}, junk: 1, free: { x: { y: 1 } }, mode: null, cidr: null, maybe: null },
      top: 1,
    };
    applyDefaults(obj, SCHEMA);
    prune(obj, SCHEMA, true);
    assert.deepEqual(obj, {
      apiVersion: 'x.io/v1',
      kind: 'X',
      metadata: { name: 'x', labels: { a: 'b' } },
      spec: { name: 'ab', nested: { on: true }, free: { x: { y: 1 } }, mode: 'Slow', maybe: null, replicas: 1 },
    });
  });

  test("patterns: Go's inline flags read; nested repetition runs under a time limit and never hangs", () => {
    assert.equal(compilePattern('^(?i)(Drop|Accept)?$')!.test('drop'), true);
    assert.equal(compilePattern('^(?i)(Drop|Accept)?$')!.test('x'), false);
    const dns = compilePattern('^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')!;
    assert.equal(dns.test('a.example.com'), true);
    assert.equal(dns.test('A_b'), false);
    const evil = compileSchema({ type: 'object', properties: { spec: { type: 'object', additionalProperties: { type: 'string', pattern: '^(a+)+$' } } } });
    const spec = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, `${'a'.repeat(40)}!`]));
    const t0 = Date.now();
    validateObjectAgainst({ apiVersion: 'v', kind: 'k', metadata: { name: 'x' }, spec }, evil);
    assert.ok(Date.now() - t0 < 1000, `took ${Date.now() - t0} ms`);
  });

  test("patterns past RE2's limits are refused when the CRD is written; patterns too large to compile here are not checked (issue 25)", () => {
    assert.equal(patternShape('a{1001}').re2Error, 'invalid repeat count: `{1001}`');
    assert.equal(patternShape('(?:a{1000}){2}').re2Error, 'invalid repeat count: `{2}`');
    assert.equal(patternShape('((a{10}){10}){10}').re2Error, undefined);
    assert.equal(patternShape('((a{10}){10}){11}').re2Error, 'invalid repeat count: `{11}`');
    assert.match(patternShape(`${'('.repeat(1001)}a${')'.repeat(1001)}`).re2Error!, /^expression nests too deeply/);
    assert.equal(patternShape('(ab|cd){3}x').expanded, 13);
    const schema = { type: 'object', properties: { spec: { type: 'object', properties: { v: { type: 'string', pattern: 'x{5000}' } } } } };
    const crd: KubeObject = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.acme.io' },
      spec: {
        group: 'acme.io',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        conversion: { strategy: 'None' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }],
      },
    };
    assert.deepEqual(
      validateDefinition(crd).map((c) => `${c.field}: ${c.message}`),
      [
        'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[v].pattern: Invalid value: "x{5000}": must be a valid regular expression, but isn\'t: error parsing regexp: invalid repeat count: `{5000}`',
      ],
    );
    // Within RE2's limits but too large for V8 to compile safely (it unrolls bounded repeats): not checked.
    assert.equal(compilePattern(`(?:${'a{1000}'.repeat(50)})`), undefined);
    assert.equal(compilePattern('a'.repeat(20_000)), undefined);
    assert.equal(compilePattern('[\\s\\S]{1000}')!.test('x'.repeat(1000)), true);
    // A repeated alternation backtracks exponentially (found by the cluster fuzzer): it runs under the time limit.
    const t0 = Date.now();
    assert.notEqual(compilePattern('(a|a)*b')!.test('a'.repeat(30_000)), true);
    assert.ok(Date.now() - t0 < 1000, `took ${Date.now() - t0} ms`);
  });

  test("metadata.name checked against the schema's metadata.name", () => {
    const named = compileSchema({ type: 'object', properties: { metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 3 } } } } });
    const causes = validateObjectAgainst({ apiVersion: 'v', kind: 'k', metadata: { name: 'long' } }, named).map((c) => `${c.field}: ${c.message}`);
    assert.deepEqual(causes, ['metadata.name: Too long: may not be more than 3 bytes']);
  });

  test('unknown fields, as fieldValidation=Strict names them', () => {
    const body = { apiVersion: 'v', kind: 'k', metadata: { name: 'x', odd: 1 }, spec: { name: 'ab', junk: 1, free: { any: 1 }, nested: { x: 2 } }, top: {} };
    assert.deepEqual(unknownFields(body, SCHEMA), ['spec.junk', 'spec.nested.x', 'top']);
  });

  test('errors are bounded for hostile bodies', () => {
    const many = compileSchema({ type: 'object', properties: { spec: { type: 'object', additionalProperties: { type: 'string' } } } });
    const spec = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`k${i}`, i]));
    assert.equal(validateObjectAgainst({ apiVersion: 'v', kind: 'k', metadata: { name: 'x' }, spec }, many).length, 100);
  });

  test('a CRD is checked as the apiextensions apiserver checks it', () => {
    const crd = (spec: Record<string, unknown>, name = 'widgets.acme.io'): KubeObject => ({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name },
      spec: {
        group: 'acme.io',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        conversion: { strategy: 'None' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }],
        ...spec,
      },
    });
    const causes = (o: KubeObject, old?: KubeObject) => validateDefinition(o, old).map((c) => `${c.field}: ${c.message}`);
    assert.deepEqual(causes(crd({})), []);
    assert.deepEqual(causes(crd({}, 'widget.acme.io')), ['metadata.name: Invalid value: "widget.acme.io": must be spec.names.plural+"."+spec.group']);
    assert.deepEqual(causes(crd({ scope: 'Global' })), ['spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"']);
    assert.deepEqual(
      causes(
        crd({
          versions: [
            { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } },
            { name: 'v2', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } },
          ],
        }),
      ),
      ['spec.versions: Invalid value: "[v1 v2]": must have exactly one version marked as storage version'],
    );
    assert.deepEqual(causes(crd({ versions: [{ name: 'v1', served: true, storage: true }] })), [
      'spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required',
    ]);
    const schema = (s: unknown) => crd({ versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: s } }] });
    assert.deepEqual(causes(schema({ type: 'string' })), ['spec.versions[0].schema.openAPIV3Schema.type: Invalid value: "string": must be object at the root']);
    assert.deepEqual(causes(schema({ type: 'object', properties: { a: { type: 'array' } } })), [
      'spec.versions[0].schema.openAPIV3Schema.properties[a].items: Required value: must be specified',
    ]);
    assert.deepEqual(causes(schema({ type: 'object', properties: { a: { type: 'object', properties: {}, additionalProperties: { type: 'string' } } } })), [
      'spec.versions[0].schema.openAPIV3Schema.properties[a].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive',
    ]);
    assert.deepEqual(
      causes(schema({ type: 'object', properties: { q: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } } })),
      [],
    );
    const established = { ...crd({}), status: { conditions: [{ type: 'Established', status: 'True' }] } };
    assert.deepEqual(causes(crd({ scope: 'Cluster', group: 'acme.io' }), established), ['spec.scope: Invalid value: "Cluster": field is immutable']);
  });

  test('printer columns: JSONPath subset and cells by type', () => {
    const obj = {
      metadata: { name: 'n', creationTimestamp: new Date(Date.now() - 90_000).toISOString() },
      status: {
        conditions: [
          { type: 'A', status: 'x' },
          { type: 'Ready', status: 'True' },
        ],
      },
      spec: { n: 3 },
    };
    assert.deepEqual(evaluate(parseJsonPath('.status.conditions[?(@.type=="Ready")].status')!, obj), ['True']);
    assert.deepEqual(evaluate(parseJsonPath('{.status.conditions[*].type}')!, obj), ['A', 'Ready']);
    assert.deepEqual(evaluate(parseJsonPath('.status.conditions[0].type')!, obj), ['A']);
    const printer = columnsPrinter([
      { name: 'N', type: 'integer', jsonPath: '.spec.n' },
      { name: 'Missing', type: 'string', jsonPath: '.spec.none' },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ]);
    assert.deepEqual(
      printer.columns.map((c) => c.name),
      ['Name', 'N', 'Missing', 'Age'],
    );
    assert.deepEqual(printer.cells(obj as unknown as KubeObject, Date.now()), ['n', 3, null, '90s']);
    assert.deepEqual(
      columnsPrinter([]).columns.map((c) => c.name),
      ['Name', 'Age'],
    );
  });

  test("discovery's version order", () => {
    assert.deepEqual(['v1alpha1', 'v1', 'v1beta1', 'v2', 'foo', 'v1beta2'].sort(compareVersions), ['v2', 'v1', 'v1beta2', 'v1beta1', 'v1alpha1', 'foo']);
  });
});
