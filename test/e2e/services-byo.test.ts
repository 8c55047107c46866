// Issue 17's Must show on a BYO CNI cluster (--network-plugin none) with a CNI installed offline: the
// byo-cni-harness's bridge + host-local conflists and flannel's VXLAN overlay, played by the test (no CNI project,
// so no policy engine: NetworkPolicy is stored and ignored, as on AKS with a CNI that does not enforce it).
// Services through kube-proxy's rules, cluster DNS (coredns runs once the CNI is installed) and kubectl exec on the
// netns data plane (services-harness.ts has the suite). Root only.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ByoCniWorld, byoSkipReason } from './byo-cni-harness.js';
import { testConflist, testOverlay } from './byo-cni-overlay-shape.js';
import { servicesSuite } from './services-harness.js';

servicesSuite(
  'Services, DNS and exec on BYO CNI with a bridge + VXLAN overlay CNI (aksemu start --dataplane netns)',
  {
    cluster: 'byo',
    world: () => new ByoCniWorld(),
    async setUp(world) {
      await world.setUp({ name: 'byo' });
      const nodes = await world.nodeNames();
      const nodeIps = await world.nodeIps();
      nodes.forEach((node, i) => {
        mkdirSync(world.confDir(node), { recursive: true });
        writeFileSync(join(world.confDir(node), '10-test-overlay.conflist'), testConflist(i));
      });
      await world.waitNodesReady();
      const network = world.nodeNetwork();
      await Promise.all(nodes.map((node, i) => network.applyOverlay(node, testOverlay(i, nodeIps))));
    },
    policyEngine: false,
    restarts: false,
  },
  byoSkipReason(),
);
