// Golden tests of the lambda functions against the examples of
// https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-lambda
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertInvalidVariable, outputValue, runPage } from './harness.js';
import { LAMBDA_PAGE } from './pages/lambda.js';

describe('template functions: lambda (the reference examples)', () => runPage(LAMBDA_PAGE));

describe('template functions: lambda errors and bounds', () => {
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
