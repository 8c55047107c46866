// `az aks nodepool add --os-type Windows` on an Azure CNI cluster created without a windowsProfile, with the real
// az (Debian 2.45, through the repository's shim): AKS generates one for every new cluster (docs/aks-rules.md §3.7),
// so the pool is added, and the profile az shows has the generated user name and no password.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { AZ_SHIM_DIR } from '../../src/cli/az-env.js';
import { removeHome, startTestServer, tempHome, type TestServer } from '../e2e/harness.js';
import { AZ, loginRealAz, runRealAz } from './real-az-env.js';

const skip = existsSync(AZ) ? false : `${AZ} is not installed`;

let server: TestServer;
let home: string;
let azHome: string;
let env: NodeJS.ProcessEnv;

before(async () => {
  if (skip) return;
  home = tempHome();
  azHome = tempHome();
  server = await startTestServer({ home });
  env = await loginRealAz(azHome, server, { pythonPath: AZ_SHIM_DIR });
  const r = await runRealAz(env, ['group', 'create', '-l', 'eastus', '-n', 'winRG', '-o', 'none']);
  assert.equal(r.code, 0, r.stderr);
});

after(async () => {
  if (skip) return;
  await server.close();
  removeHome(home);
  removeHome(azHome);
});

test('real az: a Windows pool on an Azure CNI cluster made without a windowsProfile', { skip }, async () => {
  const create = await runRealAz(env, [
    'aks',
    'create',
    '-g',
    'winRG',
    '-n',
    'wincni',
    '--network-plugin',
    'azure',
    '--node-count',
    '1',
    '--generate-ssh-keys',
    '--query',
    'windowsProfile',
  ]);
  assert.equal(create.code, 0, create.stderr);
  const profile = JSON.parse(create.stdout);
  assert.equal(profile.adminUsername, 'azureuser');
  assert.equal(profile.adminPassword ?? null, null, 'AKS never returns the password');

  const add = await runRealAz(env, [
    'aks',
    'nodepool',
    'add',
    '-g',
    'winRG',
    '--cluster-name',
    'wincni',
    '-n',
    'npwin',
    '--os-type',
    'Windows',
    '--node-count',
    '1',
    '--query',
    '[osType, provisioningState]',
    '-o',
    'tsv',
  ]);
  assert.equal(add.code, 0, add.stderr);
  assert.equal(add.stdout, 'Windows\nSucceeded\n');
});
