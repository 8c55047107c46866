// Golden tests of the comparison functions against the examples of
// https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-comparison
import { describe } from 'node:test';
import { runPage } from './harness.js';
import { COMPARISON_PAGE } from './pages/comparison.js';

describe('template functions: comparison (the reference examples)', () => runPage(COMPARISON_PAGE));
