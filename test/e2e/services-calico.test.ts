// Issue 17's Must show on a BYO CNI cluster (--network-plugin none) whose CNI enforces NetworkPolicy: Calico,
// installed with its own unmodified operator manifests (calico-install.ts; skipped with the reason when the
// fixture of test/fixtures/calico/SOURCE.md is missing). calico-node runs on every node, so NetworkPolicy is
// enforced there (docs/dataplane.md §13.1): default deny, allow, namespace selector and ipBlock except through
// Calico's routed cali… veths and vxlan.calico. Services through kube-proxy's rules, cluster DNS (coredns runs
// once Calico is installed) and kubectl exec on the netns data plane (services-harness.ts has the suite). Root only.
import { CALICO_OPERATOR } from './byo-cnis.js';
import { servicesSuite } from './services-harness.js';

servicesSuite(
  'Services, DNS, NetworkPolicy (calico-node) and exec on BYO CNI with Calico (operator, VXLAN; aksemu start --dataplane netns)',
  {
    ...CALICO_OPERATOR,
    policyEngine: true,
    // The agents program the overlay again and the restored pods get their addresses back (docs/dataplane.md §15).
    restarts: true,
  },
  CALICO_OPERATOR.skip,
);
