// pollLro against scripted responses: the three ARM polling styles and azure-core's delays.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ArmClient, type ArmResponse } from '../../src/cli/az/arm-client.js';
import { pollLro, retryAfterMs } from '../../src/cli/az/lro-poller.js';
import type { HttpRequest, HttpResponse } from '../../src/cli/az/transport.js';
import { FAKE_ENDPOINT } from './helpers.js';

function scripted(responses: Record<string, HttpResponse[]>) {
  const seen: string[] = [];
  const transport = {
    async send(req: HttpRequest): Promise<HttpResponse> {
      const path = new URL(req.url).pathname;
      if (path.endsWith('/token')) return { status: 200, headers: {}, text: '{"access_token":"t"}' };
      seen.push(`${req.method} ${path}`);
      const queue = responses[path];
      if (!queue || queue.length === 0) throw new Error(`unexpected ${req.method} ${path}`);
      return queue.length > 1 ? queue.shift()! : queue[0]!;
    },
  };
  return { client: new ArmClient(FAKE_ENDPOINT, 'sub', transport, { commandName: 'x', parameterSetName: '' }), seen };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}): HttpResponse => ({ status, headers, text: JSON.stringify(body) });
const initial = (status: number, body: unknown, headers: Record<string, string> = {}): ArmResponse => ({ status, headers, body, text: JSON.stringify(body) });

test('Location polling (resource group delete): 202 until 200/204, no final GET, Retry-After honoured', async () => {
  const { client, seen } = scripted({ '/subscriptions/s/operationresults/1': [json(202, {}, { 'retry-after': '2' }), { status: 204, headers: {}, text: '' }] });
  const delays: number[] = [];
  const result = await pollLro(
    client,
    'DELETE',
    'https://127.0.0.1:8443/r',
    initial(202, undefined, { location: 'https://127.0.0.1:8443/subscriptions/s/operationresults/1', 'retry-after': '1' }),
    {
      sleep: async (ms) => void delays.push(ms),
    },
  );
  assert.equal(result, undefined);
  assert.deepEqual(seen, ['GET /subscriptions/s/operationresults/1', 'GET /subscriptions/s/operationresults/1']);
  assert.deepEqual(delays, [1000, 2000]);
});

test('body polling: a PUT answered 201 Creating without headers is re-read until terminal', async () => {
  const { client, seen } = scripted({
    '/r': [json(200, { properties: { provisioningState: 'Creating' } }), json(200, { properties: { provisioningState: 'Succeeded' }, n: 1 })],
  });
  const result = await pollLro(client, 'PUT', 'https://127.0.0.1:8443/r', initial(201, { properties: { provisioningState: 'Creating' } }), {
    sleep: async () => {},
  });
  assert.deepEqual(result, { properties: { provisioningState: 'Succeeded' }, n: 1 });
  assert.equal(seen.length, 2);
});

test('synchronous: 200/201 Succeeded without headers needs no request; async header always polls once', async () => {
  const sync = scripted({});
  assert.deepEqual(
    await pollLro(sync.client, 'PUT', 'https://127.0.0.1:8443/r', initial(201, { properties: { provisioningState: 'Succeeded' } }), { sleep: async () => {} }),
    { properties: { provisioningState: 'Succeeded' } },
  );
  assert.equal(sync.seen.length, 0);
  const asyncOp = scripted({
    '/op': [json(200, { status: 'Succeeded', resourceLocation: 'https://127.0.0.1:8443/elsewhere' })],
    '/elsewhere': [json(200, { x: 1 })],
  });
  const result = await pollLro(
    asyncOp.client,
    'PUT',
    'https://127.0.0.1:8443/r',
    initial(200, { properties: { provisioningState: 'Succeeded' } }, { 'azure-asyncoperation': 'https://127.0.0.1:8443/op' }),
    { sleep: async () => {} },
  );
  assert.deepEqual(result, { x: 1 });
  assert.deepEqual(asyncOp.seen, ['GET /op', 'GET /elsewhere']);
});

test("retryAfterMs: missing or 0 means azure-core's 30 s default", () => {
  assert.equal(retryAfterMs(initial(202, undefined)), 30000);
  assert.equal(retryAfterMs(initial(202, undefined, { 'retry-after': '0' })), 30000);
  assert.equal(retryAfterMs(initial(202, undefined, { 'retry-after': '3' })), 3000);
});

test('retryAfterMs: retry-after-ms (or x-ms-retry-after-ms) is read before Retry-After; 0 or junk there falls back to Retry-After', () => {
  assert.equal(retryAfterMs(initial(202, undefined, { 'retry-after': '1', 'retry-after-ms': '40' })), 40);
  assert.equal(retryAfterMs(initial(202, undefined, { 'retry-after': '1', 'x-ms-retry-after-ms': '250' })), 250);
  assert.equal(retryAfterMs(initial(202, undefined, { 'retry-after-ms': '75' })), 75);
  assert.equal(retryAfterMs(initial(202, undefined, { 'retry-after': '2', 'retry-after-ms': '0' })), 2000);
  assert.equal(retryAfterMs(initial(202, undefined, { 'retry-after': '2', 'retry-after-ms': 'soon' })), 2000);
});
