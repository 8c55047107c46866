// The BYO CNI clusters several end-to-end suites stand up the same way (Services, restart): a 2-node cluster of the
// netns data plane with a CNI installed from its project's own files, each as one value — how to make the world,
// set it up, and why it cannot run here — so each suite's file adds only what it checks.
import { aksByocniValues, CILIUM_CHART, ciliumChartSkip } from '../helm/cilium-chart.js';
import { BYO_POD_CIDR, ByoCniWorld, byoSkipReason } from './byo-cni-harness.js';
import { calicoSkipReason, installCalicoOperator } from './calico-install.js';

export interface ByoCniSetup {
  /** The cluster's name (probes name it). */
  cluster: string;
  world(): ByoCniWorld;
  /** Starts the in-process server, makes the network and the cluster, installs the CNI and waits for Ready nodes. */
  setUp(world: ByoCniWorld): Promise<void>;
  /** Why it cannot run here, or false. */
  skip: string | false;
}

/** Calico by its tigera operator and an Installation on the pod CIDR, VXLAN (calico-install.ts). */
export const CALICO_OPERATOR: ByoCniSetup = {
  cluster: 'byo',
  world: () => new ByoCniWorld(),
  async setUp(world) {
    await world.setUp({ name: 'byo' });
    await installCalicoOperator(world, BYO_POD_CIDR);
  },
  skip: calicoSkipReason(),
};

/** Cilium from its Helm chart in AKS BYOCNI mode, cluster-pool IPAM on the pod CIDR. */
export const CILIUM_HELM: ByoCniSetup = {
  cluster: 'byo',
  world: () => new ByoCniWorld(),
  async setUp(world) {
    await world.setUp({ name: 'byo' });
    await world.helmOk(['install', 'cilium', CILIUM_CHART, ...aksByocniValues(BYO_POD_CIDR)]);
    await world.waitNodesReady();
  },
  skip: byoSkipReason({ helm: true }) || ciliumChartSkip(),
};
