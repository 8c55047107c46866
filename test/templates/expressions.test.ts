// The template expression language, table-driven: literals and escapes, every function family,
// property access and indexing, lazy if/and/or, uniqueString()/guid() against ARM's own outputs,
// and the errors ARM words.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DeploymentContext } from '../../src/templates/context.js';
import { evaluateString } from '../../src/templates/expression/evaluate.js';
import { TemplateLanguageError } from '../../src/templates/expression/parser.js';
import { readTemplate } from '../../src/templates/template.js';

const SUB = '00000000-0000-0000-0000-000000000000';

function context(): DeploymentContext {
  const template = readTemplate({
    $schema: 'https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#',
    contentVersion: '1.0.0.0',
    parameters: {
      name: { type: 'string', defaultValue: 'aksbyocni' },
      count: { type: 'int', defaultValue: 3 },
      derived: { type: 'string', defaultValue: "[concat(parameters('name'), '-', parameters('count'))]" },
      obj: { type: 'object', defaultValue: { a: 1, b: { c: [10, 20] } } },
    },
    variables: {
      prefix: 'aks',
      full: "[concat(variables('prefix'), '-', parameters('name'))]",
      copy: [{ name: 'doubled', count: 3, input: "[mul(copyIndex('doubled'), 2)]" }],
    },
    resources: [],
  });
  return new DeploymentContext(
    template,
    {
      subscriptionId: SUB,
      tenantId: 't',
      subscriptionName: 'aksemu',
      resourceGroup: { id: `/subscriptions/${SUB}/resourceGroups/my-rg`, name: 'my-rg', location: 'eastus' },
      deploymentName: 'dep',
      baseUrl: 'https://127.0.0.1:8443',
    },
    {},
    '123',
  );
}

const TABLE: Array<[string, unknown]> = [
  // literals, escapes, access
  ['plain text', 'plain text'],
  ['[[not evaluated]', '[not evaluated]'],
  ["['it''s']", "it's"],
  ['[42]', 42],
  ['[-7]', -7],
  ['[true]', true],
  ["[parameters('obj').b.c[1]]", 20],
  ["[parameters('obj')['B'].c[0]]", 10],
  ["[createObject('k', 'v').k]", 'v'],
  // deployment scope
  ["[parameters('name')]", 'aksbyocni'],
  ["[parameters('derived')]", 'aksbyocni-3'],
  ["[variables('full')]", 'aks-aksbyocni'],
  ["[variables('doubled')]", [0, 2, 4]],
  ['[resourceGroup().location]', 'eastus'],
  ['[resourceGroup().id]', `/subscriptions/${SUB}/resourceGroups/my-rg`],
  ['[subscription().subscriptionId]', SUB],
  ['[deployment().name]', 'dep'],
  [
    "[resourceId('Microsoft.Network/virtualNetworks/subnets', 'v', 's')]",
    `/subscriptions/${SUB}/resourceGroups/my-rg/providers/Microsoft.Network/virtualNetworks/v/subnets/s`,
  ],
  [
    "[resourceId('other-rg', 'Microsoft.Network/virtualNetworks', 'v')]",
    `/subscriptions/${SUB}/resourceGroups/other-rg/providers/Microsoft.Network/virtualNetworks/v`,
  ],
  ["[resourceId('s2', 'g2', 'Microsoft.Network/virtualNetworks', 'v')]", '/subscriptions/s2/resourceGroups/g2/providers/Microsoft.Network/virtualNetworks/v'],
  ["[subscriptionResourceId('Microsoft.Authorization/roleDefinitions', 'r')]", `/subscriptions/${SUB}/providers/Microsoft.Authorization/roleDefinitions/r`],
  // strings
  ["[concat('a', 'b', 1, true)]", 'ab1True'],
  ["[format('{0}-{1:D3}-{{x}}', 'a', 7)]", 'a-007-{x}'],
  ["[toLower('AbC')]", 'abc'],
  ["[toUpper('AbC')]", 'ABC'],
  ["[substring('abcdef', 1, 3)]", 'bcd'],
  ["[replace('a.b.c', '.', '-')]", 'a-b-c'],
  ["[split('a,b;c', createArray(',', ';'))]", ['a', 'b', 'c']],
  ["[join(createArray('a', 'b'), '/')]", 'a/b'],
  ["[trim('  x ')]", 'x'],
  ["[startsWith('AKS-x', 'aks')]", true],
  ["[endsWith('file.JSON', '.json')]", true],
  ["[indexOf('abcabc', 'C')]", 2],
  ["[lastIndexOf('abcabc', 'c')]", 5],
  ["[padLeft('7', 3, '0')]", '007'],
  ['[string(true)]', 'True'],
  ["[string(createObject('a', 1))]", '{"a":1}'],
  ['[json(\'{"a":[1,2]}\').a[1]]', 2],
  ["[base64('hi')]", 'aGk='],
  ["[base64ToString('aGk=')]", 'hi'],
  ["[uri('https://x.io/a/', 'b')]", 'https://x.io/a/b'],
  // arrays and objects
  ["[length('abc')]", 3],
  ['[length(createArray(1, 2))]', 2],
  ["[length(parameters('obj'))]", 2],
  ["[contains('abc', 'b')]", true],
  ["[contains('abc', 'B')]", false],
  ['[contains(createArray(1, 2), 2)]', true],
  ["[contains(parameters('obj'), 'A')]", true],
  ['[union(createArray(1, 2), createArray(2, 3))]', [1, 2, 3]],
  ['[intersection(createArray(1, 2, 3), createArray(2, 3, 4))]', [2, 3]],
  ["[union(createObject('a', 1, 'n', createObject('x', 1)), createObject('b', 2, 'n', createObject('y', 2)))]", { a: 1, n: { x: 1, y: 2 }, b: 2 }],
  ['[first(createArray(5, 6))]', 5],
  ['[last(createArray(5, 6))]', 6],
  ["[first('xyz')]", 'x'],
  ["[empty('')]", true],
  ['[empty(createArray())]', true],
  ['[empty(createObject())]', true],
  ['[take(createArray(1, 2, 3), 2)]', [1, 2]],
  ['[skip(createArray(1, 2, 3), 2)]', [3]],
  ['[range(1, 3)]', [1, 2, 3]],
  ['[concat(createArray(1), createArray(2))]', [1, 2]],
  ['[coalesce(null(), 2)]', 2],
  ['[min(3, 1, 2)]', 1],
  ['[max(createArray(3, 1, 2))]', 3],
  // logic, comparison, numbers
  ["[if(equals(parameters('count'), 3), 'three', 'other')]", 'three'],
  // Only the branch taken is evaluated: the other would fail.
  ["[if(true(), 'ok', parameters('nope'))]", 'ok'],
  ["[and(false(), parameters('nope'))]", false],
  ["[or(true(), parameters('nope'))]", true],
  ['[not(true())]', false],
  ["[equals('a', 'A')]", false],
  ['[equals(createArray(1, 2), createArray(1, 2))]', true],
  ['[less(1, 2)]', true],
  ["[greater('b', 'a')]", true],
  ['[lessOrEquals(2, 2)]', true],
  ['[greaterOrEquals(1, 2)]', false],
  ['[add(1, 2)]', 3],
  ['[sub(1, 2)]', -1],
  ['[mul(3, 4)]', 12],
  ['[div(7, 2)]', 3],
  ['[div(-7, 2)]', -3],
  ['[mod(7, 3)]', 1],
  ["[int('42')]", 42],
  ["[bool('true')]", true],
  ['[bool(0)]', false],
  // ARM's hashes: uniqueString (MurmurHash64 variant, base-32) and guid (UUID v5 in ARM's namespace)
  ["[uniqueString('test')]", 'rbgf3xv4ufgzg'],
  ["[uniqueString('hello', 'world')]", 'a7wkljktk6wne'],
  ["[uniqueString('abc')]", 'cgtzqvhu4i23s'],
  ['[uniqueString(resourceGroup().id)]', 'bmg7c6xu4tw46'],
  ["[uniqueString('foo', 'bar', 'baz')]", 'xzi4ioaxtmth4'],
  ["[guid('a', 'b', 'c')]", 'a98fa280-e03f-5afa-8d8e-92d0a9c201e8'],
];

describe('template expressions', () => {
  const ctx = context();
  for (const [expression, expected] of TABLE) {
    test(expression, () => assert.deepEqual(evaluateString(expression, ctx), expected));
  }
});

const ERRORS: Array<[string, string]> = [
  ["[parameters('pod-cidr')]", "The template parameter 'pod-cidr' is not found. Please see https://aka.ms/arm-syntax-parameters for usage details."],
  ["[variables('nope')]", "The template variable 'nope' is not found. Please see https://aka.ms/arm-syntax-variables for usage details."],
  ["[nosuch('x')]", "The template function 'nosuch' is not valid. Please see https://aka.ms/arm-template-expressions for usage details."],
  ["[concat('a']", "Unable to parse language expression 'concat('a'': expected token 'RightParenthesis' and actual 'EndOfData'."],
  ["[parameters('obj').zzz]", "The language expression property 'zzz' doesn't exist, available properties are 'a, b'."],
  ['[createArray(1)[3]]', "The language expression property array index '3' is out of bounds."],
  [
    '[copyIndex()]',
    "The template function 'copyIndex' is not expected at this location. The function can only be used in a resource with copy specified. Please see https://aka.ms/arm-copy for usage details.",
  ],
  [
    "[substring('abc', 2, 5)]",
    "The index and length parameters must refer to a location within the string. The index parameter: '2', the length parameter: '5', the length of the string parameter: '3'. Please see https://aka.ms/arm-template-expressions#substring for usage details.",
  ],
  [
    "[resourceId('Microsoft.Network/virtualNetworks/subnets', 'v')]",
    "Unable to evaluate template language function 'resourceId': the type 'Microsoft.Network/virtualNetworks/subnets' requires '2' resource name argument(s). Please see https://aka.ms/arm-template-expressions/#resourceid for usage details.",
  ],
  [
    '[empty(1)]',
    "The template function 'empty' expects its parameter to be an object, an array, or a string. The provided value is of type 'Integer'. Please see https://aka.ms/arm-template-expressions#empty for usage details.",
  ],
];

describe('template expression errors', () => {
  const ctx = context();
  for (const [expression, message] of ERRORS) {
    test(expression, () =>
      assert.throws(
        () => evaluateString(expression, ctx),
        (e: unknown) => e instanceof TemplateLanguageError && e.message === message,
      ),
    );
  }
});
