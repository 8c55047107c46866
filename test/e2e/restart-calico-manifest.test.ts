// Issue 25's crash-and-restart test on Calico's single manifest, calico.yaml applied unmodified (restart-harness.ts
// has the suite): calico-ipam keeps the pods' addresses in its IPAMBlocks, calico-node programs its tunnels again.
// Root only; skipped without the manifest (test/fixtures/calico/SOURCE.md).
import { calicoSkip, CALICO_MANIFEST } from '../cluster/calico-fixture.js';
import { ByoCniWorld, byoSkipReason } from './byo-cni-harness.js';
import { restartSuite } from './restart-harness.js';

restartSuite(
  'Calico (calico.yaml): pods, Services and DNS come back after a restart and after a SIGKILL (aksemu start --dataplane netns)',
  {
    cluster: 'byo',
    world: () => new ByoCniWorld(),
    async setUp(world) {
      // calico.yaml's pool is 192.168.0.0/16 unless CALICO_IPV4POOL_CIDR is set: the cluster is made on it.
      await world.setUp({ name: 'byo', podCidr: '192.168.0.0/16' });
      await world.kubectlOk(['apply', '-f', CALICO_MANIFEST]);
      await world.kubectlOk(['-n', 'kube-system', 'rollout', 'status', 'daemonset/calico-node', '--timeout=90s']);
      await world.waitNodesReady();
    },
  },
  byoSkipReason() || calicoSkip,
);
