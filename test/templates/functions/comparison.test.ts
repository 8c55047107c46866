// Golden tests of the comparison functions against the examples of
// https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-comparison
import { describe, test } from 'node:test';
import { assertInvalidVariable, runPage } from './harness.js';
import { COMPARISON_PAGE } from './pages/comparison.js';

describe('template functions: comparison (the reference examples)', () => runPage(COMPARISON_PAGE));

describe('template functions: comparison errors', () => {
  test('greater of a number and a string', () =>
    assertInvalidVariable(
      "[greater(1, 'a')]",
      "The template language function 'greater' expects two parameters of matching types: integers or strings. The provided values are of type 'Integer' and 'String'.",
    ));
});
