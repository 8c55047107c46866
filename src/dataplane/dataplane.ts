// The data plane behind one small interface. `none` (the default) builds nothing: the control plane alone
// answers. `netns` builds Linux network namespaces (dataplane/netns/**). Callers: the server (apply on every
// control-plane change) and the cluster kubelets (attach/detach pod sandboxes).
import type { Server } from 'node:net';
import type { NodePolicies } from './policies.js';
import type { NodeServices } from './services.js';
import type { Topology } from './topology.js';

export type DataplaneMode = 'none' | 'netns';

export interface PodAttachment {
  clusterId: string;
  node: string;
  /** ARM id of the node host (HostTopology.id). */
  hostId: string;
  namespace: string;
  name: string;
  uid: string;
  /** The sandbox id (CNI_CONTAINERID). */
  sandboxId: string;
  /**
   * kubenet and azure: the address the control plane chose (from the node /24, or a secondary IP). BYO CNI: an
   * address to ask the IPAM for (CNI_ARGS IP=…, which host-local honours), when a restored pod keeps its own.
   */
  ip?: string;
  /**
   * BYO CNI: the node's conf dir and the plugin search path; the driver runs the conflist's plugins. With
   * ipamDataDir, every plugin's `ipam.dataDir` is set to it (host-local's state stays in the node's directory,
   * never the machine's /var/lib/cni/networks).
   */
  cni?: { confDir: string; pluginDirs: string[]; cacheDir: string; ipamDataDir?: string };
}

export interface PodNetwork {
  /** The pod's address (for BYO CNI: the one the plugins' IPAM gave). */
  ip: string;
  /** The network namespace path, for tools that want to enter it. */
  netns?: string;
}

/**
 * A VXLAN overlay on one node, as a BYO CNI agent programs it (flannel.1, vxlan.calico, cilium_vxlan):
 * docs/dataplane.md §6.4. The cluster's agents see it as NodeNetwork (cluster/images/program.ts).
 */
export interface VxlanOverlay {
  device: string;
  vni: number;
  port: number;
  mtu: number;
  /** The device's MAC (the agent publishes it for the other nodes: flannel's VtepMAC). */
  mac: string;
  /** The underlay address (the node IP). */
  localIp: string;
  /** Addresses on the device itself (flannel: the node subnet's network address /32). */
  addresses: string[];
  /** One entry per other node: its VTEP, and the pod prefixes routed to it through the device. */
  peers: Array<{ nodeIp: string; mac: string; tunnelIp: string; cidrs: string[] }>;
  /**
   * flanneld's --ip-masq: the overlay's whole network and this node's lease, for the node's postrouting rules
   * (nothing leaving the network keeps a pod source; nothing inside it is rewritten). Its own rule set, not an
   * OutgoingMasquerade (netns/flannel-ip-masq.ts says how they differ).
   */
  ipMasq?: { network: string; subnet: string };
}

/**
 * A CNI agent's masquerade of its pods' outgoing traffic (Calico's natOutgoing pools, Cilium's
 * enable-ipv4-masquerade): packets from `sources` leaving the node for anywhere outside `keep` take the node's
 * address. Empty sources: none. ip-masq-agent's shape for any agent; flannel's --ip-masq is VxlanOverlay.ipMasq.
 */
export interface OutgoingMasquerade {
  sources: string[];
  keep: string[];
}

export interface ProbeRequest {
  /** `pod/NAMESPACE/NAME` (with clusterId), `node/NAME`, `vm/NAME`, `internet`, or a cluster's `controlplane`. */
  from: { kind: 'pod' | 'node' | 'vm' | 'internet' | 'controlplane'; clusterId?: string; namespace?: string; name?: string };
  /**
   * controlplane: the prefixes the API server sends into the cluster through its konnectivity tunnel (the
   * cluster's pod CIDR and its nodes' subnets). Anything else it cannot route: the seed's warning about BYO CNI
   * clusters created without a pod CIDR.
   */
  tunnel?: string[];
  to: { ip: string; port: number };
  /**
   * The target is a Service (its ClusterIP or a NodePort): the pods behind it, each with the port it serves the
   * Service on. A probe listener starts in each where nothing listens on that port yet, and the result names the
   * one that answered.
   */
  backends?: ProbeBackend[];
  timeoutMs?: number;
}

/** A ready endpoint of the Service a probe targets: its pod and the pod's port (the Service's targetPort). */
export interface ProbeBackend {
  clusterId: string;
  namespace: string;
  name: string;
  /** The pod's spec.hostname when it has one (what its own server answers with instead of its name). */
  hostname?: string;
  ip: string;
  port: number;
}

export interface ProbeResult {
  connected: boolean;
  /** The source address the far side saw (when it connected to a probe listener of ours). */
  seenSource?: string;
  /** The backend pod that answered a probe of a Service (`NAMESPACE/NAME`). */
  backend?: string;
  error?: string;
  ms: number;
}

export interface Dataplane {
  readonly mode: DataplaneMode;
  /** Converges on the topology: creates what is missing, updates what changed, removes what is gone. */
  apply(topology: Topology): Promise<void>;
  attachPod(pod: PodAttachment): Promise<PodNetwork>;
  /** Idempotent; for BYO CNI runs DEL through the cached result before the namespace goes. */
  detachPod(pod: PodAttachment): Promise<void>;
  probe(request: ProbeRequest): Promise<ProbeResult>;
  /** A host's network namespace (`/run/netns/…`) while it is built (the kubelet's probes run in its node's). */
  hostNetns?(hostId: string): string | undefined;
  /**
   * A CNI agent's VXLAN overlay on a node (hostId: HostTopology.id): creates or converges the device, its FDB,
   * neighbour entries and routes, removing stale ones; idempotent. Absent where nothing is built.
   */
  applyOverlay?(hostId: string, overlay: VxlanOverlay): Promise<void>;
  /** Removes an overlay device this data plane made on the node; idempotent. */
  removeOverlay?(hostId: string, device: string): Promise<void>;
  /** kube-proxy on a node (services.ts): converges the node's service rules on the table; idempotent. */
  applyServices?(hostId: string, table: NodeServices): Promise<void>;
  /** The policy engine on a node (policies.ts): converges the node's policy rules on the table; idempotent. */
  applyPolicies?(hostId: string, table: NodePolicies): Promise<void>;
  /** A CNI agent's outgoing masquerade on a node; idempotent. */
  applyMasquerade?(hostId: string, masquerade: OutgoingMasquerade): Promise<void>;
  /**
   * A listening socket at address:port of the emulated internet, for a cluster's API server (the `kubernetes`
   * Service's endpoint: docs/dataplane.md §12.7). Absent where nothing is built.
   */
  apiListener?(address: string, port: number): Promise<Server>;
  /** Stops; with `removeAll` every namespace this instance created is deleted, by name. */
  close(options?: { removeAll?: boolean }): Promise<void>;
}

/** The default: nothing is built, probes cannot run. */
export class NullDataplane implements Dataplane {
  readonly mode = 'none' as const;
  async apply(): Promise<void> {}
  async attachPod(pod: PodAttachment): Promise<PodNetwork> {
    if (!pod.ip) throw new Error('the none data plane cannot run CNI plugins for a pod');
    return { ip: pod.ip };
  }
  async detachPod(): Promise<void> {}
  async probe(): Promise<ProbeResult> {
    return { connected: false, error: 'the data plane is off: start aksemu with --dataplane netns', ms: 0 };
  }
  async close(): Promise<void> {}
}
