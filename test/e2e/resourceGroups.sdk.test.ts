// The official @azure/arm-resources SDK against a real server: resource groups end to end, with
// the SDK's own LRO poller, auth failures, strict/loose bodies and a restart.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { ResourceManagementClient } from '@azure/arm-resources';
import type { TokenCredential } from '@azure/core-auth';
import { RestError } from '@azure/core-rest-pipeline';
import { ARM_SCOPE, bearer, EmulatorCredential, https, removeHome, startTestServer, tempHome, type TestServer } from './harness.js';

function sdk(server: TestServer, credential: TokenCredential = new EmulatorCredential(server)): ResourceManagementClient {
  return new ResourceManagementClient(credential, server.identity.subscriptionId, {
    endpoint: server.url,
    credentialScopes: [ARM_SCOPE],
    // The SDK's own pipeline: trust our CA for its requests only.
    tlsOptions: { ca: server.caPem },
    retryOptions: { maxRetries: 0 },
  });
}

async function restError(promise: Promise<unknown>): Promise<RestError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof RestError, `expected a RestError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected the call to fail');
}

describe('resource groups through @azure/arm-resources', () => {
  let home: string;
  let server: TestServer;

  beforeEach(async () => {
    home = tempHome();
    server = await startTestServer({ home });
  });

  afterEach(async () => {
    await server.close();
    removeHome(home);
  });

  test('create, get, exists, list, update tags, delete with the LRO poller', async () => {
    const client = sdk(server);
    const created = await client.resourceGroups.createOrUpdate('myResourceGroup', { location: 'eastus', tags: { env: 'test' } });
    assert.equal(created.id, `/subscriptions/${server.identity.subscriptionId}/resourceGroups/myResourceGroup`);
    assert.equal(created.name, 'myResourceGroup');
    assert.equal(created.type, 'Microsoft.Resources/resourceGroups');
    assert.equal(created.location, 'eastus');
    assert.deepEqual(created.tags, { env: 'test' });
    assert.equal(created.properties?.provisioningState, 'Succeeded');

    // Lookups are case-insensitive; the stored casing comes back.
    const got = await client.resourceGroups.get('MYRESOURCEGROUP');
    assert.equal(got.name, 'myResourceGroup');
    assert.equal((await client.resourceGroups.checkExistence('myresourcegroup')).body, true);
    assert.equal((await client.resourceGroups.checkExistence('nope')).body, false);

    await client.resourceGroups.createOrUpdate('second', { location: 'West Europe' });
    const names: string[] = [];
    for await (const group of client.resourceGroups.list()) names.push(group.name!);
    assert.deepEqual(names.sort(), ['myResourceGroup', 'second']);
    const tagged: string[] = [];
    for await (const group of client.resourceGroups.list({ filter: "tagName eq 'env' and tagValue eq 'test'" })) tagged.push(group.name!);
    assert.deepEqual(tagged, ['myResourceGroup']);

    const updated = await client.resourceGroups.update('myResourceGroup', { tags: { env: 'prod' } });
    assert.deepEqual(updated.tags, { env: 'prod' });

    await client.resourceGroups.beginDeleteAndWait('myResourceGroup', { updateIntervalInMs: 20 });
    const notFound = await restError(client.resourceGroups.get('myResourceGroup'));
    assert.equal(notFound.statusCode, 404);
    assert.equal(notFound.code, 'ResourceGroupNotFound');
    assert.equal(notFound.message, "Resource group 'myResourceGroup' could not be found.");
  });

  test('a token the server did not sign is 401 InvalidAuthenticationToken; no token is 401 AuthenticationFailed', async () => {
    const forged: TokenCredential = { getToken: async () => ({ token: 'e30.e30.', expiresOnTimestamp: Date.now() + 3_600_000 }) };
    const err = await restError(sdk(server, forged).resourceGroups.get('any'));
    assert.equal(err.statusCode, 401);
    assert.equal(err.code, 'InvalidAuthenticationToken');

    const res = await https(server, 'GET', `/subscriptions/${server.identity.subscriptionId}/resourcegroups?api-version=2021-04-01`);
    assert.equal(res.status, 401);
    assert.equal(res.json.error.code, 'AuthenticationFailed');
    assert.equal(res.json.error.message, "Authentication failed. The 'Authorization' header is missing.");
    assert.match(String(res.headers['www-authenticate']), /^Bearer authorization_uri="https:\/\/127\.0\.0\.1:\d+\/adfs", error="invalid_token"/);
  });

  test('invalid JSON is 400 InvalidRequestContent', async () => {
    const res = await https(server, 'PUT', `/subscriptions/${server.identity.subscriptionId}/resourcegroups/rg1?api-version=2021-04-01`, {
      headers: { ...(await bearer(server)), 'content-type': 'application/json' },
      body: '{"location": "eastus",',
    });
    assert.equal(res.status, 400);
    assert.equal(res.json.error.code, 'InvalidRequestContent');
    assert.match(res.json.error.message, /^The request content was invalid and could not be deserialized: /);
  });

  test('an unknown property is rejected, naming it', async () => {
    const res = await https(server, 'PUT', `/subscriptions/${server.identity.subscriptionId}/resourcegroups/rg1?api-version=2021-04-01`, {
      headers: { ...(await bearer(server)), 'content-type': 'application/json' },
      body: JSON.stringify({ location: 'eastus', colour: 'blue' }),
    });
    assert.equal(res.status, 400);
    assert.equal(res.json.error.code, 'InvalidRequestContent');
    assert.match(res.json.error.message, /Could not find member 'colour' on object of type 'ResourceGroup'\. Path 'colour'\./);
    assert.equal(res.json.error.details[0].target, 'colour');
  });

  test('restart keeps the groups, the credentials and the CA', async () => {
    const before = sdk(server);
    await before.resourceGroups.createOrUpdate('keepMe', { location: 'eastus', tags: { a: 'b' } });
    const { identity, caPem } = server;
    await server.close();

    server = await startTestServer({ home });
    assert.deepEqual(server.identity, identity);
    assert.equal(server.caPem, caPem);
    const after = await sdk(server).resourceGroups.get('keepme');
    assert.equal(after.name, 'keepMe');
    assert.deepEqual(after.tags, { a: 'b' });
  });
});

describe('loose mode through the SDK server', () => {
  test('an unknown property is accepted and dropped', async () => {
    const home = tempHome();
    const server = await startTestServer({ home, loose: true });
    try {
      const res = await https(server, 'PUT', `/subscriptions/${server.identity.subscriptionId}/resourcegroups/rg1?api-version=2021-04-01`, {
        headers: { ...(await bearer(server)), 'content-type': 'application/json' },
        body: JSON.stringify({ location: 'eastus', colour: 'blue' }),
      });
      assert.equal(res.status, 201);
      assert.equal(res.json.colour, undefined);
      const group = await sdk(server).resourceGroups.get('rg1');
      assert.equal(group.location, 'eastus');
    } finally {
      await server.close();
      removeHome(home);
    }
  });
});
