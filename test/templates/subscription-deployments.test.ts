// Subscription-scope deployments over the front door: location required (ARM's InvalidDeployment),
// a template that creates a resource group and, through an inner-scope module into it, an AKS
// cluster; show/list/operations/validate/whatIf/delete at /subscriptions/{sub}/providers/…; the
// scope functions as ARM answers them there (resourceGroup() refused, deployment().location).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { arm, pathOf } from '../arm/helpers.js';
import { removeHome, startTestServer, tempHome, type TestServer } from '../e2e/harness.js';
import { API, azBody, GROUP_AND_CLUSTER } from '../deployments/harness.js';

const SUB_SCHEMA = GROUP_AND_CLUSTER.$schema;

describe('subscription deployments', () => {
  let server: TestServer;
  let home: string;
  let sub: string;
  const at = (name: string) => `/subscriptions/${sub}/providers/Microsoft.Resources/deployments/${name}`;
  const send = (method: string, path: string, body: string) =>
    arm(server, method, `${path}?${API}`, { raw: body, headers: { 'content-type': 'application/json' } });
  const withLocation = (text: string, location: string) => text.replace(/^\{/, `{"location": "${location}", `);
  before(async () => {
    home = tempHome();
    server = await startTestServer({ home });
    sub = server.identity.subscriptionId;
  });
  after(async () => {
    await server.close();
    removeHome(home);
  });

  test('a deployment without location is InvalidDeployment, as ARM refuses it', async () => {
    const res = await send('PUT', at('noloc'), azBody(JSON.stringify(GROUP_AND_CLUSTER), { groupName: 'x' }));
    assert.equal(res.status, 400);
    assert.deepEqual(res.body.error, {
      code: 'InvalidDeployment',
      message: "The 'location' property must be specified for 'noloc'. Please see https://aka.ms/arm-deployment-subscription for usage details.",
    });
    const validate = await send('POST', `${at('noloc')}/validate`, azBody(JSON.stringify(GROUP_AND_CLUSTER), { groupName: 'x' }));
    assert.equal(validate.body.error.code, 'InvalidDeployment');
  });

  test('what-if, then a group and a cluster in it through a module; show, list, operations, delete', async () => {
    const body = withLocation(azBody(JSON.stringify(GROUP_AND_CLUSTER), { groupName: 'subdeployrg' }), 'westus2');
    const whatIf = await send('POST', `${at('groupandaks')}/whatIf`, body);
    assert.equal(whatIf.status, 200, JSON.stringify(whatIf.body));
    assert.deepEqual(
      whatIf.body.properties.changes.map((c: any) => [c.resourceId, c.changeType]),
      [
        [`/subscriptions/${sub}/resourceGroups/subdeployrg`, 'Create'],
        [`/subscriptions/${sub}/resourceGroups/subdeployrg/providers/Microsoft.ContainerService/managedClusters/subaks`, 'Create'],
      ],
    );
    const put = await send('PUT', at('groupandaks'), body);
    assert.equal(put.status, 201, JSON.stringify(put.body));
    assert.equal(put.body.location, 'westus2');
    let status: any;
    for (let i = 0; i < 500; i++) {
      status = (await arm(server, 'GET', pathOf(put.headers['azure-asyncoperation']))).body;
      if (status.status !== 'Running') break;
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(status.status, 'Succeeded', JSON.stringify(status));
    const shown = await arm(server, 'GET', `${at('groupandaks')}?${API}`);
    assert.equal(shown.body.id, at('groupandaks'));
    const clusterId = `/subscriptions/${sub}/resourceGroups/subdeployrg/providers/Microsoft.ContainerService/managedClusters/subaks`;
    assert.deepEqual(shown.body.properties.outputs, {
      clusterId: { type: 'String', value: clusterId },
      location: { type: 'String', value: 'westus2' },
      groupId: { type: 'String', value: `/subscriptions/${sub}/providers/Microsoft.Resources/resourceGroups/subdeployrg` },
    });
    const group = await arm(server, 'GET', `/subscriptions/${sub}/resourcegroups/subdeployrg?api-version=2021-04-01`);
    assert.equal(group.body.location, 'westus2');
    assert.deepEqual(group.body.tags, { made: 'groupandaks' });
    const cluster = await arm(server, 'GET', `${clusterId}?api-version=2022-06-01`);
    assert.equal(cluster.body.location, 'westus2');
    assert.equal(cluster.body.properties.agentPoolProfiles[0].count, 1);
    // The module is a group deployment of its own.
    const module = await arm(server, 'GET', `/subscriptions/${sub}/resourcegroups/subdeployrg/providers/Microsoft.Resources/deployments/aks?${API}`);
    assert.equal(module.body.properties.outputs.clusterId.value, clusterId);
    const listed = await arm(server, 'GET', `/subscriptions/${sub}/providers/Microsoft.Resources/deployments/?${API}`);
    assert.deepEqual(
      listed.body.value.map((d: any) => d.name),
      ['groupandaks'],
    );
    const ops = await arm(server, 'GET', `${at('groupandaks')}/operations?${API}`);
    assert.deepEqual(
      ops.body.value
        .filter((o: any) => o.properties.targetResource)
        .map((o: any) => o.properties.targetResource.id)
        .sort(),
      [`/subscriptions/${sub}/resourceGroups/subdeployrg`, `/subscriptions/${sub}/resourceGroups/subdeployrg/providers/Microsoft.Resources/deployments/aks`],
    );
    const del = await arm(server, 'DELETE', `${at('groupandaks')}?${API}`);
    assert.equal(del.status, 202);
    for (let i = 0; i < 200; i++) {
      if ((await arm(server, 'GET', `${at('groupandaks')}?${API}`)).status === 404) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal((await arm(server, 'GET', `${at('groupandaks')}?${API}`)).status, 404);
    // Deleting a deployment keeps what it deployed.
    assert.equal((await arm(server, 'GET', `${clusterId}?api-version=2022-06-01`)).status, 200);
    const gone = await arm(server, 'DELETE', `/subscriptions/${sub}/resourcegroups/subdeployrg?api-version=2021-04-01`);
    assert.equal(gone.status, 202);
  });

  test('resourceGroup() in a subscription deployment is refused with ARM words', async () => {
    const template = { $schema: SUB_SCHEMA, contentVersion: '1.0.0.0', variables: { v1: '[resourceGroup()]' }, resources: [] };
    const res = await send('POST', `${at('rgfn')}/validate`, withLocation(azBody(JSON.stringify(template)), 'eastus'));
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'InvalidTemplate');
    assert.equal(
      res.body.error.message,
      "Deployment template validation failed: 'The template variable 'v1' is not valid: The template function 'RESOURCEGROUP' is not expected at this location. Please see https://aka.ms/arm-template-expressions for usage details.. Please see https://aka.ms/arm-template-expressions for usage details.'.",
    );
  });
});
