// The agentPools API end to end through @azure/arm-containerservice and plain HTTPS (issue 14, "Bugs found"):
// a cluster whose network model was defaulted keeps that model for its pools; a pool's vmSize cannot change;
// a pool's orchestratorVersion is checked as the cluster's is, and against the control plane's version.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, test } from 'node:test';
import type { ContainerServiceClient } from '@azure/arm-containerservice';
import { bearer, https } from '../e2e/harness.js';
import { restError, withServer, type Env } from '../network/harness.js';
import { aksClient, cluster, olderAksClient, POLL } from './harness.js';

const UNSUPPORTED = (v: string) =>
  `Version ${v} is not supported in this region. Please use [az aks get-versions] command to get the supported version list in this region. For more information, please check https://aka.ms/supported-version-list`;

/** A PUT that must be refused with a 400 of this code (and message, when given). */
async function refused(p: Promise<unknown>, code: string, message?: string | RegExp) {
  const err = await restError(p);
  assert.equal(err.statusCode, 400);
  assert.equal(err.code, code);
  if (typeof message === 'string') assert.equal(err.message, message);
  else if (message) assert.match(err.message, message);
  return err;
}

/** A pool PUT sent as raw JSON, then waited for as a client polls: GET until the pool's operation ended. */
async function rawPoolPut(env: Env, aks: ContainerServiceClient, clusterName: string, pool: string, body: unknown, apiVersion: string): Promise<number> {
  const id = `/subscriptions/${env.sub}/resourceGroups/rg/providers/Microsoft.ContainerService/managedClusters/${clusterName}/agentPools/${pool}`;
  const res = await https(env.server, 'PUT', `${id}?api-version=${apiVersion}`, {
    headers: { ...(await bearer(env.server)), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  assert.ok(res.status < 300, res.text);
  for (let i = 0; i < 500; i++) {
    const p = await aks.agentPools.get('rg', clusterName, pool);
    if (p.provisioningState === 'Succeeded' || p.provisioningState === 'Failed') break;
    await sleep(10);
  }
  return res.status;
}

describe('agentPools of a cluster', () => {
  test('2026-04-01, no networkPlugin: the pools of the overlay cluster are overlay pools (maxPods 250; scale, update and the GET body PUT back succeed)', () =>
    withServer(async (env) => {
      const aks = aksClient(env.server, '2026-04-01');
      const created = await aks.managedClusters.beginCreateOrUpdateAndWait('rg', 'dflt', cluster(undefined), POLL);
      assert.equal(created.networkProfile?.networkPlugin, 'azure');
      assert.equal(created.networkProfile?.networkPluginMode, 'overlay');
      assert.equal(created.agentPoolProfiles?.[0]?.maxPods, 250);

      // A new pool takes the overlay default (docs/aks-rules.md §2.4 M2), not node subnet's 30.
      const added = await aks.agentPools.beginCreateOrUpdateAndWait('rg', 'dflt', 'user1', { count: 1, mode: 'User', vmSize: 'Standard_DS2_v2' }, POLL);
      assert.equal(added.provisioningState, 'Succeeded');
      assert.equal(added.maxPods, 250);

      // Scale: the pool's own GET body with a new count.
      const pool = await aks.agentPools.get('rg', 'dflt', 'nodepool1');
      const scaled = await aks.agentPools.beginCreateOrUpdateAndWait('rg', 'dflt', 'nodepool1', { ...pool, count: 4 }, POLL);
      assert.equal(scaled.provisioningState, 'Succeeded');
      assert.equal(scaled.count, 4);

      // Update: node labels on the added pool.
      const user = await aks.agentPools.get('rg', 'dflt', 'user1');
      const labelled = await aks.agentPools.beginCreateOrUpdateAndWait('rg', 'dflt', 'user1', { ...user, nodeLabels: { team: 'a' } }, POLL);
      assert.equal(labelled.provisioningState, 'Succeeded');
      assert.deepEqual(labelled.nodeLabels, { team: 'a' });

      // The GET body sent back as it came, read-only members and powerState included.
      const raw = await https(env.server, 'GET', `${pool.id}?api-version=2026-04-01`, { headers: await bearer(env.server) });
      assert.equal(await rawPoolPut(env, aks, 'dflt', 'nodepool1', raw.json, '2026-04-01'), 200);
      assert.equal((await aks.agentPools.get('rg', 'dflt', 'nodepool1')).provisioningState, 'Succeeded');

      // A cluster PUT that leaves the network profile out keeps the model too.
      const { networkProfile: _n, ...withoutNetwork } = await aks.managedClusters.get('rg', 'dflt');
      const kept = await aks.managedClusters.beginCreateOrUpdateAndWait('rg', 'dflt', withoutNetwork, POLL);
      assert.equal(kept.provisioningState, 'Succeeded');
      assert.equal(kept.networkProfile?.networkPluginMode, 'overlay');
      assert.deepEqual(
        kept.agentPoolProfiles?.map((p) => [p.name, p.count, p.maxPods]),
        [
          ['nodepool1', 4, 250],
          ['user1', 1, 250],
        ],
      );
    }));

  test("a pool's vmSize cannot change: PropertyChangeNotAllowed from the agentPools API and from a cluster PUT", () =>
    withServer(async (env) => {
      // A 2022-11-01 client sends back only what its version has (harness.ts).
      const aks = olderAksClient(env.server);
      await aks.managedClusters.beginCreateOrUpdateAndWait('rg', 'c1', cluster({ networkPlugin: 'kubenet' }), POLL);
      const pool = await aks.agentPools.get('rg', 'c1', 'nodepool1');

      const before2026 = 'Changing property "agentPoolProfile.vmSize" is not allowed in an api-version before "2026-01-02-preview".';
      const viaPool = await refused(
        aks.agentPools.beginCreateOrUpdateAndWait('rg', 'c1', 'nodepool1', { ...pool, vmSize: 'Standard_DS3_v2' }, POLL),
        'PropertyChangeNotAllowed',
        before2026,
      );
      assert.equal((viaPool.details as { error?: { target?: string } }).error?.target, 'agentPoolProfile.vmSize');

      const mc = await aks.managedClusters.get('rg', 'c1');
      mc.agentPoolProfiles![0]!.vmSize = 'Standard_DS3_v2';
      await refused(aks.managedClusters.beginCreateOrUpdateAndWait('rg', 'c1', mc, POLL), 'PropertyChangeNotAllowed', before2026);

      // 2026-04-01 is no preview version: the in-place resize stays refused.
      const newer = aksClient(env.server, '2026-04-01');
      await refused(
        newer.agentPools.beginCreateOrUpdateAndWait('rg', 'c1', 'nodepool1', { ...pool, vmSize: 'Standard_DS3_v2' }, POLL),
        'PropertyChangeNotAllowed',
        /^Changing property "agentPoolProfile\.vmSize" is not allowed/,
      );
      assert.equal((await aks.agentPools.get('rg', 'c1', 'nodepool1')).vmSize, 'Standard_DS2_v2');

      // The same size in other letters is no change.
      const same = await aks.agentPools.beginCreateOrUpdateAndWait('rg', 'c1', 'nodepool1', { ...pool, vmSize: 'standard_ds2_v2', count: 2 }, POLL);
      assert.equal(same.provisioningState, 'Succeeded');
      assert.equal((await aks.agentPools.get('rg', 'c1', 'nodepool1')).count, 2);
    }));

  test("a pool's orchestratorVersion: supported, not newer than the control plane, at most 3 minors older (2 before 1.28)", () =>
    withServer(async (env) => {
      const aks = aksClient(env.server);
      await aks.managedClusters.beginCreateOrUpdateAndWait('rg', 'c1', cluster({ networkPlugin: 'kubenet' }), POLL);
      const add = (name: string, orchestratorVersion: string, clusterName = 'c1') =>
        aks.agentPools.beginCreateOrUpdateAndWait('rg', clusterName, name, { count: 1, mode: 'User', orchestratorVersion }, POLL);

      // The version a cluster is refused with is refused for a pool, with the cluster's code and message.
      await refused(
        aks.managedClusters.beginCreateOrUpdateAndWait('rg', 'v125', { ...cluster({ networkPlugin: 'kubenet' }), kubernetesVersion: '1.25.6' }, POLL),
        'AgentPoolK8sVersionNotSupported',
        UNSUPPORTED('1.25.6'),
      );
      await refused(add('old', '1.25.6'), 'AgentPoolK8sVersionNotSupported', UNSUPPORTED('1.25.6'));
      await refused(
        aks.managedClusters.beginCreateOrUpdateAndWait('rg', 'c2', cluster({ networkPlugin: 'kubenet' }, { orchestratorVersion: '1.25.6' }), POLL),
        'AgentPoolK8sVersionNotSupported',
        UNSUPPORTED('1.25.6'),
      );

      // Control plane 1.32.9: a pool may be 3 minors older, not 4, and not newer.
      await refused(
        add('old', '1.28.15'),
        'NodePoolMcVersionIncompatible',
        "Node pool version 1.28.15 and control plane version 1.32.9 is incompatible. Minor version of node pool cannot be more than 3 versions less than control plane's version. Minor version of node pool is 28 and control plane is 32. For more information, please check https://aka.ms/aks/UpgradeVersionRules",
      );
      const oldest = await add('old', '1.29');
      assert.equal(oldest.provisioningState, 'Succeeded');
      assert.equal(oldest.orchestratorVersion, '1.29');
      assert.equal(oldest.currentOrchestratorVersion, '1.29.15');

      await refused(
        add('new', '1.33.5'),
        'NodePoolMcVersionIncompatible',
        'Node pool version 1.33.5 and control plane version 1.32.9 are incompatible. Minor version of node pool version 33 is bigger than control plane version 32. For more information, please check https://aka.ms/aks/UpgradeVersionRules',
      );
      const pool = await aks.agentPools.get('rg', 'c1', 'nodepool1');
      await refused(
        aks.agentPools.beginCreateOrUpdateAndWait('rg', 'c1', 'nodepool1', { ...pool, orchestratorVersion: '1.33' }, POLL),
        'NodePoolMcVersionIncompatible',
        /^Node pool version 1\.33\.5 and control plane version 1\.32\.9 are incompatible\./,
      );

      // Control plane 1.27 (before 1.28): two minors.
      await aks.managedClusters.beginCreateOrUpdateAndWait('rg', 'c27', { ...cluster({ networkPlugin: 'kubenet' }), kubernetesVersion: '1.27' }, POLL);
      await refused(
        add('old', '1.24', 'c27'),
        'NodePoolMcVersionIncompatible',
        /cannot be more than 2 versions less than control plane's version\. Minor version of node pool is 24 and control plane is 27\./,
      );
      assert.equal((await add('old', '1.25', 'c27')).provisioningState, 'Succeeded');
    }));
});
