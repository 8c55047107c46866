// Issue 17's Must show on Azure CNI (node subnet) with Azure network policy (NPM): Services through kube-proxy's
// rules, cluster DNS, NetworkPolicy and kubectl exec on the netns data plane (services-harness.ts has the suite).
// Root only.
import { DataplaneWorld, skipReason } from './dataplane-harness.js';
import { servicesSuite } from './services-harness.js';

const CLUSTER = 'a1';

servicesSuite(
  'Services, DNS, NetworkPolicy and exec on Azure CNI (aksemu start --dataplane netns)',
  {
    cluster: CLUSTER,
    world: () => new DataplaneWorld(),
    async setUp(world) {
      await world.start();
      await world.network();
      await world.cluster(CLUSTER, ['--network-plugin', 'azure', '--network-policy', 'azure']);
    },
    policyEngine: true,
    restarts: true,
  },
  skipReason(),
);
