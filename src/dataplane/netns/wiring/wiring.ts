// What a pod wiring does (docs/dataplane.md §4–§6, §5.1): what a node adds for its pods, where a pod's address comes
// from, how a pod is wired into its namespace and unwired. One module per kind; the driver looks them up in
// the table of index.ts and never compares kinds itself.
import type { PodAttachment } from '../../dataplane.js';
import type { NodeTopology } from '../../topology.js';
import type { IpBatcher, IpCmd } from '../exec.js';
import type { HostState, PodState } from '../state.js';

/** A node's wiring, or `cni` for a pod attached through its node's CNI configuration (whatever the node's). */
export type WiringKind = NodeTopology['wiring'] | 'cni';

/** What a node adds to every host's set-up (docs/dataplane.md §3.2) for its pods. */
export interface NodePreparation {
  /** Set with the host's own sysctls, after them. */
  sysctls?: Record<string, number>;
  /** Run after the host's eth0 and default route. */
  links?: IpCmd[];
  /** ip-masq-agent's nonMasqueradeCIDRs (masq.ts); no masquerade table without them. */
  nonMasquerade?: string[];
}

export interface Wiring {
  /** Throws, naming the host, when a node of this wiring in a topology cannot be built. */
  check?(node: NodeTopology, hostName: string): void;
  /** What a node of this wiring needs before its first pod (a bridge, proxy ARP, the masquerade table). */
  prepareNode?(node: NodeTopology, netns: string, vnetSpaces: string[]): NodePreparation;
  /**
   * Before anything is built for the pod: throws when it cannot be attached to this host; returns its
   * address, or undefined when the wiring learns it only from `wire` (the plugins' IPAM).
   */
  admit(pod: PodAttachment, host: HostState, pods: ReadonlyMap<string, PodState>): string | undefined;
  /** Wires the pod into its new, empty namespace; resolves with its address. */
  wire(ip: IpBatcher, host: HostState, pod: PodState): Promise<string>;
  /** Undoes what deleting the pod's namespace does not (CNI DEL releases the IPAM address); idempotent. */
  unwire?(pod: PodAttachment, hostNetns: string, podNetns: string): Promise<void>;
  /** The node's entries for a departed pod's address, removed once its namespace is gone. */
  forget?(ip: string): IpCmd[];
  /**
   * The VNet routes the node's /24 (`podCidr`) to the node, for the hosts of the node's own cluster only: Azure
   * CNI Overlay's routing domain, programmed by the platform, not a route table (netns/azure-overlay.ts).
   */
  readonly routedByVnet?: boolean;
}
