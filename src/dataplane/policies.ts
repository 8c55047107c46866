// What a policy engine (Azure NPM, Calico, Cilium, or the BYO CNI's agent) programs on one node: the
// NetworkPolicies that select the node's pods, with selectors already resolved to addresses
// (docs/dataplane.md §13). The cluster runtime computes it (cluster/workloads/network-policies.ts); the netns
// driver renders it as nftables in the node's namespace (netns/network-policy.ts).

/** One node's policy rules. (Issue 17: the policy work fills in the fields.) */
export interface NodePolicies {
  clusterId: string;
}
