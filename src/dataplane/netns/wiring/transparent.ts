// Azure CNI node subnet (docs/dataplane.md §5): azure-vnet's transparent mode. A pod holds one of its node's
// pre-allocated VNet addresses behind a routed `azv…` veth; the node answers ARP for it on the subnet, and
// masquerades only what leaves the VNet's address space.
// With a pod subnet (docs/dataplane.md §5.3), the pod holds one of the node's pod-subnet addresses instead: the VNet routes it to the
// node (netns/pod-subnet-routes.ts), so no proxy ARP, and without ip-masq-agent the pod's address is seen as-is
// within the VNet and across peerings; only internet-bound traffic leaves from the node's address here.
import { Cidr } from '../../../net/ip.js';
import { mayFail } from '../exec.js';
import { IF } from '../names.js';
import { checkedPodIp } from './address.js';
import { wireRoutedVeth } from './routed-veth.js';
import type { Wiring } from './wiring.js';

/** Private ranges a pod-subnet pod reaches unmasqueraded (RFC 1918 and RFC 6598): its VNet and any peered one. */
const PRIVATE_RANGES = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10'];

export const transparent: Wiring = {
  prepareNode: (node, _netns, vnetSpaces) => ({
    // The node answers ARP for its pods' addresses at once (the default 80 ms delay: pitfall 3);
    // pod veths created later inherit proxy_arp from default.
    sysctls: { 'net.ipv4.neigh.eth0.proxy_delay': 0, 'net.ipv4.conf.default.proxy_arp': 1 },
    nonMasquerade: node.podSubnet ? [...vnetSpaces, ...PRIVATE_RANGES] : vnetSpaces,
  }),

  admit: (pod, host, pods) =>
    checkedPodIp(pod, host, pods, (ip) => {
      const podSubnet = host.node!.podSubnet;
      if (podSubnet) {
        // A batch CNS has just added may reach the pod before the topology does: any address of the pod subnet.
        const ok = podSubnet.ips.includes(ip.toString()) || Cidr.parse(podSubnet.prefix).contains(ip);
        return ok ? undefined : `is not an address of node ${host.name}'s pod subnet ${podSubnet.prefix}`;
      }
      const secondary = host.node!.secondaryIps;
      const ok = secondary ? secondary.includes(ip.toString()) : host.subnetPrefix.contains(ip) && ip.toString() !== host.ip;
      return ok ? undefined : `is not one of node ${host.name}'s pre-allocated pod addresses`;
    }),

  // In Azure, the SDN delivers a NIC's secondary addresses to the node; here the node answers ARP for them. A
  // pod-subnet address is routed to the node by the VNet router instead.
  wire: (ip, host, pod) => {
    const podSubnet = host.node!.podSubnet;
    if (podSubnet) return wireRoutedVeth(ip, host, pod, Cidr.parse(podSubnet.prefix).prefix);
    return wireRoutedVeth(ip, host, pod, host.subnetPrefix.prefix, [`neigh replace proxy ${pod.ip} dev ${IF.eth0}`]);
  },

  forget: (ip) => [mayFail(`neigh del proxy ${ip} dev ${IF.eth0}`)],
};
