// Golden tests of the lambda functions against the examples of
// https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-lambda
import { describe } from 'node:test';
import { runPage } from './harness.js';
import { LAMBDA_PAGE } from './pages/lambda.js';

describe('template functions: lambda (the reference examples)', () => runPage(LAMBDA_PAGE));
