// The server keeps its data plane converged: a recording driver sees gc then an apply at start, the
// derived topology after every committed change (never two applies at once), failures only in the log,
// and close (removing everything) on stop.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { affectsTopology } from '../../src/dataplane/controller.js';
import { deriveTopology } from '../../src/dataplane/derive.js';
import { removeHome, startTestServer, tempHome } from '../e2e/harness.js';
import { networkClient, POLL, resourcesClient } from '../network/harness.js';
import { RecordingDataplane } from './derive-fakes.js';

const vnetNames = (dp: RecordingDataplane) => (dp.applied.at(-1)?.vnets ?? []).map((v) => v.id.split('/').pop());

describe('DataplaneController in the server', () => {
  test('applies at start after gc, after every change, serially; closes with removeAll on stop', async () => {
    const home = tempHome();
    const dp = new RecordingDataplane();
    const server = await startTestServer({ home, dataplane: dp, dataplaneDebounceMs: 5 });
    try {
      assert.deepEqual(dp.calls, ['gc', 'apply'], 'gc first, then the stored topology');
      assert.deepEqual(vnetNames(dp), []);
      assert.equal(server.dataplane.mode, 'netns');

      await resourcesClient(server).resourceGroups.createOrUpdate('rg', { location: 'eastus' });
      const network = networkClient(server);
      // Hold the next apply open while more changes arrive: they must queue behind it, not run beside it.
      let release!: () => void;
      dp.gate = new Promise((r) => (release = r));
      await network.virtualNetworks.beginCreateOrUpdateAndWait(
        'rg',
        'v1',
        { location: 'eastus', addressSpace: { addressPrefixes: ['10.1.0.0/16'] }, subnets: [{ name: 's', addressPrefix: '10.1.0.0/24' }] },
        POLL,
      );
      await network.virtualNetworks.beginCreateOrUpdateAndWait('rg', 'v2', { location: 'eastus', addressSpace: { addressPrefixes: ['10.2.0.0/16'] } }, POLL);
      release();
      dp.gate = undefined;
      await server.dataplane.idle();
      assert.equal(dp.maxConcurrentApplies, 1);
      assert.deepEqual(vnetNames(dp).sort(), ['v1', 'v2']);
      assert.deepEqual(dp.applied.at(-1), deriveTopology(server.store), 'the last apply saw the committed state');

      // A failing driver: the ARM request still succeeds, the failure is logged, the next change applies again.
      dp.failApplies = true;
      await network.virtualNetworks.beginDeleteAndWait('rg', 'v2', POLL);
      await server.dataplane.idle();
      assert.ok(
        server.logLines.some((l) => l.includes('dataplane: apply failed: injected apply failure')),
        server.logLines.join('\n'),
      );
      assert.ok(server.dataplane.stats.failures >= 1);
      dp.failApplies = false;
      await network.virtualNetworks.beginDeleteAndWait('rg', 'v1', POLL);
      await server.dataplane.idle();
      assert.deepEqual(vnetNames(dp), []);
    } finally {
      await server.close();
      removeHome(home);
    }
    assert.equal(dp.calls.at(-1), 'close');
    assert.deepEqual(dp.closedWith, { removeAll: true });
  });

  test('only changes that can alter the topology wake it', () => {
    assert.equal(affectsTopology([{ key: 'aksemu:operations/123' }]), false);
    assert.equal(affectsTopology([{ key: '/subscriptions/s/resourceGroups/rg/providers/Microsoft.Authorization/roleAssignments/x' }]), false);
    assert.equal(affectsTopology([{ key: '/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v' }]), true);
    assert.equal(affectsTopology([{ key: '/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/vm' }]), true);
    assert.equal(affectsTopology([{ key: 'aksemu:nodes/subscriptions/s/resourcegroups/rg/providers/microsoft.containerservice/managedclusters/c/n1' }]), true);
    assert.equal(affectsTopology([{ key: '/subscriptions/s/resourceGroups/rg/', prefix: true }]), true);
    // A cluster's Kubernetes objects (a pod, its revision counter) are no part of the topology.
    assert.equal(
      affectsTopology([{ key: 'aksemu:k8s/subscriptions/s/resourcegroups/rg/providers/microsoft.containerservice/managedclusters/c//pods/default/p' }]),
      false,
    );
    assert.equal(affectsTopology([{ key: 'aksemu:k8s/subscriptions/s/resourcegroups/rg/providers/microsoft.containerservice/managedclusters/c' }]), false);
  });
});
