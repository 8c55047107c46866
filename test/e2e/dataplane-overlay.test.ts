// Azure CNI Overlay pods on the real data plane, end to end (issue 28, docs/dataplane.md §5.1): a 2-node cluster made
// through ARM with `--network-plugin azure --network-plugin-mode overlay` on the VNet of docs/dataplane.md §3.6, pods
// made with the real kubectl (one per node). No route table is attached to the subnet, yet pods reach each other
// across nodes with their own IPs (Azure's overlay routing); the VM and the internet see the node IP; the VM cannot
// reach a pod IP. Root only.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Cidr, IpAddress } from '../../src/net/ip.js';
import { INTERNET, PORT, RG, skipReason, SUBNET, VM, VNET, PodsWorld } from './dataplane-harness.js';

const CLUSTER = 'o1';

describe('Azure CNI Overlay pods on the netns data plane (aksemu start --dataplane netns)', { skip: skipReason() }, () => {
  let world: PodsWorld;

  before(async () => {
    world = new PodsWorld();
    const created = await world.setUp(CLUSTER, ['--network-plugin', 'azure', '--network-plugin-mode', 'overlay', '--pod-cidr', '192.168.0.0/16']);
    assert.deepEqual([created.networkProfile.networkPlugin, created.networkProfile.networkPluginMode], ['azure', 'overlay']);
  });
  after(async () => {
    await world?.close();
  });

  it("pods get addresses from their node's /24 of the pod CIDR; the subnet has no route table", async () => {
    const nodes = await world.nodes();
    for (const [i, p] of world.pods.entries()) {
      const range = Cidr.parse(nodes[i].spec.podCIDR);
      assert.ok(Cidr.parse('192.168.0.0/16').containsCidr(range), nodes[i].spec.podCIDR);
      assert.ok(range.contains(IpAddress.parse(p.status.podIP)), `${p.status.podIP} in ${nodes[i].spec.podCIDR}`);
    }
    const subnet = await world.az(['network', 'vnet', 'subnet', 'show', '-g', RG, '--vnet-name', VNET, '-n', SUBNET]);
    assert.equal(subnet.routeTable ?? null, null);
  });

  it('pod → pod on the other node: the far pod sees the pod IP, both ways (aksemu probe)', async () => {
    const r = await world.probeCli(['--from', world.from(0), '-g', RG, '-n', CLUSTER, '--to', `${world.ip(1)}:${PORT}`]);
    assert.deepEqual(r, { code: 0, stdout: `connected from ${world.ip(0)}\n`, stderr: '' });
    assert.deepEqual(await world.seen(world.from(1), `${world.ip(0)}:${PORT}`, CLUSTER), [true, world.ip(1)]);
  });

  it('pod → VM in the VNet: the VM sees the NODE IP', async () => {
    assert.deepEqual(await world.seen(world.from(0), `${VM.ip}:${PORT}`, CLUSTER), [true, world.nodeAddresses[0]]);
    assert.deepEqual(await world.seen(world.from(1), `${VM.ip}:${PORT}`, CLUSTER), [true, world.nodeAddresses[1]]);
  });

  it("pod → internet: the internet host sees the cluster's outbound IP (the load balancer's outbound rule SNATs the node IP)", async () => {
    assert.deepEqual(await world.seen(world.from(1), `${INTERNET}:${PORT}`, CLUSTER), [true, (await world.outboundIps(CLUSTER))[0]]);
  });

  it('node → pod on the other node works (the overlay carries node traffic too)', async () => {
    const nodes = await world.nodes();
    assert.deepEqual(await world.seen(`node/${nodes[0].metadata.name}`, `${world.ip(1)}:${PORT}`, CLUSTER), [true, world.nodeAddresses[0]]);
  });

  it('VM → pod IP fails: overlay pod IPs are not routable outside the cluster', async () => {
    const [connected] = await world.seen(`vm/${VM.name}`, `${world.ip(1)}:${PORT}`, undefined, 1000);
    assert.equal(connected, false);
  });

  it('stopping the server removes every namespace of this run; the root namespace is unchanged', async () => {
    await world.server.close();
    world.assertClean();
  });
});
