// https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-logical
// The examples of the logical functions page (Azure/azure-docs-json-samples,
// azure-resource-manager/functions/logical) and the values its output tables document.
import { type Page, outputs, template } from '../harness.js';

export const LOGICAL_PAGE: Page = {
  url: 'https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-logical',
  examples: [
    {
      name: 'and, or and not',
      template: template({
        outputs: outputs('bool', {
          andExampleOutput: "[and(bool('true'), bool('false'))]",
          orExampleOutput: "[or(bool('true'), bool('false'))]",
          notExampleOutput: "[not(bool('true'))]",
        }),
      }),
      outputs: { andExampleOutput: false, orExampleOutput: true, notExampleOutput: false },
    },
    {
      name: 'bool',
      template: template({
        outputs: outputs('bool', { trueString: "[bool('true')]", falseString: "[bool('false')]", trueInt: '[bool(1)]', falseInt: '[bool(0)]' }),
      }),
      outputs: { trueString: true, falseString: false, trueInt: true, falseInt: false },
    },
    { name: 'false', template: template({ outputs: outputs('bool', { falseOutput: '[false()]' }) }), outputs: { falseOutput: false } },
    {
      name: 'if',
      template: template({
        outputs: {
          yesOutput: { type: 'string', value: "[if(equals('a', 'a'), 'yes', 'no')]" },
          noOutput: { type: 'string', value: "[if(equals('a', 'b'), 'yes', 'no')]" },
          objectOutput: { type: 'object', value: "[if(equals('a', 'a'), json('{\"test\": \"value1\"}'), json('null'))]" },
        },
      }),
      outputs: { yesOutput: 'yes', noOutput: 'no', objectOutput: { test: 'value1' } },
    },
    { name: 'true', template: template({ outputs: outputs('bool', { trueOutput: '[true()]' }) }), outputs: { trueOutput: true } },
  ],
};
