// Cilium's chart (aksbyocni, cluster-pool on the pod CIDR) with the netns data plane (root): the agents program
// cilium_vxlan (UDP 8472) in their nodes' namespaces towards every other CiliumNode's block, cilium-cni wires each
// pod with a routed veth (its /32, the node's router IP as gateway), and pod → pod across nodes connects with each
// side seeing the other pod's own address (tunnel mode, no masquerade between pods).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Cidr, IpAddress } from '../../src/net/ip.js';
import { aksByocniValues, CILIUM_CHART, ciliumChartSkip } from '../helm/cilium-chart.js';
import { BYO_POD_CIDR, ByoCniWorld, byoSkipReason, eventually } from './byo-cni-harness.js';

type Obj = any;

describe('Cilium (helm, aksbyocni) with the netns data plane: pod → pod across nodes', { skip: byoSkipReason({ helm: true }) || ciliumChartSkip() }, () => {
  const world = new ByoCniWorld();
  let nodes: string[];
  let pods: Obj[];

  before(async () => {
    await world.setUp();
    nodes = await world.nodeNames();
    await world.helmOk(['install', 'cilium', CILIUM_CHART, ...aksByocniValues(BYO_POD_CIDR)]);
    await world.waitNodesReady();
    pods = await world.podsOnEachNode();
  });
  after(async () => {
    await world.close();
  });

  it("pods take addresses from their node's CiliumNode block", async () => {
    const blocks = new Map<string, string>((await world.json(['get', 'ciliumnodes'])).items.map((cn: Obj) => [cn.metadata.name, cn.spec.ipam.podCIDRs[0]]));
    for (const p of pods) assert.ok(Cidr.parse(blocks.get(p.spec.nodeName)!).contains(IpAddress.parse(p.status.podIP)), `${p.metadata.name} ${p.status.podIP}`);
  });

  it('each node has cilium_vxlan on UDP 8472 with a route to the other node’s block', async () => {
    const cns: Obj[] = (await world.json(['get', 'ciliumnodes'])).items;
    const other = cns.find((cn) => cn.metadata.name === nodes[1])!;
    await eventually(() => /dstport 8472/.test(world.inNode(nodes[0]!, ['ip', '-d', '-o', 'link', 'show'])), 10_000, 'cilium_vxlan');
    assert.match(world.inNode(nodes[0]!, ['ip', '-d', '-o', 'link', 'show', 'dev', 'cilium_vxlan']), /vxlan id \d+ local 10\.224\.0\.\d+ .*dstport 8472/);
    assert.match(
      world.inNode(nodes[0]!, ['ip', 'route', 'show', 'dev', 'cilium_vxlan']),
      new RegExp(`^${other.spec.ipam.podCIDRs[0].replaceAll('.', '\\.')} via `, 'm'),
    );
  });

  it("pod → pod across nodes connects both ways; each side sees the other pod's IP", async () => {
    await world.assertPodToPod(pods);
  });

  it('stopping the server removes every namespace of this run; the host network is unchanged', async () => {
    await world.server.close();
    world.assertClean();
  });
});
