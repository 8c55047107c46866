// Host namespaces, nodes and VMs (docs/dataplane.md §3.2): eth0 with the host's address on its subnet's bridge,
// a default route via the gateway .1, and, on a node, what its pod wiring adds (wiring/).
import { type IpCmd, nftLoad, nftTable, sysctl } from './exec.js';
import { MASQ_TABLE, masqTableBody } from './masq.js';
import { IF } from './names.js';
import type { NetnsState } from './state.js';
import type { CheckedHost } from './topology-check.js';
import { WIRINGS } from './wiring/index.js';

/** What a host is built from: when it changes, the host is rebuilt rather than edited. */
export function shapeOf(h: CheckedHost): string {
  const n = h.host.node;
  return JSON.stringify([
    h.vnetId,
    h.subnetId,
    h.subnet.prefix.toString(),
    h.host.ip,
    h.host.kind,
    n?.wiring,
    n?.podCidr,
    n?.clusterPodCidr,
    n?.podSubnet?.prefix,
  ]);
}

export async function createHost(state: NetnsState, h: CheckedHost): Promise<void> {
  const { host, subnet } = h;
  const netns = state.names.host(host.id);
  const node = host.kind === 'node' ? host.node : undefined;
  const r = state.routers.get(h.vnetId)!;
  const gwMac = r.subnets.get(h.subnetId)!.mac;
  const prepared = node && WIRINGS[node.wiring].prepareNode?.(node, netns, r.spaces);
  await sysctl(netns, {
    'net.ipv4.ip_forward': node ? 1 : 0,
    'net.ipv4.conf.all.accept_redirects': 0,
    'net.ipv4.conf.default.accept_redirects': 0,
    'net.ipv4.conf.eth0.accept_redirects': 0,
    // Explicit, so a host with devconf_inherit_init_net=1 does not hand us its own (pitfall 5).
    'net.ipv4.conf.all.rp_filter': 1,
    'net.ipv4.conf.default.rp_filter': 1,
    'net.ipv4.conf.eth0.rp_filter': 1,
    ...prepared?.sysctls,
  });
  const cmds: IpCmd[] = [
    'link set lo up',
    `link set ${IF.eth0} up`,
    `addr replace ${host.ip}/${subnet.prefix.prefix} dev ${IF.eth0}`,
    `route replace default via ${subnet.gateway} dev ${IF.eth0}`,
    `neigh replace ${subnet.gateway} lladdr ${gwMac} dev ${IF.eth0} nud permanent`,
    ...(prepared?.links ?? []),
  ];
  await state.ip.batch(netns, cmds);
  if (prepared?.nonMasquerade) await nftLoad(netns, nftTable('ip', MASQ_TABLE, masqTableBody(prepared.nonMasquerade)));
  state.hosts.set(host.id.toLowerCase(), {
    id: host.id,
    netns,
    kind: host.kind,
    name: host.name,
    vnetId: h.vnetId,
    ip: host.ip,
    subnetPrefix: subnet.prefix,
    shape: shapeOf(h),
    node,
    pods: new Set(),
    overlays: new Map(),
  });
}
