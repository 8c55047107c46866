// The address the control plane chose for a pod (bridge, transparent and overlay wirings), checked before anything
// is built: IPv4, the wiring's own rule (`problem`), and not already held by another pod of the node.
import { Cidr, IpAddress } from '../../../net/ip.js';
import type { PodAttachment } from '../../dataplane.js';
import type { NodeTopology } from '../../topology.js';
import { parseCidr } from '../limits.js';
import { podKeyOf, type HostState, type PodState } from '../state.js';

export function checkedPodIp(pod: PodAttachment, host: HostState, pods: ReadonlyMap<string, PodState>, problem: (ip: IpAddress) => string | undefined): string {
  const ip = IpAddress.tryParse(pod.ip ?? '');
  if (!ip || ip.family !== 4) throw new Error(`pod ${pod.namespace}/${pod.name}: '${pod.ip ?? ''}' is not an IPv4 address`);
  const why = problem(ip);
  if (why) throw new Error(`pod ${pod.namespace}/${pod.name}: ${pod.ip} ${why}`);
  for (const key of host.pods) {
    const other = pods.get(key);
    if (other && other.ip === ip.toString() && other.key !== podKeyOf(pod))
      throw new Error(`pod ${pod.namespace}/${pod.name}: ${pod.ip} is already used by pod ${other.namespace}/${other.name}`);
  }
  return ip.toString();
}

/**
 * Why `ip` is no pod address of the node's /24 (bridge, overlay): the control plane hands out .2 upwards (.1 is the
 * node's side: cbr0, or kept free as kubenet keeps it), never the network or broadcast address.
 */
export function nodePodCidrProblem(host: HostState, ip: IpAddress): string | undefined {
  const range = Cidr.parse(host.node!.podCidr!);
  const o = range.contains(ip) ? range.offsetOf(ip) : -1n;
  return o < 2n || o === range.size - 1n ? `is not a pod address of node ${host.name}'s ${range.toString()}` : undefined;
}

/** A node of a wiring with a /24 (bridge, overlay) can be built: its /24 and the cluster's pod CIDR parse. */
export function checkNodePodCidr(node: NodeTopology, what: string): void {
  const pods = parseCidr(node.podCidr ?? '', `${what} podCidr`);
  if (pods.prefix > 30) throw new Error(`${what}: podCidr ${node.podCidr} is too small`);
  if (node.clusterPodCidr) parseCidr(node.clusterPodCidr, `${what} clusterPodCidr`);
}
