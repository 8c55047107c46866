// kubenet (docs/dataplane.md §4): the node's cbr0 holds .1 of its /24, each pod is a cbr0
// port with an address from that /24, and ip-masq-agent keeps the cluster pod CIDR unmasqueraded.
import { Cidr } from '../../../net/ip.js';
import { mayFail } from '../exec.js';
import { IF, macFor } from '../names.js';
import { BRIDGE_PORT_LIMIT } from '../limits.js';
import { checkedPodIp, checkNodePodCidr, nodePodCidrProblem } from './address.js';
import type { Wiring } from './wiring.js';

export const bridge: Wiring = {
  check: (node, hostName) => checkNodePodCidr(node, `kubenet node ${hostName}`),

  prepareNode(node, netns) {
    const pods = Cidr.parse(node.podCidr!);
    return {
      links: [
        `link add ${IF.cbr0} address ${macFor(`${netns}:cbr0`)} type bridge`,
        `link set ${IF.cbr0} up`,
        `addr replace ${pods.addressAt(1)}/${pods.prefix} dev ${IF.cbr0}`,
      ],
      nonMasquerade: [node.clusterPodCidr ?? node.podCidr!],
    };
  },

  admit(pod, host, pods) {
    const ip = checkedPodIp(pod, host, pods, (ip) => nodePodCidrProblem(host, ip));
    if (host.pods.size >= BRIDGE_PORT_LIMIT) {
      throw new Error(`node ${pod.node}: cbr0 already has ${BRIDGE_PORT_LIMIT} pods (a Linux bridge takes at most ${BRIDGE_PORT_LIMIT} ports)`);
    }
    return ip;
  },

  async wire(ip, host, pod) {
    const veth = IF.podVeth('veth', pod.key);
    const mac = macFor(pod.netns);
    const range = Cidr.parse(host.node!.podCidr!);
    const gw = range.addressAt(1).toString();
    await ip.batch(host.netns, [
      `link add ${veth} type veth peer name ${IF.eth0} address ${mac} netns ${pod.netns}`,
      `link set ${veth} master ${IF.cbr0} up`,
      // hairpinMode: true, as kubenet's bridge conflist has it: a pod reaching itself through its Service is
      // DNATed back to the port it came in on (docs/dataplane.md §12).
      `link set ${veth} type bridge_slave hairpin on`,
      `neigh replace ${pod.ip} lladdr ${mac} dev ${IF.cbr0} nud permanent`,
    ]);
    await ip.batch(pod.netns, [
      'link set lo up',
      `link set ${IF.eth0} up`,
      `addr replace ${pod.ip}/${range.prefix} dev ${IF.eth0}`,
      `route replace default via ${gw} dev ${IF.eth0}`,
      `neigh replace ${gw} lladdr ${macFor(`${host.netns}:cbr0`)} dev ${IF.eth0} nud permanent`,
    ]);
    return pod.ip;
  },

  forget: (ip) => [mayFail(`neigh del ${ip} dev ${IF.cbr0}`)],
};
