// ip-masq-agent's semantics as one nft table on a node: destinations in nonMasqueradeCIDRs, link-local and
// the node's own addresses keep the pod's source; everything else leaving eth0 takes the node's address.
// The node's wiring says which destinations (wiring/bridge.ts: the cluster pod CIDR; wiring/transparent.ts: the
// VNet's address space; docs/dataplane.md §4, §5).
// A BYO CNI agent's own masquerade (Calico's natOutgoing, Cilium's enable-ipv4-masquerade) is the same table for its
// pods' sources only, `aksemu_agent_masq` (applyAgentMasquerade). flanneld's --ip-masq is not this table: its rules
// are flannel's own (flannel-ip-masq.ts says how they differ) and come and go with its overlay.
import { Cidr } from '../../net/ip.js';
import type { OutgoingMasquerade } from '../dataplane.js';
import { nftAddressSet, nftLoad, nftTable } from './exec.js';
import type { HostState, NetnsState } from './state.js';

export const MASQ_TABLE = 'aksemu_masq';
export const AGENT_MASQ_TABLE = 'aksemu_agent_masq';
const MAX_PREFIXES = 1000;

/** The table's body; `sources`: only packets from these are masqueraded. */
export function masqTableBody(nonMasquerade: string[], uplink = 'eth0', sources?: string[]): string {
  return [
    '  chain postrouting {',
    '    type nat hook postrouting priority srcnat; policy accept;',
    ...(sources ? [`    ip saddr != ${nftAddressSet(sources)} return`] : []),
    `    ip daddr ${nftAddressSet([...nonMasquerade, '169.254.0.0/16'])} return`,
    '    fib daddr type local return',
    `    oifname "${uplink}" masquerade`,
    '  }',
  ].join('\n');
}

/**
 * What was last loaded per node: an unchanged masquerade loads nothing. Keyed by the node's state, not its namespace's
 * name: a stop deletes the namespace and a start in the same process makes it again under the same name, empty.
 */
const loaded = new WeakMap<HostState, string>();

/** Converges a node's agent masquerade table (none for empty sources); every prefix is checked first. */
export async function applyAgentMasquerade(state: NetnsState, hostId: string, masquerade: OutgoingMasquerade): Promise<void> {
  const host = state.hosts.get(hostId.toLowerCase());
  if (!host || host.kind !== 'node') throw new Error(`no node ${hostId} in the data plane`);
  const prefixes = (list: string[]): string[] => {
    if (list.length > MAX_PREFIXES) throw new Error(`at most ${MAX_PREFIXES} prefixes`);
    return list.map((p) => {
      const c = Cidr.parse(p, { canonical: false });
      if (c.family !== 4) throw new Error(`${p} is not an IPv4 prefix`);
      return c.toString();
    });
  };
  const sources = prefixes(masquerade.sources);
  const text = nftTable('ip', AGENT_MASQ_TABLE, sources.length ? masqTableBody(prefixes(masquerade.keep), 'eth0', sources) : undefined);
  if (loaded.get(host) === text) return;
  await nftLoad(host.netns, text);
  loaded.set(host, text);
}
