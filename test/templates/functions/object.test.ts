// Golden tests of the object functions against the examples of
// https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-object
import { describe, test } from 'node:test';
import { assertInvalidVariable, runPage } from './harness.js';
import { OBJECT_PAGE } from './pages/object.js';

describe('template functions: object (the reference examples)', () => runPage(OBJECT_PAGE));

describe('template functions: object errors', () => {
  test('shallowMerge of something other than objects', () =>
    assertInvalidVariable(
      "[shallowMerge(createArray(createObject('a', 1), 2))]",
      "The template language function 'shallowMerge' expects an array of objects. The provided array contains a value of type 'Integer'.",
    ));
  test('json of text that is not JSON', () => assertInvalidVariable("[json('{a')]", "The template language function 'json' parameter is not valid JSON"));
});
