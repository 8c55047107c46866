// Golden tests of the object functions against the examples of
// https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-object
import { describe } from 'node:test';
import { runPage } from './harness.js';
import { OBJECT_PAGE } from './pages/object.js';

describe('template functions: object (the reference examples)', () => runPage(OBJECT_PAGE));
