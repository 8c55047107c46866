// Golden tests of the array functions against the examples of
// https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-array
import { describe, test } from 'node:test';
import { assertInvalidVariable, runPage } from './harness.js';
import { ARRAY_PAGE } from './pages/array.js';

describe('template functions: array (the reference examples)', () => runPage(ARRAY_PAGE));

describe('template functions: array errors', () => {
  test('indexFromEnd past the start', () =>
    assertInvalidVariable(
      "[indexFromEnd(createArray('a'), 2)]",
      "The template language function 'indexFromEnd' expects its second parameter to be from 1 to the length of the array, 1. The provided value is '2'.",
    ));
  test('range beyond its count', () =>
    assertInvalidVariable('[range(0, 10001)]', "The template language function 'range' expects its count to be between 0 and 10000."));
  test('tryGet follows several keys', () => assertInvalidVariable("[tryGet(createObject('a', createObject('b', 1)), 'a', 'b', 'c').x]", /can't be evaluated/));
});
