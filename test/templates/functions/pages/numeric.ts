// https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-numeric
// The examples of the numeric functions page (Azure/azure-docs-json-samples,
// azure-resource-manager/functions/numeric) and the values its output tables document. max and
// min share the array page's examples; copyIndex's and float's examples deploy resources (storage
// accounts, a Logic App), so their functions are shown here in outputs of our own.
import { type Page, outputs, template } from '../harness.js';
import { arrayExamples } from './array.js';

/** The page's two-parameter templates: first and second, then fn(first, second). */
function arithmetic(fn: string, first: number, second: number, output: string, expression = `[${fn}(parameters('first'), parameters('second'))]`) {
  return template({
    parameters: { first: { type: 'int', defaultValue: first }, second: { type: 'int', defaultValue: second } },
    outputs: outputs('int', { [output]: expression }),
  });
}

export const NUMERIC_PAGE: Page = {
  url: 'https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-numeric',
  examples: [
    ...arrayExamples(['max', 'min']),
    { name: 'add', template: arithmetic('add', 5, 3, 'addResult'), outputs: { addResult: 8 } },
    { name: 'div', template: arithmetic('div', 8, 3, 'divResult'), outputs: { divResult: 2 } },
    { name: 'mod', template: arithmetic('mod', 7, 3, 'modResult'), outputs: { modResult: 1 } },
    {
      name: 'mul',
      template: arithmetic('mul', 5, 3, 'mulResult', "[mul(mul(parameters('first'), parameters('second')), 3)]"),
      outputs: { mulResult: 45 },
    },
    { name: 'sub', template: arithmetic('sub', 7, 3, 'subResult'), outputs: { subResult: 4 } },
    {
      name: 'int',
      template: template({
        parameters: { stringToConvert: { type: 'string', defaultValue: '4' } },
        outputs: outputs('int', { intResult: "[int(parameters('stringToConvert'))]" }),
      }),
      outputs: { intResult: 4 },
    },
    {
      // The page passes float('3.0') and float(3) to a Logic App's parameters.
      name: 'float',
      template: template({ outputs: outputs('int', { custom1: "[float('3.0')]", custom2: '[float(3)]' }) }),
      outputs: { custom1: 3, custom2: 3 },
    },
    {
      // The page's copy loop names storage accounts with copyIndex(1); the same loop over a variable.
      name: 'copyIndex with an offset',
      template: template({
        parameters: { storageCount: { type: 'int', defaultValue: 2 } },
        variables: { copy: [{ name: 'names', count: "[parameters('storageCount')]", input: "[concat(copyIndex('names', 1), 'storage')]" }] },
        outputs: outputs('array', { names: "[variables('names')]" }),
      }),
      outputs: { names: ['1storage', '2storage'] },
    },
  ],
  invalid: [
    // div by zero
    ['[div(1, 0)]', "The template language function 'div' cannot divide by zero."],
    // float of text that is not a number
    ["[float('three')]", "The template language function 'float' cannot convert 'three' to a floating point number."],
  ],
};
