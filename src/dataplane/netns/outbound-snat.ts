// Outbound SNAT on the netns data plane (docs/dataplane.md §17): what Azure's load balancer outbound rule and NAT
// gateway do to traffic that leaves a VNet for the internet. The VNet router rewrites the source of new flows that
// leave by its internet link (wan0) from the sources an outbound resource serves (a cluster's nodes for the
// `kubernetes` load balancer's outbound rule; a whole subnet for its NAT gateway) to one of that resource's public
// IPs, chosen per source address (a hash, so a node keeps its address); conntrack undoes it on the replies. Traffic to
// a peered VNet leaves by the same link but is not internet traffic, so it keeps its address. The internet host routes
// each outbound public IP back to the router. userDefinedRouting needs nothing here: the subnet's UDR table sends
// 0.0.0.0/0 to the appliance (router.ts).
import { mayFail, nftAddressSet, nftLoad, nftTable, type IpCmd } from './exec.js';
import { IF } from './names.js';
import type { NetnsState, RouterState } from './state.js';
import type { CheckedVnet } from './topology-check.js';
import type { OutboundSnat } from '../topology.js';

export const OUTBOUND_TABLE = 'aksemu_outbound';

/** What the router holds for outbound SNAT: the table's text as loaded, and the internet's routes back. */
export interface OutboundState {
  text: string | undefined;
  internet: string[];
}

export const emptyOutbound = (): OutboundState => ({ text: undefined, internet: [] });

/** The nat chain: one rule per outbound resource, in the topology's order (a NAT gateway's subnet before the load balancer). */
export function outboundTableBody(snat: OutboundSnat[], notInternet: string[]): string | undefined {
  const rules = snat.filter((s) => s.sources.length > 0 && s.publicIps.length > 0);
  if (rules.length === 0) return undefined;
  const keep = notInternet.length > 0 ? ` ip daddr != ${nftAddressSet(notInternet)}` : '';
  const lines = rules.map((s) => {
    const to =
      s.publicIps.length === 1 ? s.publicIps[0] : `jhash ip saddr mod ${s.publicIps.length} map { ${s.publicIps.map((ip, i) => `${i} : ${ip}`).join(', ')} }`;
    return `    oifname "${IF.wan}" ip saddr ${nftAddressSet(s.sources)}${keep} counter snat ip to ${to} comment "${s.id.slice(-120).replace(/"/g, '')}"`;
  });
  return ['  chain postrouting {', '    type nat hook postrouting priority srcnat; policy accept;', ...lines, '  }'].join('\n');
}

/** Every router's SNAT table and the internet's routes back to its outbound public IPs. */
export async function convergeOutbound(state: NetnsState, want: ReadonlyMap<string, CheckedVnet>): Promise<void> {
  const internet: IpCmd[] = [];
  for (const [id, v] of want) {
    const r = state.routers.get(id);
    if (!r) continue;
    const snat = v.vnet.outbound ?? [];
    const body = outboundTableBody(
      snat,
      (v.vnet.peerings ?? []).flatMap((p) => p.addressSpace),
    );
    const text = body === undefined ? undefined : nftTable('ip', OUTBOUND_TABLE, body);
    if (text !== r.outbound.text) {
      await nftLoad(r.netns, text ?? nftTable('ip', OUTBOUND_TABLE, undefined));
      r.outbound.text = text;
    }
    const lines = [...new Set(snat.flatMap((s) => s.publicIps))].map((ip) => `${ip}/32 via ${r.wanIp}`);
    internet.push(...r.outbound.internet.filter((l) => !lines.includes(l)).map((l) => mayFail(`route del ${l}`)));
    internet.push(...lines.filter((l) => !r.outbound.internet.includes(l)).map((l) => `route replace ${l}`));
    r.outbound.internet = lines;
  }
  if (internet.length > 0 && state.inet) await state.ip.batch(state.inet, internet);
}

/** The internet's routes to a router's outbound public IPs, for when the router goes. */
export function outboundRoutesBack(r: RouterState): IpCmd[] {
  return r.outbound.internet.map((line) => mayFail(`route del ${line}`));
}
