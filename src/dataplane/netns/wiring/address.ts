// The address the control plane chose for a pod (bridge and transparent wirings), checked before anything is
// built: IPv4, the wiring's own rule (`problem`), and not already held by another pod of the node.
import { IpAddress } from '../../../net/ip.js';
import type { PodAttachment } from '../../dataplane.js';
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
