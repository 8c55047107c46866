// Golden tests of the scope functions against the examples of
// https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-scope
import { describe } from 'node:test';
import { runPage } from './harness.js';
import { SCOPE_PAGE } from './pages/scope.js';

describe('template functions: scope (the reference examples)', () => runPage(SCOPE_PAGE));
