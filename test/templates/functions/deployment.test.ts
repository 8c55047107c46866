// Golden tests of the deployment functions against the examples of
// https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-deployment
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SCOPE, outputValue, runPage } from './harness.js';
import { DEPLOYMENT_PAGE } from './pages/deployment.js';

describe('template functions: deployment (the reference examples)', () => runPage(DEPLOYMENT_PAGE));

describe('template functions: environment', () => {
  test('environment() has the members the page lists, with this server as its endpoints', () => {
    const env = outputValue('[environment()]', 'object') as Record<string, unknown>;
    const members = ['name', 'gallery', 'graph', 'portal', 'graphAudience', 'activeDirectoryDataLake', 'batch', 'media', 'sqlManagement', 'vmImageAliasDoc'];
    assert.deepEqual(Object.keys(env).sort(), [...members, 'resourceManager', 'authentication', 'suffixes'].sort());
    assert.equal(env['resourceManager'], `${SCOPE.baseUrl}/`);
    assert.equal((env['suffixes'] as Record<string, unknown>)['storage'], 'core.windows.net');
  });
});
