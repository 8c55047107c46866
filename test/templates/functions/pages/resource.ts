// https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-resource
// The examples of the resource functions page that need no deployed resource (Azure/azure-docs-json-samples,
// azure-resource-manager/functions/resource), with the values its output tables document ({current-sub-id}
// is the test's subscription, examplegroup its group). reference() and list*() read deployed resources:
// the deployment tests cover them.
import { type Page, SUB, outputs, template } from '../harness.js';

const RG = `/subscriptions/${SUB}/resourceGroups/examplegroup`;

export const RESOURCE_PAGE: Page = {
  url: 'https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-resource',
  examples: [
    {
      name: 'resourceId',
      template: template({
        outputs: outputs('string', {
          sameRGOutput: "[resourceId('Microsoft.Storage/storageAccounts','examplestorage')]",
          differentRGOutput: "[resourceId('otherResourceGroup', 'Microsoft.Storage/storageAccounts','examplestorage')]",
          differentSubOutput:
            "[resourceId('11111111-1111-1111-1111-111111111111', 'otherResourceGroup', 'Microsoft.Storage/storageAccounts','examplestorage')]",
          nestedResourceOutput: "[resourceId('Microsoft.SQL/servers/databases', 'serverName', 'databaseName')]",
        }),
      }),
      outputs: {
        sameRGOutput: `${RG}/providers/Microsoft.Storage/storageAccounts/examplestorage`,
        differentRGOutput: `/subscriptions/${SUB}/resourceGroups/otherResourceGroup/providers/Microsoft.Storage/storageAccounts/examplestorage`,
        differentSubOutput:
          '/subscriptions/11111111-1111-1111-1111-111111111111/resourceGroups/otherResourceGroup/providers/Microsoft.Storage/storageAccounts/examplestorage',
        nestedResourceOutput: `${RG}/providers/Microsoft.SQL/servers/serverName/databases/databaseName`,
      },
    },
    {
      name: 'extensionResourceId of a resource group lock',
      template: template({
        parameters: { lockName: { type: 'string' } },
        outputs: outputs('string', { lockResourceId: "[extensionResourceId(resourceGroup().Id , 'Microsoft.Authorization/locks', parameters('lockName'))]" }),
      }),
      parameters: { lockName: 'lock1' },
      outputs: { lockResourceId: `${RG}/providers/Microsoft.Authorization/locks/lock1` },
    },
    {
      name: 'pickZones',
      template: template({
        outputs: outputs('array', {
          supported: "[pickZones('Microsoft.Compute', 'virtualMachines', 'westus2')]",
          notSupportedRegion: "[pickZones('Microsoft.Compute', 'virtualMachines', 'westus')]",
          notSupportedType: "[pickZones('Microsoft.Cdn', 'profiles', 'westus2')]",
        }),
      }),
      outputs: { supported: ['1'], notSupportedRegion: [], notSupportedType: [] },
    },
    {
      // The page's role assignment reads the built-in roles' ids with subscriptionResourceId.
      name: 'subscriptionResourceId',
      template: template({
        variables: {
          Owner: "[subscriptionResourceId('Microsoft.Authorization/roleDefinitions', '8e3af657-a8ff-443c-a75c-2fe8c4bcb635')]",
          Contributor: "[subscriptionResourceId('Microsoft.Authorization/roleDefinitions', 'b24988ac-6180-42a0-ab88-20f7382dd24c')]",
        },
        outputs: outputs('string', { owner: "[variables('Owner')]", contributor: "[variables('Contributor')]" }),
      }),
      outputs: {
        owner: `/subscriptions/${SUB}/providers/Microsoft.Authorization/roleDefinitions/8e3af657-a8ff-443c-a75c-2fe8c4bcb635`,
        contributor: `/subscriptions/${SUB}/providers/Microsoft.Authorization/roleDefinitions/b24988ac-6180-42a0-ab88-20f7382dd24c`,
      },
    },
    {
      // The page's policy assignment: its scope and its built-in definition's id.
      name: 'tenantResourceId',
      template: template({
        parameters: { policyDefinitionID: { type: 'string', defaultValue: '0a914e76-4921-4c19-b460-a2d36003525a' } },
        outputs: outputs('string', {
          scope: "[subscriptionResourceId('Microsoft.Resources/resourceGroups', resourceGroup().name)]",
          policyDefinitionId: "[tenantResourceId('Microsoft.Authorization/policyDefinitions', parameters('policyDefinitionID'))]",
        }),
      }),
      outputs: {
        scope: `/subscriptions/${SUB}/providers/Microsoft.Resources/resourceGroups/examplegroup`,
        policyDefinitionId: '/providers/Microsoft.Authorization/policyDefinitions/0a914e76-4921-4c19-b460-a2d36003525a',
      },
    },
    {
      // The page's management group example, with the group named (a resource group deployment has none of its own).
      name: 'managementGroupResourceId',
      template: template({
        variables: { mgScope: "[tenantResourceId('Microsoft.Management/managementGroups', 'targetMG')]", policyDefinitionName: 'LocationRestriction' },
        outputs: outputs('string', {
          scope: "[variables('mgScope')]",
          policyDefinitionId: "[managementGroupResourceId('targetMG', 'Microsoft.Authorization/policyDefinitions', variables('policyDefinitionName'))]",
        }),
      }),
      outputs: {
        scope: '/providers/Microsoft.Management/managementGroups/targetMG',
        policyDefinitionId: '/providers/Microsoft.Management/managementGroups/targetMG/providers/Microsoft.Authorization/policyDefinitions/LocationRestriction',
      },
    },
  ],
};
