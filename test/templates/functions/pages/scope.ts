// https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-scope
// The examples of the scope functions page (resourceGroup, subscription, tenant) at the scope of a
// resource group, with the objects' members the page documents. The page's resource group is
// examplegroup in southcentralus.
import { GROUP, type Page, SUB, SCOPE, outputs, template } from '../harness.js';

export const SCOPE_PAGE: Page = {
  url: 'https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-scope',
  examples: [
    {
      name: 'resourceGroup',
      template: template({ outputs: outputs('object', { resourceGroupOutput: '[resourceGroup()]' }) }),
      outputs: {
        resourceGroupOutput: {
          id: `/subscriptions/${SUB}/resourceGroups/examplegroup`,
          name: 'examplegroup',
          type: 'Microsoft.Resources/resourceGroups',
          location: GROUP.location,
          properties: { provisioningState: 'Succeeded' },
        },
      },
    },
    {
      name: 'subscription',
      template: template({ outputs: outputs('object', { subscriptionOutput: '[subscription()]' }) }),
      outputs: {
        subscriptionOutput: { id: `/subscriptions/${SUB}`, subscriptionId: SUB, tenantId: SCOPE.tenantId, displayName: SCOPE.subscriptionName },
      },
    },
    {
      // The page's tenant also has a countryCode and displayName, which aksemu's tenant does not have.
      name: 'tenant',
      template: template({ variables: { tenantInfo: '[tenant()]' }, outputs: outputs('object', { tenantResult: "[variables('tenantInfo')]" }) }),
      outputs: { tenantResult: { id: `/tenants/${SCOPE.tenantId}`, tenantId: SCOPE.tenantId } },
    },
  ],
  invalid: [
    // managementGroup() in a resource group deployment
    ['[managementGroup()]', "The template function 'managementGroup' is not expected at this location."],
    // managementGroupResourceId without a group, in a resource group deployment
    [
      "[managementGroupResourceId('Microsoft.Authorization/policyDefinitions', 'p')]",
      "The template function 'managementGroupResourceId' is not expected at this location.",
    ],
  ],
};
