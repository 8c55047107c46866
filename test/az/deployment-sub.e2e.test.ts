// Subscription-scope deployments from the clients people use: `aksemu az deployment sub …` (create,
// validate, what-if, show, list, delete; --location required as az has it), the real az 2.45
// `az deployment sub create` (its raw-template body): each creates a resource group and a cluster in
// it through an inner-scope module, and reads the module's output back. (@azure/arm-resources 7 has
// no deployments client any more; its successor package is not installed here.)
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { removeHome, startTestServer, tempHome, type TestServer } from '../e2e/harness.js';
import { GROUP_AND_CLUSTER } from '../deployments/harness.js';
import { az } from './helpers.js';
import { AZ, runRealAz } from './real-az-env.js';
import { type RealAzSession, realAzSession } from './real-az-session.js';

const subscriptionTemplate = () => GROUP_AND_CLUSTER;

describe('aksemu az deployment sub', () => {
  let server: TestServer;
  let home: string;
  let file: string;
  before(async () => {
    home = tempHome();
    server = await startTestServer({ home });
    file = join(home, 'main.json');
    writeFileSync(file, JSON.stringify(subscriptionTemplate(), null, 2));
  });
  after(async () => {
    await server.close();
    removeHome(home);
  });

  test('--location is required, as az requires it', async () => {
    const r = await az(home, ['deployment', 'sub', 'create', '--template-file', file, '-p', 'groupName=x']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /the following arguments are required: --location\/-l/);
  });

  test('what-if, create, show, list, delete', async () => {
    const whatIf = await az(home, ['deployment', 'sub', 'what-if', '-l', 'westus2', '-f', file, '-p', 'groupName=clisubrg']);
    assert.equal(whatIf.code, 0, whatIf.stderr);
    assert.match(whatIf.stdout, /Scope: \/subscriptions\/[^/\n]+\n\n {2}\+ resourceGroups\/clisubrg \[2022-09-01\]/);
    assert.match(
      whatIf.stdout,
      /Scope: \/subscriptions\/[^/]+\/resourceGroups\/clisubrg\n\n {2}\+ Microsoft\.ContainerService\/managedClusters\/subaks \[2022-06-01\]/,
    );
    assert.match(whatIf.stdout, /Resource changes: 2 to create\.\n$/);

    const r = await az(home, ['deployment', 'sub', 'create', '-l', 'westus2', '-n', 'main', '-f', file, '-p', 'groupName=clisubrg']);
    assert.equal(r.code, 0, r.stderr);
    const shown = JSON.parse(r.stdout);
    assert.equal(shown.location, 'westus2');
    assert.equal(shown.properties.provisioningState, 'Succeeded');
    assert.match(shown.properties.outputs.clusterId.value, /\/resourceGroups\/clisubrg\/providers\/Microsoft\.ContainerService\/managedClusters\/subaks$/);
    const group = await az(home, ['group', 'show', '-n', 'clisubrg', '--query', 'location', '-o', 'tsv']);
    assert.equal(group.stdout, 'westus2\n');

    const show = await az(home, ['deployment', 'sub', 'show', '-n', 'main', '--query', 'properties.outputResources[].id', '-o', 'tsv']);
    assert.match(show.stdout, /\/resourceGroups\/clisubrg\n.*\/resourceGroups\/clisubrg\/providers\/Microsoft\.Resources\/deployments\/aks\n$/);
    const list = await az(home, ['deployment', 'sub', 'list', '--query', '[].name', '-o', 'tsv']);
    assert.equal(list.stdout, 'main\n');
    const validate = await az(home, ['deployment', 'sub', 'validate', '-l', 'westus2', '-f', file, '-p', 'groupName=clisubrg']);
    assert.equal(validate.code, 0, validate.stderr);
    const del = await az(home, ['deployment', 'sub', 'delete', '-n', 'main']);
    assert.equal(del.code, 0, del.stderr);
    const gone = await az(home, ['deployment', 'sub', 'show', '-n', 'main']);
    assert.equal(gone.code, 3);
    assert.match(gone.stderr, /\(DeploymentNotFound\) Deployment 'main' could not be found\./);
  });
});

describe('the real az deployment sub create', { skip: existsSync(AZ) ? false : `${AZ} is not installed` }, () => {
  let session: RealAzSession;
  before(async () => {
    session = await realAzSession('realsubunused');
  });
  after(() => session.close());

  test('a group and a cluster in it through a module, the output read back', async () => {
    const file = join(session.azHome, 'main.json');
    writeFileSync(file, JSON.stringify(subscriptionTemplate(), null, 2));
    const r = await runRealAz(session.env, [
      'deployment',
      'sub',
      'create',
      '-l',
      'eastus',
      '-n',
      'realsub',
      '--template-file',
      file,
      '--parameters',
      'groupName=realsubrg',
      '--query',
      'properties.outputs.clusterId.value',
      '-o',
      'tsv',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /\/resourceGroups\/realsubrg\/providers\/Microsoft\.ContainerService\/managedClusters\/subaks\n$/);
    const cluster = await runRealAz(session.env, ['aks', 'show', '-g', 'realsubrg', '-n', 'subaks', '--query', 'agentPoolProfiles[0].count', '-o', 'tsv']);
    assert.equal(cluster.stdout, '1\n', cluster.stderr);
    const missing = await runRealAz(session.env, ['deployment', 'sub', 'create', '--template-file', file, '--parameters', 'groupName=x']);
    assert.equal(missing.code, 2);
  });
});
