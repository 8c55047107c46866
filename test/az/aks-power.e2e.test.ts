// aksemu az aks stop/start/get-upgrades and aks nodepool stop/start/get-upgrades against a real server, with az
// 2.45's output: stop and start print nothing (begin_stop's result is None), nodepool stop/start print the pool,
// get-upgrades prints the upgrade profile (and aks_upgrades_table_format's one row with -o table).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { removeHome, startTestServer, tempHome, type TestServer } from '../e2e/harness.js';
import { az, azOk } from './helpers.js';

let server: TestServer;
let home: string;

const ok = (args: string[]) => azOk(home, args);

const json = async (args: string[]) => JSON.parse(await ok(args));
const CLUSTER = ['-g', 'rg', '-n', 'c1'];
const POOL = ['-g', 'rg', '--cluster-name', 'c1'];

before(async () => {
  home = tempHome();
  server = await startTestServer({ home });
  await ok(['group', 'create', '-l', 'eastus', '-n', 'rg', '-o', 'none']);
  await ok([
    'aks',
    'create',
    ...CLUSTER,
    '--network-plugin',
    'kubenet',
    '--kubernetes-version',
    '1.31',
    '--node-count',
    '1',
    '--generate-ssh-keys',
    '-o',
    'none',
  ]);
});

after(async () => {
  await server.close();
  removeHome(home);
});

test('aks get-upgrades: the profile as az prints it, and its table row', async () => {
  const profile = await json(['aks', 'get-upgrades', ...CLUSTER]);
  assert.equal(profile.name, 'default');
  assert.equal(profile.resourceGroup, 'rg');
  assert.equal(profile.type, 'Microsoft.ContainerService/managedClusters/upgradeprofiles');
  assert.deepEqual(profile.controlPlaneProfile, {
    kubernetesVersion: '1.31.13',
    name: null,
    osType: 'Linux',
    upgrades: [{ isPreview: null, kubernetesVersion: '1.32.9' }],
  });
  assert.equal(profile.agentPoolProfiles[0].name, 'nodepool1');
  const table = await ok(['aks', 'get-upgrades', ...CLUSTER, '-o', 'table']);
  assert.deepEqual(
    table
      .trimEnd()
      .split('\n')
      .map((l) => l.trimEnd()),
    [
      'Name     ResourceGroup    MasterVersion    Upgrades',
      '-------  ---------------  ---------------  ----------',
      'default  rg               1.31.13          1.32.9',
    ],
  );
});

test('aks stop / start print nothing; the cluster reads Stopped, then Running', async () => {
  assert.equal(await ok(['aks', 'stop', ...CLUSTER]), '');
  const stopped = await json(['aks', 'show', ...CLUSTER]);
  assert.deepEqual(stopped.powerState, { code: 'Stopped' });
  assert.deepEqual(stopped.agentPoolProfiles[0].powerState, { code: 'Stopped' });
  const again = await az(home, ['aks', 'stop', ...CLUSTER]);
  assert.equal(again.code, 1);
  assert.match(
    again.stderr,
    /\(OperationNotAllowed\) managed cluster is in Provisioning State\(Succeeded\) and Power State\(Stopped\), stopping cannot be performed/,
  );
  assert.equal(await ok(['aks', 'start', ...CLUSTER]), '');
  assert.deepEqual((await json(['aks', 'show', ...CLUSTER])).powerState, { code: 'Running' });
  assert.equal(await ok(['aks', 'stop', ...CLUSTER, '--no-wait']), '');
  for (let i = 0; i < 100; i++) {
    if ((await json(['aks', 'show', ...CLUSTER])).provisioningState === 'Succeeded') break;
  }
  assert.equal(await ok(['aks', 'start', ...CLUSTER]), '');
});

test('aks nodepool stop / start print the pool; a System pool is refused; an unknown pool is az own error', async () => {
  await ok(['aks', 'nodepool', 'add', ...POOL, '-n', 'user1', '--node-count', '1', '-o', 'none']);
  const stopped = await json(['aks', 'nodepool', 'stop', ...POOL, '--nodepool-name', 'user1']);
  assert.deepEqual(stopped.powerState, { code: 'Stopped' });
  assert.equal(stopped.provisioningState, 'Succeeded');
  assert.equal(stopped.name, 'user1');
  assert.equal(stopped.resourceGroup, 'rg');
  const started = await json(['aks', 'nodepool', 'start', ...POOL, '--nodepool-name', 'user1']);
  assert.deepEqual(started.powerState, { code: 'Running' });

  const system = await az(home, ['aks', 'nodepool', 'stop', ...POOL, '--nodepool-name', 'nodepool1']);
  assert.equal(system.code, 1);
  assert.match(system.stderr, /\(OperationNotAllowed\) Agent pool 'nodepool1' is a System pool and cannot be stopped/);
  const missing = await az(home, ['aks', 'nodepool', 'start', ...POOL, '--nodepool-name', 'nope']);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /Node pool nope doesnt exist, use 'aks nodepool list' to get current node pool list/);

  const upgrades = await json(['aks', 'nodepool', 'get-upgrades', ...POOL, '--nodepool-name', 'user1']);
  assert.equal(upgrades.kubernetesVersion, '1.31.13');
  assert.deepEqual(upgrades.upgrades, []);
  assert.match(upgrades.latestNodeImageVersion, /^AKSUbuntu-/);
});
