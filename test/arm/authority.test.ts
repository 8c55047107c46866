// What clients read before any ARM call: cloud metadata, OIDC discovery, keys, and the token endpoint.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { removeHome, startTestServer, tempHome, type TestServer } from '../e2e/harness.js';

describe('authority and metadata', () => {
  let home: string;
  let server: TestServer;

  before(async () => {
    home = tempHome();
    server = await startTestServer({ home });
  });

  after(async () => {
    await server.close();
    removeHome(home);
  });

  async function get(url: string) {
    const res = await server.app.inject({ method: 'GET', url, headers: { host: `127.0.0.1:${server.port}` } });
    return { status: res.statusCode, body: res.body === '' ? undefined : JSON.parse(res.body) };
  }

  async function token(form: Record<string, string>, headers: Record<string, string> = {}) {
    const res = await server.app.inject({
      method: 'POST',
      url: '/adfs/oauth2/token',
      headers: { host: `127.0.0.1:${server.port}`, 'content-type': 'application/x-www-form-urlencoded', ...headers },
      payload: new URLSearchParams(form).toString(),
    });
    return { status: res.statusCode, body: JSON.parse(res.body) };
  }

  test('metadata 2015-01-01 (az cloud register), also at //metadata', async () => {
    for (const url of ['/metadata/endpoints?api-version=2015-01-01', '//metadata/endpoints?api-version=2015-01-01']) {
      const res = await get(url);
      assert.equal(res.status, 200);
      assert.equal(res.body.authentication.loginEndpoint, `${server.url}/adfs`);
      assert.equal(res.body.authentication.audiences[0], 'https://management.core.windows.net/');
      assert.equal(typeof res.body.graphEndpoint, 'string');
    }
  });

  test('metadata 2022-09-01 (ARM_CLOUD_METADATA_URL) is a list of clouds', async () => {
    const res = await get('/metadata/endpoints?api-version=2022-09-01');
    assert.equal(res.body[0].resourceManager, `${server.url}/`);
    assert.equal(res.body[0].authentication.loginEndpoint, `${server.url}/adfs`);
    assert.equal((await get('/metadata/endpoints')).body.error.code, 'MissingApiVersionParameter');
  });

  test('OIDC discovery has what MSAL requires, in lower and upper case paths', async () => {
    for (const url of ['/adfs/.well-known/openid-configuration', '/ADFS/.well-known/openid-configuration']) {
      const res = await get(url);
      assert.equal(res.status, 200);
      assert.equal(res.body.token_endpoint, `${server.url}/adfs/oauth2/token`);
      assert.equal(res.body.authorization_endpoint, `${server.url}/adfs/oauth2/authorize`);
    }
    const keys = await get('/adfs/discovery/keys');
    assert.equal(keys.body.keys[0].kty, 'RSA');
    assert.equal(keys.body.keys[0].d, undefined, 'private part must not be published');
  });

  test('client credentials: an AAD-shaped v1 JWT for the scope asked', async () => {
    const res = await token({
      client_id: server.identity.clientId,
      grant_type: 'client_credentials',
      client_info: '1',
      client_secret: server.identity.clientSecret,
      claims: '{"access_token": {"xms_cc": {"values": ["CP1"]}}}',
      scope: 'https://management.core.windows.net//.default',
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.token_type, 'Bearer');
    assert.ok(res.body.expires_in >= 3600);
    const claims = decodeJwt(res.body.access_token);
    assert.equal(claims.aud, 'https://management.core.windows.net/');
    assert.equal(claims.iss, `https://sts.windows.net/${server.identity.tenantId}/`);
    assert.equal(claims['tid'], server.identity.tenantId);
    assert.equal(claims['appid'], server.identity.clientId);
    assert.equal(claims['oid'], server.identity.servicePrincipalObjectId);
    assert.equal(decodeProtectedHeader(res.body.access_token).alg, 'RS256');
  });

  test('client_secret_basic works too', async () => {
    const basic = Buffer.from(`${server.identity.clientId}:${server.identity.clientSecret}`).toString('base64');
    const res = await token({ grant_type: 'client_credentials', scope: 'https://management.azure.com/.default' }, { authorization: `Basic ${basic}` });
    assert.equal(res.status, 200);
  });

  test('OAuth errors as AAD words them', async () => {
    const base = {
      grant_type: 'client_credentials',
      client_id: server.identity.clientId,
      client_secret: server.identity.clientSecret,
      scope: 'https://management.core.windows.net//.default',
    };
    const cases: Array<[Record<string, string>, number, string, number]> = [
      [{ ...base, client_secret: 'wrong' }, 401, 'invalid_client', 7000215],
      [{ ...base, client_secret: '' }, 401, 'invalid_client', 7000218],
      [{ ...base, client_id: 'someone-else' }, 400, 'unauthorized_client', 700016],
      [{ ...base, grant_type: 'password' }, 400, 'unsupported_grant_type', 70003],
      [{ ...base, grant_type: '' }, 400, 'invalid_request', 900144],
      [{ ...base, scope: 'https://management.core.windows.net/' }, 400, 'invalid_scope', 1002012],
      [{ ...base, scope: 'https://vault.azure.net/.default' }, 400, 'invalid_resource', 500011],
    ];
    for (const [form, status, error, code] of cases) {
      const res = await token(form);
      assert.equal(res.status, status, JSON.stringify(form));
      assert.equal(res.body.error, error);
      assert.deepEqual(res.body.error_codes, [code]);
      assert.match(res.body.error_description, new RegExp(`^AADSTS${code}: `));
      assert.ok(!JSON.stringify(res.body).includes(server.identity.clientSecret));
    }
  });
});
