// https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-comparison
// The examples of the comparison functions page (Azure/azure-docs-json-samples,
// azure-resource-manager/functions/comparison) and the values its output tables document.
import { type Page, outputs, template } from '../harness.js';

/** greater, greaterOrEquals, less and lessOrEquals share one template: 1 against 2, 'A' against 'a'. */
function ordering(fn: string): Record<string, unknown> {
  return template({
    parameters: {
      firstInt: { type: 'int', defaultValue: 1 },
      secondInt: { type: 'int', defaultValue: 2 },
      firstString: { type: 'string', defaultValue: 'A' },
      secondString: { type: 'string', defaultValue: 'a' },
    },
    outputs: outputs('bool', {
      checkInts: `[${fn}(parameters('firstInt'), parameters('secondInt') )]`,
      checkStrings: `[${fn}(parameters('firstString'), parameters('secondString'))]`,
    }),
  });
}

export const COMPARISON_PAGE: Page = {
  url: 'https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-comparison',
  examples: [
    {
      name: 'coalesce',
      template: template({
        parameters: {
          objectToTest: {
            type: 'object',
            defaultValue: { null1: null, null2: null, string: 'default', int: 1, object: { first: 'default' }, array: [1] },
          },
        },
        outputs: {
          stringOutput: {
            type: 'string',
            value: "[coalesce(parameters('objectToTest').null1, parameters('objectToTest').null2, parameters('objectToTest').string)]",
          },
          intOutput: { type: 'int', value: "[coalesce(parameters('objectToTest').null1, parameters('objectToTest').null2, parameters('objectToTest').int)]" },
          objectOutput: {
            type: 'object',
            value: "[coalesce(parameters('objectToTest').null1, parameters('objectToTest').null2, parameters('objectToTest').object)]",
          },
          arrayOutput: {
            type: 'array',
            value: "[coalesce(parameters('objectToTest').null1, parameters('objectToTest').null2, parameters('objectToTest').array)]",
          },
          emptyOutput: { type: 'bool', value: "[empty(coalesce(parameters('objectToTest').null1, parameters('objectToTest').null2))]" },
        },
      }),
      outputs: { stringOutput: 'default', intOutput: 1, objectOutput: { first: 'default' }, arrayOutput: [1], emptyOutput: true },
    },
    {
      name: 'equals',
      template: template({
        parameters: {
          firstInt: { type: 'int', defaultValue: 1 },
          secondInt: { type: 'int', defaultValue: 1 },
          firstString: { type: 'string', defaultValue: 'demo' },
          secondString: { type: 'string', defaultValue: 'Demo' },
          firstArray: { type: 'array', defaultValue: ['a', 'b'] },
          secondArray: { type: 'array', defaultValue: ['a', 'b'] },
          firstObject: { type: 'object', defaultValue: { a: 'b' } },
          secondObject: { type: 'object', defaultValue: { a: 'b' } },
        },
        outputs: outputs('bool', {
          checkInts: "[equals(parameters('firstInt'), parameters('secondInt') )]",
          checkStrings: "[equals(parameters('firstString'), parameters('secondString'))]",
          checkArrays: "[equals(parameters('firstArray'), parameters('secondArray'))]",
          checkObjects: "[equals(parameters('firstObject'), parameters('secondObject'))]",
        }),
      }),
      // The page says "All the default values return True", its table too; 'demo' and 'Demo' differ in case,
      // and equals compares strings exactly (the string page: "The comparison is case-sensitive"), so
      // checkStrings is False here. See docs/clients.md (deployments) for this difference.
      outputs: { checkInts: true, checkStrings: false, checkArrays: true, checkObjects: true },
    },
    {
      name: 'not with equals',
      template: template({ outputs: outputs('bool', { checkNotEquals: '[not(equals(1, 2))]' }) }),
      outputs: { checkNotEquals: true },
    },
    { name: 'greater', template: ordering('greater'), outputs: { checkInts: false, checkStrings: true } },
    { name: 'greaterOrEquals', template: ordering('greaterOrEquals'), outputs: { checkInts: false, checkStrings: true } },
    { name: 'less', template: ordering('less'), outputs: { checkInts: true, checkStrings: false } },
    { name: 'lessOrEquals', template: ordering('lessOrEquals'), outputs: { checkInts: true, checkStrings: false } },
  ],
  invalid: [
    // greater of a number and a string
    [
      "[greater(1, 'a')]",
      "The template language function 'greater' expects two parameters of matching types: integers or strings. The provided values are of type 'Integer' and 'String'.",
    ],
  ],
};
