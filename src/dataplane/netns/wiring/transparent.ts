// Azure CNI node subnet (docs/dataplane.md §5): azure-vnet's transparent mode. A pod holds one of its node's
// pre-allocated VNet addresses behind a routed `azv…` veth; the node answers ARP for it on the subnet, and
// masquerades only what leaves the VNet's address space.
import { mayFail } from '../exec.js';
import { IF } from '../names.js';
import { checkedPodIp } from './address.js';
import { wireRoutedVeth } from './routed-veth.js';
import type { Wiring } from './wiring.js';

export const transparent: Wiring = {
  prepareNode: (_node, _netns, vnetSpaces) => ({
    // The node answers ARP for its pods' addresses at once (the default 80 ms delay: pitfall 3);
    // pod veths created later inherit proxy_arp from default.
    sysctls: { 'net.ipv4.neigh.eth0.proxy_delay': 0, 'net.ipv4.conf.default.proxy_arp': 1 },
    nonMasquerade: vnetSpaces,
  }),

  admit: (pod, host, pods) =>
    checkedPodIp(pod, host, pods, (ip) => {
      const secondary = host.node!.secondaryIps;
      const ok = secondary ? secondary.includes(ip.toString()) : host.subnetPrefix.contains(ip) && ip.toString() !== host.ip;
      return ok ? undefined : `is not one of node ${host.name}'s pre-allocated pod addresses`;
    }),

  // In Azure, the SDN delivers a NIC's secondary addresses to the node; here the node answers ARP for them.
  wire: (ip, host, pod) => wireRoutedVeth(ip, host, pod, host.subnetPrefix.prefix, [`neigh replace proxy ${pod.ip} dev ${IF.eth0}`]),

  forget: (ip) => [mayFail(`neigh del proxy ${ip} dev ${IF.eth0}`)],
};
