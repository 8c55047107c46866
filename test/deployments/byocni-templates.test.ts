// BYO CNI templates deploy unchanged through Microsoft.Resources/deployments and create the cluster they
// describe; a template whose podCidr names an undeclared parameter fails the way ARM fails it, while the
// Bicep version deploys. Our own fixtures always run; the seed documents' templates run too when the
// seeds are beside the checkout (the zh seed 000's ARM template has that undeclared parameter).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { arm } from '../arm/helpers.js';
import { removeHome, startTestServer, tempHome, type TestServer } from '../e2e/harness.js';
import { compileBicep } from '../../src/templates/bicep/compile.js';
import { API, azBody, deploy, deploymentPath, FIXTURE, FIXTURE_UNDECLARED_PARAMETER, SEEDS_SKIP, seedTemplates } from './harness.js';

/** What one set of templates should create. */
interface Case {
  label: string;
  bicep: string;
  /** A template that deploys. */
  arm?: string;
  /** A template naming an undeclared parameter 'pod-cidr', with where ARM reports its resource. */
  undeclared?: { arm: string; line: number; column: number };
  /** podCidr: the value of the Bicep file's pod CIDR parameter, when it has one. */
  cluster: { name: string; count: number; vmSize: string; pool: string; dnsPrefix: string; podCidr?: string };
}

const FIXTURE_CASE: Case = {
  label: 'fixture byocni',
  arm: FIXTURE.arm,
  bicep: FIXTURE.bicep,
  // The resource's `{` is on line 9, column 5 of the template.
  undeclared: { arm: FIXTURE_UNDECLARED_PARAMETER, line: 9, column: 5 },
  cluster: { name: 'byocni', count: 2, vmSize: 'Standard_D2s_v3', pool: 'system', dnsPrefix: 'byocni-dns', podCidr: '10.20.0.0/16' },
};

const SEED_CLUSTER: Case['cluster'] = { name: 'aksbyocni', count: 3, vmSize: 'Standard_B2ms', pool: 'nodepool1', dnsPrefix: 'aksbyocni' };

function seedCases(): Case[] {
  return seedTemplates().map((seed) => {
    const id = seed.file.slice(0, 3);
    // Seed 000's ARM template uses parameters('pod-cidr'); its resource's `{` is on line 27, column 5.
    return id === '000'
      ? // Only the newest seed's Bicep declares the pod CIDR its ARM template forgot.
        { label: `seed ${id}`, bicep: seed.bicep, undeclared: { arm: seed.arm, line: 27, column: 5 }, cluster: { ...SEED_CLUSTER, podCidr: '10.2.0.0/16' } }
      : { label: `seed ${id}`, bicep: seed.bicep, arm: seed.arm, cluster: SEED_CLUSTER };
  });
}

function suite(title: string, cases: () => Case[], skip: string | false): void {
  describe(title, { skip }, () => {
    let server: TestServer;
    let home: string;
    let sub: string;
    let n = 0;
    before(async () => {
      home = tempHome();
      server = await startTestServer({ home });
      sub = server.identity.subscriptionId;
    });
    after(async () => {
      await server.close();
      removeHome(home);
    });

    async function group(): Promise<string> {
      const name = `rg${++n}`;
      const res = await arm(server, 'PUT', `/subscriptions/${sub}/resourcegroups/${name}?api-version=2021-04-01`, { body: { location: 'eastus' } });
      assert.ok(res.status === 201 || res.status === 200, JSON.stringify(res.body));
      return name;
    }

    async function assertCluster(groupName: string, expected: Case['cluster']): Promise<void> {
      const res = await arm(
        server,
        'GET',
        `/subscriptions/${sub}/resourceGroups/${groupName}/providers/Microsoft.ContainerService/managedClusters/${expected.name}?api-version=2022-06-01`,
      );
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const p = res.body.properties;
      assert.equal(p.provisioningState, 'Succeeded');
      assert.equal(p.networkProfile.networkPlugin, 'none');
      assert.equal(p.kubernetesVersion, '1.22');
      assert.equal(p.currentKubernetesVersion, '1.22.15');
      assert.equal(p.dnsPrefix, expected.dnsPrefix);
      assert.equal(p.agentPoolProfiles.length, 1);
      assert.equal(p.agentPoolProfiles[0].name, expected.pool);
      assert.equal(p.agentPoolProfiles[0].count, expected.count);
      assert.equal(p.agentPoolProfiles[0].vmSize, expected.vmSize);
      assert.equal(p.agentPoolProfiles[0].mode, 'System');
      assert.equal(res.body.location, 'eastus');
    }

    for (const c of cases()) {
      if (c.arm) {
        const template = c.arm;
        test(`${c.label}: the ARM template deploys unchanged and creates the BYO CNI cluster`, async () => {
          const rg = await group();
          const { put, status, final } = await deploy(server, sub, rg, 'byocni', azBody(template));
          assert.equal(put.status, 201, JSON.stringify(put.body));
          assert.equal(put.body.properties.provisioningState, 'Accepted');
          assert.equal(status.status, 'Succeeded', JSON.stringify(status));
          assert.equal(final.body.properties.provisioningState, 'Succeeded');
          assert.deepEqual(final.body.properties.parameters.kubernetesVersion, { type: 'String', value: '1.22' });
          assert.deepEqual(final.body.properties.parameters.nodeCount, { type: 'Int', value: c.cluster.count });
          assert.deepEqual(final.body.properties.outputResources, [
            { id: `/subscriptions/${sub}/resourceGroups/${rg}/providers/Microsoft.ContainerService/managedClusters/${c.cluster.name}` },
          ]);
          await assertCluster(rg, c.cluster);
        });
      }
      if (c.undeclared) {
        const { arm: template, line, column } = c.undeclared;
        test(`${c.label}: an ARM template naming an undeclared parameter fails with InvalidTemplate, and nothing is created`, async () => {
          const rg = await group();
          const { put } = await deploy(server, sub, rg, 'byocni', azBody(template));
          assert.equal(put.status, 400);
          assert.equal(put.body.error.code, 'InvalidTemplate');
          assert.equal(
            put.body.error.message,
            `Deployment template validation failed: 'The template resource '${c.cluster.name}' at line '${line}' and column '${column}' is not valid: The template parameter 'pod-cidr' is not found. Please see https://aka.ms/arm-syntax-parameters for usage details.. Please see https://aka.ms/arm-template-expressions for usage details.'.`,
          );
          assert.deepEqual(put.body.error.additionalInfo, [
            { type: 'TemplateViolation', info: { lineNumber: line, linePosition: column, path: 'properties.template.resources[0]' } },
          ]);
          const validate = await arm(server, 'POST', `${deploymentPath(sub, rg, 'byocni')}/validate?${API}`, { raw: azBody(template) });
          assert.equal(validate.status, 400);
          assert.equal(validate.body.error.code, 'InvalidTemplate');
          const clusters = await arm(
            server,
            'GET',
            `/subscriptions/${sub}/resourceGroups/${rg}/providers/Microsoft.ContainerService/managedClusters?api-version=2022-06-01`,
          );
          assert.deepEqual(clusters.body.value, []);
          const deployments = await arm(server, 'GET', `${deploymentPath(sub, rg, '')}?${API}`);
          assert.deepEqual(deployments.body.value, []);
        });
      }
      test(`${c.label}: the Bicep file compiles and deploys unchanged, creating the BYO CNI cluster`, async () => {
        const rg = await group();
        const template = JSON.stringify(compileBicep(c.bicep));
        const { put, status, final } = await deploy(server, sub, rg, 'byocni', azBody(template));
        assert.equal(put.status, 201, JSON.stringify(put.body));
        assert.equal(status.status, 'Succeeded', JSON.stringify(status));
        await assertCluster(rg, c.cluster);
        assert.deepEqual(final.body.properties.parameters.podCidr, c.cluster.podCidr === undefined ? undefined : { type: 'String', value: c.cluster.podCidr });
      });
    }
  });
}

suite('our BYO CNI template fixtures', () => [FIXTURE_CASE], false);
suite("the seed documents' templates", seedCases, SEEDS_SKIP);

test('the seeds with templates are found (000, 001, 003, 004)', { skip: SEEDS_SKIP }, () => {
  assert.deepEqual(
    seedTemplates().map((s) => s.file.slice(0, 3)),
    ['000', '001', '003', '004'],
  );
});
