// aksemu az deployment group … as a user runs it, with our BYO CNI templates (test/fixtures/templates) as
// files: JSON and Bicep deploy, a template naming an undeclared parameter stops at validation, then
// show/list/what-if/delete.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { az } from '../az/helpers.js';
import { removeHome, startTestServer, tempHome, type TestServer } from '../e2e/harness.js';
import { FIXTURE, FIXTURE_UNDECLARED_PARAMETER } from './harness.js';

describe('aksemu az deployment group', () => {
  let server: TestServer;
  let home: string;
  const file = (name: string, text: string) => {
    const path = join(home, name);
    writeFileSync(path, text);
    return path;
  };
  before(async () => {
    home = tempHome();
    server = await startTestServer({ home });
    const r = await az(home, ['group', 'create', '-l', 'eastus', '-n', 'myResourceGroup', '-o', 'none']);
    assert.equal(r.code, 0, r.stderr);
  });
  after(async () => {
    await server.close();
    removeHome(home);
  });

  test('create with the BYO CNI Bicep file, a parameter override, then show, list and what-if', async () => {
    const bicep = file('aks.bicep', FIXTURE.bicep);
    const r = await az(home, [
      'deployment',
      'group',
      'create',
      '-g',
      'myResourceGroup',
      '--template-file',
      bicep,
      '--parameters',
      'clusterName=fromcli',
      'nodeCount=3',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const shown = JSON.parse(r.stdout);
    assert.equal(shown.name, 'aks');
    assert.equal(shown.properties.provisioningState, 'Succeeded');
    assert.deepEqual(shown.properties.parameters.nodeCount, { type: 'Int', value: 3 });
    assert.equal(shown.properties.templateLink, null);
    assert.equal(shown.resourceGroup, 'myResourceGroup');

    const cluster = await az(home, ['aks', 'show', '-g', 'myResourceGroup', '-n', 'fromcli', '--query', 'networkProfile.networkPlugin', '-o', 'tsv']);
    assert.equal(cluster.stdout, 'none\n', cluster.stderr);

    const table = await az(home, ['deployment', 'group', 'list', '-g', 'myResourceGroup', '-o', 'table']);
    assert.match(table.stdout, /^Name\s+State\s+Timestamp\s+Mode\s+ResourceGroup\n[- ]+\naks\s+Succeeded\s+\S+\s+Incremental\s+myResourceGroup\n$/);

    const show = await az(home, [
      'deployment',
      'group',
      'show',
      '-g',
      'myResourceGroup',
      '-n',
      'aks',
      '--query',
      'properties.outputResources[0].id',
      '-o',
      'tsv',
    ]);
    assert.match(show.stdout, /\/managedClusters\/fromcli\n$/);

    const whatIf = await az(home, ['deployment', 'group', 'what-if', '-g', 'myResourceGroup', '--template-file', bicep, '--parameters', 'clusterName=other']);
    assert.equal(whatIf.code, 0, whatIf.stderr);
    assert.match(whatIf.stdout, /  \+ Microsoft\.ContainerService\/managedClusters\/other \[2022-06-01\]/);
    assert.match(whatIf.stdout, /Resource changes: 1 to create, 1 to ignore\.\n$/);

    const del = await az(home, ['deployment', 'group', 'delete', '-g', 'myResourceGroup', '-n', 'aks']);
    assert.equal(del.code, 0, del.stderr);
    const gone = await az(home, ['deployment', 'group', 'show', '-g', 'myResourceGroup', '-n', 'aks']);
    assert.equal(gone.code, 3);
    assert.match(gone.stderr, /\(DeploymentNotFound\) Deployment 'aks' could not be found\./);
  });

  test('an ARM template naming an undeclared parameter stops at validation, naming pod-cidr', async () => {
    const json = file('byocni.json', FIXTURE_UNDECLARED_PARAMETER);
    const r = await az(home, ['deployment', 'group', 'create', '-g', 'myResourceGroup', '--template-file', json]);
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /^ERROR: InvalidTemplate - Deployment template validation failed: 'The template resource 'byocni' at line '1' and column '\d+' is not valid: The template parameter 'pod-cidr' is not found\./,
    );
  });

  test('a Bicep compile error names the file, line, column and BCP code; a missing parameter is reported', async () => {
    const bad = file('bad.bicep', 'param a string\n\nvar b = nope\n');
    const r = await az(home, ['deployment', 'group', 'validate', '-g', 'myResourceGroup', '-f', bad]);
    assert.equal(r.code, 1);
    assert.equal(r.stderr, `ERROR: ${bad}(3,9) : Error BCP057: The name "nope" does not exist in the current context.\n`);
    const missing = file('missing.bicep', 'param a string\nparam b int\n');
    const m = await az(home, ['deployment', 'group', 'validate', '-g', 'myResourceGroup', '-f', missing, '-p', 'b=1']);
    assert.equal(m.stderr, 'ERROR: Missing input parameters: a\n');
  });
});
