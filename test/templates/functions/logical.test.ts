// Golden tests of the logical functions against the examples of
// https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-logical
import { describe } from 'node:test';
import { runPage } from './harness.js';
import { LOGICAL_PAGE } from './pages/logical.js';

describe('template functions: logical (the reference examples)', () => runPage(LOGICAL_PAGE));
