// Golden tests of the string functions against the examples of
// https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-string
import { describe, test } from 'node:test';
import { assertInvalidVariable, runPage } from './harness.js';
import { STRING_PAGE } from './pages/string.js';

describe('template functions: string (the reference examples)', () => runPage(STRING_PAGE));

describe('template functions: string errors', () => {
  test("substring beyond the string: the page's own error", () =>
    assertInvalidVariable(
      "[substring('1234567890', 0, 11)]",
      "The index and length parameters must refer to a location within the string. The index parameter: '0', the length parameter: '11', the length of the string parameter: '10'.",
    ));
  test('newGuid outside a parameter default', () =>
    assertInvalidVariable(
      '[newGuid()]',
      "The template function 'newGuid' is not expected at this location. The function can only be used in the default value of a parameter.",
    ));
  test('padLeft with a padding of two characters', () =>
    assertInvalidVariable("[padLeft('1', 3, '00')]", "The template language function 'padLeft' expects its third parameter to be a single character."));
  test('indexOf of a number in a string', () =>
    assertInvalidVariable(
      "[indexOf('abc', 1)]",
      "The template language function 'indexOf' expects its parameter to be of type 'String'. The provided value is of type 'Integer'.",
    ));
});
