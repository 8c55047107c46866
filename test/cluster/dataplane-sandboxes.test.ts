// Pod sandboxes on a data plane (no root needed: the data plane is a recording fake; the e2e tests in
// test/e2e/dataplane-*.test.ts run the real one): kubenet takes the IPAM's address and hands it to the data
// plane, a failed attach gives the address back and reads as containerd's sandbox error, host-network pods build
// nothing, BYO CNI pods are attached with the node's CNI setup and no IPAM call, teardown detaches, restored pods
// attach once their node is ready (or not at all when torn down first). And the controller's whenHostReady.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { nodeConfDir } from '../../src/cluster/nodefs/paths.js';
import { DataplaneSandboxes, type PodNetworkAttacher } from '../../src/cluster/kubelet/dataplane-sandboxes.js';
import type { IpamHost } from '../../src/cluster/kubelet/ipam.js';
import type { SandboxRequest } from '../../src/cluster/kubelet/sandbox.js';
import type { PodAttachment, PodNetwork } from '../../src/dataplane/dataplane.js';
import type { ClusterRecord, NodeRecord } from '../../src/model/cluster-records.js';
import { azIn, groupWithSubnet } from '../compute/helpers.js';
import { RecordingDataplane } from '../dataplane/derive-fakes.js';
import { removeHome, startTestServer, tempHome } from '../e2e/harness.js';

const CLUSTER_ID = '/subscriptions/s/resourceGroups/rg/providers/Microsoft.ContainerService/managedClusters/c1';
const NODE = 'aks-nodepool1-12345678-vmss000000';
const HOST_ID = `${CLUSTER_ID}/nodes/${NODE}`;

class FakeAttacher implements PodNetworkAttacher {
  readonly mode = 'netns' as const;
  readonly attached: PodAttachment[] = [];
  readonly detached: PodAttachment[] = [];
  failAttach: string | undefined;
  hostProblem: string | undefined;
  /** Held while set: whenHostReady waits for it. */
  hostGate: Promise<void> | undefined;
  byoIp = '10.99.0.7';

  async whenHostReady(hostId: string): Promise<void> {
    assert.equal(hostId, HOST_ID);
    await this.hostGate;
    if (this.hostProblem) throw new Error(this.hostProblem);
  }
  async attachPod(pod: PodAttachment): Promise<PodNetwork> {
    if (this.failAttach) throw new Error(this.failAttach);
    this.attached.push(pod);
    return { ip: pod.ip ?? this.byoIp };
  }
  async detachPod(pod: PodAttachment): Promise<void> {
    this.detached.push(pod);
  }
}

const homes: string[] = [];
after(() => homes.forEach((h) => rmSync(h, { recursive: true, force: true })));

/** A cluster as the sandboxes see it: one node (a /29 pod range: 5 pod addresses), a conf dir with a network. */
function world(plugin: 'kubenet' | 'none', conf = true): { host: IpamHost; dp: FakeAttacher; sandboxes: DataplaneSandboxes; confDir: string; home: string } {
  const home = mkdtempSync(join(tmpdir(), 'aksemu-dpsb-'));
  homes.push(home);
  const confDir = nodeConfDir(home, 'rg', 'c1', NODE);
  mkdirSync(confDir, { recursive: true });
  if (conf) {
    writeFileSync(
      join(confDir, '10-net.conflist'),
      JSON.stringify({
        cniVersion: '1.0.0',
        name: 'net',
        plugins: [{ type: 'bridge', ipam: { type: 'no-such-ipam', ranges: [[{ subnet: '10.88.0.0/29' }]] } }],
      }),
    );
  }
  const record = { id: CLUSTER_ID, name: 'c1', resourceGroup: 'rg', resolved: { network: { networkPlugin: plugin } } } as unknown as ClusterRecord;
  const node = { name: NODE, ip: '10.224.0.4', podCidr: '10.244.0.0/29' } as unknown as NodeRecord;
  const host: IpamHost = { home, record, nodeRecord: (n) => (n === NODE ? node : undefined), kubelets: { confDir: (n) => nodeConfDir(home, 'rg', 'c1', n) } };
  const dp = new FakeAttacher();
  return { host, dp, sandboxes: new DataplaneSandboxes(host, dp), confDir, home };
}

let serial = 0;
function req(extra: Partial<SandboxRequest> = {}): SandboxRequest {
  serial++;
  return { namespace: 'default', name: `p${serial}`, uid: `uid-${serial}`, node: NODE, hostNetwork: false, sandboxId: `${serial}`.padStart(64, 'a'), ...extra };
}

describe('DataplaneSandboxes', () => {
  test("kubenet: the IPAM's address goes to the data plane; a failed attach gives it back and reads as containerd's error", async () => {
    const { dp, sandboxes } = world('kubenet');
    const first = req();
    assert.deepEqual(await sandboxes.setUp(first), { ok: true, ip: '10.244.0.2' });
    assert.deepEqual(
      dp.attached.map((a) => [a.hostId, a.clusterId, a.node, a.namespace, a.name, a.uid, a.sandboxId, a.ip, a.cni]),
      [[HOST_ID, CLUSTER_ID, NODE, 'default', first.name, first.uid, first.sandboxId, '10.244.0.2', undefined]],
    );
    dp.failAttach = 'node aks-… is not in the data plane';
    // More failures than the /29 has addresses: each one was released, or the pool would be exhausted.
    for (let i = 0; i < 8; i++) {
      const r = req();
      assert.deepEqual(await sandboxes.setUp(r), {
        ok: false,
        message: `rpc error: code = Unknown desc = failed to setup network for sandbox "${r.sandboxId}": node aks-… is not in the data plane`,
      });
    }
    dp.failAttach = undefined;
    dp.hostProblem = 'the node is not in the data plane after 30s (no apply has included it yet)';
    const late = req();
    assert.deepEqual(await sandboxes.setUp(late), {
      ok: false,
      message: `rpc error: code = Unknown desc = failed to setup network for sandbox "${late.sandboxId}": the node is not in the data plane after 30s (no apply has included it yet)`,
    });
    dp.hostProblem = undefined;
    const ok = await sandboxes.setUp(req());
    assert.equal(ok.ok, true);
  });

  test('host-network pods get the node IP and nothing is built; teardown detaches and releases the address', async () => {
    const { dp, sandboxes } = world('kubenet');
    assert.deepEqual(await sandboxes.setUp(req({ hostNetwork: true })), { ok: true, ip: '10.224.0.4' });
    assert.equal(dp.attached.length, 0);
    const pods = [req(), req(), req(), req(), req()];
    for (const p of pods) assert.equal((await sandboxes.setUp(p)).ok, true);
    assert.equal((await sandboxes.setUp(req())).ok, false, 'the /29 is used up');
    await sandboxes.tearDown(pods[1]!);
    assert.deepEqual(dp.detached, [dp.attached[1]]);
    assert.deepEqual(await sandboxes.setUp(req()), { ok: true, ip: dp.attached[1]!.ip });
  });

  test("BYO CNI: attached with the node's CNI setup and no IPAM call; no config is containerd's 'cni plugin not initialized'", async () => {
    const { dp, sandboxes, confDir, home } = world('none');
    const p = req();
    // The IPAM plugin of the conflist does not exist: had the IPAM path run, this would fail.
    assert.deepEqual(await sandboxes.setUp(p), { ok: true, ip: '10.99.0.7' });
    const nodeDir = join(home, 'clusters', 'rg_c1', 'nodes', NODE);
    assert.deepEqual(dp.attached[0]!.cni, {
      confDir,
      pluginDirs: [join(nodeDir, 'opt', 'cni', 'bin')],
      cacheDir: join(nodeDir, 'var', 'lib', 'cni'),
      ipamDataDir: join(nodeDir, 'var', 'lib', 'cni', 'networks'),
    });
    assert.equal(dp.attached[0]!.ip, undefined);
    await sandboxes.tearDown(p);
    assert.deepEqual(dp.detached, [{ ...dp.attached[0], ip: '10.99.0.7' }]);

    const bare = world('none', false);
    const q = req();
    assert.deepEqual(await bare.sandboxes.setUp(q), {
      ok: false,
      message: `rpc error: code = Unknown desc = failed to setup network for sandbox "${q.sandboxId}": cni plugin not initialized`,
    });
    assert.equal(bare.dp.attached.length, 0);
  });

  test('restore: the address is taken at once; the attach waits for the node; a teardown first cancels it', async () => {
    const { dp, sandboxes } = world('kubenet');
    let open!: () => void;
    dp.hostGate = new Promise((r) => (open = r));
    const restored = req();
    const cancelled = req();
    sandboxes.restore(restored, '10.244.0.2');
    sandboxes.restore(cancelled, '10.244.0.3');
    // The IPAM hands out addresses before the attach waits: a new pod gets the next free one.
    const fresh = req();
    const setUp = sandboxes.setUp(fresh);
    const torn = sandboxes.tearDown(cancelled);
    assert.equal(dp.attached.length, 0, 'nothing attaches before the node is ready');
    open();
    assert.deepEqual(await setUp, { ok: true, ip: '10.244.0.4' });
    await torn;
    await sandboxes.settled();
    assert.deepEqual(
      dp.attached.map((a) => [a.name, a.ip]).sort(),
      [
        [restored.name, '10.244.0.2'],
        [fresh.name, '10.244.0.4'],
      ].sort(),
    );
    assert.deepEqual(
      dp.detached.map((a) => a.name),
      [cancelled.name],
    );
  });

  test('restore (BYO): a failing plugin is retried with back-off and reported each time; an address its IPAM will not give again is asked for afresh and reported as changed', async () => {
    const { host, dp } = world('none');
    const sandboxes = new DataplaneSandboxes(host, dp, { retryBaseMs: 10, retryMaxMs: 20 });
    const failures = ['plugin type="calico" failed (add): connection refused', 'requested IP address 10.99.0.3 is not available in range set 10.99.0.0/24'];
    const original = dp.attachPod.bind(dp);
    const asked: Array<string | undefined> = [];
    dp.attachPod = async (pod) => {
      asked.push(pod.ip);
      const failure = failures.shift();
      if (failure) throw new Error(failure);
      return original(pod);
    };
    const reported: string[] = [];
    const restored = req();
    sandboxes.restore(restored, '10.99.0.3', {
      failed: (m) => reported.push(`failed: ${m}`),
      changed: (ip, why) => reported.push(`changed: ${ip} (${why})`),
      gone: () => false,
    });
    await sandboxes.settled();
    assert.deepEqual(asked, ['10.99.0.3', '10.99.0.3', undefined], 'the old address twice (CNI_ARGS IP=), then any');
    assert.deepEqual(reported, [
      'failed: plugin type="calico" failed (add): connection refused',
      'failed: requested IP address 10.99.0.3 is not available in range set 10.99.0.0/24',
      'changed: 10.99.0.7 (10.99.0.3 could not be had again, its IPAM gave 10.99.0.7)',
    ]);
    // The sandbox holds the address it really has: a teardown detaches that one.
    await sandboxes.tearDown(restored);
    assert.deepEqual(
      dp.detached.map((a) => a.ip),
      ['10.99.0.7'],
    );
  });

  test('restore: a pod torn down while its rebuild backs off stops being retried', async () => {
    const { host, dp } = world('kubenet');
    const sandboxes = new DataplaneSandboxes(host, dp, { retryBaseMs: 60_000 });
    dp.failAttach = 'the node is gone';
    const failed: string[] = [];
    const restored = req();
    sandboxes.restore(restored, '10.244.0.2', { failed: (m) => failed.push(m), changed: () => assert.fail('no address changed'), gone: () => false });
    await new Promise((r) => setTimeout(r, 50));
    const started = Date.now();
    await sandboxes.tearDown(restored);
    assert.ok(Date.now() - started < 5_000, 'the back-off is cut short');
    assert.deepEqual(failed, ['the node is gone']);
  });

  test('restore: a stopping kubelet ends the retries', async () => {
    const { host, dp } = world('kubenet');
    const sandboxes = new DataplaneSandboxes(host, dp, { retryBaseMs: 60_000 });
    dp.failAttach = 'connection refused';
    let stopped = false;
    sandboxes.restore(req(), '10.244.0.2', { failed: () => undefined, changed: () => undefined, gone: () => stopped });
    await new Promise((r) => setTimeout(r, 50));
    stopped = true;
    const started = Date.now();
    await sandboxes.settled();
    assert.ok(Date.now() - started < 5_000, 'settled soon after the kubelet stopped');
  });
});

describe('DataplaneController.whenHostReady', () => {
  test('waits for an apply that includes the host, bounded; a closing controller rejects its waiters', async () => {
    const home = tempHome();
    const server = await startTestServer({ home, dataplane: new RecordingDataplane(), dataplaneDebounceMs: 5 });
    try {
      await groupWithSubnet(home, 'rg');
      const vmId = `/subscriptions/${server.identity.subscriptionId}/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/vm1`;
      await assert.rejects(
        server.dataplane.whenHostReady(vmId, 200),
        /^Error: the node is not in the data plane after 200ms \(no apply has included it yet\)$/,
      );
      const ready = server.dataplane.whenHostReady(vmId, 10_000);
      const r = await azIn(home, [
        'vm',
        'create',
        '-g',
        'rg',
        '-n',
        'vm1',
        '--vnet-name',
        'vnet1',
        '--subnet',
        'web',
        '--admin-username',
        'azureuser',
        '--generate-ssh-keys',
        '--public-ip-address',
        '',
        '--nsg',
        '',
      ]);
      assert.equal(r.code, 0, r.stderr);
      await ready;
      await server.dataplane.whenHostReady(vmId.toUpperCase(), 1);
      const never = server.dataplane.whenHostReady(`${vmId}-other`, 60_000);
      await server.close();
      await assert.rejects(never, /the data plane is closing/);
    } finally {
      await server.close();
      removeHome(home);
    }
  });
});
