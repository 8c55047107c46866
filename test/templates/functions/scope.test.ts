// Golden tests of the scope functions against the examples of
// https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-scope
import { describe, test } from 'node:test';
import { assertInvalidVariable, runPage } from './harness.js';
import { SCOPE_PAGE } from './pages/scope.js';

describe('template functions: scope (the reference examples)', () => runPage(SCOPE_PAGE));

describe('template functions: scope errors', () => {
  test('managementGroup() in a resource group deployment', () =>
    assertInvalidVariable('[managementGroup()]', "The template function 'managementGroup' is not expected at this location."));
  test('managementGroupResourceId without a group, in a resource group deployment', () =>
    assertInvalidVariable(
      "[managementGroupResourceId('Microsoft.Authorization/policyDefinitions', 'p')]",
      "The template function 'managementGroupResourceId' is not expected at this location.",
    ));
});
