// `az aks nodepool add --os-type Windows` on an Azure CNI cluster created without a windowsProfile, with the real
// az (Debian 2.45, through the repository's shim): AKS generates one for every new cluster (docs/aks-rules.md §3.7),
// so the pool is added, and the profile az shows has the generated user name and no password.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { AZ, runRealAz } from './real-az-env.js';
import { type RealAzSession, realAzSession } from './real-az-session.js';

const skip = existsSync(AZ) ? false : `${AZ} is not installed`;

let session: RealAzSession;

before(async () => {
  if (!skip) session = await realAzSession('winRG');
});

after(async () => {
  if (!skip) await session.close();
});

test('real az: a Windows pool on an Azure CNI cluster made without a windowsProfile', { skip }, async () => {
  const create = await runRealAz(session.env, [
    ...'aks create -g winRG -n wincni --network-plugin azure --node-count 1 --generate-ssh-keys'.split(' '),
    '--query',
    'windowsProfile',
  ]);
  assert.equal(create.code, 0, create.stderr);
  const profile = JSON.parse(create.stdout);
  assert.equal(profile.adminUsername, 'azureuser');
  assert.equal(profile.adminPassword ?? null, null, 'AKS never returns the password');

  const add = await runRealAz(session.env, [
    ...'aks nodepool add -g winRG --cluster-name wincni -n npwin --os-type Windows --node-count 1'.split(' '),
    '--query',
    '[osType, provisioningState]',
    '-o',
    'tsv',
  ]);
  assert.equal(add.code, 0, add.stderr);
  assert.equal(add.stdout, 'Windows\nSucceeded\n');

  // The OS SKU AKS gives a Windows pool that names none on Kubernetes 1.25 and later (docs/aks-rules.md §3.7).
  const sku = await runRealAz(session.env, [...'aks nodepool show -g winRG --cluster-name wincni -n npwin --query osSku -o tsv'.split(' ')]);
  assert.equal(sku.code, 0, sku.stderr);
  assert.equal(sku.stdout, 'Windows2022\n');

  // az allows 12 characters; AKS refuses a Windows pool name over 6 (N15, docs/aks-rules.md §2.2).
  const long = await runRealAz(session.env, [
    ...'aks nodepool add -g winRG --cluster-name wincni -n winpool --os-type Windows --node-count 1 -o none'.split(' '),
  ]);
  assert.notEqual(long.code, 0);
  assert.match(long.stderr, /WindowsAgentPoolNameTooLong/);
  assert.match(long.stderr, /Windows agent pool name can not be longer than 6 characters\./);
});
