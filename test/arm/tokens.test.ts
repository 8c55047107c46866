// Bearer tokens that are signed with the server's own key but are not what AAD issues (issue 11,
// defect 8): no expiry, not yet valid, issued in the future or too long ago, another algorithm, or
// claims of the wrong type. Each is ARM's 401; a token as AAD issues it still works.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { importJWK, SignJWT, type JWK, type JWTPayload } from 'jose';
import { removeHome, startTestServer, tempHome, type TestServer } from '../e2e/harness.js';
import { arm } from './helpers.js';

interface SigningKey {
  kid: string;
  privateJwk: JWK;
  publicJwk: JWK;
}

describe('token claims and algorithms', () => {
  let home: string;
  let server: TestServer;
  let key: SigningKey;
  let url: string;

  before(async () => {
    home = tempHome();
    server = await startTestServer({ home });
    key = server.store.get<SigningKey>('aksemu:signing-key')!;
    url = `/subscriptions/${server.identity.subscriptionId}/resourcegroups?api-version=2021-04-01`;
  });

  after(async () => {
    await server.close();
    removeHome(home);
  });

  const now = () => Math.floor(Date.now() / 1000);

  /** The claims the token endpoint issues, with overrides; undefined removes a claim. */
  function claims(overrides: Record<string, unknown> = {}): JWTPayload {
    const t = now();
    const base: Record<string, unknown> = {
      aud: 'https://management.core.windows.net/',
      iss: `https://sts.windows.net/${server.identity.tenantId}/`,
      iat: t,
      nbf: t - 300,
      exp: t + 3600,
      appid: server.identity.clientId,
      oid: server.identity.servicePrincipalObjectId,
      tid: server.identity.tenantId,
      sub: server.identity.servicePrincipalObjectId,
      ver: '1.0',
      ...overrides,
    };
    for (const [k, v] of Object.entries(base)) if (v === undefined) delete base[k];
    return base as JWTPayload;
  }

  async function signed(payload: JWTPayload, alg = 'RS256'): Promise<string> {
    const privateKey = await importJWK({ ...key.privateJwk, alg }, alg);
    return new SignJWT(payload).setProtectedHeader({ alg, typ: 'JWT', kid: key.kid }).sign(privateKey);
  }

  async function status(token: string): Promise<{ status: number; code: string | undefined }> {
    const res = await arm(server, 'GET', url, { token });
    return { status: res.status, code: res.body?.error?.code };
  }

  test('a token as AAD issues it is accepted', async () => {
    assert.deepEqual(await status(await signed(claims())), { status: 200, code: undefined });
  });

  test('missing exp, iat or nbf is InvalidAuthenticationToken', async () => {
    for (const claim of ['exp', 'iat', 'nbf']) {
      assert.deepEqual(await status(await signed(claims({ [claim]: undefined }))), { status: 401, code: 'InvalidAuthenticationToken' }, claim);
    }
  });

  test('not valid yet (nbf), issued in the future (iat), or issued more than a day ago', async () => {
    const t = now();
    assert.deepEqual(await status(await signed(claims({ nbf: t + 3600 }))), { status: 401, code: 'InvalidAuthenticationToken' });
    assert.deepEqual(await status(await signed(claims({ iat: t + 3600 }))), { status: 401, code: 'InvalidAuthenticationToken' });
    assert.deepEqual(await status(await signed(claims({ iat: t - 3 * 86400, nbf: t - 3 * 86400 }))), { status: 401, code: 'InvalidAuthenticationToken' });
  });

  test('claims of the wrong type', async () => {
    for (const overrides of [{ exp: String(now() + 3600) }, { iat: 'yesterday' }, { aud: 42 }, { iss: ['x'] }]) {
      const res = await status(await signed(claims(overrides)));
      assert.equal(res.status, 401, JSON.stringify(overrides));
    }
  });

  test('expired still words the expiry, as ARM does', async () => {
    const t = now();
    assert.deepEqual(await status(await signed(claims({ iat: t - 7200, nbf: t - 7200, exp: t - 3600 }))), { status: 401, code: 'ExpiredAuthenticationToken' });
  });

  test('the algorithm is pinned to RS256: RS384, PS256, HS256 keyed with the public key, and none are refused', async () => {
    for (const alg of ['RS384', 'PS256']) assert.deepEqual(await status(await signed(claims(), alg)), { status: 401, code: 'InvalidAuthenticationToken' }, alg);
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const body = `${b64({ alg: 'HS256', typ: 'JWT', kid: key.kid })}.${b64(claims())}`;
    const hs256 = `${body}.${createHmac('sha256', JSON.stringify(key.publicJwk)).update(body).digest('base64url')}`;
    assert.deepEqual(await status(hs256), { status: 401, code: 'InvalidAuthenticationToken' });
    assert.deepEqual(await status(`${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims())}.`), { status: 401, code: 'InvalidAuthenticationToken' });
  });

  test('issuer and audience are checked on tokens signed with our key', async () => {
    assert.deepEqual(await status(await signed(claims({ iss: 'https://sts.windows.net/11111111-1111-1111-1111-111111111111/' }))), {
      status: 401,
      code: 'InvalidAuthenticationTokenTenant',
    });
    assert.deepEqual(await status(await signed(claims({ aud: 'https://vault.azure.net' }))), { status: 401, code: 'InvalidAuthenticationTokenAudience' });
    assert.deepEqual(await status(await signed(claims({ aud: 'https://evil.example/' }))), { status: 401, code: 'InvalidAuthenticationTokenAudience' });
  });
});
