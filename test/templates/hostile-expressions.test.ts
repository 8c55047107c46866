// Hostile input to the template language, one level below the server: every expression, JSON text
// and Bicep file here must end in the language's own error (TemplateLanguageError, InvalidTemplate,
// JsoncError, BicepError) within a bounded time and memory — never a RangeError (stack overflow,
// "Invalid string length"), a hang, or a write to Object.prototype (issue 11, defects 3 and 6).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ArmError } from '../../src/arm/errors.js';
import { compileBicep } from '../../src/templates/bicep/compile.js';
import { BicepError } from '../../src/templates/bicep/diagnostics.js';
import { DeploymentContext } from '../../src/templates/context.js';
import { evaluateString } from '../../src/templates/expression/evaluate.js';
import { TemplateLanguageError } from '../../src/templates/expression/parser.js';
import { JsoncError, parseJsonc } from '../../src/templates/jsonc.js';
import { planDeployment } from '../../src/templates/engine.js';
import { readTemplate } from '../../src/templates/template.js';

const SUB = '00000000-0000-0000-0000-000000000000';
const SCOPE = {
  subscriptionId: SUB,
  tenantId: 't',
  subscriptionName: 'aksemu',
  resourceGroup: { id: `/subscriptions/${SUB}/resourceGroups/rg`, name: 'rg', location: 'eastus' },
  deploymentName: 'dep',
  baseUrl: 'https://127.0.0.1:8443',
};

function context(
  extra: { parameters?: Record<string, unknown>; variables?: Record<string, unknown> } = {},
  supplied: Record<string, unknown> = {},
): DeploymentContext {
  const template = readTemplate({
    contentVersion: '1.0.0.0',
    parameters: { obj: { type: 'object', defaultValue: { a: 1 } }, ...extra.parameters },
    variables: extra.variables ?? {},
    resources: [],
  });
  return new DeploymentContext(template, SCOPE, supplied, '1');
}

/** fn throws an error of `kind` whose message matches, within `ms` milliseconds. */
function refuses(fn: () => unknown, kind: new (...args: any[]) => Error, message: RegExp, ms = 2000): void {
  const started = Date.now();
  let thrown: unknown;
  try {
    fn();
  } catch (err) {
    thrown = err;
  }
  const elapsed = Date.now() - started;
  assert.ok(
    thrown instanceof kind,
    `expected ${kind.name}, got ${thrown instanceof Error ? `${thrown.name}: ${thrown.message.slice(0, 300)}` : String(thrown)}`,
  );
  assert.match((thrown as Error).message, message);
  assert.ok(elapsed < ms, `took ${elapsed} ms`);
}

const evaluates =
  (expression: string, ctx = context()) =>
  () =>
    evaluateString(expression, ctx);
const nested = (open: string, inner: string, close: string, depth: number) => open.repeat(depth) + inner + close.repeat(depth);

describe('template functions cannot allocate without bound', () => {
  const cases: Array<[string, RegExp]> = [
    ["[padLeft('a', 1000000000, 'x')]", /function 'padLeft' result size limit exceeded\. Limit: '\d+' and actual: '1000000002'/],
    ["[replace(string(range(0,5000)), ',', string(range(0,5000)))]", /function 'replace' result size limit exceeded/],
    ["[format('{0,1000000000}', 'a')]", /function 'format' result size limit exceeded/],
    ["[format('{0:D1000000000}', 1)]", /function 'format' result size limit exceeded/],
    ["[format('{0:N200}', 1)]", /format/],
    ['[range(0, 2147483647)]', /function 'range' expects its count to be between 0 and 10000/],
    ['[range(2147483647, 1)]', /function 'range' expects the sum of its start index and count to be no greater than 2147483647/],
    ["[take('abc', 1.5)]", /function 'take' expects its second parameter to be an integer/],
    ["[skip('abc', 99999999999999999999)]", /integer/],
    ["[substring('abc', -1)]", /The index and length parameters must refer to a location within the string/],
    ["[uri('not a uri', 'x')]", /uri/],
    ["[uriComponentToString('%')]", /uriComponentToString/],
    ["[base64ToJson(base64('{'))]", /base64ToJson/],
    ["[subscriptionResourceId('nothing')]", /subscriptionResourceId/],
    ['[tenantResourceId()]', /tenantResourceId/],
    ["[extensionResourceId('x')]", /extensionResourceId/],
  ];
  for (const [expression, message] of cases) test(expression, () => refuses(evaluates(expression), TemplateLanguageError, message));

  test('concat of strings is bounded before it joins them', () => {
    const expression = "[concat(padLeft('', 4000000, 'x'), padLeft('', 400000, 'y'))]";
    refuses(evaluates(expression), TemplateLanguageError, /function 'concat' result size limit exceeded/);
  });

  test('values shared many times over (createArray of createArray …) are measured as they serialize', () => {
    const variables: Record<string, unknown> = { v0: '[range(0, 10000)]' };
    for (let i = 1; i <= 8; i++)
      variables[`v${i}`] = `[createArray(${Array(10)
        .fill(`variables('v${i - 1}')`)
        .join(', ')})]`;
    refuses(evaluates("[string(variables('v8'))]", context({ variables })), TemplateLanguageError, /result size limit exceeded/);
  });

  test('format() of 200,000 unclosed items stays fast (no regular-expression backtracking)', () => {
    const started = Date.now();
    const text = evaluateString("[format(replace(padLeft('', 200000, 'x'), 'x', '{0:'), 1)]", context()) as string;
    assert.equal(text.length, 600000);
    assert.ok(Date.now() - started < 1000, `took ${Date.now() - started} ms`);
  });

  test('union and intersection of large arrays stay fast (no quadratic comparison)', () => {
    const started = Date.now();
    const u = evaluateString('[union(range(0, 10000), range(5000, 10000), range(10000, 10000), range(0, 10000))]', context()) as number[];
    assert.equal(u.length, 20000);
    const i = evaluateString('[intersection(range(0, 10000), range(5000, 10000))]', context()) as number[];
    assert.equal(i.length, 5000);
    assert.ok(Date.now() - started < 1000, `took ${Date.now() - started} ms`);
  });

  test('min and max of a long array', () => {
    assert.equal(
      evaluateString(
        '[max(concat(range(0, 10000), range(10000, 10000), range(20000, 10000), range(30000, 10000), range(40000, 10000), range(50000, 10000), range(60000, 10000), range(70000, 10000), range(80000, 10000), range(90000, 10000), range(100000, 10000), range(110000, 10000), range(120000, 10000), range(130000, 10000)))]',
        context(),
      ),
      139999,
    );
  });

  test('dataUri and dataUriToString', () => {
    assert.equal(evaluateString("[dataUri('Hello')]", context()), 'data:text/plain;charset=utf8;base64,SGVsbG8=');
    assert.equal(evaluateString("[dataUriToString('data:;base64,SGVsbG8sIFdvcmxkIQ==')]", context()), 'Hello, World!');
    refuses(evaluates("[dataUriToString('nope')]"), TemplateLanguageError, /dataUriToString/);
  });
});

describe('template expressions cannot overflow the stack', () => {
  test('an expression longer than ARM allows (24,576 characters)', () => {
    refuses(
      evaluates(`[${nested('concat(', "'a'", ')', 10000)}]`),
      TemplateLanguageError,
      /The language expression length limit exceeded\. Limit: '24576' and actual: '\d+'/,
    );
  });
  test('calls nested 6,000 deep within the length limit', () => {
    refuses(evaluates(`[${nested('a(', "'a'", ')', 6000)}]`), TemplateLanguageError, /nesting depth limit exceeded/);
  });
  test('indexes nested 6,000 deep within the length limit', () => {
    refuses(evaluates(`[${nested('createArray(0)[', '0', ']', 1500)}]`), TemplateLanguageError, /nesting depth limit exceeded/);
  });
  test('a chain of variables each nesting deeper', () => {
    const variables: Record<string, unknown> = { v0: "'x'" };
    for (let i = 1; i <= 400; i++) variables[`v${i}`] = `[${nested('concat(', `variables('v${i - 1}')`, ')', 100)}]`;
    refuses(evaluates("[variables('v400')]", context({ variables })), TemplateLanguageError, /evaluation depth limit exceeded/);
  });
  test('variables that refer to each other', () => {
    const ctx = context({ variables: { a: "[variables('b')]", b: "[concat('x', variables('a'))]" } });
    refuses(() => ctx.checkVariables(), ArmError, /The template variable 'a' is not valid: The template variable 'a' refers to itself/);
  });
  test('json() of text nested 100,000 deep', () => {
    const ctx = context({ parameters: { deep: { type: 'string' } } }, { deep: { value: nested('[', '', ']', 100000) } });
    refuses(evaluates("[string(json(parameters('deep')))]", ctx), TemplateLanguageError, /json/);
  });
  test('values nested deeper than the JSON reader allows, built by functions', () => {
    const variables: Record<string, unknown> = { v0: '[createArray()]' };
    for (let i = 1; i <= 60; i++) variables[`v${i}`] = `[createArray(createArray(createArray(createArray(createArray(variables('v${i - 1}'))))))]`;
    refuses(evaluates("[string(variables('v60'))]", context({ variables })), TemplateLanguageError, /nesting depth limit exceeded/);
  });
});

describe('copy loops and template sections are bounded as ARM bounds them', () => {
  const plan = (template: Record<string, unknown>) => () => planDeployment({ template: { contentVersion: '1.0.0.0', ...template }, scope: SCOPE });
  const copyCount =
    /The template 'copy' definition at line '\d+' and column '\d+' has an invalid copy count\. The copy count must be a positive integer value and cannot exceed '800'\./;
  test('a variable copy of 2^32', () => {
    refuses(plan({ variables: { copy: [{ name: 'v', count: 4294967296, input: 'x' }] } }), ArmError, copyCount);
  });
  test('a property copy of 1e9', () => {
    const resources = [
      {
        type: 'Microsoft.Network/virtualNetworks',
        apiVersion: '2022-01-01',
        name: 'v',
        properties: { copy: [{ name: 'subnets', count: 1000000000, input: {} }] },
      },
    ];
    refuses(plan({ resources }), ArmError, copyCount);
  });
  test('a resource copy of 801', () => {
    refuses(
      plan({
        resources: [
          { type: 'Microsoft.Network/virtualNetworks', apiVersion: '2022-01-01', name: "[concat('v', copyIndex())]", copy: { name: 'c', count: 801 } },
        ],
      }),
      ArmError,
      copyCount,
    );
  });
  test('ten copies of 800 resources', () => {
    const resources = Array.from({ length: 10 }, (_, i) => ({
      type: 'Microsoft.Network/virtualNetworks',
      apiVersion: '2022-01-01',
      name: `[concat('v${i}-', copyIndex())]`,
      copy: { name: `c${i}`, count: 800 },
    }));
    refuses(plan({ resources }), ArmError, /The number of template resources limit exceeded\. Limit: '800' and actual: '801'/);
  });
  test('257 parameters, 513 variables, 65 outputs', () => {
    const many = (n: number, value: (i: number) => unknown) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`x${i}`, value(i)]));
    refuses(
      plan({ parameters: many(257, () => ({ type: 'string', defaultValue: 'a' })) }),
      ArmError,
      /The number of template parameters limit exceeded\. Limit: '256' and actual: '257'/,
    );
    refuses(plan({ variables: many(513, () => 'a') }), ArmError, /The number of template variables limit exceeded\. Limit: '512' and actual: '513'/);
    refuses(
      plan({ outputs: many(65, () => ({ type: 'string', value: 'a' })) }),
      ArmError,
      /The number of template outputs limit exceeded\. Limit: '64' and actual: '65'/,
    );
  });
  test('sections and members of the wrong JSON type are InvalidTemplate, not a TypeError', () => {
    refuses(plan({ outputs: { o: { value: 1 } } }), ArmError, /InvalidTemplate|output 'o'/);
    refuses(plan({ variables: { copy: 'x' } }), ArmError, /copy/);
    refuses(plan({ resources: [{ type: 'Microsoft.Network/virtualNetworks', apiVersion: '2022-01-01', name: 'v', dependsOn: 'x' }] }), ArmError, /dependsOn/);
    refuses(
      plan({ resources: [{ type: 'Microsoft.Network/virtualNetworks', apiVersion: '2022-01-01', name: 'v', copy: { name: 5, count: 1 } }] }),
      ArmError,
      /copy/,
    );
    refuses(plan({ resources: [{ type: "[createArray('a')]", apiVersion: '2022-01-01', name: 'v' }] }), ArmError, /type/);
  });
});

describe('user keys never reach a prototype', () => {
  const before = Object.getOwnPropertyNames(Object.prototype).sort();
  const clean = () => {
    assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), before);
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
  };
  const ownProto = (value: unknown) => {
    assert.ok(value !== null && typeof value === 'object' && Object.hasOwn(value, '__proto__'), `own __proto__ in ${JSON.stringify(value)}`);
    assert.equal(Object.getPrototypeOf(value), Object.prototype);
    assert.deepEqual(JSON.parse(JSON.stringify(value)), JSON.parse('{"__proto__":{"polluted":"yes"}}'));
  };
  test('createObject, json and union keep __proto__ as an ordinary key', () => {
    const ctx = context();
    ownProto(evaluateString("[createObject('__proto__', createObject('polluted', 'yes'))]", ctx));
    ownProto(evaluateString('[json(\'{"__proto__": {"polluted": "yes"}}\')]', ctx));
    ownProto(evaluateString('[union(createObject(), json(\'{"__proto__": {"polluted": "yes"}}\'))]', ctx));
    assert.deepEqual(evaluateString('[union(json(\'{"__proto__": {"a": 1}}\'), json(\'{"__proto__": {"polluted": "yes"}}\')).__proto__]', ctx), {
      a: 1,
      polluted: 'yes',
    });
    clean();
  });
  test('property access reads own properties only', () => {
    const ctx = context({ variables: { x: { a: 1 } } });
    refuses(evaluates("[variables('x').__proto__]", ctx), TemplateLanguageError, /The language expression property '__proto__' doesn't exist/);
    refuses(evaluates("[parameters('obj')['constructor']]", ctx), TemplateLanguageError, /The language expression property 'constructor' doesn't exist/);
    refuses(evaluates("[variables('x').toString]", ctx), TemplateLanguageError, /doesn't exist/);
    assert.equal(evaluateString("[contains(variables('x'), 'constructor')]", ctx), false);
    assert.equal(evaluateString("[tryGet(variables('x'), '__proto__')]", ctx), null);
    clean();
  });
  test('a template whose keys are __proto__ and constructor evaluates them as data', () => {
    const template = JSON.parse(
      '{"contentVersion":"1.0.0.0","parameters":{"__proto__":{"type":"object","defaultValue":{"polluted":"yes"}},"constructor":{"type":"string","defaultValue":"c"}},"variables":{"__proto__":{"__proto__":{"polluted":"yes"}}},"resources":[],"outputs":{"__proto__":{"type":"object","value":"[variables(\'__proto__\')]"}}}',
    );
    const p = planDeployment({ template, scope: SCOPE });
    assert.deepEqual(p.ctx.parameter('__proto__'), { polluted: 'yes' });
    assert.equal(p.ctx.parameter('constructor'), 'c');
    ownProto(p.ctx.variable('__proto__'));
    clean();
  });
});

describe('the JSON reader refuses nesting deeper than it allows', () => {
  for (const [name, text] of [
    ['arrays', nested('[', '', ']', 10000)],
    ['objects', nested('{"a":', '1', '}', 10000)],
    ['a template member', `{"contentVersion":"1.0.0.0","resources":[],"variables":{"v":${nested('[', '', ']', 10000)}}}`],
  ] as const) {
    test(`${name} 10,000 deep`, () =>
      refuses(() => parseJsonc(text), JsoncError, /The reader's MaxDepth of \d+ has been exceeded\. Path '.*', line 1, position \d+\./));
  }
});

describe('the Bicep compiler refuses nesting deeper than it allows', () => {
  const cases: Array<[string, string]> = [
    ['parentheses', `output o int = ${nested('(', '1', ')', 10000)}\n`],
    ['objects', `output o object = ${nested('{a: ', '1', '}', 10000)}\n`],
    ['arrays', `output o array = ${nested('[', '1', ']', 10000)}\n`],
    ['unary operators', `output o bool = ${'!'.repeat(10000)}true\n`],
    ['function calls', `output o string = ${nested('string(', '1', ')', 10000)}\n`],
    ['interpolations', `output o string = ${nested("'${", "'x'", "}'", 3000)}\n`],
  ];
  for (const [name, source] of cases) {
    test(`${name} 10,000 deep`, () => refuses(() => compileBicep(source), BicepError, /nest/));
  }
  test('an unterminated \\u{ escape', () => refuses(() => compileBicep("output o string = '\\u{41'\n"), BicepError, /BCP/));
  test('a \\u{ escape beyond Unicode', () => refuses(() => compileBicep("output o string = '\\u{FFFFFFFF}'\n"), BicepError, /BCP/));
});
