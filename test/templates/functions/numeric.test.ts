// Golden tests of the numeric functions against the examples of
// https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-numeric
import { describe } from 'node:test';
import { runPage } from './harness.js';
import { NUMERIC_PAGE } from './pages/numeric.js';

describe('template functions: numeric (the reference examples)', () => runPage(NUMERIC_PAGE));
