// Issue 25's crash-and-restart test on Azure CNI (restart-harness.ts has the suite): pod addresses are the
// subnet's, kept by the cluster's IPAM across restarts. Root only.
import { DataplaneWorld, skipReason } from './dataplane-harness.js';
import { restartSuite } from './restart-harness.js';

restartSuite(
  'Azure CNI: pods, Services and DNS come back after a restart and after a SIGKILL (aksemu start --dataplane netns)',
  {
    cluster: 'a1',
    world: () => new DataplaneWorld(),
    async setUp(world) {
      await world.withCluster('a1', ['--network-plugin', 'azure']);
    },
  },
  skipReason(),
);
