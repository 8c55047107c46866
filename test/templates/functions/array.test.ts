// Golden tests of the array functions against the examples of
// https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-array
import { describe } from 'node:test';
import { runPage } from './harness.js';
import { ARRAY_PAGE } from './pages/array.js';

describe('template functions: array (the reference examples)', () => runPage(ARRAY_PAGE));
