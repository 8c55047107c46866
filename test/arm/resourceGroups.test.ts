// Microsoft.Resources on the wire: az's exact requests (docs/clients.md §3.3) and ARM's rules.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { defaultProviders } from '../../src/providers/index.js';
import { removeHome, startTestServer, tempHome, type TestServer } from '../e2e/harness.js';
import { arm, pathOf, waitForResult } from './helpers.js';
import { widgetsProvider } from './widgets.js';

describe('Microsoft.Resources', () => {
  let home: string;
  let server: TestServer;
  let sub: string;
  const groupDeletes: string[] = [];

  before(async () => {
    home = tempHome();
    server = await startTestServer({ home, providers: [...defaultProviders(), widgetsProvider(groupDeletes)] });
    sub = server.identity.subscriptionId;
  });

  after(async () => {
    await server.close();
    removeHome(home);
  });

  test('az login: GET /subscriptions and /tenants', async () => {
    const subs = await arm(server, 'GET', '/subscriptions?api-version=2019-11-01');
    assert.equal(subs.status, 200);
    assert.deepEqual(subs.body.count, { type: 'Total', value: 1 });
    const [s] = subs.body.value;
    assert.equal(s.id, `/subscriptions/${sub}`);
    assert.equal(s.subscriptionId, sub);
    assert.equal(s.tenantId, server.identity.tenantId);
    assert.equal(s.state, 'Enabled');
    assert.equal(typeof s.displayName, 'string');
    const one = await arm(server, 'GET', `/subscriptions/${sub.toUpperCase()}?api-version=2019-11-01`);
    assert.deepEqual(one.body, s);
    const tenants = await arm(server, 'GET', '/tenants?api-version=2019-11-01');
    assert.equal(tenants.body.value[0].tenantId, server.identity.tenantId);
    const locations = await arm(server, 'GET', `/subscriptions/${sub}/locations?api-version=2019-11-01`);
    assert.ok(locations.body.value.some((l: { name: string; displayName: string }) => l.name === 'chinanorth3' && l.displayName === 'China North 3'));
  });

  test('az group create: 201 with ARM’s shape, then 200; "East US" is stored as eastus', async () => {
    const url = `/subscriptions/${sub}/resourcegroups/myResourceGroup?api-version=2021-04-01`;
    const created = await arm(server, 'PUT', url, { body: { location: 'East US' } });
    assert.equal(created.status, 201);
    assert.deepEqual(created.body, {
      id: `/subscriptions/${sub}/resourceGroups/myResourceGroup`,
      name: 'myResourceGroup',
      type: 'Microsoft.Resources/resourceGroups',
      location: 'eastus',
      properties: { provisioningState: 'Succeeded' },
    });
    const again = await arm(server, 'PUT', `/subscriptions/${sub}/resourcegroups/MYRESOURCEGROUP?api-version=2021-04-01`, {
      body: { location: 'eastus', tags: { a: '1' }, managedBy: '/subscriptions/x' },
    });
    assert.equal(again.status, 200);
    assert.equal(again.body.name, 'myResourceGroup');
    assert.deepEqual(again.body.tags, { a: '1' });
    assert.equal(again.body.managedBy, '/subscriptions/x');
  });

  test('HEAD is 204 or 404 with no body', async () => {
    await arm(server, 'PUT', `/subscriptions/${sub}/resourcegroups/tmpRG?api-version=2021-04-01`, { body: { location: 'eastus' } });
    const yes = await arm(server, 'HEAD', `/subscriptions/${sub}/resourcegroups/tmprg?api-version=2021-04-01`);
    assert.equal(yes.status, 204);
    const no = await arm(server, 'HEAD', `/subscriptions/${sub}/resourcegroups/nopeRG?api-version=2021-04-01`);
    assert.equal(no.status, 404);
    assert.equal(no.body, undefined);
  });

  test('GET of a missing group: ResourceGroupNotFound', async () => {
    const res = await arm(server, 'GET', `/subscriptions/${sub}/resourcegroups/ghost?api-version=2021-04-01`);
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, { error: { code: 'ResourceGroupNotFound', message: "Resource group 'ghost' could not be found." } });
  });

  test('names: ARM’s characters, length and trailing period', async () => {
    const put = (name: string) =>
      arm(server, 'PUT', `/subscriptions/${sub}/resourcegroups/${encodeURIComponent(name)}?api-version=2021-04-01`, { body: { location: 'eastus' } });
    for (const ok of ['a', 'rg_1-(x).y', 'grüße', 'x'.repeat(90)]) assert.equal((await put(ok)).status, 201, ok);
    const chars = await put('bad name!');
    assert.equal(chars.status, 400);
    assert.deepEqual(chars.body.error, {
      code: 'InvalidResourceGroup',
      message:
        "The provided resource group name 'bad name!' has these invalid characters: ' !'. The name can only be a letter, digit, '-', '.', '(', ')' or '_'.",
    });
    assert.equal((await put('x'.repeat(91))).body.error.code, 'InvalidResourceGroup');
    assert.equal((await put('ends.')).body.error.code, 'InvalidResourceGroup');
  });

  test('location: required, must exist, cannot change', async () => {
    const url = `/subscriptions/${sub}/resourcegroups/locRG?api-version=2021-04-01`;
    const missing = await arm(server, 'PUT', url, { body: { tags: {} } });
    assert.equal(missing.status, 400);
    assert.deepEqual(missing.body.error, { code: 'LocationRequired', message: 'The location property is required for this definition.' });
    const unknown = await arm(server, 'PUT', url, { body: { location: 'atlantis' } });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.error.code, 'LocationNotAvailableForResourceGroup');
    assert.match(
      unknown.body.error.message,
      /^The provided location 'atlantis' is not available for resource group\. List of available regions is '.*eastus.*'\.$/,
    );
    assert.equal((await arm(server, 'PUT', url, { body: { location: 'chinanorth3' } })).status, 201);
    const moved = await arm(server, 'PUT', url, { body: { location: 'westus' } });
    assert.equal(moved.status, 409);
    assert.deepEqual(moved.body.error, {
      code: 'InvalidResourceGroupLocation',
      message: "Invalid resource group location 'westus'. The Resource group already exists in location 'chinanorth3'.",
    });
  });

  test('PATCH replaces tags and keeps the rest; LIST filters by tag', async () => {
    const url = `/subscriptions/${sub}/resourcegroups/patchRG?api-version=2021-04-01`;
    await arm(server, 'PUT', url, { body: { location: 'eastus', tags: { team: 'net' } } });
    const patched = await arm(server, 'PATCH', url, { body: { tags: { team: 'aks', tier: 'x' } } });
    assert.equal(patched.status, 200);
    assert.deepEqual(patched.body.tags, { team: 'aks', tier: 'x' });
    assert.equal(patched.body.location, 'eastus');
    const list = await arm(
      server,
      'GET',
      `/subscriptions/${sub}/resourcegroups?api-version=2021-04-01&$filter=${encodeURIComponent("tagName eq 'TEAM' and tagValue eq 'aks'")}`,
    );
    assert.deepEqual(
      list.body.value.map((g: { name: string }) => g.name),
      ['patchRG'],
    );
  });

  test('az group delete: 202 + Location; operationresults 202 then 204; children and hooks go with it', async () => {
    const group = `/subscriptions/${sub}/resourcegroups/doomed`;
    await arm(server, 'PUT', `${group}?api-version=2021-04-01`, { body: { location: 'westus2' } });
    const widget = await arm(server, 'PUT', `${group}/providers/Test.Widgets/widgets/w1?api-version=2023-01-01`, { body: { location: 'westus2' } });
    assert.equal(widget.status, 201);

    const accepted = await arm(server, 'DELETE', `${group}?api-version=2021-04-01`);
    assert.equal(accepted.status, 202);
    assert.equal(accepted.headers['retry-after'], '1');
    assert.equal(accepted.headers['azure-asyncoperation'], undefined);
    const location = String(accepted.headers['location']);
    assert.match(location, new RegExp(`^${server.url}/subscriptions/${sub}/operationresults/[0-9a-f-]{36}\\?api-version=2021-04-01$`));

    assert.equal((await waitForResult(server, location)).status, 204);
    assert.equal((await arm(server, 'GET', `${group}?api-version=2021-04-01`)).status, 404);
    assert.deepEqual(server.store.list(`/subscriptions/${sub}/resourceGroups/doomed`), []);
    assert.deepEqual(groupDeletes, [`/subscriptions/${sub}/resourceGroups/doomed`]);
  });

  test('a group being deleted answers Deleting and refuses updates', async () => {
    const home2 = tempHome();
    const slow = await startTestServer({ home: home2, lroDelayMs: 60_000 });
    try {
      const url = `/subscriptions/${slow.identity.subscriptionId}/resourcegroups/slowRG?api-version=2021-04-01`;
      await arm(slow, 'PUT', url, { body: { location: 'eastus' } });
      const accepted = await arm(slow, 'DELETE', url);
      assert.equal(accepted.status, 202);
      assert.equal((await arm(slow, 'GET', pathOf(accepted.headers['location']))).status, 202);
      assert.equal((await arm(slow, 'GET', url)).body.properties.provisioningState, 'Deleting');
      const put = await arm(slow, 'PUT', url, { body: { location: 'eastus' } });
      assert.equal(put.status, 409);
      assert.deepEqual(put.body.error, {
        code: 'ResourceGroupBeingDeleted',
        message: "The resource group 'slowRG' is in deprovisioning state and cannot perform this operation.",
      });
    } finally {
      await slow.close();
      removeHome(home2);
    }
  });
});
