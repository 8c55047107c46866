// Azure CNI (node subnet) pods on the real data plane, end to end (issue 6, docs/dataplane.md §1): pods on
// the node NICs' pre-allocated VNet addresses, made with the real kubectl on a 2-node cluster created through
// ARM; the VNet sees pod IPs (pod → pod and pod → VM), the internet sees the node IP, and the VM reaches a pod
// directly, without any route. Root only.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { nodesPrefix, type NodeRecord } from '../../src/model/cluster-records.js';
import { INTERNET, PORT, RG, skipReason, VM, PodsWorld } from './dataplane-harness.js';

const CLUSTER = 'a1';

describe('Azure CNI pods on the netns data plane (aksemu start --dataplane netns)', { skip: skipReason() }, () => {
  let world: PodsWorld;

  before(async () => {
    world = new PodsWorld();
    const created = await world.setUp(CLUSTER, ['--network-plugin', 'azure']);
    const nodes = await world.nodes();
    // Each pod holds one of its node NIC's secondary addresses.
    const records = world.server.store.list<NodeRecord>(nodesPrefix(created.id)).map((e) => e.value);
    for (const [i, n] of nodes.entries()) {
      const record = records.find((r) => r.name === n.metadata.name)!;
      assert.ok(record.secondaryIps?.includes(world.ip(i)), `${world.ip(i)} is a secondary IP of ${n.metadata.name}`);
    }
  });
  after(async () => {
    await world?.close();
  });

  it('pod → pod on the other node: the far pod sees the pod IP (aksemu probe)', async () => {
    const r = await world.probeCli(['--from', world.from(0), '-g', RG, '-n', CLUSTER, '--to', `${world.ip(1)}:${PORT}`]);
    assert.deepEqual(r, { code: 0, stdout: `connected from ${world.ip(0)}\n`, stderr: '' });
  });

  it('pod → VM in the VNet: the VM sees the POD IP', async () => {
    assert.deepEqual(await world.seen(world.from(0), `${VM.ip}:${PORT}`, CLUSTER), [true, world.ip(0)]);
    assert.deepEqual(await world.seen(world.from(1), `${VM.ip}:${PORT}`, CLUSTER), [true, world.ip(1)]);
  });

  it("pod → internet: the internet host sees the cluster's outbound IP (the load balancer's outbound rule SNATs the node IP)", async () => {
    assert.deepEqual(await world.seen(world.from(1), `${INTERNET}:${PORT}`, CLUSTER), [true, (await world.outboundIps(CLUSTER))[0]]);
  });

  it('VM → pod works directly (no route table), and the pod sees the VM', async () => {
    assert.deepEqual(await world.seen(`vm/${VM.name}`, `${world.ip(0)}:${PORT}`), [true, VM.ip]);
    assert.deepEqual(await world.seen(`vm/${VM.name}`, `${world.ip(1)}:${PORT}`), [true, VM.ip]);
  });

  it('deleting a pod removes its namespace: the VM cannot reach its address any more', async () => {
    await world.kubectlOk(['delete', 'pod', 'web-1', '--wait=true']);
    const [connected] = await world.seen(`vm/${VM.name}`, `${world.ip(1)}:${PORT}`, undefined, 1000);
    assert.equal(connected, false);
  });

  it('stopping the server removes every namespace of this run; the root namespace is unchanged', async () => {
    await world.server.close();
    world.assertClean();
  });
});
