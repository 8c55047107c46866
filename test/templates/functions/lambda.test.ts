// Golden tests of the lambda functions against the examples of
// https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-lambda
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertInvalidVariable, outputValue, runPage } from './harness.js';
import { LAMBDA_PAGE } from './pages/lambda.js';

describe('template functions: lambda (the reference examples)', () => runPage(LAMBDA_PAGE));

describe('template functions: lambda errors and bounds', () => {
  test('a lambda outside the functions that take one', () =>
    assertInvalidVariable("[lambda('x', lambdaVariables('x'))]", "The template function 'lambda' is not expected at this location."));
  test('lambdaVariables outside a lambda', () =>
    assertInvalidVariable("[lambdaVariables('x')]", "The template function 'lambdaVariables' is not expected at this location."));
  test('a variable the lambda does not name', () =>
    assertInvalidVariable("[map(createArray(1), lambda('x', lambdaVariables('y')))]", "The lambda variable 'y' is not defined."));
  test("filter's lambda must answer a boolean", () =>
    assertInvalidVariable(
      "[filter(createArray(1), lambda('x', 1))]",
      "The lambda function given to the template language function 'filter' must return a boolean. It returned a value of type 'Integer'.",
    ));
  test('a value where the lambda goes', () =>
    assertInvalidVariable(
      '[map(createArray(1), 2)]',
      "The template language function 'map' expects its second parameter to be a lambda function. The provided value is of type 'Integer'.",
    ));
  test('sort takes a lambda of two variables', () =>
    assertInvalidVariable("[sort(createArray(2, 1), lambda('a', true()))]", 'must have 2 lambda variables; it has 1.'));
  test('nested lambdas see the outer variable', () =>
    assert.deepEqual(
      outputValue("[map(createArray(1, 2), lambda('a', map(createArray(10, 20), lambda('b', add(lambdaVariables('a'), lambdaVariables('b'))))))]", 'array'),
      [
        [11, 21],
        [12, 22],
      ],
    ));
  test('lambdas spend the deployment budget: ten thousand by ten thousand calls end in its error, quickly', () => {
    const started = Date.now();
    assertInvalidVariable(
      "[map(range(0, 10000), lambda('i', map(range(0, 10000), lambda('j', add(lambdaVariables('i'), lambdaVariables('j'))))))]",
      /The template language evaluation (work|time \(milliseconds\)) limit exceeded/,
    );
    assert.ok(Date.now() - started < 5000, `took ${Date.now() - started} ms`);
  });
});
