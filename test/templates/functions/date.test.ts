// Golden tests of the date functions against the examples of
// https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-date
import { describe } from 'node:test';
import { runPage } from './harness.js';
import { DATE_PAGE } from './pages/date.js';

describe('template functions: date (the reference examples)', () => runPage(DATE_PAGE));
