// The real Azure CLI (Debian azure-cli 2.45) against a real server, following the recipe in
// spec/az-cli-compat.md §0: cloud register with only the ARM URL (so az reads /metadata/endpoints),
// service-principal login through /adfs, then the resource group commands. Skipped without az.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { removeHome, startTestServer, tempHome, type TestServer } from './harness.js';

const AZ = '/usr/bin/az';

interface AzRun {
  code: number;
  stdout: string;
  stderr: string;
}

describe('real az against aksemu', { skip: existsSync(AZ) ? false : 'azure-cli is not installed' }, () => {
  let home: string;
  let server: TestServer;
  let env: NodeJS.ProcessEnv;

  function az(...args: string[]): Promise<AzRun> {
    return new Promise((resolve) => {
      execFile(AZ, args, { env, timeout: 120_000 }, (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
      });
    });
  }

  before(async () => {
    home = tempHome();
    server = await startTestServer({ home: join(home, 'aksemu') });
    const azureDir = join(home, '.azure');
    mkdirSync(azureDir);
    // Without it the first az run checks for updates on the internet (spec §5).
    writeFileSync(
      join(azureDir, 'versionCheck.json'),
      JSON.stringify({
        versions: { 'azure-cli': { local: '2.45.0' }, core: { local: '2.45.0' }, telemetry: { local: '1.0.8' } },
        update_time: '2099-01-01 00:00:00.000000',
      }),
    );
    env = {
      PATH: process.env['PATH'],
      HOME: home,
      AZURE_CONFIG_DIR: azureDir,
      REQUESTS_CA_BUNDLE: server.caFile,
      // Guard rail: anything not for 127.0.0.1 goes to a dead proxy and fails instead of leaving the machine.
      NO_PROXY: '127.0.0.1,localhost',
      no_proxy: '127.0.0.1,localhost',
      HTTPS_PROXY: 'http://127.0.0.1:9',
      HTTP_PROXY: 'http://127.0.0.1:9',
      AZURE_CORE_COLLECT_TELEMETRY: 'false',
      AZURE_CORE_ERROR_RECOMMENDATION: 'off',
      AZURE_CORE_SURVEY_MESSAGE: 'false',
      AZURE_EXTENSION_USE_DYNAMIC_INSTALL: 'no',
    };
  });

  after(async () => {
    await server?.close();
    if (home) removeHome(home);
  });

  test('cloud register, login, group create/exists/show/list/delete', async () => {
    const register = await az('cloud', 'register', '-n', 'Emu', '--endpoint-resource-manager', `${server.url}/`);
    assert.equal(register.code, 0, register.stderr);
    assert.equal((await az('cloud', 'set', '-n', 'Emu')).code, 0);
    const { clientId, clientSecret, tenantId, subscriptionId } = server.identity;
    const login = await az('login', '--service-principal', '-u', clientId, '-p', clientSecret, '--tenant', tenantId, '-o', 'json');
    assert.equal(login.code, 0, login.stderr);
    assert.equal(JSON.parse(login.stdout)[0].id, subscriptionId);

    const create = await az('group', 'create', '--location', 'eastus', '--name', 'myResourceGroup', '-o', 'json');
    assert.equal(create.code, 0, create.stderr);
    const group = JSON.parse(create.stdout);
    assert.equal(group.id, `/subscriptions/${subscriptionId}/resourceGroups/myResourceGroup`);
    assert.equal(group.properties.provisioningState, 'Succeeded');

    assert.equal((await az('group', 'exists', '-n', 'myresourcegroup')).stdout.trim(), 'true');
    assert.equal((await az('group', 'list', '--query', '[].name', '-o', 'tsv')).stdout.trim(), 'myResourceGroup');
    const missing = await az('group', 'show', '-n', 'nope');
    assert.equal(missing.code, 3);
    assert.match(missing.stderr, /\(ResourceGroupNotFound\) Resource group 'nope' could not be found\./);

    const del = await az('group', 'delete', '-n', 'myResourceGroup', '--yes');
    assert.equal(del.code, 0, del.stderr);
    assert.equal((await az('group', 'exists', '-n', 'myResourceGroup')).stdout.trim(), 'false');

    const paths = server.logLines.map((line) => line.split(' ').slice(0, 2).join(' '));
    assert.ok(paths.includes('GET //metadata/endpoints?api-version=2015-01-01') || paths.includes('GET /metadata/endpoints?api-version=2015-01-01'));
    assert.ok(paths.some((p) => /^GET \/subscriptions\/[^/]+\/operationresults\//.test(p)), 'az polled the delete operation');
  });
});
