// One example of each page of the template function reference deployed as a user deploys it:
// the example's template written to a file, `aksemu az deployment group create` against a real
// server, and the outputs az prints compared with the values the page documents (the rest of
// each page's examples run through the engine in <page>.test.ts).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { az, azOk } from '../../az/helpers.js';
import { removeHome, startTestServer, tempHome, type TestServer } from '../../e2e/harness.js';
import { type Expected, GROUP, SCOPE, SUB, assertOutputs } from './harness.js';
import { PAGES } from './pages/index.js';

/** The example deployed from each page: one that shows what the page is about, with no resource in it. */
const DEPLOYED: Record<string, string> = {
  array: 'indexOf and lastIndexOf',
  cidr: 'cidrSubnet of IPv6',
  comparison: 'coalesce',
  date: 'dateTimeAdd',
  deployment: 'parameters',
  lambda: 'map',
  logical: 'if',
  numeric: 'copyIndex with an offset',
  object: 'items in a variable loop',
  resource: 'pickZones',
  scope: 'resourceGroup',
  string: 'base64, base64ToString and base64ToJson',
};

/** The documented value with the test scope's subscription and tenant replaced by the server's. */
function rebased(expected: Expected, subscriptionId: string, tenantId: string): Expected {
  if (typeof expected === 'string') return expected.replaceAll(SUB, subscriptionId).replaceAll(SCOPE.tenantId, tenantId);
  if (Array.isArray(expected)) return expected.map((e) => rebased(e, subscriptionId, tenantId));
  if (typeof expected === 'object' && expected !== null && !(expected instanceof RegExp))
    return Object.fromEntries(Object.entries(expected).map(([k, v]) => [k, rebased(v, subscriptionId, tenantId)]));
  return expected;
}

describe('the function reference examples deployed with aksemu az', () => {
  let server: TestServer;
  let home: string;
  before(async () => {
    home = tempHome();
    server = await startTestServer({ home });
    await azOk(home, ['group', 'create', '-l', GROUP.location, '-n', GROUP.name, '-o', 'none']);
  });
  after(async () => {
    await server.close();
    removeHome(home);
  });

  for (const [page, name] of Object.entries(DEPLOYED)) {
    test(`${page}: ${name}`, async () => {
      const example = PAGES[page]!.examples.find((e) => e.name === name);
      assert.ok(example, `${page} has an example '${name}'`);
      const file = join(home, `${page}.json`);
      writeFileSync(file, JSON.stringify(example.template, null, 2));
      const parameters = example.parameters
        ? ['--parameters', JSON.stringify(Object.fromEntries(Object.entries(example.parameters).map(([k, value]) => [k, { value }])))]
        : [];
      const args = ['deployment', 'group', 'create', '-g', GROUP.name, '-n', `fn-${page}`, '--template-file', file, ...parameters];
      const r = await az(home, args);
      assert.equal(r.code, 0, r.stderr);
      const shown = JSON.parse(r.stdout) as { properties: { provisioningState: string; outputs: Record<string, { value: unknown }> } };
      assert.equal(shown.properties.provisioningState, 'Succeeded');
      const outputs = Object.fromEntries(Object.entries(shown.properties.outputs).map(([k, v]) => [k, v.value]));
      const { subscriptionId, tenantId } = server.identity;
      assertOutputs(outputs, rebased(example.outputs, subscriptionId, tenantId) as Record<string, Expected>);
    });
  }

  test('utcNow outside a parameter default stops the deployment at validation, as ARM does', async () => {
    const file = join(home, 'utcnow.json');
    writeFileSync(
      file,
      JSON.stringify({
        $schema: 'https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#',
        contentVersion: '1.0.0.0',
        variables: { now: '[utcNow()]' },
        resources: [],
        outputs: { now: { type: 'string', value: "[variables('now')]" } },
      }),
    );
    const r = await az(home, ['deployment', 'group', 'create', '-g', GROUP.name, '-n', 'fn-utcnow', '--template-file', file]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /InvalidTemplate/);
    assert.match(
      r.stderr,
      /The template function 'utcNow' is not expected at this location\. The function can only be used in the default value of a parameter\./,
    );
  });
});
