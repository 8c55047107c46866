// A VNet's router namespace (docs/dataplane.md §3.1, §3.3, §3.4): a bridge per subnet holding its gateway .1,
// each subnet's UDRs in its own routing table, a port per host, Azure CNI Overlay's routing (azure-overlay.ts:
// docs/dataplane.md §5.1), and the NSGs as one nft table.
import { AZURE_DNS, EMULATED_PUBLIC_RANGE } from '../../aks/azure-dns.js';
import { convergeAzureDns } from './azure-dns.js';
import { mayFail, nftLoad, nftTable, sysctl, type IpCmd } from './exec.js';
import { convergeOverlayRouting, overlayClusters } from './azure-overlay.js';
import { convergePodSubnetRoutes, podSubnetRoutes } from './pod-subnet-routes.js';
import { allocateWanIp, INTERNET, routesBack } from './internet.js';
import { IF, macFor } from './names.js';
import { NSG_TABLE, nsgTableBody, type NsgSubnet } from './nsg.js';
import { emptyFrontends } from './load-balancer.js';
import { emptyOutbound } from './outbound-snat.js';
import type { NetnsState, RouterState, SubnetState } from './state.js';
import type { CheckedHost, CheckedVnet } from './topology-check.js';
import type { UdrRoute } from '../topology.js';

function routeLine(r: UdrRoute, table: number): string {
  switch (r.nextHopType) {
    case 'VirtualAppliance':
      return `route replace ${r.prefix} via ${r.nextHopIp} table ${table}`;
    case 'Internet':
      return `route replace ${r.prefix} via ${INTERNET.host} dev ${IF.wan} table ${table}`;
    case 'VnetLocal':
      // Back to the main table: the VNet's own routing.
      return `route replace throw ${r.prefix} table ${table}`;
    case 'None':
      return `route replace blackhole ${r.prefix} table ${table}`;
    case 'VirtualNetworkGateway':
      // No gateway exists here: the destination is unreachable, as it is in Azure without one.
      return `route replace unreachable ${r.prefix} table ${table}`;
  }
}

export async function createRouter(state: NetnsState, id: string): Promise<void> {
  const netns = state.names.router(id);
  const wanIp = allocateWanIp(state);
  state.routers.set(id, {
    netns,
    wanIp,
    spaces: [],
    subnets: new Map(),
    nsgText: undefined,
    nextTable: 100,
    peerRoutes: [],
    overlay: { key: '', undo: [] },
    podSubnet: { key: '', addresses: [] },
    frontends: emptyFrontends(),
    outbound: emptyOutbound(),
  });
  // Before any link exists, so every bridge inherits send_redirects=0 (UDR hairpins would otherwise
  // send ICMP redirects that VMs accept and keep using after the UDR is gone: pitfall 2).
  await sysctl(netns, {
    'net.ipv4.ip_forward': 1,
    'net.ipv4.conf.all.send_redirects': 0,
    'net.ipv4.conf.default.send_redirects': 0,
    'net.ipv4.conf.all.accept_redirects': 0,
    'net.ipv4.conf.default.accept_redirects': 0,
    // Loose on purpose: a UDR may send a flow back out of the interface it came from.
    'net.ipv4.conf.all.rp_filter': 0,
    'net.ipv4.conf.default.rp_filter': 0,
    // Bridged packets through the ip hooks: the stateful NSG table needs conntrack (see nsg.ts).
    'net.bridge.bridge-nf-call-iptables': 1,
    // Azure DNS binds port 53 as nobody (azure-dns.ts).
    'net.ipv4.ip_unprivileged_port_start': 0,
  });
  const port = IF.routerPort(id);
  await state.ip.batch(state.inet!, [
    `link add ${port} type veth peer name ${IF.wan} address ${macFor(`${netns}:wan`)} netns ${netns}`,
    `link set ${port} master ${IF.internetBridge} up`,
  ]);
  await state.ip.batch(netns, [
    'link set lo up',
    // Azure DNS's virtual IP, reached by the hosts through their gateway, this router (azure-dns.ts).
    `addr replace ${AZURE_DNS}/32 dev lo`,
    `link set ${IF.wan} up`,
    `addr replace ${wanIp}/${INTERNET.prefixLength} dev ${IF.wan}`,
    // The API servers live on the internet (api-listener.ts).
    `route replace ${EMULATED_PUBLIC_RANGE} via ${INTERNET.host} dev ${IF.wan}`,
  ]);
}

/** Adds the subnets, UDRs, host ports, internet routes and NSGs the router lacks; new subnets go to `addedSubnets`. */
export async function convergeRouter(
  state: NetnsState,
  id: string,
  want: CheckedVnet,
  newHosts: CheckedHost[],
  addedSubnets: Array<[RouterState, string]>,
): Promise<void> {
  const r = state.routers.get(id)!;
  const cmds: IpCmd[] = [];
  for (const [sid, s] of want.subnets) {
    if (r.subnets.has(sid)) continue;
    const bridge = IF.subnetBridge(sid);
    const subnet: SubnetState = { bridge, mac: macFor(`${r.netns}:${sid}`), prefix: s.prefix, gateway: s.gateway, table: r.nextTable++, routesKey: '' };
    r.subnets.set(sid, subnet);
    addedSubnets.push([r, sid]);
    cmds.push(
      `link add ${bridge} address ${subnet.mac} type bridge`,
      `link set ${bridge} up`,
      `addr replace ${s.gateway}/${s.prefix.prefix} dev ${bridge}`,
      `rule add iif ${bridge} lookup ${subnet.table} pref ${subnet.table}`,
    );
  }
  // UDRs: each subnet's route table, rewritten when its routes changed. Azure picks the longest prefix among the
  // system routes and the UDRs (a UDR wins a tie), so the VNet's own and its peers' spaces are thrown back to the main
  // table unless a UDR names that very prefix: a UDR for 0.0.0.0/0 does not capture traffic inside the VNet.
  const system = [...want.spaces, ...(want.vnet.peerings ?? []).flatMap((p) => p.addressSpace)];
  for (const [sid, s] of want.subnets) {
    const subnet = r.subnets.get(sid)!;
    const routes = s.subnet.routes;
    const throws = routes.length === 0 ? [] : system.filter((p) => !routes.some((u) => u.prefix === p));
    const key = JSON.stringify([routes, throws]);
    if (key === subnet.routesKey) continue;
    cmds.push(
      mayFail(`route flush table ${subnet.table}`),
      ...throws.map((p) => `route replace throw ${p} table ${subnet.table}`),
      ...routes.map((route) => routeLine(route, subnet.table)),
    );
    subnet.routesKey = key;
  }
  for (const h of newHosts) {
    const s = r.subnets.get(h.subnetId)!;
    const port = IF.hostPort(h.host.id);
    const hostNetns = state.names.host(h.host.id);
    cmds.push(
      `link add ${port} type veth peer name ${IF.eth0} address ${macFor(hostNetns)} netns ${hostNetns}`,
      `link set ${port} master ${s.bridge} up`,
      `neigh replace ${h.host.ip} lladdr ${macFor(hostNetns)} dev ${s.bridge} nud permanent`,
    );
  }
  await state.ip.batch(r.netns, cmds);
  const overlay = overlayClusters(want);
  await convergeOverlayRouting(state.ip, r, overlay);
  await convergePodSubnetRoutes(state.ip, r, podSubnetRoutes(want));

  // The internet routes back to each VNet's address space through its router.
  await state.ip.batch(state.inet!, routesBack(r, want.spaces));
  r.spaces = want.spaces;
  await convergeNsg(
    r,
    want,
    overlay.flatMap((c) => c.podCidrs),
  );
  await convergeAzureDns(r, want.vnet.dns);
}

/** `podCidrs`: the VNet's overlay pod CIDRs, which the VirtualNetwork tag covers (docs/dataplane.md §5.1). */
async function convergeNsg(r: RouterState, want: CheckedVnet, podCidrs: string[]): Promise<void> {
  const nsgSubnets: NsgSubnet[] = [];
  for (const [sid, s] of want.subnets) {
    if (!s.subnet.nsg) continue;
    nsgSubnets.push({
      bridge: r.subnets.get(sid)!.bridge,
      rules: s.subnet.nsg.rules,
      // Azure's VirtualNetwork tag covers the peered VNets' spaces too (docs/dataplane.md §3.7).
      virtualNetwork: [...want.spaces, ...s.subnet.routes.map((x) => x.prefix), ...podCidrs, ...(want.vnet.peerings ?? []).flatMap((p) => p.addressSpace)],
    });
  }
  const body = nsgTableBody(nsgSubnets);
  const text = body === undefined ? undefined : nftTable('ip', NSG_TABLE, body);
  if (text !== r.nsgText) {
    await nftLoad(r.netns, text ?? nftTable('ip', NSG_TABLE, undefined));
    r.nsgText = text;
  }
}

/** Removes a subnet's bridge and its UDR table from the router (the commands; the state forgets it now). */
export function removeSubnet(r: RouterState, sid: string): IpCmd[] {
  const s = r.subnets.get(sid)!;
  r.subnets.delete(sid);
  return [mayFail(`rule del pref ${s.table}`), mayFail(`route flush table ${s.table}`), mayFail(`link del ${s.bridge}`)];
}

/** The router's neighbour entries for a host that goes (its port goes with the host's namespace). */
export function forgetHost(r: RouterState, host: { id: string; ip: string }): IpCmd[] {
  // The router's end of the host's veth is deleted here, before the host's namespace: deleting the namespace
  // destroys the pair asynchronously, and a host rebuilt at once would find its port's name still taken.
  return [mayFail(`link del ${IF.hostPort(host.id)}`), ...[...r.subnets.values()].map((s) => mayFail(`neigh del ${host.ip} dev ${s.bridge}`))];
}

/**
 * VNet peering (docs/dataplane.md §3.7): each router routes its peered VNets' address spaces straight to their
 * routers across the internet-side bridge, and drops the routes of peerings that are gone. Run after every router
 * exists, so each remote router's wan address is known.
 */
export async function convergePeerRoutes(state: NetnsState, want: ReadonlyMap<string, CheckedVnet>): Promise<void> {
  for (const [id, v] of want) {
    const r = state.routers.get(id);
    if (!r) continue;
    const wanted = (v.vnet.peerings ?? []).flatMap((p) => {
      const remote = state.routers.get(p.vnetId.toLowerCase());
      return remote ? p.addressSpace.map((space) => `${space} via ${remote.wanIp}`) : [];
    });
    const gone = r.peerRoutes.filter((x) => !wanted.includes(x));
    const added = wanted.filter((x) => !r.peerRoutes.includes(x));
    if (gone.length === 0 && added.length === 0) continue;
    await state.ip.batch(r.netns, [...gone.map((x) => mayFail(`route del ${x}`)), ...added.map((x) => `route replace ${x} dev ${IF.wan}`)]);
    r.peerRoutes = wanted;
  }
}
