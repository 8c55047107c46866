// Golden tests of the cidr functions against the examples of
// https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-cidr
import { describe } from 'node:test';
import { runPage } from './harness.js';
import { CIDR_PAGE } from './pages/cidr.js';

describe('template functions: cidr (the reference examples)', () => runPage(CIDR_PAGE));
