// Issue 25's crash-and-restart test on kubenet (restart-harness.ts has the suite): the IPAM keeps the addresses
// (host-local on the node's pod CIDR), the data plane wires them again. Root only.
import { DataplaneWorld, skipReason } from './dataplane-harness.js';
import { restartSuite } from './restart-harness.js';

restartSuite(
  'kubenet: pods, Services and DNS come back after a restart and after a SIGKILL (aksemu start --dataplane netns)',
  {
    cluster: 'k1',
    world: () => new DataplaneWorld(),
    async setUp(world) {
      await world.withCluster('k1', ['--network-plugin', 'kubenet', '--pod-cidr', '10.244.0.0/16']);
    },
  },
  skipReason(),
);
