// Issue 25's crash-and-restart test on Cilium from its Helm chart (aksbyocni, cluster-pool IPAM; restart-harness.ts
// has the suite): the agent's pool keeps the pods' addresses, cilium-agent programs cilium_vxlan again. Root only;
// skipped without the chart (test/fixtures/cilium/SOURCE.md).
import { CILIUM_HELM } from './byo-cnis.js';
import { restartSuite } from './restart-harness.js';

restartSuite(
  'Cilium (helm, aksbyocni): pods, Services and DNS come back after a restart and after a SIGKILL (aksemu start --dataplane netns)',
  CILIUM_HELM,
  CILIUM_HELM.skip,
);
