// Azure CNI Overlay's routing in a VNet router (docs/dataplane.md §5.1). Azure gives the pod CIDR "a separate
// routing domain" in which each node's /24 leads to the node, with no route table and no encapsulation, and only
// for the cluster: pod IPs are not reachable from outside it, and two clusters may use the same pod CIDR
// (concepts-network-azure-cni-overlay). Here each overlay cluster of the VNet gets a kernel routing table with its
// nodes' /24s via the node IPs, looked up only for packets that entered the router from one of the cluster's own
// nodes: a bridge-family nft table marks them by the node's port on the subnet bridge, and an ip rule sends that
// mark to the cluster's table ahead of the subnets' UDR tables. A VM's packets are not marked, so a pod IP is
// unreachable from it, as on Azure.
import { mayFail, nftLoad, nftTable, type IpCmd } from './exec.js';
import { IF } from './names.js';
import type { RouterState } from './state.js';
import type { CheckedVnet } from './topology-check.js';
import { WIRINGS } from './wiring/index.js';

export const OVERLAY_TABLE = 'aksemu_overlay';
/** The first cluster's routing table and mark; far above the subnets' tables (100 upwards, router.ts). */
const FIRST_TABLE = 100_000;
/** Before every subnet's UDR rule (their preference is their table number). */
const RULE_PREF = 90;

export interface OverlayCluster {
  clusterId: string;
  /** The router's ports of the cluster's nodes. */
  ports: string[];
  /** Each node's /24 and the node's address. */
  routes: Array<[string, string]>;
  /** The cluster's pod CIDRs (the VirtualNetwork service tag includes them here: nsg.ts). */
  podCidrs: string[];
}

/** The VNet's overlay clusters, in a stable order (their table numbers follow it). */
export function overlayClusters(want: CheckedVnet): OverlayCluster[] {
  const byId = new Map<string, OverlayCluster>();
  for (const host of want.vnet.hosts) {
    const node = host.node;
    if (host.kind !== 'node' || !node?.podCidr || !WIRINGS[node.wiring].routedByVnet) continue;
    const key = node.clusterId.toLowerCase();
    const c = byId.get(key) ?? { clusterId: key, ports: [], routes: [], podCidrs: [] };
    byId.set(key, c);
    c.ports.push(IF.hostPort(host.id));
    c.routes.push([node.podCidr, host.ip]);
    const range = node.clusterPodCidr ?? node.podCidr;
    if (!c.podCidrs.includes(range)) c.podCidrs.push(range);
  }
  const sorted = [...byId.values()].sort((a, b) => (a.clusterId < b.clusterId ? -1 : a.clusterId > b.clusterId ? 1 : 0));
  for (const c of sorted) {
    c.ports.sort();
    c.routes.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }
  return sorted;
}

function bridgeTableBody(clusters: OverlayCluster[]): string | undefined {
  if (clusters.length === 0) return undefined;
  return [
    '  chain prerouting {',
    '    type filter hook prerouting priority -200; policy accept;',
    ...clusters.map((c, i) => `    iifname { ${c.ports.map((p) => `"${p}"`).join(', ')} } meta mark set ${FIRST_TABLE + i}`),
    '  }',
  ].join('\n');
}

/** Converges the router on the VNet's overlay clusters: tables, rules and the marking table, when they changed. */
export async function convergeOverlayRouting(
  ip: { batch(netns: string, cmds: IpCmd[]): Promise<void> },
  r: RouterState,
  clusters: OverlayCluster[],
): Promise<void> {
  const key = JSON.stringify(clusters);
  if (key === r.overlay.key) return;
  const undo: IpCmd[] = [];
  const cmds: IpCmd[] = [...r.overlay.undo];
  clusters.forEach((c, i) => {
    const table = FIRST_TABLE + i;
    cmds.push(mayFail(`route flush table ${table}`), ...c.routes.map(([cidr, via]) => `route replace ${cidr} via ${via} table ${table}`));
    cmds.push(`rule add fwmark ${table} lookup ${table} pref ${RULE_PREF}`);
    undo.push(mayFail(`rule del fwmark ${table} lookup ${table} pref ${RULE_PREF}`), mayFail(`route flush table ${table}`));
  });
  // Forgotten first: a failure below leaves the state stale, and the next converge starts from the undo lines.
  r.overlay = { key: '', undo: [...r.overlay.undo, ...undo] };
  await ip.batch(r.netns, cmds);
  await nftLoad(r.netns, nftTable('bridge', OVERLAY_TABLE, bridgeTableBody(clusters)));
  r.overlay = { key, undo };
}
