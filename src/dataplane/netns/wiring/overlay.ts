// Azure CNI Overlay (docs/dataplane.md §5.1): azure-vnet's routed veth, as in transparent mode, with an address of
// the node's /24 of the pod CIDR (CNS hands them out). Nothing on the node makes other nodes reach it: the VNet
// routes each node's /24 to the node for the cluster's own hosts (`routedByVnet`, netns/azure-overlay.ts), as
// Azure's overlay routing domain does. What leaves for anywhere outside the pod CIDR takes the node's address.
import { Cidr } from '../../../net/ip.js';
import { checkedPodIp, checkNodePodCidr, nodePodCidrProblem } from './address.js';
import { wireRoutedVeth } from './routed-veth.js';
import type { Wiring } from './wiring.js';

export const overlay: Wiring = {
  check: (node, hostName) => checkNodePodCidr(node, `Azure CNI Overlay node ${hostName}`),

  // ip-masq-agent on overlay keeps only the pod CIDR: the VNet, peered networks and the internet see the node.
  prepareNode: (node) => ({ nonMasquerade: [node.clusterPodCidr ?? node.podCidr!] }),

  admit: (pod, host, pods) => checkedPodIp(pod, host, pods, (ip) => nodePodCidrProblem(host, ip)),

  wire: (ip, host, pod) => wireRoutedVeth(ip, host, pod, Cidr.parse(host.node!.podCidr!).prefix),

  routedByVnet: true,
};
