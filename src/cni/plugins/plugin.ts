// The contract of the CNI plugins aksemu provides where a CNI project's own binary cannot run here (flannel,
// calico, calico-ipam, cilium-cni). Each is a real executable on the node (a small wrapper script in the node's
// /opt/cni/bin, install.ts) that speaks the CNI protocol exactly: CNI_* environment and the config on stdin in,
// the result or the error object on stdout (main.ts does the protocol; a plugin module only does its command).
//
// Two facts of aksemu reach a plugin beyond the protocol:
//   - nodeRoot: the emulated node's root directory; an absolute node path P (/run/flannel/subnet.env) is
//     join(nodeRoot, P). The wrapper sets it (AKSEMU_NODE_ROOT), one wrapper per node.
//   - addressOnly: without a data plane (`--dataplane none`) there are no namespaces to wire; the kubelet then
//     runs the main plugin with `AKSEMU_ADDRESS_ONLY=true` in CNI_ARGS (IgnoreUnknown=1 makes real plugins skip
//     it) and the plugin does its IPAM only, returning the result without interfaces.
export type PluginCommand = 'ADD' | 'DEL' | 'CHECK' | 'VERSION' | 'STATUS' | 'GC';

export interface PluginRequest {
  command: Exclude<PluginCommand, 'VERSION'>;
  containerId: string;
  netns: string;
  ifName: string;
  /** CNI_ARGS parsed (K8S_POD_NAME, K8S_POD_NAMESPACE, …). */
  args: Record<string, string>;
  /** CNI_PATH split: where delegates are found (the node's /opt/cni/bin). */
  path: string[];
  /** The network configuration from stdin (with name, cniVersion, prevResult…). */
  config: Record<string, unknown>;
  nodeRoot: string;
  addressOnly: boolean;
  /**
   * The node's network namespace when the plugin runs inside the runtime's process rather than in its own process
   * nsentered there (exec.ts runs aksemu's own wrappers so): what a plugin does "where it runs" (the host end of a
   * veth, its sysctls, a delegate) is done in this namespace. Undefined: where the process is.
   */
  hostNetns?: string;
}

/** A failure the plugin reports as the CNI error object (spec "Error": code, msg, details). */
export class PluginError extends Error {
  constructor(
    readonly code: number,
    msg: string,
    readonly details?: string,
  ) {
    super(msg);
  }
}

export interface Plugin {
  /** The versions VERSION reports. */
  supportedVersions: string[];
  /** Runs one command; ADD resolves with the result object, the others with nothing. */
  run(req: PluginRequest): Promise<Record<string, unknown> | undefined>;
}
