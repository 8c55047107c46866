// Golden tests of the string functions against the examples of
// https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-string
import { describe } from 'node:test';
import { runPage } from './harness.js';
import { STRING_PAGE } from './pages/string.js';

describe('template functions: string (the reference examples)', () => runPage(STRING_PAGE));
