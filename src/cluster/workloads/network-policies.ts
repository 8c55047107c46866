// The cluster's policy engine, where it has one (docs/dataplane.md §13): NetworkPolicies, Pods and Namespaces →
// one NodePolicies table per node → NodeNetwork.applyPolicies. Issue 17: the policy work fills it in.
import type { ClusterRecord } from '../../model/cluster-records.js';
import type { NodeNetwork } from '../cni-agents/program.js';
import type { Change } from '../objects/store.js';
import type { Controller, ControllerContext } from './context.js';

export class NetworkPolicies implements Controller {
  constructor(
    private readonly ctx: ControllerContext,
    private readonly network: () => NodeNetwork | undefined,
    private readonly cluster: () => ClusterRecord,
  ) {}

  observe(_change: Change): void {}

  resync(): void {
    void this.ctx;
    void this.network;
    void this.cluster;
  }

  close(): void {}
}
