// https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-string
// The examples of the string functions page (its templates are published in Azure/azure-docs-json-samples,
// azure-resource-manager/functions/string) and the values its output tables document. concat,
// contains, empty, first, last, length, skip and take share the array page's examples.
import { type Page, outputs, template } from '../harness.js';
import { arrayExamples } from './array.js';

/** The page's one-parameter templates: testString, and string outputs over it. */
function onTestString(value: string, values: Record<string, string>): Record<string, unknown> {
  return template({ parameters: { testString: { type: 'string', defaultValue: value } }, outputs: outputs('string', values) });
}

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const STRING_PAGE: Page = {
  url: 'https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-string',
  examples: [
    ...arrayExamples(['concat of strings', 'concat of arrays', 'contains', 'empty', 'first', 'last', 'length', 'skip', 'take']),
    {
      name: 'base64, base64ToString and base64ToJson',
      template: template({
        parameters: {
          stringData: { type: 'string', defaultValue: 'one, two, three' },
          jsonFormattedData: { type: 'string', defaultValue: "{'one': 'a', 'two': 'b'}" },
        },
        variables: { base64String: "[base64(parameters('stringData'))]", base64Object: "[base64(parameters('jsonFormattedData'))]" },
        outputs: {
          base64Output: { type: 'string', value: "[variables('base64String')]" },
          toStringOutput: { type: 'string', value: "[base64ToString(variables('base64String'))]" },
          toJsonOutput: { type: 'object', value: "[base64ToJson(variables('base64Object'))]" },
        },
      }),
      outputs: { base64Output: 'b25lLCB0d28sIHRocmVl', toStringOutput: 'one, two, three', toJsonOutput: { one: 'a', two: 'b' } },
    },
    {
      name: 'dataUri and dataUriToString',
      template: template({
        parameters: {
          stringToTest: { type: 'string', defaultValue: 'Hello' },
          dataFormattedString: { type: 'string', defaultValue: 'data:;base64,SGVsbG8sIFdvcmxkIQ==' },
        },
        outputs: outputs('string', {
          dataUriOutput: "[dataUri(parameters('stringToTest'))]",
          toStringOutput: "[dataUriToString(parameters('dataFormattedString'))]",
        }),
      }),
      outputs: { dataUriOutput: 'data:text/plain;charset=utf8;base64,SGVsbG8=', toStringOutput: 'Hello, World!' },
    },
    {
      name: 'startsWith and endsWith',
      template: template({
        outputs: outputs('bool', {
          startsTrue: "[startsWith('abcdef', 'ab')]",
          startsCapTrue: "[startsWith('abcdef', 'A')]",
          startsFalse: "[startsWith('abcdef', 'e')]",
          endsTrue: "[endsWith('abcdef', 'ef')]",
          endsCapTrue: "[endsWith('abcdef', 'F')]",
          endsFalse: "[endsWith('abcdef', 'e')]",
        }),
      }),
      outputs: { startsTrue: true, startsCapTrue: true, startsFalse: false, endsTrue: true, endsCapTrue: true, endsFalse: false },
    },
    {
      name: 'format',
      template: template({
        parameters: {
          greeting: { type: 'string', defaultValue: 'Hello' },
          name: { type: 'string', defaultValue: 'User' },
          numberToFormat: { type: 'int', defaultValue: 8175133 },
        },
        outputs: outputs('string', {
          formatTest: "[format('{0}, {1}. Formatted number: {2:N0}', parameters('greeting'), parameters('name'), parameters('numberToFormat'))]",
        }),
      }),
      outputs: { formatTest: 'Hello, User. Formatted number: 8,175,133' },
    },
    {
      // The page shows no values: each is a hash of the subscription, group and deployment.
      name: 'guid',
      template: template({
        outputs: outputs('string', {
          guidPerSubscription: '[guid(subscription().subscriptionId)]',
          guidPerResourceGroup: '[guid(resourceGroup().id)]',
          guidPerDeployment: '[guid(resourceGroup().id, deployment().name)]',
        }),
      }),
      outputs: { guidPerSubscription: GUID, guidPerResourceGroup: GUID, guidPerDeployment: GUID },
    },
    {
      name: 'indexOf and lastIndexOf of strings',
      template: template({
        outputs: outputs('int', {
          firstT: "[indexOf('test', 't')]",
          lastT: "[lastIndexOf('test', 't')]",
          firstString: "[indexOf('abcdef', 'CD')]",
          lastString: "[lastIndexOf('abcdef', 'AB')]",
          notFound: "[indexOf('abcdef', 'z')]",
        }),
      }),
      outputs: { firstT: 0, lastT: 3, firstString: 2, lastString: 0, notFound: -1 },
    },
    {
      name: 'join',
      template: template({
        variables: { arrayString: ['one', 'two', 'three'] },
        outputs: outputs('string', { firstOutput: "[join(variables('arrayString'), ',')]", secondOutput: "[join(variables('arrayString'), ';')]" }),
      }),
      outputs: { firstOutput: 'one,two,three', secondOutput: 'one;two;three' },
    },
    {
      // "varies for each deployment but will be similar to: b76a51fc-bd72-4a77-b9a2-3c29e7d2e551"
      name: 'newGuid',
      template: template({
        parameters: { guidValue: { type: 'string', defaultValue: '[newGuid()]' } },
        outputs: outputs('string', { guidOutput: "[parameters('guidValue')]" }),
      }),
      outputs: { guidOutput: /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/ },
    },
    {
      // "similar to: storagenziwvyru7uxie"
      name: 'newGuid for a unique name',
      template: template({
        parameters: { guidValue: { type: 'string', defaultValue: '[newGuid()]' } },
        variables: { storageName: "[concat('storage', uniqueString(parameters('guidValue')))]" },
        outputs: outputs('string', { nameOutput: "[variables('storageName')]" }),
      }),
      outputs: { nameOutput: /^storage[a-z2-7]{13}$/ },
    },
    {
      name: 'padLeft',
      template: onTestString('123', { stringOutput: "[padLeft(parameters('testString'),10,'0')]" }),
      outputs: { stringOutput: '0000000123' },
    },
    {
      name: 'replace',
      template: onTestString('123-123-1234', {
        firstOutput: "[replace(parameters('testString'),'-', '')]",
        secondOutput: "[replace(parameters('testString'),'1234', 'xxxx')]",
      }),
      outputs: { firstOutput: '1231231234', secondOutput: '123-123-xxxx' },
    },
    {
      name: 'split',
      template: template({
        parameters: { firstString: { type: 'string', defaultValue: 'one,two,three' }, secondString: { type: 'string', defaultValue: 'one;two,three' } },
        variables: { delimiters: [',', ';'] },
        outputs: outputs('array', {
          firstOutput: "[split(parameters('firstString'),',')]",
          secondOutput: "[split(parameters('secondString'),variables('delimiters'))]",
        }),
      }),
      outputs: { firstOutput: ['one', 'two', 'three'], secondOutput: ['one', 'two', 'three'] },
    },
    {
      name: 'string',
      template: template({
        parameters: {
          testObject: { type: 'object', defaultValue: { valueA: 10, valueB: 'Example Text' } },
          testArray: { type: 'array', defaultValue: ['a', 'b', 'c'] },
          testInt: { type: 'int', defaultValue: 5 },
        },
        outputs: outputs('string', {
          objectOutput: "[string(parameters('testObject'))]",
          arrayOutput: "[string(parameters('testArray'))]",
          intOutput: "[string(parameters('testInt'))]",
        }),
      }),
      outputs: { objectOutput: '{"valueA":10,"valueB":"Example Text"}', arrayOutput: '["a","b","c"]', intOutput: '5' },
    },
    {
      name: 'substring',
      template: onTestString('one two three', { substringOutput: "[substring(parameters('testString'), 4, 3)]" }),
      outputs: { substringOutput: 'two' },
    },
    {
      name: 'toLower and toUpper',
      template: onTestString('One Two Three', { toLowerOutput: "[toLower(parameters('testString'))]", toUpperOutput: "[toUpper(parameters('testString'))]" }),
      outputs: { toLowerOutput: 'one two three', toUpperOutput: 'ONE TWO THREE' },
    },
    {
      name: 'trim',
      template: onTestString('    one two three   ', { return: "[trim(parameters('testString'))]" }),
      outputs: { return: 'one two three' },
    },
    {
      // "The returned value is 13 characters long", like tcvhiyu5h2o5o.
      name: 'uniqueString',
      template: template({
        outputs: outputs('string', { uniqueRG: '[uniqueString(resourceGroup().id)]', uniqueDeploy: '[uniqueString(resourceGroup().id, deployment().name)]' }),
      }),
      outputs: { uniqueRG: /^[a-z2-7]{13}$/, uniqueDeploy: /^[a-z2-7]{13}$/ },
    },
    {
      name: 'uri, uriComponent and uriComponentToString',
      template: template({
        variables: {
          uriFormat: "[uri('http://contoso.com/resources/', 'nested/azuredeploy.json')]",
          uriEncoded: "[uriComponent(variables('uriFormat'))]",
        },
        outputs: outputs('string', {
          uriOutput: "[variables('uriFormat')]",
          componentOutput: "[variables('uriEncoded')]",
          toStringOutput: "[uriComponentToString(variables('uriEncoded'))]",
        }),
      }),
      outputs: {
        uriOutput: 'http://contoso.com/resources/nested/azuredeploy.json',
        componentOutput: 'http%3A%2F%2Fcontoso.com%2Fresources%2Fnested%2Fazuredeploy.json',
        toStringOutput: 'http://contoso.com/resources/nested/azuredeploy.json',
      },
    },
    {
      // The page's own table of how the base's trailing slash decides what the relative part replaces.
      name: 'uri and the trailing slash',
      template: template({
        outputs: outputs('string', {
          noTrailingSlash: "[uri('http://contoso.org/firstpath', 'myscript.sh')]",
          trailingSlash: "[uri('http://contoso.org/firstpath/', 'myscript.sh')]",
          file: "[uri('http://contoso.org/firstpath/azuredeploy.json', 'myscript.sh')]",
          fileAndSlash: "[uri('http://contoso.org/firstpath/azuredeploy.json/', 'myscript.sh')]",
        }),
      }),
      outputs: {
        noTrailingSlash: 'http://contoso.org/myscript.sh',
        trailingSlash: 'http://contoso.org/firstpath/myscript.sh',
        file: 'http://contoso.org/firstpath/myscript.sh',
        fileAndSlash: 'http://contoso.org/firstpath/azuredeploy.json/myscript.sh',
      },
    },
  ],
  invalid: [
    // substring beyond the string: the page's own error
    [
      "[substring('1234567890', 0, 11)]",
      "The index and length parameters must refer to a location within the string. The index parameter: '0', the length parameter: '11', the length of the string parameter: '10'.",
    ],
    // newGuid outside a parameter default
    ['[newGuid()]', "The template function 'newGuid' is not expected at this location. The function can only be used in the default value of a parameter."],
    // padLeft with a padding of two characters
    ["[padLeft('1', 3, '00')]", "The template language function 'padLeft' expects its third parameter to be a single character."],
    // indexOf of a number in a string
    ["[indexOf('abc', 1)]", "The template language function 'indexOf' expects its parameter to be of type 'String'. The provided value is of type 'Integer'."],
  ],
};
