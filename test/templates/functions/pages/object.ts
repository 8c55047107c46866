// https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-object
// The examples of the object functions page and the values it documents. contains, empty,
// intersection, length and union have the same examples as the array page: they are taken from there.
import { type Page, outputs, template } from '../harness.js';
import { arrayExamples } from './array.js';

const entities = {
  item002: { enabled: false, displayName: 'Example item 2', number: 200 },
  item001: { enabled: true, displayName: 'Example item 1', number: 300 },
};

export const OBJECT_PAGE: Page = {
  url: 'https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-object',
  examples: [
    ...arrayExamples(['contains', 'empty', 'intersection', 'length', 'union', 'union merges nested objects, not nested arrays', 'tryGet']),
    {
      name: 'createObject',
      template: template({
        outputs: {
          newObject: {
            type: 'object',
            value:
              "[createObject('intProp', 1, 'stringProp', 'abc', 'boolProp', true(), 'arrayProp', createArray('a', 'b', 'c'), 'objectProp', createObject('key1', 'value1'))]",
          },
        },
      }),
      outputs: { newObject: { intProp: 1, stringProp: 'abc', boolProp: true, arrayProp: ['a', 'b', 'c'], objectProp: { key1: 'value1' } } },
    },
    {
      name: 'items in a variable loop',
      template: template({
        variables: {
          copy: [
            {
              name: 'modifiedListOfEntities',
              count: "[length(items(variables('entities')))]",
              input: {
                key: "[items(variables('entities'))[copyIndex('modifiedListOfEntities')].key]",
                fullName: "[items(variables('entities'))[copyIndex('modifiedListOfEntities')].value.displayName]",
                itemEnabled: "[items(variables('entities'))[copyIndex('modifiedListOfEntities')].value.enabled]",
              },
            },
          ],
          entities,
        },
        outputs: outputs('array', { modifiedResult: "[variables('modifiedListOfEntities')]" }),
      }),
      outputs: {
        modifiedResult: [
          { fullName: 'Example item 1', itemEnabled: true, key: 'item001' },
          { fullName: 'Example item 2', itemEnabled: false, key: 'item002' },
        ],
      },
    },
    {
      name: 'items',
      template: template({
        variables: { entities, entitiesArray: "[items(variables('entities'))]" },
        outputs: outputs('array', { itemsResult: "[variables('entitiesArray')]" }),
      }),
      outputs: {
        itemsResult: [
          { key: 'item001', value: { displayName: 'Example item 1', enabled: true, number: 300 } },
          { key: 'item002', value: { displayName: 'Example item 2', enabled: false, number: 200 } },
        ],
      },
    },
    {
      name: 'json',
      template: template({
        parameters: {
          jsonEmptyObject: { type: 'string', defaultValue: 'null' },
          jsonObject: { type: 'string', defaultValue: '{"a": "b"}' },
          jsonString: { type: 'string', defaultValue: '"test"' },
          jsonBoolean: { type: 'string', defaultValue: 'true' },
          jsonInt: { type: 'string', defaultValue: '3' },
          jsonArray: { type: 'string', defaultValue: '[[1,2,3 ]' },
          concatValue: { type: 'string', defaultValue: 'demo value' },
        },
        outputs: {
          emptyObjectOutput: { type: 'bool', value: "[empty(json(parameters('jsonEmptyObject')))]" },
          objectOutput: { type: 'object', value: "[json(parameters('jsonObject'))]" },
          stringOutput: { type: 'string', value: "[json(parameters('jsonString'))]" },
          booleanOutput: { type: 'bool', value: "[json(parameters('jsonBoolean'))]" },
          intOutput: { type: 'int', value: "[json(parameters('jsonInt'))]" },
          arrayOutput: { type: 'array', value: "[json(parameters('jsonArray'))]" },
          concatObjectOutput: { type: 'object', value: "[json(concat('{\"a\": \"', parameters('concatValue'), '\"}'))]" },
        },
      }),
      outputs: {
        emptyObjectOutput: true,
        objectOutput: { a: 'b' },
        stringOutput: 'test',
        booleanOutput: true,
        intOutput: 3,
        arrayOutput: [1, 2, 3],
        concatObjectOutput: { a: 'demo value' },
      },
    },
    {
      name: 'null',
      template: template({ outputs: outputs('bool', { emptyOutput: '[empty(null())]' }) }),
      outputs: { emptyOutput: true },
    },
    {
      name: 'objectKeys',
      template: template({ variables: { obj: { a: 1, b: 2 } }, outputs: outputs('array', { keyArray: "[objectKeys(variables('obj'))]" }) }),
      outputs: { keyArray: ['a', 'b'] },
    },
    {
      name: 'shallowMerge',
      template: template({
        variables: {
          firstArray: [{ one: 'a' }, { two: 'b' }, { two: 'c' }],
          secondArray: [
            { one: 'a', nested: { a: 1, nested: { c: 3 } } },
            { two: 'b', nested: { b: 2 } },
          ],
        },
        outputs: outputs('object', { firstOutput: "[shallowMerge(variables('firstArray'))]", secondOutput: "[shallowMerge(variables('secondArray'))]" }),
      }),
      outputs: { firstOutput: { one: 'a', two: 'c' }, secondOutput: { one: 'a', nested: { b: 2 }, two: 'b' } },
    },
  ],
  invalid: [
    // shallowMerge of something other than objects
    [
      "[shallowMerge(createArray(createObject('a', 1), 2))]",
      "The template language function 'shallowMerge' expects an array of objects. The provided array contains a value of type 'Integer'.",
    ],
    // json of text that is not JSON
    ["[json('{a')]", "The template language function 'json' parameter is not valid JSON"],
  ],
};
