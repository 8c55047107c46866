// The seed documents' templates deploy unchanged through Microsoft.Resources/deployments and create
// the BYO CNI cluster they describe; the zh seed 000's ARM template, which uses an undeclared
// parameter, fails the way ARM fails it, while its Bicep version deploys.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { arm } from '../arm/helpers.js';
import { removeHome, startTestServer, tempHome, type TestServer } from '../e2e/harness.js';
import { compileBicep } from '../../src/templates/bicep/compile.js';
import { API, azBody, deploy, deploymentPath, seedTemplates } from './harness.js';

const seeds = seedTemplates();

describe('the seed templates', () => {
  let server: TestServer;
  let home: string;
  let sub: string;
  before(async () => {
    home = tempHome();
    server = await startTestServer({ home });
    sub = server.identity.subscriptionId;
  });
  after(async () => {
    await server.close();
    removeHome(home);
  });

  test('every seed with templates is found (000, 001, 003, 004)', () => {
    assert.deepEqual(seeds.map((s) => s.file.slice(0, 3)), ['000', '001', '003', '004']);
  });

  async function group(name: string): Promise<void> {
    const res = await arm(server, 'PUT', `/subscriptions/${sub}/resourcegroups/${name}?api-version=2021-04-01`, { body: { location: 'eastus' } });
    assert.ok(res.status === 201 || res.status === 200, JSON.stringify(res.body));
  }

  async function assertSeedCluster(groupName: string): Promise<void> {
    const res = await arm(server, 'GET', `/subscriptions/${sub}/resourceGroups/${groupName}/providers/Microsoft.ContainerService/managedClusters/aksbyocni?api-version=2022-06-01`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const p = res.body.properties;
    assert.equal(p.provisioningState, 'Succeeded');
    assert.equal(p.networkProfile.networkPlugin, 'none');
    assert.equal(p.kubernetesVersion, '1.22');
    assert.equal(p.currentKubernetesVersion, '1.22.15');
    assert.equal(p.dnsPrefix, 'aksbyocni');
    assert.equal(p.agentPoolProfiles.length, 1);
    assert.equal(p.agentPoolProfiles[0].count, 3);
    assert.equal(p.agentPoolProfiles[0].vmSize, 'Standard_B2ms');
    assert.equal(p.agentPoolProfiles[0].mode, 'System');
    assert.equal(res.body.location, 'eastus');
  }

  for (const seed of seeds) {
    const id = seed.file.slice(0, 3);
    if (id === '000') {
      test(`${id}: the ARM template fails with InvalidTemplate naming 'pod-cidr', and nothing is created`, async () => {
        await group('rg000arm');
        const { put } = await deploy(server, sub, 'rg000arm', 'seed', azBody(seed.arm));
        assert.equal(put.status, 400);
        assert.equal(put.body.error.code, 'InvalidTemplate');
        // The resource's `{` is on line 27, column 5 of the template (line 1 is spliced into az's body line).
        assert.equal(
          put.body.error.message,
          "Deployment template validation failed: 'The template resource 'aksbyocni' at line '27' and column '5' is not valid: The template parameter 'pod-cidr' is not found. Please see https://aka.ms/arm-syntax-parameters for usage details.. Please see https://aka.ms/arm-template-expressions for usage details.'.",
        );
        assert.deepEqual(put.body.error.additionalInfo, [{ type: 'TemplateViolation', info: { lineNumber: 27, linePosition: 5, path: 'properties.template.resources[0]' } }]);
        const validate = await arm(server, 'POST', `${deploymentPath(sub, 'rg000arm', 'seed')}/validate?${API}`, { raw: azBody(seed.arm) });
        assert.equal(validate.status, 400);
        assert.equal(validate.body.error.code, 'InvalidTemplate');
        const clusters = await arm(server, 'GET', `/subscriptions/${sub}/resourceGroups/rg000arm/providers/Microsoft.ContainerService/managedClusters?api-version=2022-06-01`);
        assert.deepEqual(clusters.body.value, []);
        const deployments = await arm(server, 'GET', `${deploymentPath(sub, 'rg000arm', '')}?${API}`);
        assert.deepEqual(deployments.body.value, []);
      });
    } else {
      test(`${id}: the ARM template deploys unchanged and creates the BYO CNI cluster`, async () => {
        await group(`rg${id}arm`);
        const { put, status, final } = await deploy(server, sub, `rg${id}arm`, 'seed', azBody(seed.arm));
        assert.equal(put.status, 201, JSON.stringify(put.body));
        assert.equal(put.body.properties.provisioningState, 'Accepted');
        assert.equal(status.status, 'Succeeded', JSON.stringify(status));
        assert.equal(final.body.properties.provisioningState, 'Succeeded');
        assert.deepEqual(final.body.properties.parameters.kubernetesVersion, { type: 'String', value: '1.22' });
        assert.deepEqual(final.body.properties.parameters.nodeCount, { type: 'Int', value: 3 });
        assert.deepEqual(final.body.properties.outputResources, [
          { id: `/subscriptions/${sub}/resourceGroups/rg${id}arm/providers/Microsoft.ContainerService/managedClusters/aksbyocni` },
        ]);
        await assertSeedCluster(`rg${id}arm`);
      });
    }
    test(`${id}: the Bicep file compiles and deploys unchanged, creating the BYO CNI cluster`, async () => {
      await group(`rg${id}bicep`);
      const template = JSON.stringify(compileBicep(seed.bicep));
      const { put, status, final } = await deploy(server, sub, `rg${id}bicep`, 'seed', azBody(template));
      assert.equal(put.status, 201, JSON.stringify(put.body));
      assert.equal(status.status, 'Succeeded', JSON.stringify(status));
      await assertSeedCluster(`rg${id}bicep`);
      if (id === '000') {
        // The Bicep version declares the pod CIDR the ARM version forgot.
        assert.deepEqual(final.body.properties.parameters.podCidr, { type: 'String', value: '10.2.0.0/16' });
      }
    });
  }
});
