// Issue 17's Must show on a BYO CNI cluster (--network-plugin none) with a CNI installed offline: the
// byo-cni-harness's bridge + host-local conflists and flannel's VXLAN overlay, played by the test (no CNI project,
// so no policy engine: NetworkPolicy is stored and ignored, as on AKS with a CNI that does not enforce it).
// Services through kube-proxy's rules, cluster DNS (coredns runs once the CNI is installed) and kubectl exec on the
// netns data plane (services-harness.ts has the suite). Root only.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BYO_POD_CIDR, ByoCniWorld, byoSkipReason } from './byo-cni-harness.js';
import { testConflist, testOverlay } from './byo-cni-overlay-shape.js';
import { servicesSuite } from './services-harness.js';

/**
 * What flanneld would program on each node: the VXLAN overlay between them and its --ip-masq. Played like the
 * overlay: pods' traffic leaving the pod network is masqueraded to the node IP (flannel's masquerade rules: return
 * inside the network, leave multicast alone, masquerade the rest), so what pods send outside (the API server, the
 * cluster DNS's forward to Azure DNS) finds its way back, as on Azure. Retried while a restarted server is still
 * building the nodes' namespaces.
 */
async function playAgent(world: ByoCniWorld): Promise<void> {
  const nodes = await world.nodeNames();
  const nodeIps = await world.nodeIps();
  const network = world.nodeNetwork();
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await Promise.all(nodes.map((node, i) => network.applyOverlay(node, testOverlay(i, nodeIps))));
      break;
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  for (const node of nodes) {
    world.inNode(node, ['nft', 'add table ip test_masq']);
    world.inNode(node, ['nft', 'add chain ip test_masq post { type nat hook postrouting priority srcnat; }']);
    world.inNode(node, ['nft', `add rule ip test_masq post ip saddr ${BYO_POD_CIDR} ip daddr != { ${BYO_POD_CIDR}, 224.0.0.0/4 } masquerade`]);
  }
}

servicesSuite(
  'Services, DNS and exec on BYO CNI with a bridge + VXLAN overlay CNI (aksemu start --dataplane netns)',
  {
    cluster: 'byo',
    world: () => new ByoCniWorld(),
    async setUp(world) {
      await world.setUp({ name: 'byo' });
      const nodes = await world.nodeNames();
      nodes.forEach((node, i) => {
        mkdirSync(world.confDir(node), { recursive: true });
        writeFileSync(join(world.confDir(node), '10-test-overlay.conflist'), testConflist(i));
      });
      await world.waitNodesReady();
      await playAgent(world);
    },
    // The test is this CNI's agent: after a restart it programs the nodes again, as flanneld would.
    restarted: playAgent,
    policyEngine: false,
    restarts: true,
  },
  byoSkipReason(),
);
