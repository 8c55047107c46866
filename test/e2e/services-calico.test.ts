// Issue 17's Must show on a BYO CNI cluster (--network-plugin none) whose CNI enforces NetworkPolicy: Calico,
// installed with its own unmodified operator manifests (calico-install.ts; skipped with the reason when the
// fixture of test/fixtures/calico/SOURCE.md is missing). calico-node runs on every node, so NetworkPolicy is
// enforced there (docs/dataplane.md §13.1): default deny, allow, namespace selector and ipBlock except through
// Calico's routed cali… veths and vxlan.calico. Services through kube-proxy's rules, cluster DNS (coredns runs
// once Calico is installed) and kubectl exec on the netns data plane (services-harness.ts has the suite). Root only.
import { BYO_POD_CIDR, ByoCniWorld } from './byo-cni-harness.js';
import { calicoSkipReason, installCalicoOperator } from './calico-install.js';
import { servicesSuite } from './services-harness.js';

servicesSuite(
  'Services, DNS, NetworkPolicy (calico-node) and exec on BYO CNI with Calico (operator, VXLAN; aksemu start --dataplane netns)',
  {
    cluster: 'byo',
    world: () => new ByoCniWorld(),
    async setUp(world) {
      await world.setUp({ name: 'byo' });
      await installCalicoOperator(world, BYO_POD_CIDR);
    },
    policyEngine: true,
    // The agents program the overlay again and the restored pods get their addresses back (docs/dataplane.md §15).
    restarts: true,
  },
  calicoSkipReason(),
);
