// The BYO CNI harness proved without a CNI project (docs/dataplane.md §6): the test is the "agent". It writes each
// node's conflist — the reference bridge + host-local on the node's /24, no masquerade, as flannel delegates —
// into the node's /etc/cni/net.d, and programs flannel's VXLAN overlay (flannel.1, VNI 1, UDP 8472) through the
// node network the cluster's agents get. Before the overlay, pods on different nodes cannot reach each other;
// with it they connect and each sees the other pod's own IP; the NSG's default rules let the tunnel through.
// Root only (the netns data plane).
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ByoCniWorld, byoSkipReason, PORT } from './byo-cni-harness.js';
import { TEST_OVERLAY_DEVICE, testConflist, testOverlay } from './byo-cni-overlay-shape.js';

type Obj = any;
const DEV = TEST_OVERLAY_DEVICE;

describe('BYO CNI harness: a conflist and a VXLAN overlay from a test agent, pod → pod across nodes', { skip: byoSkipReason() }, () => {
  const world = new ByoCniWorld();
  let nodes: string[];
  let nodeIps: string[];
  let pods: Obj[];

  before(async () => {
    await world.setUp();
    nodes = await world.nodeNames();
    nodeIps = await world.nodeIps();
    nodes.forEach((node, i) => {
      mkdirSync(world.confDir(node), { recursive: true });
      writeFileSync(join(world.confDir(node), '10-test-overlay.conflist'), testConflist(i));
    });
    await world.waitNodesReady();
    pods = await world.podsOnEachNode();
  });
  after(async () => {
    await world.close();
  });

  it("pods take their node's /24 from host-local", () => {
    assert.deepEqual(
      pods.map((p) => p.status.podIP.split('.').slice(0, 3).join('.')),
      ['10.244.0', '10.244.1'],
    );
  });

  it('without an overlay, a pod cannot reach the pod on the other node', async () => {
    const [connected] = await world.seen(`pod/default/${pods[0].metadata.name}`, `${pods[1].status.podIP}:${PORT}`, world.clusterName, 1500);
    assert.equal(connected, false);
  });

  it("with the agents' overlay, pod → pod across nodes connects and each side sees the other pod's IP", async () => {
    const network = world.nodeNetwork();
    await Promise.all(nodes.map((node, i) => network.applyOverlay(node, testOverlay(i, nodeIps))));
    assert.match(
      world.inNode(nodes[0]!, ['ip', '-d', '-o', 'link', 'show', 'dev', DEV]),
      /vxlan id 1 local 10\.224\.0\.\d+ dev eth0 .*dstport 8472 nolearning/,
    );
    assert.match(world.inNode(nodes[0]!, ['ip', 'route', 'show', 'dev', DEV]), /^10\.244\.1\.0\/24 via 10\.244\.1\.0 onlink/m);
    await world.assertPodToPod(pods);
  });

  it('an agent converging on the same overlay again changes nothing; removing it cuts the path', async () => {
    const network = world.nodeNetwork();
    await network.applyOverlay(nodes[1]!, testOverlay(1, nodeIps));
    await world.assertPodToPod(pods);
    await network.removeOverlay(nodes[1]!, DEV);
    assert.deepEqual(
      (await world.podToPod(pods, 1500)).map((r) => r.connected),
      [false, false],
    );
  });

  it('stopping the server removes every namespace of this run; the host network is unchanged', async () => {
    await world.server.close();
    world.assertClean();
  });
});
