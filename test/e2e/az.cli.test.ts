// The real Azure CLI (Debian azure-cli 2.45) against a real server, following the recipe in
// docs/clients.md §1.3, §1.5: cloud register with only the ARM URL (so az reads /metadata/endpoints),
// service-principal login through /adfs, then the resource group commands. Skipped without az.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { AZ, realAzEnv, runRealAz, type AzRun } from '../az/real-az-env.js';
import { removeHome, startTestServer, tempHome, type TestServer } from './harness.js';

describe('real az against aksemu', { skip: existsSync(AZ) ? false : 'azure-cli is not installed' }, () => {
  let home: string;
  let server: TestServer;
  let env: NodeJS.ProcessEnv;

  function az(...args: string[]): Promise<AzRun> {
    return runRealAz(env, args);
  }

  before(async () => {
    home = tempHome();
    server = await startTestServer({ home: join(home, 'aksemu') });
    env = realAzEnv(home, server.caFile);
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
    const login = await az('login', '--service-principal', '-u', clientId, `--password=${clientSecret}`, '--tenant', tenantId, '-o', 'json');
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
    assert.ok(
      paths.some((p) => /^GET \/subscriptions\/[^/]+\/operationresults\//.test(p)),
      'az polled the delete operation',
    );
  });
});
