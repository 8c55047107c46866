// The real Azure CLI (Debian azure-cli 2.45, /usr/bin/az) against a running aksemu, set up step by step as
// docs/clients.md describes (real-az-env.ts), with the repository's import shim, an /adfs authority, SP login.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { removeHome, startTestServer, tempHome, type TestServer } from '../e2e/harness.js';
import { az as aksemuAz, SEED_AKS_CREATE } from './helpers.js';
import { AZ, loginRealAz, runRealAz, type AzRun } from './real-az-env.js';
import { AZ_SHIM_DIR } from '../../src/cli/az-env.js';

const skip = existsSync(AZ) ? false : `${AZ} is not installed`;

let server: TestServer;
let home: string;
let azHome: string;
let env: NodeJS.ProcessEnv;

function run(args: string[]): Promise<AzRun> {
  return runRealAz(env, args);
}

before(async () => {
  if (skip) return;
  home = tempHome();
  server = await startTestServer({ home });
  azHome = tempHome();
  env = await loginRealAz(azHome, server, { pythonPath: AZ_SHIM_DIR });
});

after(async () => {
  if (skip) return;
  await server.close();
  removeHome(home);
  removeHome(azHome);
});

test('real az: group create --location eastus --name myResourceGroup', { skip }, async () => {
  const r = await run(['group', 'create', '--location', 'eastus', '--name', 'myResourceGroup']);
  assert.equal(r.code, 0, r.stderr);
  const group = JSON.parse(r.stdout);
  assert.equal(group.id, `/subscriptions/${server.identity.subscriptionId}/resourceGroups/myResourceGroup`);
  assert.equal(group.location, 'eastus');
  assert.equal(group.properties.provisioningState, 'Succeeded');
  // aksemu az prints what az prints, byte for byte.
  const ours = await aksemuAz(home, ['group', 'show', '--name', 'myResourceGroup']);
  assert.equal(ours.stdout, r.stdout);
});

test('real az and aksemu az agree on table, tsv and the not-found error', { skip }, async () => {
  for (const args of [
    ['group', 'list', '-o', 'table'],
    ['group', 'list', '-o', 'tsv'],
    ['group', 'show', '-n', 'nope'],
    ['group', 'exists', '-n', 'myResourceGroup'],
  ]) {
    const real = await run(args);
    const ours = await aksemuAz(home, args);
    assert.equal(ours.stdout, real.stdout, args.join(' '));
    assert.equal(ours.stderr, real.stderr, args.join(' '));
    assert.equal(ours.code, real.code, args.join(' '));
  }
});

test("real az: aks create --network-plugin none (needs the server's Microsoft.ContainerService)", { skip }, async (t) => {
  const probe = await aksemuAz(home, ['aks', 'list']);
  if (probe.code !== 0) {
    t.skip(`server has no managedClusters yet: ${probe.stderr.split('\n')[0]}`);
    return;
  }
  const r = await run([...SEED_AKS_CREATE]);
  assert.equal(r.code, 0, r.stderr);
  const cluster = JSON.parse(r.stdout);
  assert.equal(cluster.networkProfile.networkPlugin, 'none');
  assert.equal(cluster.provisioningState, 'Succeeded');
});

test('real az: aks get-upgrades, aks stop/start, aks nodepool stop/start, as aksemu az prints them', { skip }, async (t) => {
  const probe = await aksemuAz(home, ['aks', 'show', '-g', 'myResourceGroup', '-n', 'myAKSCluster']);
  if (probe.code !== 0) {
    t.skip(`no cluster from the create test: ${probe.stderr.split('\n')[0]}`);
    return;
  }
  const cluster = ['-g', 'myResourceGroup', '-n', 'myAKSCluster'];
  for (const args of [
    ['aks', 'get-upgrades', ...cluster],
    ['aks', 'get-upgrades', ...cluster, '-o', 'table'],
  ]) {
    const real = await run(args);
    assert.equal(real.code, 0, real.stderr);
    assert.equal((await aksemuAz(home, args)).stdout, real.stdout, `az ${args.join(' ')}`);
  }

  const stop = await run(['aks', 'stop', ...cluster]);
  assert.equal(stop.code, 0, stop.stderr);
  assert.equal(stop.stdout, '');
  assert.deepEqual(JSON.parse((await aksemuAz(home, ['aks', 'show', ...cluster])).stdout).powerState, { code: 'Stopped' });
  const again = await run(['aks', 'stop', ...cluster]);
  assert.notEqual(again.code, 0);
  assert.equal((await aksemuAz(home, ['aks', 'stop', ...cluster])).stderr, again.stderr);
  const start = await run(['aks', 'start', ...cluster]);
  assert.equal(start.code, 0, start.stderr);
  assert.equal(start.stdout, '');

  const pool = ['-g', 'myResourceGroup', '--cluster-name', 'myAKSCluster'];
  const added = await aksemuAz(home, ['aks', 'nodepool', 'add', ...pool, '-n', 'user1', '--node-count', '1', '-o', 'none']);
  assert.equal(added.code, 0, added.stderr);
  for (const verb of ['stop', 'start']) {
    const real = await run(['aks', 'nodepool', verb, ...pool, '--nodepool-name', 'user1']);
    assert.equal(real.code, 0, real.stderr);
    const shown = await aksemuAz(home, ['aks', 'nodepool', 'show', ...pool, '-n', 'user1']);
    assert.deepEqual(JSON.parse(real.stdout), JSON.parse(shown.stdout));
    assert.deepEqual(JSON.parse(real.stdout).powerState, { code: verb === 'stop' ? 'Stopped' : 'Running' });
  }
  const ours = await aksemuAz(home, ['aks', 'nodepool', 'stop', ...pool, '--nodepool-name', 'nodepool1']);
  const theirs = await run(['aks', 'nodepool', 'stop', ...pool, '--nodepool-name', 'nodepool1']);
  assert.notEqual(theirs.code, 0);
  assert.equal(ours.stderr, theirs.stderr);
});
