// The HTTP layer under hostile requests (issue 11, defect 8 and the limits): every answer is in
// ARM's envelope (no framework or Node default leaks out, no query string echoed), the URLs the
// server hands out never come from the Host header, log lines never carry raw control characters,
// and a client over the rate limit gets 429 with Retry-After.
import assert from 'node:assert/strict';
import { connect } from 'node:tls';
import { after, before, describe, test } from 'node:test';
import { removeHome, startTestServer, tempHome, type TestServer } from '../e2e/harness.js';
import { arm, pathOf } from './helpers.js';

const RG = '2021-04-01';

/** One raw request over TLS; the whole answer as text (status line, headers, body). */
function raw(server: TestServer, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: server.port, ca: server.caPem, servername: 'localhost' }, () => socket.end(text));
    let out = '';
    socket.on('data', (d: Buffer) => (out += d.toString('utf8')));
    socket.on('close', () => resolve(out));
    socket.on('error', reject);
  });
}

function parse(answer: string): { status: number; headers: string; body: any } {
  const [head, ...rest] = answer.split('\r\n\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head!)?.[1]);
  const text = rest.join('\r\n\r\n');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status, headers: head!, body };
}

describe('hostile HTTP', () => {
  let home: string;
  let server: TestServer;
  let groups: string;

  before(async () => {
    home = tempHome();
    server = await startTestServer({ home });
    groups = `/subscriptions/${server.identity.subscriptionId}/resourcegroups`;
  });

  after(async () => {
    await server.close();
    removeHome(home);
  });

  test('a body over the limit sent in one go gets its 413, not a reset (the rest is drained)', async () => {
    // The fuzzer's case: a client still writing 9 MB when the server answered saw EPIPE.
    const body = JSON.stringify({ location: 'eastus', tags: { big: 'x'.repeat(9_000_000) } });
    for (let i = 0; i < 3; i++) {
      const answer = parse(
        await raw(
          server,
          `PUT ${groups}/big?api-version=${RG} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
        ),
      );
      assert.equal(answer.status, 413);
      assert.equal(answer.body.error.code, 'RequestEntityTooLarge');
    }
  });

  test('CONNECT is answered 405 MethodNotAllowed in the envelope, not a reset (issue 25); the server keeps serving', async () => {
    for (const target of ['localhost:443', `${groups}?api-version=${RG}`]) {
      const answer = parse(await raw(server, `CONNECT ${target} HTTP/1.1\r\nHost: localhost\r\n\r\n`));
      assert.equal(answer.status, 405, answer.headers);
      assert.deepEqual(answer.body, { error: { code: 'MethodNotAllowed', message: "The requested resource does not support http method 'CONNECT'." } });
      assert.match(answer.headers, /\r\nx-ms-request-id: [0-9a-f-]{36}\r\n/i);
      assert.match(answer.headers, /\r\nContent-Type: application\/json; charset=utf-8\r\n/);
    }
    assert.equal((await arm(server, 'GET', `${groups}?api-version=${RG}`)).status, 200);
  });

  test('a resource group named in Unicode: the polling URLs in headers are percent-encoded and work (found by the ARM fuzzer: a 500 outside the envelope)', async () => {
    const group = `${groups}/${encodeURIComponent('ÆØÅ-名前')}`;
    assert.equal((await arm(server, 'PUT', `${group}?api-version=${RG}`, { body: { location: 'eastus' } })).status, 201);
    const template = { $schema: 'https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#', contentVersion: '1.0.0.0', resources: [] };
    const put = await arm(server, 'PUT', `${group}/providers/Microsoft.Resources/deployments/d1?api-version=${RG}`, {
      body: { properties: { mode: 'Incremental', template } },
    });
    assert.equal(put.status, 201, JSON.stringify(put.body));
    const status = String(put.headers['azure-asyncoperation']);
    assert.match(status, /\/resourceGroups\/%C3%86%C3%98%C3%85-%E5%90%8D%E5%89%8D\//i);
    const polled = await arm(server, 'GET', pathOf(status));
    assert.equal(polled.status, 200, JSON.stringify(polled.body));
    assert.match(polled.body.status, /^(Running|Succeeded)$/);
  });

  describe("every answer is in ARM's envelope", () => {
    test('a method the router does not know is 405 MethodNotAllowed, without the query string', async () => {
      for (const method of ['PROPFIND', 'TRACE', 'MKCOL']) {
        const res = parse(await raw(server, `${method} /x?q=%3Cscript%3E HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`));
        assert.equal(res.status, 405, method);
        assert.deepEqual(res.body, { error: { code: 'MethodNotAllowed', message: `The requested resource does not support http method '${method}'.` } });
        assert.ok(!JSON.stringify(res.body).includes('script'));
      }
    });

    test('headers over the limit: 431 RequestHeaderFieldsTooLarge', async () => {
      const res = parse(
        await raw(server, `GET ${groups}?api-version=${RG} HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\nConnection: close\r\n\r\n`),
      );
      assert.equal(res.status, 431);
      assert.deepEqual(res.body, { error: { code: 'RequestHeaderFieldsTooLarge', message: 'The request headers are larger than the server accepts.' } });
      assert.match(res.headers, /content-type: application\/json; charset=utf-8/i);
    });

    test('a request Node cannot parse: 400 BadRequest', async () => {
      for (const text of [
        'GARBAGE\r\n\r\n',
        'PUT /x HTTP/1.1\r\nHost: localhost\r\nContent-Length: abc\r\nConnection: close\r\n\r\n',
        'GET /x HTTP/1.1\r\nHost: localhost\r\nBad Header\r\n\r\n',
      ]) {
        const res = parse(await raw(server, text));
        assert.equal(res.status, 400, text);
        assert.deepEqual(res.body, { error: { code: 'BadRequest', message: 'The request is not valid HTTP.' } }, text);
      }
    });

    test('a URL that does not decode: 400 BadRequest', async () => {
      const res = parse(await raw(server, `GET ${groups}/%ZZ?api-version=${RG}&q=%3Cscript%3E HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`));
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { error: { code: 'BadRequest', message: 'The request URL is invalid.' } });
    });

    test('the server still answers', async () => {
      assert.equal((await arm(server, 'GET', `${groups}?api-version=${RG}`)).status, 200);
    });
  });

  describe('URLs handed out come from the server, not the Host header', () => {
    const ours = () => server.url;

    test('the token endpoint issues no token for a foreign Host, and the discovery document names our URL', async () => {
      const form = (scope: string) =>
        new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: server.identity.clientId,
          client_secret: server.identity.clientSecret,
          scope,
        }).toString();
      const evil = await server.app.inject({
        method: 'POST',
        url: '/adfs/oauth2/token',
        headers: { host: 'evil.example', 'content-type': 'application/x-www-form-urlencoded' },
        payload: form('https://evil.example/.default'),
      });
      assert.equal(evil.statusCode, 400);
      assert.equal(JSON.parse(evil.body).error, 'invalid_resource');
      const config = await server.app.inject({ method: 'GET', url: '/adfs/.well-known/openid-configuration', headers: { host: 'evil.example:8443' } });
      assert.equal(JSON.parse(config.body).token_endpoint, `${ours()}/adfs/oauth2/token`);
      const metadata = await server.app.inject({
        method: 'GET',
        url: '/metadata/endpoints?api-version=2022-09-01',
        headers: { host: `127.0.0.1:${server.port + 1}` },
      });
      assert.equal(JSON.parse(metadata.body)[0].resourceManager, `${ours()}/`);
    });

    test('Location and Azure-AsyncOperation use our URL; localhost with our port is honoured', async () => {
      await arm(server, 'PUT', `${groups}/h1?api-version=${RG}`, { body: { location: 'eastus' } });
      const evil = await arm(server, 'DELETE', `${groups}/h1?api-version=${RG}`, { headers: { host: 'evil.example' } });
      assert.equal(evil.status, 202);
      assert.ok(String(evil.headers['location']).startsWith(`${ours()}/subscriptions/`), String(evil.headers['location']));
      await arm(server, 'PUT', `${groups}/h2?api-version=${RG}`, { body: { location: 'eastus' } });
      const local = await arm(server, 'DELETE', `${groups}/h2?api-version=${RG}`, { headers: { host: `LocalHost:${server.port}` } });
      assert.ok(String(local.headers['location']).startsWith(`https://localhost:${server.port}/subscriptions/`), String(local.headers['location']));
      const unauthorized = await arm(server, 'GET', groups, { token: false, headers: { host: 'evil.example' } });
      assert.match(String(unauthorized.headers['www-authenticate']), new RegExp(`authorization_uri="${ours()}/adfs"`));
    });
  });

  describe('log lines', () => {
    test('control characters in the api-version or path are encoded, so no line can be forged', async () => {
      const before = server.logLines.length;
      await arm(server, 'GET', `${groups}?api-version=2021-04-01%0AGET%20/forged%20200%200.1ms%20x%1B[31m%E2%80%A8`);
      await arm(server, 'GET', `${groups}/a%0Ab?api-version=${RG}`);
      const lines = server.logLines.slice(before);
      assert.equal(lines.length, 2);
      for (const line of lines) assert.doesNotMatch(line, /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
      assert.ok(lines[0]!.includes('\\n'), lines[0]);
      assert.ok(lines[0]!.includes('\\u001b'), lines[0]);
    });
  });
});

describe('rate limit', () => {
  test('over the bucket: 429 TooManyRequests with Retry-After, in the envelope; the bucket refills', async () => {
    const home = tempHome();
    const server = await startTestServer({ home, rateLimit: { burst: 5, perSecond: 2 } });
    try {
      const url = `/subscriptions/${server.identity.subscriptionId}/resourcegroups?api-version=${RG}`;
      await arm(server, 'GET', url); // fetches the token (one request), then the GET
      const statuses: number[] = [];
      let limited;
      for (let i = 0; i < 6; i++) {
        const res = await arm(server, 'GET', url);
        statuses.push(res.status);
        if (res.status === 429) limited = res;
      }
      assert.ok(statuses.includes(429), String(statuses));
      assert.deepEqual(limited!.body, {
        error: {
          code: 'TooManyRequests',
          message: 'The client sent more requests than aksemu accepts (a burst of 5, then 2 per second). Please retry after 1 seconds.',
        },
      });
      assert.equal(limited!.headers['retry-after'], '1');
      await new Promise((r) => setTimeout(r, 1100));
      assert.equal((await arm(server, 'GET', url)).status, 200);
    } finally {
      await server.close();
      removeHome(home);
    }
  });

  test('the default bucket is generous: 2,000 requests as fast as they go are all served', async () => {
    const home = tempHome();
    const server = await startTestServer({ home });
    try {
      const url = `/subscriptions/${server.identity.subscriptionId}/resourcegroups?api-version=${RG}`;
      const batch = async () => (await Promise.all(Array.from({ length: 100 }, () => arm(server, 'GET', url)))).map((r) => r.status);
      for (let i = 0; i < 20; i++) assert.ok((await batch()).every((s) => s === 200));
    } finally {
      await server.close();
      removeHome(home);
    }
  });
});
