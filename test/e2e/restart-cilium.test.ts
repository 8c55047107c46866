// Issue 25's crash-and-restart test on Cilium from its Helm chart (aksbyocni, cluster-pool IPAM; restart-harness.ts
// has the suite): the agent's pool keeps the pods' addresses, cilium-agent programs cilium_vxlan again. Root only;
// skipped without the chart (test/fixtures/cilium/SOURCE.md).
import { aksByocniValues, CILIUM_CHART, ciliumChartSkip } from '../helm/cilium-chart.js';
import { BYO_POD_CIDR, ByoCniWorld, byoSkipReason } from './byo-cni-harness.js';
import { restartSuite } from './restart-harness.js';

restartSuite(
  'Cilium (helm, aksbyocni): pods, Services and DNS come back after a restart and after a SIGKILL (aksemu start --dataplane netns)',
  {
    cluster: 'byo',
    world: () => new ByoCniWorld(),
    async setUp(world) {
      await world.setUp({ name: 'byo' });
      await world.helmOk(['install', 'cilium', CILIUM_CHART, ...aksByocniValues(BYO_POD_CIDR)]);
      await world.waitNodesReady();
    },
  },
  byoSkipReason({ helm: true }) || ciliumChartSkip(),
);
