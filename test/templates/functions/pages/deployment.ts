// https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-deployment
// The examples of the deployment functions page and the values it documents. environment() is
// aksemu's own cloud (its endpoints are this server's): the object has the page's members, with
// aksemu's values. deployer() needs the deployment's principal, which the engine supplies.
import { type Page, outputs, template } from '../harness.js';

export const DEPLOYMENT_PAGE: Page = {
  url: 'https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-deployment',
  examples: [
    {
      name: 'parameters',
      template: template({
        parameters: {
          stringParameter: { type: 'string', defaultValue: 'option 1' },
          intParameter: { type: 'int', defaultValue: 1 },
          objectParameter: { type: 'object', defaultValue: { one: 'a', two: 'b' } },
          arrayParameter: { type: 'array', defaultValue: [1, 2, 3] },
          crossParameter: { type: 'string', defaultValue: "[parameters('stringParameter')]" },
        },
        variables: {},
        outputs: {
          stringOutput: { type: 'string', value: "[parameters('stringParameter')]" },
          intOutput: { type: 'int', value: "[parameters('intParameter')]" },
          objectOutput: { type: 'object', value: "[parameters('objectParameter')]" },
          arrayOutput: { type: 'array', value: "[parameters('arrayParameter')]" },
          crossOutput: { type: 'string', value: "[parameters('crossParameter')]" },
        },
      }),
      outputs: { stringOutput: 'option 1', intOutput: 1, objectOutput: { one: 'a', two: 'b' }, arrayOutput: [1, 2, 3], crossOutput: 'option 1' },
    },
    {
      name: 'variables',
      template: template({
        parameters: {},
        variables: { var1: 'myVariable', var2: [1, 2, 3, 4], var3: "[ variables('var1') ]", var4: { property1: 'value1', property2: 'value2' } },
        outputs: {
          exampleOutput1: { type: 'string', value: "[variables('var1')]" },
          exampleOutput2: { type: 'array', value: "[variables('var2')]" },
          exampleOutput3: { type: 'string', value: "[variables('var3')]" },
          exampleOutput4: { type: 'object', value: "[variables('var4')]" },
        },
      }),
      outputs: {
        exampleOutput1: 'myVariable',
        exampleOutput2: [1, 2, 3, 4],
        exampleOutput3: 'myVariable',
        exampleOutput4: { property1: 'value1', property2: 'value2' },
      },
    },
    {
      // The page's object: {name, properties: {template, templateHash, parameters, mode, provisioningState}}.
      name: 'deployment',
      template: template({
        outputs: outputs('object', { deploymentOutput: '[deployment()]' }),
      }),
      outputs: {
        deploymentOutput: {
          name: 'functions',
          properties: {
            template: {
              $schema: 'https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#',
              contentVersion: '1.0.0.0',
              resources: [],
              outputs: { deploymentOutput: { type: 'Object', value: '[deployment()]' } },
            },
            templateHash: /^\d+$/,
            parameters: {},
            mode: 'Incremental',
            provisioningState: 'Accepted',
          },
        },
      },
    },
  ],
  invalid: [
    // deployer() where the deployment does not give its principal
    ['[deployer()]', "The template function 'deployer' cannot be evaluated here: aksemu does not know the principal that runs this deployment."],
  ],
};
