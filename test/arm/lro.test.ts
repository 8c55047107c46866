// Long-running operations through a provider built on the exported API: the async-operation
// protocol, failure, and what a restart does to operations left in flight.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultProviders } from '../../src/providers/index.js';
import { removeHome, startTestServer, tempHome, type TestServer } from '../e2e/harness.js';
import { arm, pathOf, waitForOperation, waitForResult } from './helpers.js';
import { widgetsProvider } from './widgets.js';

async function withServer(fn: (server: TestServer, home: string) => Promise<void>, lroDelayMs = 0): Promise<void> {
  const home = tempHome();
  const server = await startTestServer({ home, lroDelayMs, providers: [...defaultProviders(), widgetsProvider()] });
  try {
    await fn(server, home);
  } finally {
    await server.close();
    removeHome(home);
  }
}

function widgetUrl(server: TestServer, name: string): string {
  return `/subscriptions/${server.identity.subscriptionId}/resourceGroups/rg/providers/Test.Widgets/widgets/${name}?api-version=2023-01-01`;
}

async function makeGroup(server: TestServer): Promise<void> {
  const res = await arm(server, 'PUT', `/subscriptions/${server.identity.subscriptionId}/resourcegroups/rg?api-version=2021-04-01`, {
    body: { location: 'eastus' },
  });
  assert.equal(res.status, 201);
}

test('PUT: 201 Creating + Azure-AsyncOperation; the operation succeeds; the resource is Succeeded', () =>
  withServer(async (server) => {
    await makeGroup(server);
    const created = await arm(server, 'PUT', widgetUrl(server, 'w1'), { body: { location: 'East US', properties: { size: 3 } } });
    assert.equal(created.status, 201);
    assert.equal(created.body.properties.provisioningState, 'Creating');
    assert.equal(created.headers['retry-after'], '1');
    // The work left in milliseconds: no operation of the kind has run yet, so the default per unit, at least 20 ms.
    assert.ok(Number(created.headers['retry-after-ms']) >= 20 && Number(created.headers['retry-after-ms']) < 1000, String(created.headers['retry-after-ms']));
    const asyncOp = String(created.headers['azure-asyncoperation']);
    assert.match(
      asyncOp,
      new RegExp(`/subscriptions/${server.identity.subscriptionId}/providers/Test.Widgets/locations/eastus/operations/[0-9a-f-]{36}\\?api-version=2023-01-01$`),
    );

    const done = await waitForOperation(server, pathOf(asyncOp));
    assert.equal(done.status, 'Succeeded');
    assert.equal(done.name, asyncOp.split('/operations/')[1]!.split('?')[0]);
    assert.ok(done.startTime && done.endTime);
    const got = await arm(server, 'GET', widgetUrl(server, 'w1'));
    assert.equal(got.body.properties.provisioningState, 'Succeeded');

    // The same operation through the Location protocol: 200 with the resource.
    const results = pathOf(asyncOp).replace('/operations/', '/operationresults/');
    const result = await arm(server, 'GET', results);
    assert.equal(result.status, 200);
    assert.equal(result.body.id, got.body.id);
  }));

test('a failing operation: status Failed with the error; operationresults answers the error', () =>
  withServer(async (server) => {
    await makeGroup(server);
    const created = await arm(server, 'PUT', widgetUrl(server, 'bad'), { body: { location: 'eastus', properties: { fail: true } } });
    const asyncOp = pathOf(created.headers['azure-asyncoperation']);
    const done = await waitForOperation(server, asyncOp);
    assert.equal(done.status, 'Failed');
    assert.deepEqual(done.error, { code: 'WidgetBroken', message: 'The widget broke.', target: 'properties.fail' });
    assert.equal((await arm(server, 'GET', widgetUrl(server, 'bad'))).body.properties.provisioningState, 'Failed');
    const result = await arm(server, 'GET', asyncOp.replace('/operations/', '/operationresults/'));
    assert.equal(result.status, 409);
    assert.equal(result.body.error.code, 'WidgetBroken');
  }));

test('an operation id is only found under its own subscription, namespace and location', () =>
  withServer(async (server) => {
    await makeGroup(server);
    const created = await arm(server, 'PUT', widgetUrl(server, 'w'), { body: { location: 'eastus' } });
    const asyncOp = pathOf(created.headers['azure-asyncoperation']);
    assert.equal((await arm(server, 'GET', asyncOp.replace('/locations/eastus/', '/locations/westus/'))).status, 404);
    assert.equal((await arm(server, 'GET', asyncOp.replace('/Test.Widgets/', '/Microsoft.Network/'))).body.error.code, 'OperationNotFound');
    assert.equal((await arm(server, 'GET', asyncOp.replace('/locations/eastus/', '/locations/EastUS/'))).status, 200);
  }));

test('restart: operations left InProgress run to completion, consistently', async () => {
  const home = tempHome();
  try {
    let server = await startTestServer({ home, lroDelayMs: 60_000, providers: [...defaultProviders(), widgetsProvider()] });
    await makeGroup(server);
    const sub = server.identity.subscriptionId;
    const created = await arm(server, 'PUT', widgetUrl(server, 'w'), { body: { location: 'eastus' } });
    const deleting = await arm(server, 'PUT', `/subscriptions/${sub}/resourcegroups/other?api-version=2021-04-01`, { body: { location: 'eastus' } }).then(() =>
      arm(server, 'DELETE', `/subscriptions/${sub}/resourcegroups/other?api-version=2021-04-01`),
    );
    // The work is a minute away (and a few ms long): clients are told to come back then, on the first answer and on each status.
    assert.ok(['60', '61'].includes(String(created.headers['retry-after'])), String(created.headers['retry-after']));
    const running = await arm(server, 'GET', pathOf(created.headers['azure-asyncoperation']));
    assert.equal(running.body.status, 'InProgress');
    assert.ok(Number(running.headers['retry-after']) >= 59 && Number(running.headers['retry-after']) <= 61, String(running.headers['retry-after']));
    assert.ok(Number(running.headers['retry-after-ms']) > 58_000, String(running.headers['retry-after-ms']));
    await server.close(); // as good as a crash: the work has not run

    server = await startTestServer({ home, providers: [...defaultProviders(), widgetsProvider()] });
    try {
      assert.equal((await waitForOperation(server, pathOf(created.headers['azure-asyncoperation']))).status, 'Succeeded');
      assert.equal((await arm(server, 'GET', widgetUrl(server, 'w'))).body.properties.provisioningState, 'Succeeded');
      assert.equal((await waitForResult(server, deleting.headers['location'])).status, 204);
      assert.equal((await arm(server, 'GET', `/subscriptions/${sub}/resourcegroups/other?api-version=2021-04-01`)).status, 404);
    } finally {
      await server.close();
    }
  } finally {
    removeHome(home);
  }
});

test('restart: an operation whose kind no provider registers any more ends Failed', async () => {
  const home = tempHome();
  try {
    let server = await startTestServer({ home, lroDelayMs: 60_000, providers: [...defaultProviders(), widgetsProvider()] });
    await makeGroup(server);
    const created = await arm(server, 'PUT', widgetUrl(server, 'w'), { body: { location: 'eastus' } });
    await server.close();

    server = await startTestServer({ home }); // without Test.Widgets
    try {
      const status = await arm(server, 'GET', pathOf(created.headers['azure-asyncoperation']));
      assert.equal(status.body.status, 'Failed');
      assert.equal(status.body.error.code, 'OperationInterrupted');
    } finally {
      await server.close();
    }
  } finally {
    removeHome(home);
  }
});
