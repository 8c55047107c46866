// Azure CNI with a pod subnet in a VNet router (docs/dataplane.md §5.3): Azure's SDN delivers each pod-subnet
// address a node holds (its dynamic batches or static /28 blocks) to that node. Here the router has a /32 route per
// address via the node's address, in its main table: more specific than the pod subnet's own bridge route, so a VM
// of the VNet, another node, or a peered VNet reaches the pod on its own address, and nothing needs a route table
// (a peered VNet's router sends this VNet's whole address space here: docs/dataplane.md §3.7).
import { mayFail, type IpCmd } from './exec.js';
import type { RouterState } from './state.js';
import type { CheckedVnet } from './topology-check.js';

/** Each pod-subnet address of the VNet's nodes and the node holding it, sorted. */
export function podSubnetRoutes(want: CheckedVnet): Array<[string, string]> {
  const routes: Array<[string, string]> = [];
  for (const host of want.vnet.hosts) {
    if (host.kind !== 'node') continue;
    for (const ip of host.node?.podSubnet?.ips ?? []) routes.push([ip, host.ip]);
  }
  return routes.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Replaces the router's pod-subnet routes with `routes` when they changed; gone addresses are deleted. */
export async function convergePodSubnetRoutes(
  ip: { batch(netns: string, cmds: IpCmd[]): Promise<void> },
  r: RouterState,
  routes: Array<[string, string]>,
): Promise<void> {
  const key = JSON.stringify(routes);
  if (key === r.podSubnet.key) return;
  const want = new Set(routes.map(([a]) => a));
  const cmds: IpCmd[] = [
    ...r.podSubnet.addresses.filter((a) => !want.has(a)).map((a) => mayFail(`route del ${a}/32`)),
    ...routes.map(([a, via]) => `route replace ${a}/32 via ${via}`),
  ];
  // Forgotten first: a failure leaves the next converge to redo every line.
  r.podSubnet = { key: '', addresses: [...new Set([...r.podSubnet.addresses, ...want])] };
  await ip.batch(r.netns, cmds);
  r.podSubnet = { key, addresses: [...want] };
}
