// The pipeline's steps in order, each failing the way ARM fails, through the real server (inject).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TokenAuthority } from '../../src/arm/auth.js';
import { defaultProviders } from '../../src/providers/index.js';
import { removeHome, startTestServer, tempHome, type TestServer } from '../e2e/harness.js';
import { arm, tokenFor } from './helpers.js';
import { widgetsProvider } from './widgets.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('ARM pipeline', () => {
  let home: string;
  let server: TestServer;
  let groups: string;

  before(async () => {
    home = tempHome();
    server = await startTestServer({ home, providers: [...defaultProviders(), widgetsProvider()] });
    groups = `/subscriptions/${server.identity.subscriptionId}/resourcegroups`;
  });

  after(async () => {
    await server.close();
    removeHome(home);
  });

  describe('1. request ids', () => {
    test('every answer carries x-ms-request-id; correlation and client ids are echoed', async () => {
      const res = await arm(server, 'GET', `${groups}?api-version=2021-04-01`, {
        headers: { 'x-ms-correlation-request-id': 'corr-1', 'x-ms-client-request-id': 'client-1' },
      });
      assert.equal(res.status, 200);
      assert.match(String(res.headers['x-ms-request-id']), UUID);
      assert.equal(res.headers['x-ms-correlation-request-id'], 'corr-1');
      assert.equal(res.headers['x-ms-client-request-id'], 'client-1');
      const failed = await arm(server, 'GET', groups, { token: false });
      assert.match(String(failed.headers['x-ms-request-id']), UUID);
      assert.equal(failed.headers['x-ms-correlation-request-id'], failed.headers['x-ms-request-id']);
    });
  });

  describe('2. authentication', () => {
    test('no Authorization header', async () => {
      const res = await arm(server, 'GET', groups, { token: false });
      assert.equal(res.status, 401);
      assert.deepEqual(res.body, { error: { code: 'AuthenticationFailed', message: "Authentication failed. The 'Authorization' header is missing." } });
      // inject's Host (localhost:80) is not ours, so the challenge names the server's own URL.
      assert.ok(String(res.headers['www-authenticate']).startsWith(`Bearer authorization_uri="${server.url}/adfs", error="invalid_token"`));
    });

    test('not a bearer header', async () => {
      const res = await arm(server, 'GET', groups, { headers: { authorization: 'Basic dXNlcjpwdw==' } });
      assert.equal(res.status, 401);
      assert.equal(res.body.error.code, 'AuthenticationFailed');
      assert.match(res.body.error.message, /invalid format/);
    });

    test('a token that is not ours', async () => {
      for (const token of ['garbage', 'e30.e30.', `${(await tokenFor(server)).slice(0, -4)}AAAA`]) {
        const res = await arm(server, 'GET', groups, { token });
        assert.equal(res.status, 401, token);
        assert.deepEqual(res.body, { error: { code: 'InvalidAuthenticationToken', message: 'The access token is invalid.' } });
      }
    });

    test('an expired token', async () => {
      const authority = await TokenAuthority.load(server.store, server.identity.tenantId);
      const token = await authority.issue({ appId: 'a', objectId: 'o', audience: 'https://management.azure.com/', lifetimeSeconds: -3600 });
      const res = await arm(server, 'GET', groups, { token });
      assert.equal(res.status, 401);
      assert.equal(res.body.error.code, 'ExpiredAuthenticationToken');
      assert.match(res.body.error.message, /^The access token expiry UTC time '\d+\/\d+\/\d{4} \d+:\d\d:\d\d [AP]M' is earlier than current UTC time/);
    });

    test('a token for another audience, or from another tenant', async () => {
      const authority = await TokenAuthority.load(server.store, server.identity.tenantId);
      const vault = await authority.issue({ appId: 'a', objectId: 'o', audience: 'https://vault.azure.net', lifetimeSeconds: 600 });
      const res = await arm(server, 'GET', groups, { token: vault });
      assert.equal(res.status, 401);
      assert.equal(res.body.error.code, 'InvalidAuthenticationTokenAudience');
      assert.match(res.body.error.message, /wrong audience or resource 'https:\/\/vault\.azure\.net'/);

      const stranger = await TokenAuthority.load(server.store, '11111111-1111-1111-1111-111111111111');
      const foreign = await stranger.issue({ appId: 'a', objectId: 'o', audience: 'https://management.azure.com/', lifetimeSeconds: 600 });
      const res2 = await arm(server, 'GET', groups, { token: foreign });
      assert.equal(res2.status, 401);
      assert.equal(res2.body.error.code, 'InvalidAuthenticationTokenTenant');
    });
  });

  describe('3. api-version present', () => {
    test('missing', async () => {
      const res = await arm(server, 'GET', groups);
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, {
        error: { code: 'MissingApiVersionParameter', message: 'The api-version query parameter (?api-version=) is required for all requests.' },
      });
    });
  });

  describe('4. route', () => {
    test('an unknown namespace, an unknown type, an unknown path, a wrong method', async () => {
      const sub = `/subscriptions/${server.identity.subscriptionId}`;
      const ns = await arm(server, 'GET', `${sub}/resourceGroups/rg/providers/Microsoft.Nope/things/x?api-version=2022-01-01`);
      assert.equal(ns.status, 400);
      assert.deepEqual(ns.body.error, { code: 'InvalidResourceNamespace', message: "The resource namespace 'Microsoft.Nope' is invalid." });
      const type = await arm(server, 'GET', `${sub}/resourceGroups/rg/providers/Test.Widgets/gadgets/x?api-version=2023-01-01`);
      assert.equal(type.status, 400);
      assert.equal(type.body.error.code, 'InvalidResourceType');
      assert.equal(type.body.error.message, "The resource type 'gadgets' could not be found in the namespace 'Test.Widgets' for api version '2023-01-01'.");
      const path = await arm(server, 'GET', '/nowhere/at/all?api-version=2021-04-01');
      assert.equal(path.status, 404);
      assert.equal(path.body.error.code, 'NotFound');
      const method = await arm(server, 'POST', `${groups}/rg?api-version=2021-04-01`);
      assert.equal(method.status, 405);
      assert.equal(method.body.error.code, 'MethodNotAllowed');
    });

    test('double and trailing slashes are tolerated', async () => {
      const res = await arm(server, 'GET', `/subscriptions/${server.identity.subscriptionId}//resourcegroups/?api-version=2021-04-01`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { value: [] });
    });
  });

  describe('5. scope', () => {
    test('an unknown subscription', async () => {
      const res = await arm(server, 'GET', '/subscriptions/00000000-0000-0000-0000-00000000dead/resourcegroups?api-version=2021-04-01');
      assert.equal(res.status, 404);
      assert.deepEqual(res.body.error, {
        code: 'SubscriptionNotFound',
        message: "The subscription '00000000-0000-0000-0000-00000000dead' could not be found.",
      });
    });
  });

  describe('6. api-version served', () => {
    test("Microsoft.Resources' wording and a provider's wording", async () => {
      const rg = await arm(server, 'GET', `${groups}?api-version=2099-01-01`);
      assert.equal(rg.status, 400);
      assert.equal(rg.body.error.code, 'InvalidApiVersionParameter');
      assert.match(rg.body.error.message, /^The api-version '2099-01-01' is invalid\. The supported versions are '2025-04-01,.*,2014-04'\.$/);

      await arm(server, 'PUT', `${groups}/widgetsRg?api-version=2021-04-01`, { body: { location: 'westus2' } });
      const widget = await arm(server, 'PUT', `${groups}/widgetsRg/providers/Test.Widgets/widgets/w?api-version=2099-01-01`, {
        body: { location: 'westus2' },
      });
      assert.equal(widget.status, 400);
      assert.deepEqual(widget.body.error, {
        code: 'NoRegisteredProviderFound',
        message:
          "No registered resource provider found for location 'westus2' and API version '2099-01-01' for type 'widgets'. The supported api-versions are '2023-01-01, 2022-06-01'.",
      });
    });

    test('every published version is accepted (az 2.45 sends 2021-04-01 for groups, 2019-11-01 for subscriptions)', async () => {
      for (const v of ['2019-11-01', '2021-04-01', '2025-04-01', '2014-04-01-preview']) {
        assert.equal((await arm(server, 'GET', `${groups}?api-version=${v}`)).status, 200, v);
      }
    });
  });

  describe('7. body', () => {
    test('wrong media type, empty body, bad JSON, wrong type', async () => {
      const url = `${groups}/rg1?api-version=2021-04-01`;
      const media = await arm(server, 'PUT', url, { raw: 'location=eastus', headers: { 'content-type': 'text/plain' } });
      assert.equal(media.status, 415);
      assert.equal(media.body.error.code, 'UnsupportedMediaType');
      const empty = await arm(server, 'PUT', url, { raw: '', headers: { 'content-type': 'application/json' } });
      assert.equal(empty.status, 400);
      assert.equal(empty.body.error.code, 'InvalidRequestContent');
      const bad = await arm(server, 'PUT', url, { raw: '{"location":', headers: { 'content-type': 'application/json' } });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error.code, 'InvalidRequestContent');
      const wrongType = await arm(server, 'PUT', url, { body: { location: 42 } });
      assert.equal(wrongType.status, 400);
      assert.equal(wrongType.body.error.target, 'location');
    });

    test('a body over the limit is 413 in the ARM envelope, not a crash', async () => {
      const res = await arm(server, 'PUT', `${groups}/big?api-version=2021-04-01`, {
        raw: JSON.stringify({ location: 'eastus', tags: { t: 'x'.repeat(9 * 1024 * 1024) } }),
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(res.status, 413);
      assert.equal(res.body.error.code, 'RequestEntityTooLarge');
    });
  });

  describe('logging', () => {
    test('one line per request with method, path, status, time and request id; never a secret or token', async () => {
      const token = await tokenFor(server);
      const before = server.logLines.length;
      const res = await arm(server, 'GET', `${groups}?api-version=2021-04-01&$skiptoken=${token}`);
      const lines = server.logLines.slice(before);
      assert.equal(lines.length, 1);
      assert.match(
        lines[0]!,
        new RegExp(`^GET /subscriptions/[^ ]+/resourcegroups\\?api-version=2021-04-01 200 \\d+\\.\\dms ${res.headers['x-ms-request-id']}$`),
      );
      for (const line of server.logLines) {
        assert.ok(!line.includes(server.identity.clientSecret), 'client secret in log');
        assert.ok(!line.includes(token), 'token in log');
      }
    });
  });
});

describe('ARM pipeline in loose mode', () => {
  test('any well-formed api-version is accepted; a malformed one is not', async () => {
    const home = tempHome();
    const server = await startTestServer({ home, loose: true });
    try {
      const groups = `/subscriptions/${server.identity.subscriptionId}/resourcegroups`;
      assert.equal((await arm(server, 'GET', `${groups}?api-version=2099-01-01`)).status, 200);
      const bad = await arm(server, 'GET', `${groups}?api-version=yesterday`);
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error.code, 'InvalidApiVersionParameter');
    } finally {
      await server.close();
      removeHome(home);
    }
  });
});
