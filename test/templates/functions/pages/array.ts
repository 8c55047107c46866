// https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-array
// The examples of the array functions page and the values its output tables document.
import { type Example, type Page, outputs, template } from '../harness.js';

const oneTwoThree = { type: 'array', defaultValue: ['one', 'two', 'three'] };
const fruit = { items: ['apple', 'banana', 'orange', 'grape'] };

/** skip's and take's template: fn of ['one', 'two', 'three'] and of 'one two three', by elements and characters. */
function cut(fn: 'Skip' | 'Take', elements: number, characters: number): Record<string, unknown> {
  const f = fn.toLowerCase();
  return template({
    parameters: {
      testArray: oneTwoThree,
      [`elementsTo${fn}`]: { type: 'int', defaultValue: elements },
      testString: { type: 'string', defaultValue: 'one two three' },
      [`charactersTo${fn}`]: { type: 'int', defaultValue: characters },
    },
    outputs: {
      arrayOutput: { type: 'array', value: `[${f}(parameters('testArray'),parameters('elementsTo${fn}'))]` },
      stringOutput: { type: 'string', value: `[${f}(parameters('testString'),parameters('charactersTo${fn}'))]` },
    },
  });
}

/** intersection's and union's template: fn of two objects, and of ['one', 'two', 'three'] and a second array. */
function twoObjectsTwoArrays(fn: string, firstObject: object, secondObject: object, secondArray: string[]): Record<string, unknown> {
  return template({
    parameters: {
      firstObject: { type: 'object', defaultValue: firstObject },
      secondObject: { type: 'object', defaultValue: secondObject },
      firstArray: oneTwoThree,
      secondArray: { type: 'array', defaultValue: secondArray },
    },
    outputs: {
      objectOutput: { type: 'object', value: `[${fn}(parameters('firstObject'), parameters('secondObject'))]` },
      arrayOutput: { type: 'array', value: `[${fn}(parameters('firstArray'), parameters('secondArray'))]` },
    },
  });
}

export const ARRAY_PAGE: Page = {
  url: 'https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-array',
  examples: [
    {
      name: 'array',
      template: template({
        parameters: {
          intToConvert: { type: 'int', defaultValue: 1 },
          stringToConvert: { type: 'string', defaultValue: 'efgh' },
          objectToConvert: { type: 'object', defaultValue: { a: 'b', c: 'd' } },
        },
        outputs: outputs('array', {
          intOutput: "[array(parameters('intToConvert'))]",
          stringOutput: "[array(parameters('stringToConvert'))]",
          objectOutput: "[array(parameters('objectToConvert'))]",
        }),
      }),
      outputs: { intOutput: [1], stringOutput: ['efgh'], objectOutput: [{ a: 'b', c: 'd' }] },
    },
    {
      name: 'concat of arrays',
      template: template({
        parameters: {
          firstArray: { type: 'array', defaultValue: ['1-1', '1-2', '1-3'] },
          secondArray: { type: 'array', defaultValue: ['2-1', '2-2', '2-3'] },
        },
        outputs: outputs('array', { return: "[concat(parameters('firstArray'), parameters('secondArray'))]" }),
      }),
      outputs: { return: ['1-1', '1-2', '1-3', '2-1', '2-2', '2-3'] },
    },
    {
      // The page's value, prefix-5yj4yjf5mbg72, hashes its own resource group's id.
      name: 'concat of strings',
      template: template({
        parameters: { prefix: { type: 'string', defaultValue: 'prefix' } },
        outputs: outputs('string', { concatOutput: "[concat(parameters('prefix'), '-', uniqueString(resourceGroup().id))]" }),
      }),
      outputs: { concatOutput: /^prefix-[a-z2-7]{13}$/ },
    },
    {
      name: 'contains',
      template: template({
        parameters: {
          stringToTest: { type: 'string', defaultValue: 'OneTwoThree' },
          objectToTest: { type: 'object', defaultValue: { one: 'a', two: 'b', three: 'c' } },
          arrayToTest: oneTwoThree,
        },
        outputs: outputs('bool', {
          stringTrue: "[contains(parameters('stringToTest'), 'e')]",
          stringFalse: "[contains(parameters('stringToTest'), 'z')]",
          objectTrue: "[contains(parameters('objectToTest'), 'one')]",
          objectFalse: "[contains(parameters('objectToTest'), 'a')]",
          arrayTrue: "[contains(parameters('arrayToTest'), 'three')]",
          arrayFalse: "[contains(parameters('arrayToTest'), 'four')]",
        }),
      }),
      outputs: { stringTrue: true, stringFalse: false, objectTrue: true, objectFalse: false, arrayTrue: true, arrayFalse: false },
    },
    {
      name: 'createArray',
      template: template({
        parameters: { objectToTest: { type: 'object', defaultValue: { one: 'a', two: 'b', three: 'c' } }, arrayToTest: oneTwoThree },
        outputs: outputs('array', {
          stringArray: "[createArray('a', 'b', 'c')]",
          intArray: '[createArray(1, 2, 3)]',
          objectArray: "[createArray(parameters('objectToTest'))]",
          arrayArray: "[createArray(parameters('arrayToTest'))]",
          emptyArray: '[createArray()]',
        }),
      }),
      outputs: {
        stringArray: ['a', 'b', 'c'],
        intArray: [1, 2, 3],
        objectArray: [{ one: 'a', two: 'b', three: 'c' }],
        arrayArray: [['one', 'two', 'three']],
        emptyArray: [],
      },
    },
    {
      name: 'empty',
      template: template({
        parameters: {
          testArray: { type: 'array', defaultValue: [] },
          testObject: { type: 'object', defaultValue: {} },
          testString: { type: 'string', defaultValue: '' },
        },
        outputs: outputs('bool', {
          arrayEmpty: "[empty(parameters('testArray'))]",
          objectEmpty: "[empty(parameters('testObject'))]",
          stringEmpty: "[empty(parameters('testString'))]",
        }),
      }),
      outputs: { arrayEmpty: true, objectEmpty: true, stringEmpty: true },
    },
    {
      name: 'first',
      template: template({
        parameters: { arrayToTest: oneTwoThree },
        outputs: outputs('string', { arrayOutput: "[first(parameters('arrayToTest'))]", stringOutput: "[first('One Two Three')]" }),
      }),
      outputs: { arrayOutput: 'one', stringOutput: 'O' },
    },
    {
      name: 'indexFromEnd',
      template: template({ variables: fruit, outputs: outputs('string', { secondToLast: "[indexFromEnd(variables('items'), 2)]" }) }),
      outputs: { secondToLast: 'orange' },
    },
    {
      name: 'indexOf and lastIndexOf',
      template: template({
        variables: {
          names: ['one', 'two', 'three'],
          numbers: [4, 5, 6],
          collection: ["[variables('names')]", "[variables('numbers')]"],
          duplicates: [1, 2, 3, 1],
        },
        outputs: outputs('int', {
          index1: "[lastIndexOf(variables('names'), 'two')]",
          index2: "[indexOf(variables('names'), 'one')]",
          notFoundIndex1: "[lastIndexOf(variables('names'), 'Three')]",
          index3: "[lastIndexOf(variables('numbers'), 4)]",
          index4: "[indexOf(variables('numbers'), 6)]",
          notFoundIndex2: "[lastIndexOf(variables('numbers'), '5')]",
          index5: "[indexOf(variables('collection'), variables('numbers'))]",
          index6: "[indexOf(variables('duplicates'), 1)]",
          index7: "[lastIndexOf(variables('duplicates'), 1)]",
        }),
      }),
      outputs: { index1: 1, index2: 0, index3: 0, index4: 2, index5: 1, index6: 0, index7: 3, notFoundIndex1: -1, notFoundIndex2: -1 },
    },
    {
      name: 'intersection',
      template: twoObjectsTwoArrays('intersection', { one: 'a', two: 'b', three: 'c' }, { one: 'a', two: 'z', three: 'c' }, ['two', 'three']),
      outputs: { objectOutput: { one: 'a', three: 'c' }, arrayOutput: ['two', 'three'] },
    },
    {
      name: 'last',
      template: template({
        parameters: { arrayToTest: oneTwoThree },
        outputs: outputs('string', { arrayOutput: "[last(parameters('arrayToTest'))]", stringOutput: "[last('One Two Three')]" }),
      }),
      outputs: { arrayOutput: 'three', stringOutput: 'e' },
    },
    {
      name: 'length',
      template: template({
        parameters: {
          arrayToTest: oneTwoThree,
          stringToTest: { type: 'string', defaultValue: 'One Two Three' },
          objectToTest: {
            type: 'object',
            defaultValue: { propA: 'one', propB: 'two', propC: 'three', propD: { 'propD-1': 'sub', 'propD-2': 'sub' } },
          },
        },
        outputs: outputs('int', {
          arrayLength: "[length(parameters('arrayToTest'))]",
          stringLength: "[length(parameters('stringToTest'))]",
          objectLength: "[length(parameters('objectToTest'))]",
        }),
      }),
      outputs: { arrayLength: 3, stringLength: 13, objectLength: 4 },
    },
    {
      name: 'max',
      template: template({
        parameters: { arrayToTest: { type: 'array', defaultValue: [0, 3, 2, 5, 4] } },
        outputs: outputs('int', { arrayOutput: "[max(parameters('arrayToTest'))]", intOutput: '[max(0,3,2,5,4)]' }),
      }),
      outputs: { arrayOutput: 5, intOutput: 5 },
    },
    {
      name: 'min',
      template: template({
        parameters: { arrayToTest: { type: 'array', defaultValue: [0, 3, 2, 5, 4] } },
        outputs: outputs('int', { arrayOutput: "[min(parameters('arrayToTest'))]", intOutput: '[min(0,3,2,5,4)]' }),
      }),
      outputs: { arrayOutput: 0, intOutput: 0 },
    },
    {
      name: 'range',
      template: template({
        parameters: { startingInt: { type: 'int', defaultValue: 5 }, numberOfElements: { type: 'int', defaultValue: 3 } },
        outputs: outputs('array', { rangeOutput: "[range(parameters('startingInt'),parameters('numberOfElements'))]" }),
      }),
      outputs: { rangeOutput: [5, 6, 7] },
    },
    {
      name: 'skip',
      template: cut('Skip', 2, 4),
      outputs: { arrayOutput: ['three'], stringOutput: 'two three' },
    },
    {
      name: 'take',
      template: cut('Take', 2, 2),
      outputs: { arrayOutput: ['one', 'two'], stringOutput: 'on' },
    },
    {
      // The page writes this example in languageVersion 2.0 (for its nullable outputs) and its table
      // says firstColor is "Red"; the variable holds 'red', and the functions do not depend on the version.
      name: 'tryGet',
      template: template({
        variables: { users: { name: 'John Doe', age: 30 }, colors: ['red', 'green'] },
        outputs: outputs('string', {
          region: "[tryGet(variables('users'), 'region')]",
          name: "[tryGet(variables('users'), 'name')]",
          firstColor: "[tryGet(variables('colors'), 0)]",
        }),
      }),
      outputs: { region: null, name: 'John Doe', firstColor: 'red' },
    },
    {
      name: 'tryIndexFromEnd',
      template: template({
        variables: fruit,
        outputs: outputs('string', { secondToLast: "[tryIndexFromEnd(variables('items'), 2)]", outOfBound: "[tryIndexFromEnd(variables('items'), 5)]" }),
      }),
      outputs: { secondToLast: 'orange', outOfBound: null },
    },
    {
      name: 'union',
      template: twoObjectsTwoArrays('union', { one: 'a', two: 'b', three: 'c1' }, { three: 'c2', four: 'd', five: 'e' }, ['three', 'four']),
      outputs: { objectOutput: { one: 'a', two: 'b', three: 'c2', four: 'd', five: 'e' }, arrayOutput: ['one', 'two', 'three', 'four'] },
    },
    {
      name: 'union merges nested objects, not nested arrays',
      template: template({
        variables: {
          firstObject: { property: { one: 'a', two: 'b', three: 'c1' }, nestedArray: [1, 2] },
          secondObject: { property: { three: 'c2', four: 'd', five: 'e' }, nestedArray: [3, 4] },
          firstArray: [['one', 'two'], ['three']],
          secondArray: [['three'], ['four', 'two']],
        },
        outputs: {
          objectOutput: { type: 'Object', value: "[union(variables('firstObject'), variables('secondObject'))]" },
          arrayOutput: { type: 'Array', value: "[union(variables('firstArray'), variables('secondArray'))]" },
        },
      }),
      outputs: {
        objectOutput: { property: { one: 'a', two: 'b', three: 'c2', four: 'd', five: 'e' }, nestedArray: [3, 4] },
        arrayOutput: [['one', 'two'], ['three'], ['four', 'two']],
      },
    },
  ],
  invalid: [
    // indexFromEnd past the start
    [
      "[indexFromEnd(createArray('a'), 2)]",
      "The template language function 'indexFromEnd' expects its second parameter to be from 1 to the length of the array, 1. The provided value is '2'.",
    ],
    // range beyond its count
    ['[range(0, 10001)]', "The template language function 'range' expects its count to be between 0 and 10000."],
    // tryGet follows several keys
    ["[tryGet(createObject('a', createObject('b', 1)), 'a', 'b', 'c').x]", /can't be evaluated/],
  ],
};

/** The array page's examples of the functions other pages describe too. */
export function arrayExamples(names: string[]): Example[] {
  return ARRAY_PAGE.examples.filter((e) => names.includes(e.name));
}
