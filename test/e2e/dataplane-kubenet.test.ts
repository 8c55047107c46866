// kubenet pods on the real data plane, end to end (issue 6, docs/dataplane.md §1): a server with the netns
// driver, the VNet of docs/dataplane.md §3.6, a VM and a 2-node kubenet cluster made through ARM, two pods made with the real
// kubectl (one per node), and probes asserting the source-address table; an NSG that denies the node CIDR
// breaks pod → VM until it is removed; after a restart the restored pods are wired again. Root only.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Cidr, IpAddress } from '../../src/net/ip.js';
import { networkClient, POLL } from '../network/harness.js';
import { eventually, INTERNET, PORT, RG, skipReason, SUBNET, VM, VNET, PodsWorld } from './dataplane-harness.js';

type Obj = any;
const CLUSTER = 'k1';

describe('kubenet pods on the netns data plane (aksemu start --dataplane netns)', { skip: skipReason() }, () => {
  let world: PodsWorld;

  before(async () => {
    world = new PodsWorld();
    await world.setUp(CLUSTER, ['--network-plugin', 'kubenet', '--pod-cidr', '10.244.0.0/16']);
  });
  after(async () => {
    await world?.close();
  });

  it("pods get addresses from their node's podCIDR; pod → pod on the other node sees the pod IP (aksemu probe)", async () => {
    const nodes = await world.nodes();
    for (const [i, p] of world.pods.entries())
      assert.ok(Cidr.parse(nodes[i].spec.podCIDR).contains(IpAddress.parse(p.status.podIP)), `${p.status.podIP} in ${nodes[i].spec.podCIDR}`);
    const r = await world.probeCli(['--from', world.from(0), '-g', RG, '-n', CLUSTER, '--to', `${world.ip(1)}:${PORT}`]);
    assert.deepEqual(r, { code: 0, stdout: `connected from ${world.ip(0)}\n`, stderr: '' });
    assert.deepEqual(await world.seen(world.from(1), `${world.ip(0)}:${PORT}`, CLUSTER), [true, world.ip(1)]);
  });

  it('pod → VM in the VNet: the VM sees the node IP', async () => {
    assert.deepEqual(await world.seen(world.from(0), `${VM.ip}:${PORT}`, CLUSTER), [true, world.nodeAddresses[0]]);
  });

  it("pod → internet: the internet host sees the cluster's outbound IP (the load balancer's outbound rule SNATs the node IP)", async () => {
    assert.deepEqual(await world.seen(world.from(1), `${INTERNET}:${PORT}`, CLUSTER), [true, (await world.outboundIps(CLUSTER))[0]]);
  });

  it('a host-network pod (kube-proxy) probes as its node: the VM sees the node IP', async () => {
    const proxies: Obj[] = (await world.json(['get', 'pods', '-n', 'kube-system', '-l', 'component=kube-proxy'])).items;
    const nodes = await world.nodes();
    for (const p of proxies) {
      const i = nodes.findIndex((n) => n.metadata.name === p.spec.nodeName);
      assert.deepEqual(await world.seen(`pod/kube-system/${p.metadata.name}`, `${VM.ip}:${PORT}`, CLUSTER), [true, world.nodeAddresses[i]]);
    }
    assert.equal(proxies.length, 2);
  });

  it("VM → pod works through the cluster's route table (one UDR per node), and the pod sees the VM", async () => {
    assert.deepEqual(await world.seen(`vm/${VM.name}`, `${world.ip(1)}:${PORT}`), [true, VM.ip]);
    assert.deepEqual(await world.seen(`vm/${VM.name}`, `${world.ip(0)}:${PORT}`), [true, VM.ip]);
  });

  it('an NSG on the subnet denying the node CIDR breaks pod → VM; removing it restores it', async () => {
    await networkClient(world.server).networkSecurityGroups.beginCreateOrUpdateAndWait(
      RG,
      'nsg1',
      {
        location: 'eastus',
        securityRules: [
          {
            name: 'deny-nodes',
            priority: 100,
            direction: 'Inbound',
            access: 'Deny',
            protocol: '*',
            sourceAddressPrefix: '10.224.0.0/16',
            sourcePortRange: '*',
            destinationAddressPrefix: '*',
            destinationPortRange: '*',
          },
        ],
      },
      POLL,
    );
    await world.az(['network', 'vnet', 'subnet', 'update', '-g', RG, '--vnet-name', VNET, '-n', SUBNET, '--nsg', 'nsg1']);
    await world.server.dataplane.idle();
    const [blocked] = await world.seen(world.from(0), `${VM.ip}:${PORT}`, CLUSTER, 1500);
    assert.equal(blocked, false, 'pod → VM leaves as the node IP, which the NSG denies');
    await world.az(['network', 'vnet', 'subnet', 'update', '-g', RG, '--vnet-name', VNET, '-n', SUBNET, '--nsg', '']);
    await world.server.dataplane.idle();
    assert.deepEqual(await world.seen(world.from(0), `${VM.ip}:${PORT}`, CLUSTER), [true, world.nodeAddresses[0]]);
  });

  it('after a restart (the data plane starts empty) the running pods are wired again with their addresses', async () => {
    await world.server.close();
    assert.deepEqual(world.namespaces(), [], 'stopping removes every namespace');
    await world.start();
    const again = (await world.json(['get', 'pods', '-l', 'app=web'])).items.map((p: Obj) => p.status.podIP).sort();
    assert.deepEqual(again, [world.ip(0), world.ip(1)].sort());
    await eventually(
      async () => (await world.probe(world.from(0), `${world.ip(1)}:${PORT}`, CLUSTER, 1000)).connected,
      30_000,
      'the restored pods to be attached',
    );
    assert.deepEqual(await world.seen(world.from(0), `${world.ip(1)}:${PORT}`, CLUSTER), [true, world.ip(0)]);
    assert.deepEqual(await world.seen(`vm/${VM.name}`, `${world.ip(0)}:${PORT}`), [true, VM.ip]);
  });

  it('stopping the server removes every namespace of this run; the root namespace is unchanged', async () => {
    await world.server.close();
    world.assertClean();
  });
});
