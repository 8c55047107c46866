// Issue 25's crash-and-restart test on Calico installed by its operator (restart-harness.ts has the suite):
// calico-ipam keeps the pods' addresses in its IPAMBlocks, calico-node programs vxlan.calico and the policy tables
// again. Root only; skipped without the manifests (test/fixtures/calico/SOURCE.md).
import { CALICO_OPERATOR } from './byo-cnis.js';
import { restartSuite } from './restart-harness.js';

restartSuite(
  'Calico (tigera operator): pods, Services and DNS come back after a restart and after a SIGKILL (aksemu start --dataplane netns)',
  CALICO_OPERATOR,
  CALICO_OPERATOR.skip,
);
