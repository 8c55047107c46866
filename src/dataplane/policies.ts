// What a policy engine (Azure NPM, Calico, Cilium, or the BYO CNI's agent) programs on one node: the
// NetworkPolicies that select the node's pods, with selectors already resolved to addresses
// (docs/dataplane.md §13). The cluster runtime computes it (cluster/network-policy/policy-compile.ts); the netns
// driver renders it as nftables in the node's namespace (netns/network-policy.ts). Plain data, so the
// compilation and the rendering have golden tests.

/** The protocols a NetworkPolicyPort names (TCP when it names none). */
export type PolicyProtocol = 'TCP' | 'UDP' | 'SCTP';

/** One port or port range: `port` absent means every port of the protocol; `endPort` makes `port` a range's start. */
export interface PolicyPort {
  protocol: PolicyProtocol;
  port?: number;
  endPort?: number;
}

/** The other end of an allowed flow: pod addresses, and address blocks with their exceptions. */
export interface PolicyPeers {
  /** Pod addresses (IPv4, no prefix length). */
  addresses: string[];
  blocks: Array<{ cidr: string; except: string[] }>;
}

/**
 * One allowed flow: from `peers` to `pods` on `ports` (ingress), or from `pods` to `peers` on `ports` (egress).
 * Named ports are already resolved: an allow is split by the number a name resolves to.
 */
export interface PolicyAllow {
  /** `namespace/name` of the NetworkPolicy, the direction and the rule's index: a comment on the nft rule. */
  rule: string;
  /** Addresses of the node's pods the allow is for: the destinations (ingress) or the sources (egress). */
  pods: string[];
  /** Undefined: any address. */
  peers?: PolicyPeers;
  /** Undefined: every port and protocol. */
  ports?: PolicyPort[];
}

/** One node's policy rules. A node with no isolated pod has an empty table (and no nft table). */
export interface NodePolicies {
  /** The cluster this table belongs to (HostTopology.node.clusterId). */
  clusterId: string;
  /** Addresses of the node's pods selected by a policy of type Ingress: what reaches them must be allowed. */
  ingressIsolated: string[];
  /** Addresses of the node's pods selected by a policy of type Egress: what they send must be allowed. */
  egressIsolated: string[];
  ingress: PolicyAllow[];
  egress: PolicyAllow[];
}

/** True when the table isolates nothing (the node needs no policy table at all). */
export const isEmptyPolicies = (t: NodePolicies): boolean => t.ingressIsolated.length === 0 && t.egressIsolated.length === 0;
