// Azure CNI node subnet (docs/dataplane.md §5): azure-vnet's transparent mode. A pod holds one of its node's
// pre-allocated VNet addresses behind a routed `azv…` veth; the node answers ARP for it on the subnet, and
// masquerades only what leaves the VNet's address space.
import { mayFail } from '../exec.js';
import { IF, macFor } from '../names.js';
import { checkedPodIp } from './address.js';
import type { Wiring } from './wiring.js';

/** The gateway every pod sees, and its MAC (azure-vnet transparent mode). */
const AZURE_GATEWAY_IP = '169.254.1.1';
const AZURE_GATEWAY_MAC = 'aa:aa:aa:aa:aa:aa';

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

  async wire(ip, host, pod) {
    const veth = IF.podVeth('azv', pod.key);
    const mac = macFor(pod.netns);
    await ip.batch(host.netns, [
      `link add ${veth} address ${AZURE_GATEWAY_MAC} type veth peer name ${IF.eth0} address ${mac} netns ${pod.netns}`,
      `link set ${veth} up`,
      `route replace ${pod.ip}/32 dev ${veth}`,
      `neigh replace ${pod.ip} lladdr ${mac} dev ${veth} nud permanent`,
      `neigh replace proxy ${pod.ip} dev ${IF.eth0}`,
    ]);
    await ip.batch(pod.netns, [
      'link set lo up',
      `link set ${IF.eth0} up`,
      // noprefixroute: the pod reaches everything, its own subnet included, through 169.254.1.1.
      `addr replace ${pod.ip}/${host.subnetPrefix.prefix} dev ${IF.eth0} noprefixroute`,
      `route replace ${AZURE_GATEWAY_IP}/32 dev ${IF.eth0} scope link`,
      `route replace default via ${AZURE_GATEWAY_IP} dev ${IF.eth0}`,
      `neigh replace ${AZURE_GATEWAY_IP} lladdr ${AZURE_GATEWAY_MAC} dev ${IF.eth0} nud permanent`,
    ]);
    return pod.ip;
  },

  forget: (ip) => [mayFail(`neigh del proxy ${ip} dev ${IF.eth0}`)],
};
