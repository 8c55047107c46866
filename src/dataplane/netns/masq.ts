// ip-masq-agent's semantics as one nft table on a node: destinations in nonMasqueradeCIDRs, link-local and
// the node's own addresses keep the pod's source; everything else leaving eth0 takes the node's address.
// The node's wiring says which destinations (wiring/bridge.ts: the cluster pod CIDR; wiring/transparent.ts: the
// VNet's address space; docs/dataplane.md §4, §5).
import { nftAddressSet } from './exec.js';

export const MASQ_TABLE = 'aksemu_masq';

export function masqTableBody(nonMasquerade: string[], uplink = 'eth0'): string {
  return [
    '  chain postrouting {',
    '    type nat hook postrouting priority srcnat; policy accept;',
    `    ip daddr ${nftAddressSet([...nonMasquerade, '169.254.0.0/16'])} return`,
    '    fib daddr type local return',
    `    oifname "${uplink}" masquerade`,
    '  }',
  ].join('\n');
}
