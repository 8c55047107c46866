// Test support for deployments: the BYO CNI templates the tests deploy — our own fixtures
// (test/fixtures/templates), always there, and the seed documents' templates, read from the seeds folder beside the repository (SEEDS_DIR)
// when the checkout has that sibling folder (CI does; a lone clone does not) — and a deploy-and-wait
// helper over the ARM front door.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join, resolve } from 'node:path';
import { arm, pathOf, type Reply } from '../arm/helpers.js';
import type { TestServer } from '../e2e/harness.js';

const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
/** The seed documents, a sibling of the repository. */
export const SEEDS_DIR = resolve(REPO, '../shared/seeds');
/** Why the seed-template tests are skipped, or false when the seeds are there. */
export const SEEDS_SKIP: string | false = existsSync(SEEDS_DIR)
  ? false
  : `the seed documents are not beside this checkout (${SEEDS_DIR}); test/fixtures/templates covers the same features`;

/** An ARM JSON template and the same deployment in Bicep. */
export interface TemplatePair {
  file: string;
  arm: string;
  bicep: string;
}

const FIXTURES = join(REPO, 'test', 'fixtures', 'templates');

/** Our own BYO CNI templates: networkPlugin none, a podCidr parameter, Kubernetes 1.22, JSON and Bicep. */
export const FIXTURE: TemplatePair = {
  file: 'byocni',
  arm: readFileSync(join(FIXTURES, 'byocni.json'), 'utf8'),
  bicep: readFileSync(join(FIXTURES, 'byocni.bicep'), 'utf8'),
};

/** The same cluster, but its podCidr names a parameter the template never declares. */
export const FIXTURE_UNDECLARED_PARAMETER = readFileSync(join(FIXTURES, 'byocni-undeclared-parameter.json'), 'utf8');

/** The ARM JSON (the first top-level {…} block) and Bicep (from the first `param` line to the closing `}`) of each seed that has them; none without the seeds. */
export function seedTemplates(): TemplatePair[] {
  if (SEEDS_SKIP) return [];
  const out: TemplatePair[] = [];
  for (const file of readdirSync(SEEDS_DIR)
    .filter((f) => f.endsWith('.txt'))
    .sort()) {
    const lines = readFileSync(join(SEEDS_DIR, file), 'utf8').split(/\r?\n/);
    const start = lines.findIndex((l) => l === '{');
    if (start < 0) continue;
    const end = lines.findIndex((l, i) => i > start && l === '}');
    const bicepStart = lines.findIndex((l, i) => i > end && l.startsWith('param '));
    const bicepEnd = lines.findIndex((l, i) => i > bicepStart && l === '}');
    assert.ok(end > start && bicepStart > end && bicepEnd > bicepStart, `templates of ${file}`);
    out.push({ file, arm: lines.slice(start, end + 1).join('\n'), bicep: lines.slice(bicepStart, bicepEnd + 1).join('\n') });
  }
  return out;
}

export const API = 'api-version=2021-04-01';

export function deploymentPath(sub: string, group: string, name: string): string {
  return `/subscriptions/${sub}/resourcegroups/${group}/providers/Microsoft.Resources/deployments/${name}`;
}

/** The body az 2.45 sends: JSON with the template file spliced in raw under an unquoted key. */
export function azBody(templateText: string, parameters: Record<string, unknown> = {}): string {
  const params = Object.fromEntries(Object.entries(parameters).map(([k, v]) => [k, { value: v }]));
  return `{"properties": {"parameters": ${JSON.stringify(params)}, "mode": "Incremental", template:${templateText}}}`;
}

/** PUT + poll the status URL until the deployment ends; returns the PUT answer and the final GET. */
export async function deploy(server: TestServer, sub: string, group: string, name: string, body: string): Promise<{ put: Reply; status: any; final: Reply }> {
  const path = deploymentPath(sub, group, name);
  const put = await arm(server, 'PUT', `${path}?${API}`, { raw: body, headers: { 'content-type': 'application/json' } });
  if (put.status >= 300) return { put, status: undefined, final: put };
  const statusUrl = put.headers['azure-asyncoperation'];
  assert.ok(statusUrl, 'Azure-AsyncOperation header');
  let status: any;
  for (let i = 0; i < 500; i++) {
    status = (await arm(server, 'GET', pathOf(statusUrl))).body;
    if (status?.status !== 'Running') break;
    await new Promise((r) => setTimeout(r, 10));
  }
  const final = await arm(server, 'GET', `${path}?${API}`);
  return { put, status, final };
}

/** A subscription file as Bicep compiles `resource rg …` + `module aks … = { scope: rg }`. */
export const GROUP_AND_CLUSTER = {
  $schema: 'https://schema.management.azure.com/schemas/2018-05-01/subscriptionDeploymentTemplate.json#',
  contentVersion: '1.0.0.0',
  parameters: { groupName: { type: 'string' }, location: { type: 'string', defaultValue: '[deployment().location]' } },
  resources: [
    {
      type: 'Microsoft.Resources/resourceGroups',
      apiVersion: '2022-09-01',
      name: "[parameters('groupName')]",
      location: "[parameters('location')]",
      tags: { made: '[deployment().name]' },
    },
    {
      type: 'Microsoft.Resources/deployments',
      apiVersion: '2022-09-01',
      name: 'aks',
      resourceGroup: "[parameters('groupName')]",
      dependsOn: ["[subscriptionResourceId('Microsoft.Resources/resourceGroups', parameters('groupName'))]"],
      properties: {
        expressionEvaluationOptions: { scope: 'inner' },
        mode: 'Incremental',
        parameters: { clusterName: { value: 'subaks' }, nodeCount: { value: 1 } },
        template: JSON.parse(FIXTURE.arm),
      },
    },
  ],
  outputs: {
    clusterId: {
      type: 'string',
      value:
        "[reference(extensionResourceId(format('/subscriptions/{0}/resourceGroups/{1}', subscription().subscriptionId, parameters('groupName')), 'Microsoft.Resources/deployments', 'aks'), '2022-09-01').outputs.clusterId.value]",
    },
    location: { type: 'string', value: '[deployment().location]' },
    groupId: { type: 'string', value: "[subscriptionResourceId('Microsoft.Resources/resourceGroups', parameters('groupName'))]" },
  },
};
