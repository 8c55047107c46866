// azure-vnet's pod link (transparent mode, which overlay uses too): the pod's address behind a routed `azv…` veth
// whose node end has MAC aa:aa:aa:aa:aa:aa; the pod reaches everything, its own range included, through
// 169.254.1.1, and the node has a /32 route to the pod (docs/dataplane.md §5, §5.1).
import type { IpBatcher, IpCmd } from '../exec.js';
import { IF, macFor } from '../names.js';
import type { HostState, PodState } from '../state.js';

/** The gateway every pod sees, and its MAC (azure-vnet transparent mode). */
const AZURE_GATEWAY_IP = '169.254.1.1';
const AZURE_GATEWAY_MAC = 'aa:aa:aa:aa:aa:aa';

/** Wires the pod; `prefixLength` is its address's (the subnet's or the node's /24), `nodeExtra` more node lines. */
export async function wireRoutedVeth(ip: IpBatcher, host: HostState, pod: PodState, prefixLength: number, nodeExtra: IpCmd[] = []): Promise<string> {
  const veth = IF.podVeth('azv', pod.key);
  const mac = macFor(pod.netns);
  await ip.batch(host.netns, [
    `link add ${veth} address ${AZURE_GATEWAY_MAC} type veth peer name ${IF.eth0} address ${mac} netns ${pod.netns}`,
    `link set ${veth} up`,
    `route replace ${pod.ip}/32 dev ${veth}`,
    `neigh replace ${pod.ip} lladdr ${mac} dev ${veth} nud permanent`,
    ...nodeExtra,
  ]);
  await ip.batch(pod.netns, [
    'link set lo up',
    `link set ${IF.eth0} up`,
    // noprefixroute: the pod reaches everything, its own range included, through 169.254.1.1.
    `addr replace ${pod.ip}/${prefixLength} dev ${IF.eth0} noprefixroute`,
    `route replace ${AZURE_GATEWAY_IP}/32 dev ${IF.eth0} scope link`,
    `route replace default via ${AZURE_GATEWAY_IP} dev ${IF.eth0}`,
    `neigh replace ${AZURE_GATEWAY_IP} lladdr ${AZURE_GATEWAY_MAC} dev ${IF.eth0} nud permanent`,
  ]);
  return pod.ip;
}
