// Issue 17's Must show on Azure CNI Overlay with Azure network policy (NPM): Services through kube-proxy's rules,
// cluster DNS, NetworkPolicy and `kubectl exec … curl` on the netns data plane, pod → pod across nodes carried by
// the VNet's overlay routing (docs/dataplane.md §5.1; services-harness.ts has the suite). Root only.
import { DataplaneWorld, skipReason } from './dataplane-harness.js';
import { servicesSuite } from './services-harness.js';

const CLUSTER = 'o1';

servicesSuite(
  'Services, DNS, NetworkPolicy and exec on Azure CNI Overlay (aksemu start --dataplane netns)',
  {
    cluster: CLUSTER,
    world: () => new DataplaneWorld(),
    async setUp(world) {
      await world.start();
      await world.network();
      await world.cluster(CLUSTER, ['--network-plugin', 'azure', '--network-plugin-mode', 'overlay', '--network-policy', 'azure']);
    },
    policyEngine: true,
    restarts: true,
  },
  skipReason(),
);
