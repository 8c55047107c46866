// NSG rules as one nft table in the VNet router. Azure NSGs are stateful: return traffic of an allowed
// flow passes whatever the rules say. This kernel has no bridge-family conntrack (NF_CONNTRACK_BRIDGE is
// off) and no `meta ibrname`, so the table is in the `ip` family on the forward hook and the router runs
// with bridge-nf-call-iptables=1: bridged (same subnet) and routed packets both pass it, with conntrack, and
// iif/oif name the subnet bridge. Outbound rules of the source subnet run first (Allow → on to the next
// check), then Inbound rules of the destination subnet (Allow → accept).
import type { NsgRule } from '../topology.js';
import { nftAddressSet } from './exec.js';

export const NSG_TABLE = 'aksemu_nsg';

export interface NsgSubnet {
  /** The subnet's bridge in the router. */
  bridge: string;
  rules: NsgRule[];
  /** What the VirtualNetwork service tag means here: the VNet's address space, the routes' prefixes and the peered VNets' spaces. */
  virtualNetwork: string[];
}

const PROTOCOLS: Record<string, string | undefined> = { '*': undefined, tcp: 'tcp', udp: 'udp', icmp: 'icmp', esp: 'esp', ah: 'ah' };

const isAny = (p: string): boolean => p === '*' || /^any$/i.test(p) || p === '0.0.0.0/0';

/** Alternatives for one side: '' matches any address; an empty list never matches. */
function addressClauses(field: 'saddr' | 'daddr', prefixes: string[], vnet: string[], rule: string): string[] {
  const cidrs: string[] = [];
  const out: string[] = [];
  for (const p of prefixes.map((x) => x.trim())) {
    if (isAny(p)) return [''];
    if (/^virtualnetwork$/i.test(p)) out.push(`ip ${field} ${nftAddressSet(vnet)}`);
    else if (/^internet$/i.test(p)) out.push(`ip ${field} != ${nftAddressSet(vnet)}`);
    else if (/^[0-9.]+(\/\d+)?$/.test(p)) cidrs.push(p);
    else if (/^[A-Za-z][A-Za-z0-9.]*$/.test(p))
      continue; // other service tags (AzureLoadBalancer, …): nothing here
    else throw new Error(`NSG rule ${rule}: '${p}' is not an address prefix or service tag`);
  }
  if (cidrs.length) out.push(`ip ${field} ${nftAddressSet(cidrs)}`);
  return out;
}

function portClause(field: 'sport' | 'dport', ports: string[], rule: string): string {
  const list = ports.map((p) => p.trim());
  if (list.length === 0 || list.some(isAny)) return '';
  for (const p of list) {
    if (!/^\d+(-\d+)?$/.test(p)) throw new Error(`NSG rule ${rule}: '${p}' is not a port or port range`);
  }
  return `th ${field} { ${list.join(', ')} }`;
}

/** The nft rules of one rule (several when a side lists tags and prefixes together). */
export function nsgRuleLines(rule: NsgRule, vnet: string[]): string[] {
  const proto = rule.protocol.toLowerCase();
  if (!(proto in PROTOCOLS)) throw new Error(`NSG rule ${rule.name}: unsupported protocol '${rule.protocol}'`);
  const l4 = PROTOCOLS[proto];
  const ports =
    l4 === 'tcp' || l4 === 'udp' || l4 === undefined
      ? [portClause('sport', rule.sourcePorts, rule.name), portClause('dport', rule.destinationPorts, rule.name)].filter(Boolean)
      : [];
  const protoClause = l4 ? `meta l4proto ${l4}` : ports.length ? 'meta l4proto { tcp, udp }' : '';
  const inbound = rule.direction === 'Inbound';
  const verdict = rule.access === 'Deny' ? 'drop' : inbound ? 'accept' : 'return';
  const lines: string[] = [];
  for (const src of addressClauses('saddr', rule.sourcePrefixes, vnet, rule.name)) {
    for (const dst of addressClauses('daddr', rule.destinationPrefixes, vnet, rule.name)) {
      const match = [src, dst, protoClause, ...ports].filter(Boolean).join(' ');
      lines.push(`${match ? `${match} ` : ''}counter ${verdict} comment "${rule.name.replace(/"/g, '')} ${rule.priority}"`);
    }
  }
  return lines;
}

/** The whole table body, or undefined when no subnet of the router has an NSG. */
export function nsgTableBody(subnets: NsgSubnet[]): string | undefined {
  if (subnets.length === 0) return undefined;
  const chains: string[] = [];
  const hooks: string[] = ['    ct state established,related accept'];
  for (const direction of ['Outbound', 'Inbound'] as const) {
    for (const s of subnets) {
      const name = `${direction === 'Outbound' ? 'out' : 'in'}_${s.bridge}`;
      const rules = s.rules.filter((r) => r.direction === direction).sort((a, b) => a.priority - b.priority);
      chains.push(
        `  chain ${name} {\n${rules
          .flatMap((r) => nsgRuleLines(r, s.virtualNetwork))
          .map((l) => `    ${l}`)
          .join('\n')}\n  }`,
      );
      hooks.push(`    ${direction === 'Outbound' ? 'iifname' : 'oifname'} "${s.bridge}" jump ${name}`);
    }
  }
  return [...chains, '  chain forward {', '    type filter hook forward priority filter; policy accept;', ...hooks, '  }'].join('\n');
}
