// Golden tests of the resource functions against the examples of
// https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-resource
import { describe } from 'node:test';
import { runPage } from './harness.js';
import { RESOURCE_PAGE } from './pages/resource.js';

describe('template functions: resource (the reference examples)', () => runPage(RESOURCE_PAGE));
