// Golden tests of the numeric functions against the examples of
// https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-numeric
import { describe, test } from 'node:test';
import { assertInvalidVariable, runPage } from './harness.js';
import { NUMERIC_PAGE } from './pages/numeric.js';

describe('template functions: numeric (the reference examples)', () => runPage(NUMERIC_PAGE));

describe('template functions: numeric errors', () => {
  test('div by zero', () => assertInvalidVariable('[div(1, 0)]', "The template language function 'div' cannot divide by zero."));
  test('float of text that is not a number', () =>
    assertInvalidVariable("[float('three')]", "The template language function 'float' cannot convert 'three' to a floating point number."));
});
