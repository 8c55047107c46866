// Issue 17's Must show on a BYO CNI cluster (--network-plugin none) with Cilium, installed from its unmodified Helm
// chart as Cilium's AKS BYOCNI instructions do (aksbyocni, cluster-pool on the pod CIDR; skipped with the reason when
// the chart of test/fixtures/cilium/SOURCE.md is missing). cilium-agent runs on every node, so NetworkPolicy is
// enforced there (docs/dataplane.md §13.1) through Cilium's routed lxc… veths and cilium_vxlan; kube-proxy stays (the
// chart's values.yaml has kubeProxyReplacement "false"). Services, cluster DNS and kubectl exec on the netns data plane
// (services-harness.ts has the suite). Root only.
import { CILIUM_HELM } from './byo-cnis.js';
import { servicesSuite } from './services-harness.js';

servicesSuite(
  'Services, DNS, NetworkPolicy (cilium-agent) and exec on BYO CNI with Cilium (helm, aksbyocni; aksemu start --dataplane netns)',
  {
    ...CILIUM_HELM,
    policyEngine: true,
    // The agents program the overlay again and the restored pods get their addresses back (docs/dataplane.md §15).
    restarts: true,
  },
  CILIUM_HELM.skip,
);
