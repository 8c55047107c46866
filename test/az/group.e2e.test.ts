// aksemu az group … as a user runs it: a child process against a real server started in-process.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { removeHome, startTestServer, tempHome, type TestServer } from '../e2e/harness.js';
import { az } from './helpers.js';

let server: TestServer;
let home: string;

before(async () => {
  home = tempHome();
  server = await startTestServer({ home });
});

after(async () => {
  await server.close();
  removeHome(home);
});

test('group create prints the group as az does (sorted keys, SDK model nulls, exit 0)', async () => {
  const r = await az(home, ['group', 'create', '--location', 'eastus', '--name', 'myResourceGroup']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, '');
  const sub = server.identity.subscriptionId;
  assert.equal(
    r.stdout,
    `{\n  "id": "/subscriptions/${sub}/resourceGroups/myResourceGroup",\n  "location": "eastus",\n  "managedBy": null,\n  "name": "myResourceGroup",\n` +
      `  "properties": {\n    "provisioningState": "Succeeded"\n  },\n  "tags": null,\n  "type": "Microsoft.Resources/resourceGroups"\n}\n`,
  );
});

test('group show, list in every output format, --query, exists', async () => {
  assert.equal((await az(home, ['group', 'create', '-l', 'westus2', '-n', 'rg2', '--tags', 'a=b', 'c=d', '-o', 'none'])).stdout, '');
  const show = await az(home, ['group', 'show', '-n', 'rg2']);
  assert.equal(show.code, 0);
  assert.deepEqual(JSON.parse(show.stdout).tags, { a: 'b', c: 'd' });

  const table = await az(home, ['group', 'list', '-o', 'table']);
  assert.equal(
    table.stdout,
    'Name             Location    Status\n---------------  ----------  ---------\nmyResourceGroup  eastus      Succeeded\nrg2              westus2     Succeeded\n',
  );
  const tsv = await az(home, ['group', 'list', '-o', 'tsv']);
  const sub = server.identity.subscriptionId;
  assert.equal(
    tsv.stdout.split('\n')[0],
    `/subscriptions/${sub}/resourceGroups/myResourceGroup\teastus\tNone\tmyResourceGroup\t\tNone\tMicrosoft.Resources/resourceGroups`,
  );
  const yaml = await az(home, ['group', 'show', '-n', 'rg2', '-o', 'yaml']);
  assert.match(
    yaml.stdout,
    /^id: \/subscriptions\/.*\/resourceGroups\/rg2\nlocation: westus2\nmanagedBy: null\nname: rg2\nproperties:\n  provisioningState: Succeeded\ntags:\n  a: b\n  c: d\ntype: Microsoft.Resources\/resourceGroups\n$/,
  );
  assert.equal((await az(home, ['group', 'list', '--query', '[].name', '-o', 'tsv'])).stdout, 'myResourceGroup\nrg2\n');
  assert.equal((await az(home, ['group', 'list', '--query', 'length(@)'])).stdout, '2\n');
  assert.equal((await az(home, ['group', 'exists', '-n', 'rg2'])).stdout, 'true\n');
  assert.equal((await az(home, ['group', 'exists', '-n', 'nope'])).stdout, 'false\n');
});

test('group show of a missing group: ResourceGroupNotFound as az prints it, exit 3', async () => {
  const r = await az(home, ['group', 'show', '-n', 'nope']);
  assert.equal(r.code, 3);
  assert.equal(r.stdout, '');
  assert.equal(
    r.stderr,
    "ERROR: (ResourceGroupNotFound) Resource group 'nope' could not be found.\nCode: ResourceGroupNotFound\nMessage: Resource group 'nope' could not be found.\n",
  );
});

test('argument errors exit 2 with argparse wording, before any request', async () => {
  const missing = await az(home, ['group', 'create', '-n', 'x']);
  assert.equal(missing.code, 2);
  assert.equal(missing.stderr, 'ERROR: the following arguments are required: --location/-l\n');
  const unknown = await az(home, ['group', 'create', '-n', 'x', '-l', 'eastus', '--foo', 'bar']);
  assert.equal(unknown.code, 2);
  assert.equal(unknown.stderr, 'ERROR: unrecognized arguments: --foo bar\n');
  const format = await az(home, ['group', 'list', '-o', 'foo']);
  assert.equal(format.stderr, "ERROR: az group list: 'foo' is not a valid value for '--output'. Allowed values: json, jsonc, yaml, yamlc, table, tsv, none.\n");
  const typo = await az(home, ['grop', 'list']);
  assert.equal(typo.code, 2);
  assert.equal(typo.stderr, "ERROR: 'grop' is misspelled or not recognized by the system.\n");
});

test('group delete: refused without --yes and a tty; --no-wait returns at once; --yes waits until gone', async () => {
  const refused = await az(home, ['group', 'delete', '-n', 'rg2']);
  assert.equal(refused.code, 1);
  assert.equal(refused.stderr, 'WARNING: Unable to prompt for confirmation as no tty available. Use --yes.\nERROR: Operation cancelled.\n');
  assert.equal((await az(home, ['group', 'exists', '-n', 'rg2'])).stdout, 'true\n');

  const noWait = await az(home, ['group', 'delete', '-n', 'rg2', '--yes', '--no-wait']);
  assert.equal(noWait.code, 0, noWait.stderr);
  assert.equal(noWait.stdout, '');

  await az(home, ['group', 'create', '-l', 'eastus', '-n', 'rg3', '-o', 'none']);
  const waited = await az(home, ['group', 'delete', '-n', 'rg3', '-y']);
  assert.equal(waited.code, 0, waited.stderr);
  assert.equal(waited.stdout, '');
  assert.equal(waited.stderr, '', 'no progress indicator when stderr is not a terminal');
  // It returned once the delete was done (polled after the server's retry-after-ms, not a whole second): the group is gone.
  assert.equal((await az(home, ['group', 'exists', '-n', 'rg3'])).stdout, 'false\n');
  const gone = await az(home, ['group', 'show', '-n', 'rg3']);
  assert.equal(gone.code, 3);
});
