// kube-proxy, as the data plane runs it on every node (docs/dataplane.md §12): Services, EndpointSlices and
// Nodes → one NodeServices table per node → NodeNetwork.applyServices. Issue 17: the proxy work fills it in.
import type { NodeNetwork } from '../cni-agents/program.js';
import type { Change } from '../objects/store.js';
import type { Controller, ControllerContext } from './context.js';

export class ServiceProxy implements Controller {
  constructor(
    private readonly ctx: ControllerContext,
    private readonly network: () => NodeNetwork | undefined,
  ) {}

  observe(_change: Change): void {}

  resync(): void {
    void this.ctx;
    void this.network;
  }

  close(): void {}
}
