// Issue 17's Must show on kubenet with Calico network policy (AKS supports --network-policy calico with kubenet):
// Services through kube-proxy's rules, cluster DNS, NetworkPolicy and kubectl exec on the netns data plane
// (services-harness.ts has the suite). Root only.
import { DataplaneWorld, skipReason } from './dataplane-harness.js';
import { servicesSuite } from './services-harness.js';

const CLUSTER = 'k1';

servicesSuite(
  'Services, DNS, NetworkPolicy and exec on kubenet (aksemu start --dataplane netns)',
  {
    cluster: CLUSTER,
    world: () => new DataplaneWorld(),
    async setUp(world) {
      await world.start();
      await world.network();
      await world.cluster(CLUSTER, ['--network-plugin', 'kubenet', '--pod-cidr', '10.244.0.0/16', '--network-policy', 'calico']);
    },
    policyEngine: true,
    restarts: true,
  },
  skipReason(),
);
