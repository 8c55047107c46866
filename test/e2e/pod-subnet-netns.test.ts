// Azure CNI with a pod subnet on the netns data plane (docs/dataplane.md §5.3): a 2-node cluster made with
// `aksemu az aks create --pod-subnet-id`, web-0 and web-1 on addresses of the pod subnet (kubectl), which the VNet
// router routes to their nodes. A VM in the VNet and a VM across a peering see the pod's own address (no
// masquerade within the VNet or across peerings, the legacy-CNI FAQ on dynamic IP allocation) and reach the pod
// directly; the internet host sees the node's address. Every namespace of the run is removed by name afterwards and
// the root namespace is unchanged. Root only.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Cidr, IpAddress } from '../../src/net/ip.js';
import { nodesPrefix, type NodeRecord } from '../../src/model/cluster-records.js';
import { vnetCreateArgs } from '../az/helpers.js';
import { eventually, INTERNET, PodsWorld, PORT, RG, skipReason, VM, VNET } from './dataplane-harness.js';

const CLUSTER = 'ps1';
const POD_SUBNET = '10.225.0.0/24';
const VM2 = { name: 'vm2', ip: '10.1.0.100' };

describe('Azure CNI with a pod subnet on the netns data plane', { skip: skipReason() }, () => {
  let world: PodsWorld;

  before(async () => {
    world = new PodsWorld();
    await world.start();
    await world.network();
    const pods = await world.az(['network', 'vnet', 'subnet', 'create', '-g', RG, '--vnet-name', VNET, '-n', 'pods', '--address-prefixes', POD_SUBNET]);
    // A peered VNet with a VM of its own.
    await world.az(vnetCreateArgs(RG, 'vnet2', '10.1.0.0/16', 'web', '10.1.0.0/24'));
    await world.vm(VM2.name, 'vnet2', 'web', VM2.ip);
    for (const [name, vnet, remote] of [
      ['one-two', VNET, 'vnet2'],
      ['two-one', 'vnet2', VNET],
    ] as const) {
      await world.az(['network', 'vnet', 'peering', 'create', '-g', RG, '-n', name, '--vnet-name', vnet, '--remote-vnet', remote, '--allow-vnet-access']);
    }
    const created = await world.cluster(CLUSTER, ['--network-plugin', 'azure', '--pod-subnet-id', pods.id]);
    world.pods = await world.podsOnEachNode();
    world.nodeAddresses = await world.nodeIps();
    // Each pod holds one of its node's pod-subnet addresses.
    const records = world.server.store.list<NodeRecord>(nodesPrefix(created.id)).map((e) => e.value);
    for (const [i, pod] of world.pods.entries()) {
      const record = records.find((r) => r.name === pod.spec.nodeName)!;
      assert.ok(Cidr.parse(POD_SUBNET).contains(IpAddress.parse(world.ip(i))), `${world.ip(i)} is in the pod subnet`);
      assert.ok(record.podSubnetIps?.includes(world.ip(i)), `${world.ip(i)} is one of ${record.name}'s batch`);
    }
  });
  after(async () => {
    await world?.close();
  });

  it('pod → pod on the other node: the far pod sees the pod IP', async () => {
    assert.deepEqual(await world.seen(world.from(0), `${world.ip(1)}:${PORT}`, CLUSTER), [true, world.ip(0)]);
  });

  it('pod → VM in the VNet: the VM sees the pod IP; VM → pod: the pod sees the VM', async () => {
    assert.deepEqual(await world.seen(world.from(0), `${VM.ip}:${PORT}`, CLUSTER), [true, world.ip(0)]);
    assert.deepEqual(await world.seen(world.from(1), `${VM.ip}:${PORT}`, CLUSTER), [true, world.ip(1)]);
    assert.deepEqual(await world.seen(`vm/${VM.name}`, `${world.ip(0)}:${PORT}`), [true, VM.ip]);
  });

  it('pod → VM across the peering: the peered VM sees the pod IP; the peered VM reaches the pod', async () => {
    await eventually(async () => (await world.probe(world.from(0), `${VM2.ip}:${PORT}`, CLUSTER, 1000)).connected, 30_000, 'the peering to carry traffic');
    assert.deepEqual(await world.seen(world.from(0), `${VM2.ip}:${PORT}`, CLUSTER), [true, world.ip(0)]);
    assert.deepEqual(await world.seen(`vm/${VM2.name}`, `${world.ip(1)}:${PORT}`), [true, VM2.ip]);
  });

  it("pod → internet: the node masquerades, the VNet router sends it as the cluster's outbound IP", async () => {
    assert.deepEqual(await world.seen(world.from(1), `${INTERNET}:${PORT}`, CLUSTER), [true, (await world.outboundIps(CLUSTER))[0]]);
  });

  it('deleting a pod removes its namespace: the VM no longer reaches its address', async () => {
    await world.kubectlOk(['delete', 'pod', 'web-1', '--wait=true']);
    const [connected] = await world.seen(`vm/${VM.name}`, `${world.ip(1)}:${PORT}`, undefined, 1000);
    assert.equal(connected, false);
  });

  it('stopping the server removes every namespace of this run; the root namespace is unchanged', async () => {
    await world.server.close();
    world.assertClean();
  });
});
