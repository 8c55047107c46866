// One cluster, two api-versions: a cluster made with 2026-04-01 (Azure CNI Overlay) and then read and
// written back by a 2022-11-01 client (az 2.45's aks scale/upgrade, nodepool scale) keeps what the older
// version cannot express, and the older version never shows values its enums lack.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bearer, https } from '../e2e/harness.js';
import { withServer } from '../network/harness.js';
import { aksClient, cluster, olderAksClient, POLL } from './harness.js';

describe('managedClusters across api-versions', () => {
  test('an overlay cluster scaled, upgraded and given a pool through 2022-11-01 stays overlay', () =>
    withServer(async (env) => {
      const newer = aksClient(env.server, '2026-04-01');
      const older = olderAksClient(env.server, '2022-11-01');
      const created = await newer.managedClusters.beginCreateOrUpdateAndWait(
        'rg',
        'ov',
        cluster({ networkPlugin: 'azure', networkPluginMode: 'overlay', podCidr: '192.168.0.0/16' }),
        POLL,
      );
      assert.equal(created.networkProfile?.networkPluginMode, 'overlay');
      assert.equal(created.networkProfile?.networkPolicy, 'none');

      // The 2022-11-01 wire: no networkPluginMode member, and no policy 'none' (not a value of that enum).
      const raw = await https(env.server, 'GET', `${created.id}?api-version=2022-11-01`, { headers: await bearer(env.server) });
      assert.equal(raw.status, 200);
      assert.equal(raw.json.properties.networkProfile.networkPluginMode, undefined);
      assert.equal(raw.json.properties.networkProfile.networkPolicy, undefined);

      // az 2.45's read-modify-write: GET, change the count, PUT the whole object back (read-only members dropped).
      const {
        provisioningState: _p,
        powerState: _s,
        fqdn: _f,
        azurePortalFqdn: _a,
        currentKubernetesVersion: _c,
        maxAgentPools: _m,
        ...mc
      } = await older.managedClusters.get('rg', 'ov');
      mc.agentPoolProfiles![0]!.count = 2;
      const scaled = await older.managedClusters.beginCreateOrUpdateAndWait('rg', 'ov', mc, POLL);
      assert.equal(scaled.provisioningState, 'Succeeded');
      assert.equal(scaled.agentPoolProfiles?.[0]?.count, 2);

      const upgradeBody = await older.managedClusters.get('rg', 'ov');
      upgradeBody.kubernetesVersion = '1.33';
      for (const p of upgradeBody.agentPoolProfiles ?? []) p.orchestratorVersion = '1.33';
      const upgraded = await older.managedClusters.beginCreateOrUpdateAndWait('rg', 'ov', upgradeBody, POLL);
      assert.equal(upgraded.currentKubernetesVersion, '1.33.5');

      const pool = await older.agentPools.get('rg', 'ov', 'nodepool1');
      const { provisioningState: _ps, powerState: _pw, currentOrchestratorVersion: _co, nodeImageVersion: _ni, ...poolBody } = pool;
      const poolScaled = await older.agentPools.beginCreateOrUpdateAndWait('rg', 'ov', 'nodepool1', { ...poolBody, count: 3 }, POLL);
      assert.equal(poolScaled.count, 3);

      const after = await newer.managedClusters.get('rg', 'ov');
      assert.equal(after.networkProfile?.networkPlugin, 'azure');
      assert.equal(after.networkProfile?.networkPluginMode, 'overlay');
      assert.equal(after.networkProfile?.podCidr, '192.168.0.0/16');
      assert.equal(after.agentPoolProfiles?.[0]?.maxPods, 250);
    }));

  test('a 2026-04-01 cluster with the defaulted plugin (overlay) takes a 2022-11-01 pool scale', () =>
    withServer(async (env) => {
      const newer = aksClient(env.server, '2026-04-01');
      const older = olderAksClient(env.server, '2022-11-01');
      const created = await newer.managedClusters.beginCreateOrUpdateAndWait('rg', 'dflt', cluster(undefined), POLL);
      assert.equal(created.networkProfile?.networkPlugin, 'azure');
      assert.equal(created.networkProfile?.networkPluginMode, 'overlay');
      const pool = await older.agentPools.get('rg', 'dflt', 'nodepool1');
      const scaled = await older.agentPools.beginCreateOrUpdateAndWait('rg', 'dflt', 'nodepool1', { mode: pool.mode, vmSize: pool.vmSize, count: 4 }, POLL);
      assert.equal(scaled.count, 4);
      assert.equal((await newer.managedClusters.get('rg', 'dflt')).networkProfile?.networkPluginMode, 'overlay');
    }));

  test('a 2022-11-01 PUT still cannot change the plugin of an overlay cluster', () =>
    withServer(async (env) => {
      const newer = aksClient(env.server, '2026-04-01');
      const older = olderAksClient(env.server, '2022-11-01');
      await newer.managedClusters.beginCreateOrUpdateAndWait('rg', 'ov', cluster({ networkPlugin: 'azure', networkPluginMode: 'overlay' }), POLL);
      const mc = await older.managedClusters.get('rg', 'ov');
      mc.networkProfile!.networkPlugin = 'kubenet';
      await assert.rejects(older.managedClusters.beginCreateOrUpdateAndWait('rg', 'ov', mc, POLL), (err: Error & { code?: string }) => {
        assert.equal(err.code, 'PropertyChangeNotAllowed');
        return true;
      });
    }));
});
