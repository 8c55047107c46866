// Microsoft.Resources/deployments over the front door: a failing resource rolls the whole deployment
// back (DeploymentFailed with the AKS rule's code and message), dependency order, outputs with
// reference(), operations, list/show/delete, validate and whatIf.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { arm } from '../arm/helpers.js';
import { removeHome, startTestServer, tempHome, type TestServer } from '../e2e/harness.js';
import { compileBicep } from '../../src/templates/bicep/compile.js';
import { API, azBody, deploy, deploymentPath } from './harness.js';

const VNET_AND_CLUSTER = {
  $schema: 'https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#',
  contentVersion: '1.0.0.0',
  parameters: {
    serviceCidr: { type: 'string', defaultValue: '10.0.0.0/16' },
    dnsServiceIP: { type: 'string', defaultValue: '10.0.0.10' },
  },
  variables: { vnetName: 'aksVnet', subnetName: 'nodes' },
  resources: [
    {
      type: 'Microsoft.ContainerService/managedClusters',
      apiVersion: '2022-06-01',
      name: 'byo',
      location: '[resourceGroup().location]',
      dependsOn: ["[resourceId('Microsoft.Network/virtualNetworks', variables('vnetName'))]"],
      identity: { type: 'SystemAssigned' },
      properties: {
        dnsPrefix: 'byo',
        agentPoolProfiles: [
          {
            name: 'nodepool1',
            count: 3,
            vmSize: 'Standard_B2ms',
            mode: 'System',
            vnetSubnetID: "[resourceId('Microsoft.Network/virtualNetworks/subnets', variables('vnetName'), variables('subnetName'))]",
          },
        ],
        networkProfile: {
          networkPlugin: 'none',
          podCidr: '10.244.0.0/16',
          serviceCidr: "[parameters('serviceCidr')]",
          dnsServiceIP: "[parameters('dnsServiceIP')]",
        },
      },
    },
    {
      type: 'Microsoft.Network/virtualNetworks',
      apiVersion: '2022-01-01',
      name: "[variables('vnetName')]",
      location: '[resourceGroup().location]',
      properties: {
        addressSpace: { addressPrefixes: ['10.224.0.0/12'] },
        subnets: [{ name: "[variables('subnetName')]", properties: { addressPrefix: '10.224.0.0/16' } }],
      },
    },
  ],
  outputs: {
    fqdn: { type: 'string', value: "[reference('byo').fqdn]" },
    subnetId: { type: 'string', value: "[reference(variables('vnetName')).subnets[0].id]" },
  },
};

describe('deployments', () => {
  let server: TestServer;
  let home: string;
  let sub: string;
  before(async () => {
    home = tempHome();
    server = await startTestServer({ home });
    sub = server.identity.subscriptionId;
    for (const g of ['rgfail', 'rgok', 'rgapi']) {
      await arm(server, 'PUT', `/subscriptions/${sub}/resourcegroups/${g}?api-version=2021-04-01`, { body: { location: 'eastus' } });
    }
  });
  after(async () => {
    await server.close();
    removeHome(home);
  });

  const vnets = async (g: string) =>
    (await arm(server, 'GET', `/subscriptions/${sub}/resourceGroups/${g}/providers/Microsoft.Network/virtualNetworks?api-version=2022-01-01`)).body.value;

  test('a cluster breaking a network rule fails the deployment with DeploymentFailed and leaves nothing half-created', async () => {
    const body = azBody(JSON.stringify(VNET_AND_CLUSTER), { serviceCidr: '10.200.0.0/16', dnsServiceIP: '10.0.0.10' });
    const { put, status, final } = await deploy(server, sub, 'rgfail', 'bad', body);
    assert.equal(put.status, 201);
    assert.equal(status.status, 'Failed');
    const message =
      'At least one resource deployment operation failed. Please list deployment operations for details. Please see https://aka.ms/arm-deployment-operations for usage details.';
    assert.equal(status.error.code, 'DeploymentFailed');
    assert.equal(status.error.message, message);
    assert.equal(status.error.details[0].code, 'DnsServiceIpOutOfServiceCidr');
    assert.equal(status.error.details[0].message, 'The DNS service IP 10.0.0.10 is out of the range defined by service CIDR 10.200.0.0/16.');
    assert.equal(final.body.properties.provisioningState, 'Failed');
    assert.equal(final.body.properties.error.details[0].code, 'DnsServiceIpOutOfServiceCidr');
    // The vnet was deployed first (the cluster depends on it) and is rolled back with the cluster.
    assert.deepEqual(await vnets('rgfail'), []);
    const clusters = await arm(
      server,
      'GET',
      `/subscriptions/${sub}/resourceGroups/rgfail/providers/Microsoft.ContainerService/managedClusters?api-version=2022-06-01`,
    );
    assert.deepEqual(clusters.body.value, []);
    const ops = await arm(server, 'GET', `${deploymentPath(sub, 'rgfail', 'bad')}/operations?${API}`);
    const failed = ops.body.value.find((o: any) => o.properties.provisioningState === 'Failed');
    assert.equal(failed.properties.targetResource.resourceType, 'Microsoft.ContainerService/managedClusters');
    assert.equal(failed.properties.statusCode, 'BadRequest');
    assert.equal(failed.properties.statusMessage.error.code, 'DnsServiceIpOutOfServiceCidr');
  });

  test('the same template with a valid network deploys the vnet first, then the cluster, and returns outputs', async () => {
    const { status, final } = await deploy(server, sub, 'rgok', 'good', azBody(JSON.stringify(VNET_AND_CLUSTER)));
    assert.equal(status.status, 'Succeeded', JSON.stringify(status));
    const p = final.body.properties;
    assert.match(p.outputs.fqdn.value, /^byo-[0-9a-f]{8}\.hcp\.eastus\.azmk8s\.io$/);
    assert.equal(p.outputs.subnetId.value, `/subscriptions/${sub}/resourceGroups/rgok/providers/Microsoft.Network/virtualNetworks/aksVnet/subnets/nodes`);
    assert.deepEqual(
      p.outputResources.map((r: any) => r.id.split('/').pop()),
      ['aksVnet', 'byo'],
    );
    assert.equal(p.dependencies[0].dependsOn[0].resourceName, 'aksVnet');
    assert.deepEqual(p.providers.map((x: any) => x.namespace).sort(), ['Microsoft.ContainerService', 'Microsoft.Network']);
    const ops = await arm(server, 'GET', `${deploymentPath(sub, 'rgok', 'good')}/operations?${API}`);
    assert.deepEqual(ops.body.value.map((o: any) => o.properties.provisioningOperation).sort(), ['Create', 'Create', 'EvaluateDeploymentOutput']);
    const one = await arm(server, 'GET', `${deploymentPath(sub, 'rgok', 'good')}/operations/${ops.body.value[0].operationId}?${API}`);
    assert.equal(one.status, 200);
  });

  test('list, show, exportTemplate and delete (history only; resources stay)', async () => {
    const template = {
      $schema: VNET_AND_CLUSTER.$schema,
      contentVersion: '1.0.0.0',
      resources: [VNET_AND_CLUSTER.resources[1]],
      variables: VNET_AND_CLUSTER.variables,
    };
    const { status } = await deploy(server, sub, 'rgapi', 'net', azBody(JSON.stringify(template)));
    assert.equal(status.status, 'Succeeded');
    const listed = await arm(server, 'GET', `${deploymentPath(sub, 'rgapi', '')}/?${API}`);
    assert.deepEqual(
      listed.body.value.map((d: any) => d.name),
      ['net'],
    );
    assert.equal(listed.body.value[0].aksemu, undefined);
    const exported = await arm(server, 'POST', `${deploymentPath(sub, 'rgapi', 'net')}/exportTemplate?${API}`);
    assert.equal(exported.body.template.resources[0].type, 'Microsoft.Network/virtualNetworks');
    const del = await arm(server, 'DELETE', `${deploymentPath(sub, 'rgapi', 'net')}?${API}`);
    assert.equal(del.status, 202);
    for (let i = 0; i < 100; i++) {
      if ((await arm(server, 'GET', `${deploymentPath(sub, 'rgapi', 'net')}?${API}`)).status === 404) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    const gone = await arm(server, 'GET', `${deploymentPath(sub, 'rgapi', 'net')}?${API}`);
    assert.equal(gone.status, 404);
    assert.equal(gone.body.error.code, 'DeploymentNotFound');
    assert.equal((await vnets('rgapi')).length, 1);
  });

  test('validate answers 200 with the validated resources; whatIf reports Create, then NoChange and Modify', async () => {
    const template = JSON.stringify({ ...VNET_AND_CLUSTER, resources: [VNET_AND_CLUSTER.resources[1]], outputs: {} });
    const validate = await arm(server, 'POST', `${deploymentPath(sub, 'rgok', 'v')}/validate?${API}`, { raw: azBody(template) });
    assert.equal(validate.status, 200, JSON.stringify(validate.body));
    assert.equal(validate.body.properties.provisioningState, 'Succeeded');
    assert.deepEqual(validate.body.properties.validatedResources, [
      { id: `/subscriptions/${sub}/resourceGroups/rgok/providers/Microsoft.Network/virtualNetworks/aksVnet` },
    ]);
    const fresh = await arm(server, 'POST', `${deploymentPath(sub, 'rgapi', 'w')}/whatIf?${API}`, {
      raw: azBody(JSON.stringify({ ...JSON.parse(template), variables: { vnetName: 'other', subnetName: 's' } })),
    });
    assert.equal(fresh.status, 200);
    assert.deepEqual(
      fresh.body.properties.changes.map((c: any) => c.changeType),
      ['Create', 'Ignore'],
    );
    const same = await arm(server, 'POST', `${deploymentPath(sub, 'rgok', 'w')}/whatIf?${API}`, { raw: azBody(template) });
    const vnetChange = same.body.properties.changes.find((c: any) => c.resourceId.endsWith('/aksVnet'));
    assert.equal(vnetChange.changeType, 'NoChange', JSON.stringify(vnetChange));
    const changed = JSON.stringify({ ...JSON.parse(template), resources: [{ ...VNET_AND_CLUSTER.resources[1], tags: { env: 'test' } }] });
    const modify = await arm(server, 'POST', `${deploymentPath(sub, 'rgok', 'w')}/whatIf?${API}`, { raw: azBody(changed) });
    const m = modify.body.properties.changes.find((c: any) => c.resourceId.endsWith('/aksVnet'));
    assert.equal(m.changeType, 'Modify');
    assert.deepEqual(m.delta, [{ path: 'tags', propertyChangeType: 'Create', after: { env: 'test' } }]);
  });

  test('template errors: a missing parameter value, a parameter the template lacks, an unknown function, a bad dependsOn', async () => {
    const base = { $schema: VNET_AND_CLUSTER.$schema, contentVersion: '1.0.0.0', resources: [] as unknown[] };
    const post = (t: unknown, params: Record<string, unknown> = {}) =>
      arm(server, 'POST', `${deploymentPath(sub, 'rgapi', 'e')}/validate?${API}`, { raw: azBody(JSON.stringify(t), params) });
    const missing = await post({ ...base, parameters: { p: { type: 'string' } } });
    assert.equal(missing.status, 400);
    assert.match(
      missing.body.error.message,
      /^Deployment template validation failed: 'The value for the template parameter 'p' at line '1' and column '\d+' is not provided\. Please see https:\/\/aka\.ms\/arm-create-parameter-file for usage details\.'\.$/,
    );
    const extra = await post(base, { nope: 1 });
    assert.match(extra.body.error.message, /The template parameters 'nope' in the parameters file are not valid/);
    const typed = await post({ ...base, parameters: { n: { type: 'int' } } }, { n: 'three' });
    assert.match(typed.body.error.message, /Template parameter JToken type is not valid\. Expected 'Integer'\. Actual 'String'\./);
    const allowed = await post({ ...base, parameters: { s: { type: 'string', allowedValues: ['a', 'b'] } } }, { s: 'c' });
    assert.match(allowed.body.error.message, /The provided value 'c' for the template parameter 's' .* is not part of the allowed value\(s\): 'a,b'/);
    const fn = await post({ ...base, resources: [{ ...VNET_AND_CLUSTER.resources[1], name: "[nosuch('x')]" }], variables: VNET_AND_CLUSTER.variables });
    assert.match(fn.body.error.message, /The template function 'nosuch' is not valid/);
    const dep = await post({ ...base, resources: [{ ...VNET_AND_CLUSTER.resources[1], name: 'v', dependsOn: ['missing'] }] });
    assert.match(dep.body.error.message, /The resource 'missing' is not defined in the template/);
    const cycle = await post({
      ...base,
      resources: [
        { ...VNET_AND_CLUSTER.resources[1], name: 'a', dependsOn: ['b'] },
        { ...VNET_AND_CLUSTER.resources[1], name: 'b', dependsOn: ['a'] },
      ],
    });
    assert.match(cycle.body.error.message, /Circular dependency detected on resource/);
  });

  test('Bicep: a vnet with a copy loop of subnets (for), a parent/child subnet, a conditional resource and outputs', async () => {
    const bicep = `
@description('Subnet prefixes')
param prefixes array = [
  '10.1.1.0/24'
  '10.1.2.0/24'
]
param withExtra bool = false

var vnetName = 'loopnet'

resource vnet 'Microsoft.Network/virtualNetworks@2022-01-01' = {
  name: vnetName
  location: resourceGroup().location
  properties: {
    addressSpace: {
      addressPrefixes: [
        '10.1.0.0/16'
      ]
    }
    subnets: [for (p, i) in prefixes: {
      name: 'sub\${i}'
      properties: {
        addressPrefix: p
      }
    }]
  }
}

resource extra 'Microsoft.Network/virtualNetworks/subnets@2022-01-01' = {
  parent: vnet
  name: 'extra'
  properties: {
    addressPrefix: '10.1.9.0/24'
  }
}

resource skipped 'Microsoft.Network/virtualNetworks@2022-01-01' = if (withExtra) {
  name: 'skipped'
  location: resourceGroup().location
  properties: {
    addressSpace: {
      addressPrefixes: [
        '10.9.0.0/16'
      ]
    }
  }
}

output vnetId string = vnet.id
output subnetCount int = length(vnet.properties.subnets)
output extraName string = extra.name
`;
    const { status, final } = await deploy(server, sub, 'rgapi', 'loops', azBody(JSON.stringify(compileBicep(bicep))));
    assert.equal(status?.status, 'Succeeded', JSON.stringify(status ?? final.body));
    const o = final.body.properties.outputs;
    assert.equal(o.vnetId.value, `/subscriptions/${sub}/resourceGroups/rgapi/providers/Microsoft.Network/virtualNetworks/loopnet`);
    assert.equal(o.subnetCount.value, 3);
    assert.equal(o.extraName.value, 'extra');
    const names = (await vnets('rgapi')).map((v: any) => v.name).sort();
    assert.deepEqual(names, ['aksVnet', 'loopnet']);
  });
});
