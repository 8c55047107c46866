// NetworkPolicy enforcement in a node's namespace (docs/dataplane.md §13): one nft table, `aksemu_policy`, on the
// forward hook. Every pod's traffic that leaves or reaches it through its node is forwarded by the node (routed
// veths: Azure CNI, Calico, Cilium) or bridged with bridge-nf-call-iptables on (cbr0, cni0), so the forward hook
// sees all of it, after kube-proxy's DNAT at prerouting (the real backend's address) and before any
// masquerade at postrouting (the pod's own address). Traffic between a pod and its own node (input and output
// hooks) is not filtered: the API allows the pod's local node always (k8s.io/api networking/v1/types.go,
// NetworkPolicySpec.ingress). Stateful: replies and related packets of an allowed flow pass.
import { isEmptyPolicies, type NodePolicies, type PolicyAllow, type PolicyPort } from '../policies.js';
import { nftAddressSet, nftLoad, nftTable, sysctl } from './exec.js';
import type { HostState, NetnsState } from './state.js';

export const POLICY_TABLE = 'aksemu_policy';

/** An nft comment: bounded, and only characters that need no escaping (names are DNS labels anyway). */
const comment = (text: string): string => `comment "${text.replace(/[^A-Za-z0-9./ _-]/g, '_').slice(0, 120)}"`;

/** One match per protocol: `tcp dport { 80, 5000-5010 }`, or `meta l4proto udp` when a port entry names none. */
function portMatches(ports: PolicyPort[] | undefined): string[] {
  if (!ports) return [''];
  const byProtocol = new Map<string, PolicyPort[]>();
  for (const p of ports) byProtocol.set(p.protocol, [...(byProtocol.get(p.protocol) ?? []), p]);
  return [...byProtocol].map(([protocol, entries]) => {
    const proto = protocol.toLowerCase();
    if (entries.some((e) => e.port === undefined)) return ` meta l4proto ${proto}`;
    const values = entries.map((e) => (e.endPort ? `${e.port}-${e.endPort}` : `${e.port}`));
    return ` ${proto} dport { ${values.join(', ')} }`;
  });
}

/** The matches on the far end's address: any, the peer pods, each address block minus its exceptions. */
function peerMatches(allow: PolicyAllow, field: 'saddr' | 'daddr'): string[] {
  if (!allow.peers) return [''];
  const out: string[] = [];
  if (allow.peers.addresses.length > 0) out.push(` ip ${field} ${nftAddressSet(allow.peers.addresses)}`);
  for (const b of allow.peers.blocks) out.push(` ip ${field} ${b.cidr}${b.except.length ? ` ip ${field} != ${nftAddressSet(b.except)}` : ''}`);
  return out;
}

function allowRules(allows: PolicyAllow[], direction: 'ingress' | 'egress'): string[] {
  const [local, far, verdict] = direction === 'ingress' ? (['daddr', 'saddr', 'accept'] as const) : (['saddr', 'daddr', 'return'] as const);
  const lines: string[] = [];
  for (const allow of allows) {
    if (allow.pods.length === 0) continue;
    for (const peer of peerMatches(allow, far)) {
      for (const port of portMatches(allow.ports)) lines.push(`    ip ${local} ${nftAddressSet(allow.pods)}${peer}${port} ${verdict} ${comment(allow.rule)}`);
    }
  }
  return lines;
}

/** The table's body; undefined when the node isolates no pod (no table at all). */
export function policyTableBody(table: NodePolicies): string | undefined {
  if (isEmptyPolicies(table)) return undefined;
  const set = (name: string, ips: string[]): string[] =>
    ips.length ? [`  set ${name} {`, '    type ipv4_addr; flags interval;', `    elements = ${nftAddressSet(ips)}`, '  }'] : [];
  return [
    ...set('ingress_isolated', table.ingressIsolated),
    ...set('egress_isolated', table.egressIsolated),
    '  chain forward {',
    '    type filter hook forward priority filter; policy accept;',
    '    ct state established,related accept',
    // Egress first: an allowed egress returns here, and the destination's ingress is checked next.
    ...(table.egressIsolated.length ? ['    ip saddr @egress_isolated jump egress'] : []),
    ...(table.ingressIsolated.length ? ['    ip daddr @ingress_isolated jump ingress'] : []),
    '  }',
    '  chain egress {',
    ...allowRules(table.egress, 'egress'),
    `    counter drop ${comment('egress not allowed by any NetworkPolicy')}`,
    '  }',
    '  chain ingress {',
    ...allowRules(table.ingress, 'ingress'),
    `    counter drop ${comment('ingress not allowed by any NetworkPolicy')}`,
    '  }',
  ].join('\n');
}

/** Hosts whose bridged pod traffic was made to pass the ip hooks (once per namespace). */
const bridgedThroughIpHooks = new WeakSet<HostState>();

/** Converges the node's policy rules on the table; idempotent (the table is replaced atomically). */
export async function applyNetworkPolicy(state: NetnsState, hostId: string, table: NodePolicies): Promise<void> {
  const host = state.hosts.get(hostId.toLowerCase());
  if (!host || host.kind !== 'node') throw new Error(`no node ${hostId} in the data plane`);
  const body = policyTableBody(table);
  if (body !== undefined && !bridgedThroughIpHooks.has(host)) {
    // On by default in a new namespace (docs/dataplane.md §8.4); set explicitly, since pods on cbr0 or cni0 talk
    // to each other through the bridge and only this makes their packets visible to the forward hook.
    await sysctl(host.netns, { 'net.bridge.bridge-nf-call-iptables': 1 });
    bridgedThroughIpHooks.add(host);
  }
  await nftLoad(host.netns, nftTable('ip', POLICY_TABLE, body));
}
