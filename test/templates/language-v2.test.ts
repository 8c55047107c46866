// languageVersion 2.0 templates (what Bicep emits once a file uses user-defined types) over the
// front door: resources keyed by symbolic name, dependsOn and reference() by symbolic name, an
// `existing` resource read (not deployed) and a missing one failing the deployment, user-defined
// types in `definitions` checked on parameters (`$ref`, nested properties, `nullable`, a
// discriminator) and outputs, and user-defined functions (`functions`).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { arm } from '../arm/helpers.js';
import { removeHome, startTestServer, tempHome, type TestServer } from '../e2e/harness.js';
import { API, azBody, deploy, deploymentPath } from '../deployments/harness.js';

function template(extra: { existingName?: string; outputs?: Record<string, unknown> } = {}) {
  return {
    $schema: 'https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#',
    languageVersion: '2.0',
    contentVersion: '1.0.0.0',
    definitions: {
      subnet: {
        type: 'object',
        properties: { name: { type: 'string', minLength: 2 }, prefix: { type: 'string' }, delegated: { type: 'bool', nullable: true } },
        additionalProperties: false,
      },
      network: {
        type: 'object',
        properties: { space: { type: 'string' }, subnets: { type: 'array', items: { $ref: '#/definitions/subnet' } } },
      },
      peer: {
        type: 'object',
        discriminator: {
          propertyName: 'kind',
          mapping: {
            none: { type: 'object', properties: { kind: { type: 'string', allowedValues: ['none'] } } },
            hub: { type: 'object', properties: { kind: { type: 'string', allowedValues: ['hub'] }, hubId: { type: 'string' } } },
          },
        },
      },
    },
    functions: [
      {
        namespace: 'naming',
        members: {
          prefixed: { parameters: [{ name: 'name', type: 'string' }], output: { type: 'string', value: "[format('v2-{0}', parameters('name'))]" } },
        },
      },
    ],
    parameters: {
      network: { $ref: '#/definitions/network' },
      peer: { $ref: '#/definitions/peer', defaultValue: { kind: 'none' } },
      owner: { type: 'string', nullable: true },
    },
    resources: {
      hub: {
        existing: true,
        type: 'Microsoft.Network/virtualNetworks',
        apiVersion: '2022-01-01',
        resourceGroup: 'v2hub',
        name: extra.existingName ?? 'hubvnet',
      },
      vnet: {
        type: 'Microsoft.Network/virtualNetworks',
        apiVersion: '2022-01-01',
        name: "[naming.prefixed('spoke')]",
        location: '[resourceGroup().location]',
        tags: { owner: "[coalesce(parameters('owner'), 'nobody')]", hubSpace: "[reference('hub').addressSpace.addressPrefixes[0]]" },
        properties: {
          addressSpace: { addressPrefixes: ["[parameters('network').space]"] },
          copy: [
            {
              name: 'subnets',
              count: "[length(parameters('network').subnets)]",
              input: {
                name: "[parameters('network').subnets[copyIndex('subnets')].name]",
                properties: { addressPrefix: "[parameters('network').subnets[copyIndex('subnets')].prefix]" },
              },
            },
          ],
        },
      },
      second: {
        type: 'Microsoft.Network/virtualNetworks',
        apiVersion: '2022-01-01',
        name: 'second',
        location: '[resourceGroup().location]',
        dependsOn: ['vnet'],
        tags: { first: "[reference('vnet', '2022-01-01', 'full').properties.addressSpace.addressPrefixes[0]]" },
        properties: { addressSpace: { addressPrefixes: ['10.60.0.0/16'] } },
      },
    },
    outputs: {
      firstSubnet: { $ref: '#/definitions/subnet', value: "[parameters('network').subnets[0]]" },
      name: { type: 'string', value: "[naming.prefixed('out')]" },
      ...(extra.outputs ?? {}),
    },
  };
}

const NETWORK = { space: '10.50.0.0/16', subnets: [{ name: 'nodes', prefix: '10.50.0.0/20' }] };

describe('languageVersion 2.0', () => {
  let server: TestServer;
  let home: string;
  let sub: string;
  const validate = (name: string, body: string) =>
    arm(server, 'POST', `${deploymentPath(sub, 'v2', name)}/validate?${API}`, { raw: body, headers: { 'content-type': 'application/json' } });
  before(async () => {
    home = tempHome();
    server = await startTestServer({ home });
    sub = server.identity.subscriptionId;
    for (const g of ['v2', 'v2hub'])
      await arm(server, 'PUT', `/subscriptions/${sub}/resourcegroups/${g}?api-version=2021-04-01`, { body: { location: 'eastus' } });
    const hub = await arm(
      server,
      'PUT',
      `/subscriptions/${sub}/resourceGroups/v2hub/providers/Microsoft.Network/virtualNetworks/hubvnet?api-version=2022-01-01`,
      {
        body: { location: 'eastus', properties: { addressSpace: { addressPrefixes: ['10.40.0.0/16'] } } },
      },
    );
    assert.ok(hub.status < 300, JSON.stringify(hub.body));
  });
  after(async () => {
    await server.close();
    removeHome(home);
  });

  test('symbolic names, an existing resource, user-defined types and functions deploy', async () => {
    const { status, final } = await deploy(server, sub, 'v2', 'v2ok', azBody(JSON.stringify(template()), { network: NETWORK }));
    assert.equal(status.status, 'Succeeded', JSON.stringify(status));
    assert.deepEqual(final.body.properties.outputs, {
      firstSubnet: { type: 'Object', value: { name: 'nodes', prefix: '10.50.0.0/20' } },
      name: { type: 'String', value: 'v2-out' },
    });
    assert.deepEqual(final.body.properties.parameters.owner, { type: 'String', value: null });
    const vnet = await arm(
      server,
      'GET',
      `/subscriptions/${sub}/resourceGroups/v2/providers/Microsoft.Network/virtualNetworks/v2-spoke?api-version=2022-01-01`,
    );
    assert.deepEqual(vnet.body.tags, { owner: 'nobody', hubSpace: '10.40.0.0/16' });
    assert.equal(vnet.body.properties.subnets[0].name, 'nodes');
    const second = await arm(
      server,
      'GET',
      `/subscriptions/${sub}/resourceGroups/v2/providers/Microsoft.Network/virtualNetworks/second?api-version=2022-01-01`,
    );
    assert.deepEqual(second.body.tags, { first: '10.50.0.0/16' });
    // dependsOn by symbolic name, and the existing hub is no output resource.
    assert.equal(final.body.properties.dependencies.find((d: any) => d.resourceName === 'second').dependsOn[0].resourceName, 'v2-spoke');
    assert.deepEqual(
      final.body.properties.outputResources.map((r: any) => r.id.split('/').pop()),
      ['v2-spoke', 'second'],
    );
  });

  test('a parameter of the wrong user-defined type is InvalidTemplate, naming the member', async () => {
    const bad = { space: '10.50.0.0/16', subnets: [{ name: 'nodes', prefix: 42 }] };
    const res = await validate('badtype', azBody(JSON.stringify(template()), { network: bad }));
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'InvalidTemplate');
    assert.match(
      res.body.error.message,
      /The template parameter 'network' is not valid: The value at '\.subnets\[0\]\.prefix' is not valid\. Expected a value of type 'String' but the provided value is of type 'Integer'\./,
    );
    const extra = await validate('extra', azBody(JSON.stringify(template()), { network: { ...NETWORK, subnets: [{ name: 'nodes', prefix: 'x', other: 1 }] } }));
    assert.match(extra.body.error.message, /The value at '\.subnets\[0\]' has the property 'other', which its type does not allow/);
    const missing = await validate('missing', azBody(JSON.stringify(template()), { network: { subnets: [] } }));
    assert.match(missing.body.error.message, /The value at '' is missing the required property 'space'/);
    const peer = await validate('peer', azBody(JSON.stringify(template()), { network: NETWORK, peer: { kind: 'mesh' } }));
    assert.match(peer.body.error.message, /The value at '\.kind' is not one of the discriminator's values 'none, hub'/);
    const hubPeer = await validate('hubpeer', azBody(JSON.stringify(template()), { network: NETWORK, peer: { kind: 'hub', hubId: 'x' } }));
    assert.equal(hubPeer.status, 200, JSON.stringify(hubPeer.body));
  });

  test('a missing existing resource fails the deployment with the provider answer; nothing is left', async () => {
    const { status } = await deploy(server, sub, 'v2', 'v2missing', azBody(JSON.stringify(template({ existingName: 'nohub' })), { network: NETWORK }));
    assert.equal(status.status, 'Failed');
    assert.equal(status.error.code, 'DeploymentFailed');
    assert.equal(status.error.details[0].code, 'ResourceNotFound');
    assert.match(status.error.details[0].message, /nohub/);
    const ops = await arm(server, 'GET', `${deploymentPath(sub, 'v2', 'v2missing')}/operations?${API}`);
    assert.deepEqual(
      ops.body.value.map((o: any) => o.properties.provisioningOperation),
      ['Read'],
    );
  });

  test('an output of the wrong type fails the deployment at its outputs', async () => {
    const t = template({ outputs: { count: { type: 'int', value: "[parameters('network').space]" } } });
    const { status } = await deploy(server, sub, 'v2', 'v2output', azBody(JSON.stringify(t), { network: NETWORK }));
    assert.equal(status.status, 'Failed');
    assert.equal(status.error.code, 'DeploymentOutputEvaluationFailed');
    assert.match(
      status.error.details[0].message,
      /The template output 'count' is not valid: The value is not valid\. Expected a value of type 'Integer' but the provided value is of type 'String'\./,
    );
  });
});
