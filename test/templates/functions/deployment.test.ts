// Golden tests of the deployment functions against the examples of
// https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-deployment
import { describe } from 'node:test';
import { runPage } from './harness.js';
import { DEPLOYMENT_PAGE } from './pages/deployment.js';

describe('template functions: deployment (the reference examples)', () => runPage(DEPLOYMENT_PAGE));
