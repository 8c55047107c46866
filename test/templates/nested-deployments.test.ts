// Nested deployments (Microsoft.Resources/deployments in a template, what Bicep modules compile to)
// over the front door: inner scope evaluates the inner template in its own scope (its parameters,
// defaults only when no value is passed, variables, outputs read back with reference()), the nested
// deployment is a deployment of its own in the group it names (GET, operations, outputs), dependsOn
// on it orders the parent's resources, outer scope keeps the parent's scope, and a broken inner
// template is InvalidTemplate before anything deploys.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { arm } from '../arm/helpers.js';
import { removeHome, startTestServer, tempHome, type TestServer } from '../e2e/harness.js';
import { API, azBody, deploy, deploymentPath } from '../deployments/harness.js';

const SCHEMA = 'https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#';

/** A vnet module as Bicep compiles one: its own parameters (a default that must not be evaluated when a value is passed), variables and outputs. */
const VNET_MODULE = {
  $schema: SCHEMA,
  contentVersion: '1.0.0.0',
  parameters: {
    vnetName: { type: 'string', defaultValue: "[parameters('noSuchParameter')]" },
    prefix: { type: 'string', defaultValue: '10.1.0.0/16' },
  },
  variables: { subnetName: "[format('{0}-nodes', parameters('vnetName'))]" },
  resources: [
    {
      type: 'Microsoft.Network/virtualNetworks',
      apiVersion: '2022-01-01',
      name: "[parameters('vnetName')]",
      location: '[resourceGroup().location]',
      properties: {
        addressSpace: { addressPrefixes: ["[parameters('prefix')]"] },
        subnets: [{ name: "[variables('subnetName')]", properties: { addressPrefix: "[parameters('prefix')]" } }],
      },
    },
  ],
  outputs: {
    subnetId: { type: 'string', value: "[resourceId('Microsoft.Network/virtualNetworks/subnets', parameters('vnetName'), variables('subnetName'))]" },
    group: { type: 'string', value: '[resourceGroup().name]' },
    deploymentName: { type: 'string', value: '[deployment().name]' },
  },
};

function parent(nested: Record<string, unknown>, extra: unknown[] = [], outputs: Record<string, unknown> = {}) {
  return {
    $schema: SCHEMA,
    contentVersion: '1.0.0.0',
    // The parent's own parameter of the same name: inner scope must not see it.
    parameters: { vnetName: { type: 'string', defaultValue: 'parentVnet' } },
    resources: [nested, ...extra],
    outputs,
  };
}

function moduleResource(name: string, params: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return {
    type: 'Microsoft.Resources/deployments',
    apiVersion: '2022-09-01',
    name,
    ...extra,
    properties: {
      expressionEvaluationOptions: { scope: 'inner' },
      mode: 'Incremental',
      parameters: params,
      template: VNET_MODULE,
    },
  };
}

describe('nested deployments', () => {
  let server: TestServer;
  let home: string;
  let sub: string;
  before(async () => {
    home = tempHome();
    server = await startTestServer({ home });
    sub = server.identity.subscriptionId;
    for (const g of ['nestparent', 'nestchild', 'nestouter', 'nestbad']) {
      await arm(server, 'PUT', `/subscriptions/${sub}/resourcegroups/${g}?api-version=2021-04-01`, { body: { location: 'westeurope' } });
    }
  });
  after(async () => {
    await server.close();
    removeHome(home);
  });

  test('inner scope: its own parameters, variables and outputs, in the group it names, read back by the parent', async () => {
    const template = parent(
      moduleResource('vnetModule', { vnetName: { value: "[concat(parameters('vnetName'), '-child')]" } }, { resourceGroup: 'nestchild' }),
      [
        {
          // Waits for the module and uses its output.
          type: 'Microsoft.Network/virtualNetworks',
          apiVersion: '2022-01-01',
          name: 'after',
          location: '[resourceGroup().location]',
          dependsOn: ['vnetModule'],
          tags: { subnet: "[reference('vnetModule').outputs.subnetId.value]" },
          properties: { addressSpace: { addressPrefixes: ['10.9.0.0/16'] } },
        },
      ],
      {
        subnetId: { type: 'string', value: "[reference('vnetModule').outputs.subnetId.value]" },
        group: { type: 'string', value: "[reference(resourceId('nestchild', 'Microsoft.Resources/deployments', 'vnetModule')).outputs.group.value]" },
      },
    );
    const { status, final } = await deploy(server, sub, 'nestparent', 'main', azBody(JSON.stringify(template)));
    assert.equal(status.status, 'Succeeded', JSON.stringify(status));
    const subnetId = `/subscriptions/${sub}/resourceGroups/nestchild/providers/Microsoft.Network/virtualNetworks/parentVnet-child/subnets/parentVnet-child-nodes`;
    assert.equal(final.body.properties.outputs.subnetId.value, subnetId);
    assert.equal(final.body.properties.outputs.group.value, 'nestchild');
    assert.deepEqual(
      final.body.properties.outputResources.map((r: { id: string }) => r.id),
      [
        `/subscriptions/${sub}/resourceGroups/nestchild/providers/Microsoft.Resources/deployments/vnetModule`,
        `/subscriptions/${sub}/resourceGroups/nestparent/providers/Microsoft.Network/virtualNetworks/after`,
      ],
    );
    // The nested deployment is a deployment of its own, in the child group.
    const nested = await arm(server, 'GET', `${deploymentPath(sub, 'nestchild', 'vnetModule')}?${API}`);
    assert.equal(nested.status, 200);
    assert.equal(nested.body.properties.provisioningState, 'Succeeded');
    assert.deepEqual(nested.body.properties.parameters, {
      vnetName: { type: 'String', value: 'parentVnet-child' },
      prefix: { type: 'String', value: '10.1.0.0/16' },
    });
    assert.equal(nested.body.properties.outputs.deploymentName.value, 'vnetModule');
    const ops = await arm(server, 'GET', `${deploymentPath(sub, 'nestchild', 'vnetModule')}/operations?${API}`);
    assert.deepEqual(
      ops.body.value.filter((o: any) => o.properties.targetResource).map((o: any) => o.properties.targetResource.resourceName),
      ['parentVnet-child'],
    );
    const parentOps = await arm(server, 'GET', `${deploymentPath(sub, 'nestparent', 'main')}/operations?${API}`);
    assert.deepEqual(
      parentOps.body.value
        .filter((o: any) => o.properties.targetResource)
        .map((o: any) => o.properties.targetResource.resourceType)
        .sort(),
      ['Microsoft.Network/virtualNetworks', 'Microsoft.Resources/deployments'],
    );
    const after = await arm(
      server,
      'GET',
      `/subscriptions/${sub}/resourceGroups/nestparent/providers/Microsoft.Network/virtualNetworks/after?api-version=2022-01-01`,
    );
    assert.equal(after.body.tags.subnet, subnetId);
    assert.equal(final.body.properties.dependencies[0].dependsOn[0].resourceType, 'Microsoft.Resources/deployments');
  });

  test('outer scope (the default) evaluates the nested template in the parent scope', async () => {
    const nested = {
      type: 'Microsoft.Resources/deployments',
      apiVersion: '2022-09-01',
      name: 'outerModule',
      properties: {
        mode: 'Incremental',
        template: {
          $schema: SCHEMA,
          contentVersion: '1.0.0.0',
          resources: [
            {
              type: 'Microsoft.Network/virtualNetworks',
              apiVersion: '2022-01-01',
              name: "[parameters('vnetName')]",
              location: '[resourceGroup().location]',
              properties: { addressSpace: { addressPrefixes: ['10.2.0.0/16'] } },
            },
          ],
        },
      },
    };
    const { status } = await deploy(server, sub, 'nestouter', 'outer', azBody(JSON.stringify(parent(nested))));
    assert.equal(status.status, 'Succeeded', JSON.stringify(status));
    const vnet = await arm(
      server,
      'GET',
      `/subscriptions/${sub}/resourceGroups/nestouter/providers/Microsoft.Network/virtualNetworks/parentVnet?api-version=2022-01-01`,
    );
    assert.equal(vnet.status, 200);
  });

  test('an inner template missing a parameter value is InvalidTemplate at validation, before anything deploys', async () => {
    const template = parent(moduleResource('broken', {}), [
      {
        type: 'Microsoft.Network/virtualNetworks',
        apiVersion: '2022-01-01',
        name: 'first',
        location: '[resourceGroup().location]',
        properties: { addressSpace: { addressPrefixes: ['10.3.0.0/16'] } },
      },
    ]);
    const res = await arm(server, 'POST', `${deploymentPath(sub, 'nestbad', 'bad')}/validate?${API}`, {
      raw: azBody(JSON.stringify(template)),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'InvalidTemplate');
    assert.match(
      res.body.error.message,
      /^Deployment template validation failed: 'The template parameter 'vnetName' at line '\d+' and column '\d+' is not valid: The template parameter 'noSuchParameter' is not found\./,
    );
    const put = await arm(server, 'PUT', `${deploymentPath(sub, 'nestbad', 'bad')}?${API}`, {
      raw: azBody(JSON.stringify(template)),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(put.status, 400);
    const vnets = await arm(server, 'GET', `/subscriptions/${sub}/resourceGroups/nestbad/providers/Microsoft.Network/virtualNetworks?api-version=2022-01-01`);
    assert.deepEqual(vnets.body.value, []);
  });

  test('an unknown function anywhere (an output, an inner template) is InvalidTemplate before anything deploys', async () => {
    const vnet = {
      type: 'Microsoft.Network/virtualNetworks',
      apiVersion: '2022-01-01',
      name: 'neverdeployed',
      location: '[resourceGroup().location]',
      properties: { addressSpace: { addressPrefixes: ['10.4.0.0/16'] } },
    };
    const inOutput = parent(vnet, [], { o: { type: 'string', value: "[toUpperCase('x')]" } });
    const put = await arm(server, 'PUT', `${deploymentPath(sub, 'nestbad', 'unknownout')}?${API}`, {
      raw: azBody(JSON.stringify(inOutput)),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(put.status, 400);
    assert.equal(
      put.body.error.message,
      "Deployment template validation failed: 'The template output 'o' is not valid: The template function 'toUpperCase' is not valid. Please see https://aka.ms/arm-template-expressions for usage details.. Please see https://aka.ms/arm-template-expressions for usage details.'.",
    );
    const module = moduleResource('m', { vnetName: { value: 'x' } });
    const inner = { ...module, properties: { ...module.properties, template: { ...VNET_MODULE, variables: { subnetName: "[noSuchFunction('a')]" } } } };
    // The reference() in the parameters defers the module's full validation; the function scan still finds it.
    (inner.properties.parameters as Record<string, unknown>)['prefix'] = { value: "[reference('neverdeployed').addressSpace.addressPrefixes[0]]" };
    const res = await arm(server, 'POST', `${deploymentPath(sub, 'nestbad', 'unknowninner')}/validate?${API}`, {
      raw: azBody(JSON.stringify(parent(inner, [vnet]))),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.status, 400);
    assert.equal(
      res.body.error.message,
      "Deployment template validation failed: 'The template variable 'subnetName' is not valid: The template function 'noSuchFunction' is not valid. Please see https://aka.ms/arm-template-expressions for usage details.. Please see https://aka.ms/arm-template-expressions for usage details.'.",
    );
    assert.equal(res.body.error.additionalInfo[0].info.path, 'properties.template.resources[0].properties.template.variables.subnetName');
    const vnets = await arm(server, 'GET', `/subscriptions/${sub}/resourceGroups/nestbad/providers/Microsoft.Network/virtualNetworks?api-version=2022-01-01`);
    assert.deepEqual(vnets.body.value, []);
  });

  test("a deployment's duration is the time from its acceptance to its end", async () => {
    const started = Date.now();
    const { status, final } = await deploy(
      server,
      sub,
      'nestouter',
      'timed',
      azBody(JSON.stringify(parent(moduleResource('timedModule', { vnetName: { value: 'timed' } })))),
    );
    const elapsed = (Date.now() - started) / 1000;
    assert.equal(status.status, 'Succeeded');
    const seconds = Number(/^PT([\d.]+)S$/.exec(final.body.properties.duration)?.[1]);
    assert.ok(seconds > 0 && seconds <= elapsed, `${final.body.properties.duration} within ${elapsed}s`);
  });

  test('a module whose resource fails fails its parent, and stays recorded as Failed with its operations', async () => {
    const template = parent(
      moduleResource('failingModule', { vnetName: { value: 'failing' }, prefix: { value: '10.5.0.0/33' } }, { resourceGroup: 'nestchild' }),
    );
    const { status } = await deploy(server, sub, 'nestparent', 'failing', azBody(JSON.stringify(template)));
    assert.equal(status.status, 'Failed');
    assert.equal(status.error.code, 'DeploymentFailed');
    assert.equal(status.error.details[0].code, 'DeploymentFailed');
    const nested = await arm(server, 'GET', `${deploymentPath(sub, 'nestchild', 'failingModule')}?${API}`);
    assert.equal(nested.status, 200);
    assert.equal(nested.body.properties.provisioningState, 'Failed');
    assert.equal(nested.body.properties.error.code, 'DeploymentFailed');
    const inner = nested.body.properties.error.details[0];
    const ops = await arm(server, 'GET', `${deploymentPath(sub, 'nestchild', 'failingModule')}/operations?${API}`);
    const failed = ops.body.value.find((o: any) => o.properties.provisioningState === 'Failed');
    assert.equal(failed.properties.targetResource.resourceName, 'failing');
    assert.equal(failed.properties.statusMessage.error.code, inner.code);
    const vnet = await arm(
      server,
      'GET',
      `/subscriptions/${sub}/resourceGroups/nestchild/providers/Microsoft.Network/virtualNetworks/failing?api-version=2022-01-01`,
    );
    assert.equal(vnet.status, 404);
  });

  test('a copy loop of 150 nested deployments is refused at validation (aksemu bounds the tree), quickly', async () => {
    const many = {
      type: 'Microsoft.Resources/deployments',
      apiVersion: '2022-09-01',
      name: "[format('many{0}', copyIndex())]",
      copy: { name: 'many', count: 150 },
      properties: {
        expressionEvaluationOptions: { scope: 'inner' },
        mode: 'Incremental',
        template: { $schema: SCHEMA, contentVersion: '1.0.0.0', resources: [] },
      },
    };
    const started = Date.now();
    const res = await arm(server, 'POST', `${deploymentPath(sub, 'nestbad', 'many')}/validate?${API}`, {
      raw: azBody(JSON.stringify(parent(many))),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.status, 400);
    assert.match(res.body.error.message, /The number of nested deployments in a deployment limit exceeded\. Limit: '100' and actual: '101'\./);
    assert.ok(Date.now() - started < 5000);
  });
});
