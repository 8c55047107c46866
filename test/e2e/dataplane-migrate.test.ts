// The migration to Azure CNI Overlay on the real data plane (issue 28, docs/aks-rules.md §2.6, docs/dataplane.md §5.1):
// a 2-node cluster with a pod on each node, the probe table before, `aksemu az aks update … --network-plugin-mode
// overlay`, then the same probes after: the nodes keep their names and are reimaged (a new boot ID), every pod is
// made again (SandboxChanged) with an address of its node's /24, pod → pod across nodes works with no route table,
// the VM sees the node, and the VM can no longer reach a pod. Once from kubenet, once from Azure CNI node subnet
// (whose pods move from VNet addresses to the new pod CIDR). Root only.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { readdirSync } from 'node:fs';
import { nodeConfDir } from '../../src/cluster/nodefs/paths.js';
import { Cidr, IpAddress } from '../../src/net/ip.js';
import { eventually, INTERNET, PORT, PodsWorld, RG, skipReason, SUBNET, VM, VNET } from './dataplane-harness.js';

type Obj = any;

const CASES = [
  { label: 'kubenet', cluster: 'm1', create: ['--network-plugin', 'kubenet'], update: ['--network-plugin', 'azure'], podCidr: '10.244.0.0/16' },
  { label: 'Azure CNI node subnet', cluster: 'm2', create: ['--network-plugin', 'azure'], update: ['--pod-cidr', '192.168.0.0/16'], podCidr: '192.168.0.0/16' },
];

for (const c of CASES) {
  describe(`${c.label} → Azure CNI Overlay on the netns data plane`, { skip: skipReason() }, () => {
    let world: PodsWorld;
    let nodesBefore: Obj[];

    /** The probe table of docs/dataplane.md §1 for the pods as they are now. */
    async function table(): Promise<Record<string, [boolean, string | undefined]>> {
      return {
        'pod → pod across nodes': await world.seen(world.from(0), `${world.ip(1)}:${PORT}`, c.cluster),
        'pod → VM': await world.seen(world.from(0), `${VM.ip}:${PORT}`, c.cluster),
        'pod → internet': await world.seen(world.from(1), `${INTERNET}:${PORT}`, c.cluster),
      };
    }

    before(async () => {
      world = new PodsWorld();
      await world.setUp(c.cluster, c.create);
      nodesBefore = await world.nodes();
    });
    after(async () => {
      await world?.close();
    });

    it("before: pods keep their IP towards each other, reach the VM as the node and the internet as the cluster's outbound IP; the VM reaches a pod", async () => {
      const ips = [world.ip(0), world.ip(1)];
      assert.deepEqual(await table(), {
        'pod → pod across nodes': [true, ips[0]],
        'pod → VM': [true, c.label === 'kubenet' ? world.nodeAddresses[0] : ips[0]],
        'pod → internet': [true, (await world.outboundIps(c.cluster))[0]],
      });
      assert.deepEqual(await world.seen(`vm/${VM.name}`, `${world.ip(1)}:${PORT}`), [true, VM.ip]);
    });

    it('after az aks update --network-plugin-mode overlay: the pods are made again on the reimaged nodes, and the overlay carries them', async () => {
      const oldIps = [world.ip(0), world.ip(1)];
      const updated = await world.az(['aks', 'update', '-g', RG, '-n', c.cluster, '--network-plugin-mode', 'overlay', ...c.update]);
      assert.deepEqual([updated.networkProfile.networkPlugin, updated.networkProfile.networkPluginMode], ['azure', 'overlay']);
      await world.server.dataplane.idle();
      // Same node names, a new boot ID each (reimaged), a /24 of the pod CIDR each.
      let nodes: Obj[] = [];
      await eventually(
        async () => {
          nodes = await world.nodes();
          return nodes.every((n, i) => n.status.nodeInfo.bootID !== nodesBefore[i].status.nodeInfo.bootID && n.spec.podCIDR);
        },
        30_000,
        'the nodes to report a new boot ID and a pod CIDR',
      );
      assert.deepEqual(
        nodes.map((n) => n.metadata.name),
        nodesBefore.map((n) => n.metadata.name),
      );
      // Each pod made again: Ready, with an address of its node's /24.
      await eventually(
        async () => {
          const pods = (await world.json(['get', 'pods', '-l', 'app=web'])).items.sort((a: Obj, b: Obj) => a.metadata.name.localeCompare(b.metadata.name));
          const ready = pods.every(
            (p: Obj, i: number) =>
              p.status.podIP &&
              Cidr.parse(nodes[i].spec.podCIDR).contains(IpAddress.parse(p.status.podIP)) &&
              p.status.conditions?.some((x: Obj) => x.type === 'Ready' && x.status === 'True'),
          );
          if (ready) world.pods = pods;
          return ready;
        },
        60_000,
        'the pods to be Ready again on the overlay',
      );
      for (const n of nodes) {
        assert.ok(Cidr.parse(c.podCidr).containsCidr(Cidr.parse(n.spec.podCIDR)), n.spec.podCIDR);
        // The reimaged node's conf dir holds Azure CNI's conflist only (azure-vnet + azure-cns).
        assert.deepEqual(readdirSync(nodeConfDir(world.home, RG, c.cluster, n.metadata.name)), ['10-azure.conflist']);
      }
      const events = await world.json(['get', 'events', '--field-selector', 'reason=SandboxChanged']);
      assert.ok(events.items.length >= 2, 'a SandboxChanged event per pod');
      if (c.label !== 'kubenet') assert.notDeepEqual([world.ip(0), world.ip(1)], oldIps);
      const subnet = await world.az(['network', 'vnet', 'subnet', 'show', '-g', RG, '--vnet-name', VNET, '-n', SUBNET]);
      assert.equal(subnet.routeTable ?? null, null, 'no route table on the subnet');
      assert.deepEqual(await table(), {
        'pod → pod across nodes': [true, world.ip(0)],
        'pod → VM': [true, world.nodeAddresses[0]],
        'pod → internet': [true, (await world.outboundIps(c.cluster))[0]],
      });
      const [vmToPod] = await world.seen(`vm/${VM.name}`, `${world.ip(1)}:${PORT}`, undefined, 1000);
      assert.equal(vmToPod, false, 'overlay pod IPs are not reachable from the VM');
    });

    it('stopping the server removes every namespace of this run; the root namespace is unchanged', async () => {
      await world.server.close();
      world.assertClean();
    });
  });
}
