// What kube-proxy programs on one node: the cluster's Services and their endpoints as that node sees them
// (docs/dataplane.md §12). The cluster runtime computes it from Services, EndpointSlices and Nodes
// (cluster/workloads/service-proxy.ts); the netns driver renders it as nftables in the node's namespace
// (netns/kube-proxy.ts). Plain data, so the rendering has golden tests.

/** One node's view of the cluster's Services. (Issue 17: the proxy work fills in the fields.) */
export interface NodeServices {
  /** The cluster this table belongs to (HostTopology.node.clusterId). */
  clusterId: string;
}
