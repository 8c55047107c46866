// kube-proxy's nftables ruleset for one node, as data (docs/dataplane.md §12). The layout is kube-proxy's own
// (kubernetes pkg/proxy/nftables/proxier.go: setupNFTables, syncProxyRules, writeServiceToEndpointRules): base
// chains on the filter and nat hooks, the `services` dispatch through the `service-ips` and `service-nodeports`
// verdict maps, one `service-`/`local-`/`external-` chain per service port and one `endpoint-` chain per
// endpoint, `numgen random` balancing, per-endpoint `affinity-` sets for ClientIP affinity, the
// `mark-for-masquerade`/`masquerading` pair, and the `no-endpoint-*` maps rejecting (or dropping) what has no
// endpoint. `renderProxy` turns a NodeServices into that model; `proxyScript` writes the nft transaction from
// what is applied to what is wanted: the whole table the first time, only the difference after (kube-proxy's
// partial sync), so one Service's endpoints changing is a handful of commands.
import { createHash } from 'node:crypto';
import type { NodeServices, ServiceEndpoint, ServicePortEntry } from '../services.js';

export const PROXY_TABLE = 'aksemu_proxy';
/** kube-proxy's default --iptables-masquerade-bit 14. */
const MASQ_MARK = '0x00004000';
const T = `ip ${PROXY_TABLE}`;

/** The containers kube-proxy keeps element by element (proxier.go nftElementStorage). */
export const CONTAINERS = ['cluster-ips', 'service-ips', 'service-nodeports', 'no-endpoint-services', 'no-endpoint-nodeports'] as const;
export type ContainerName = (typeof CONTAINERS)[number];

/** The table as data: what a transaction converges. */
export interface ProxyModel {
  /** What the fixed part depends on: when it changes, the table is loaded whole. */
  base: string;
  /** Service and endpoint chains: name → rule lines. */
  chains: Map<string, string[]>;
  /** Affinity sets: name → timeout in seconds. */
  affinity: Map<string, number>;
  /** Elements per set or map: key → value (`''` for a set; a map's verdict, with its comment). */
  elements: Record<ContainerName, Map<string, string>>;
}

// hashAndTruncate (proxier.go): the first 8 characters of base32(sha256(name)), a dash, the name.
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
/** Names repeat from one render to the next: the hashes are kept (bounded). */
const memo = new Map<string, string>();
const MEMO_MAX = 200_000;
function hashed(name: string): string {
  const known = memo.get(name);
  if (known !== undefined) return known;
  if (memo.size >= MEMO_MAX) memo.clear();
  const digest = createHash('sha256').update(name).digest();
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of digest) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5 && out.length < 8) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    if (out.length >= 8) break;
  }
  const full = `${out}-${name}`;
  const result = full.length > 240 ? `${full.slice(0, 237)}...` : full;
  memo.set(name, result);
  return result;
}

const proto = (p: ServicePortEntry): string => p.protocol.toLowerCase();
const portBase = (p: ServicePortEntry): string => hashed(`${p.namespace}/${p.name}/${proto(p)}/${p.portName}`);
const endpointBase = (p: ServicePortEntry, e: ServiceEndpoint): string => hashed(`${p.namespace}/${p.name}/${proto(p)}/${p.portName}__${e.ip}/${e.port}`);
/** ServicePortName.String(): `ns/name` and `:port` when the port has a name. */
const portNameString = (p: ServicePortEntry): string => `${p.namespace}/${p.name}${p.portName ? `:${p.portName}` : ''}`;

function emptyElements(): Record<ContainerName, Map<string, string>> {
  return Object.fromEntries(CONTAINERS.map((c) => [c, new Map<string, string>()])) as Record<ContainerName, Map<string, string>>;
}

/** The rules for one service port's endpoints in a policy chain (writeServiceToEndpointRules). */
function toEndpoints(p: ServicePortEntry, endpoints: ServiceEndpoint[]): string[] {
  const rules = p.affinitySeconds ? endpoints.map((e) => `ip saddr @affinity-${endpointBase(p, e)} goto endpoint-${endpointBase(p, e)}`) : [];
  const vmap = endpoints.map((e, i) => `${i} : goto endpoint-${endpointBase(p, e)}`).join(' , ');
  return [...rules, `numgen random mod ${endpoints.length} vmap { ${vmap} }`];
}

function renderPort(m: ProxyModel, t: NodeServices, p: ServicePortEntry): void {
  const base = portBase(p);
  const clusterChain = `service-${base}`;
  const localChain = `local-${base}`;
  const externalChain = `external-${base}`;
  const l4 = proto(p);
  const nodePort = p.nodePort;
  const externalLocal = nodePort !== undefined && p.externalLocal;
  const usesCluster = p.clusterEndpoints.length > 0;
  const usesLocal = p.localEndpoints.length > 0;
  const internalChain = p.internalLocal ? localChain : clusterChain;
  const hasInternal = p.hasEndpoints && (p.internalLocal ? usesLocal : usesCluster);
  const hasExternal = p.hasEndpoints && (externalLocal ? usesLocal : usesCluster);
  const externalPolicyChain = externalLocal ? localChain : clusterChain;
  const comment = ` comment "${portNameString(p)}"`;
  // No endpoints at all: reject (ICMP port unreachable); none for one policy: drop (proxier.go).
  const internalVerdict = p.hasEndpoints ? 'drop' : 'goto reject-chain';
  const externalVerdict = p.hasEndpoints ? 'drop' : 'goto reject-chain';

  m.elements['cluster-ips'].set(p.clusterIp, '');
  const key = `${p.clusterIp} . ${l4} . ${p.port}`;
  if (hasInternal) m.elements['service-ips'].set(key, `goto ${internalChain}`);
  else m.elements['no-endpoint-services'].set(key, `${internalVerdict}|${comment}`);
  if (nodePort !== undefined) {
    const npKey = `${l4} . ${nodePort}`;
    if (p.hasEndpoints) m.elements['service-nodeports'].set(npKey, `goto ${externalChain}`);
    if (!hasExternal) m.elements['no-endpoint-nodeports'].set(npKey, `${externalVerdict}|${comment}`);
    // LoadBalancer ingress IPs (the floating-IP frontend arrives with its own address): the external chain, as
    // kube-proxy's proxier.go adds each LoadBalancerVIP to service-ips.
    for (const ip of p.loadBalancerIps ?? []) {
      const lbKey = `${ip} . ${l4} . ${p.port}`;
      if (hasExternal) m.elements['service-ips'].set(lbKey, `goto ${externalChain}`);
      else m.elements['no-endpoint-services'].set(lbKey, `${externalVerdict}|${comment}`);
    }
  }

  const chain = (name: string): string[] => {
    let rules = m.chains.get(name);
    if (!rules) m.chains.set(name, (rules = []));
    return rules;
  };
  // Traffic to the ClusterIP from outside the cluster CIDR is masqueraded (it may bounce off-node).
  if (hasInternal && t.clusterCidr)
    chain(internalChain).push(`ip daddr ${p.clusterIp} ${l4} dport ${p.port} ip saddr != ${t.clusterCidr} jump mark-for-masquerade`);
  if (nodePort !== undefined && p.hasEndpoints) {
    const ext = chain(externalChain);
    if (!externalLocal) ext.push('jump mark-for-masquerade');
    else if (usesCluster) {
      // eTP Local keeps the client's source; pods and the node itself still reach every endpoint.
      if (t.clusterCidr) ext.push(`ip saddr ${t.clusterCidr} goto ${clusterChain} comment "short-circuit pod traffic"`);
      ext.push('fib saddr type local jump mark-for-masquerade comment "masquerade local traffic"');
      ext.push(`fib saddr type local goto ${clusterChain} comment "short-circuit local traffic"`);
    }
    if (hasExternal) ext.push(`goto ${externalPolicyChain}`);
  }
  if (usesCluster) chain(clusterChain).push(...toEndpoints(p, p.clusterEndpoints));
  if (usesLocal) chain(localChain).push(...toEndpoints(p, p.localEndpoints));

  const reachable = new Map<string, ServiceEndpoint>();
  for (const e of [...p.clusterEndpoints, ...p.localEndpoints]) reachable.set(`${e.ip}:${e.port}`, e);
  for (const e of reachable.values()) {
    const eb = endpointBase(p, e);
    if (p.affinitySeconds) m.affinity.set(`affinity-${eb}`, p.affinitySeconds);
    chain(`endpoint-${eb}`).push(
      // Hairpin: a pod reaching itself through its Service is masqueraded, so the reply comes back this way.
      `ip saddr ${e.ip} jump mark-for-masquerade`,
      ...(p.affinitySeconds ? [`update @affinity-${eb} { ip saddr }`] : []),
      `meta l4proto ${l4} dnat to ${e.ip}:${e.port}`,
    );
  }
}

/** The node's ruleset as data. */
export function renderProxy(t: NodeServices): ProxyModel {
  const m: ProxyModel = { base: JSON.stringify([t.clusterCidr ?? null, t.serviceCidrs]), chains: new Map(), affinity: new Map(), elements: emptyElements() };
  for (const p of t.ports) renderPort(m, t, p);
  return m;
}

/** The fixed part of the table (setupNFTables), after `add table`. */
function baseScript(t: NodeServices): string[] {
  const c = (s: string): string => `comment "${s}"`;
  return [
    `add chain ${T} filter-input { type filter hook input priority -110 ; }`,
    `add chain ${T} filter-forward { type filter hook forward priority -110 ; }`,
    `add chain ${T} filter-output { type filter hook output priority -110 ; }`,
    `add chain ${T} filter-output-post-dnat { type filter hook output priority -90 ; }`,
    `add chain ${T} nat-prerouting { type nat hook prerouting priority -100 ; }`,
    `add chain ${T} nat-output { type nat hook output priority -100 ; }`,
    `add chain ${T} nat-postrouting { type nat hook postrouting priority 100 ; }`,
    ...['nodeport-endpoints-check', 'service-endpoints-check', 'cluster-ips-check', 'services', 'masquerading', 'mark-for-masquerade'].map(
      (n) => `add chain ${T} ${n}`,
    ),
    `add chain ${T} reject-chain { ${c('helper for @no-endpoint-services / @no-endpoint-nodeports')} ; }`,
    `add set ${T} cluster-ips { type ipv4_addr ; ${c('Active ClusterIPs')} ; }`,
    `add map ${T} no-endpoint-services { type ipv4_addr . inet_proto . inet_service : verdict ; ${c('vmap to drop or reject packets to services with no endpoints')} ; }`,
    `add map ${T} no-endpoint-nodeports { type inet_proto . inet_service : verdict ; ${c('vmap to drop or reject packets to service nodeports with no endpoints')} ; }`,
    `add map ${T} service-ips { type ipv4_addr . inet_proto . inet_service : verdict ; ${c('ClusterIP, ExternalIP and LoadBalancer IP traffic')} ; }`,
    `add map ${T} service-nodeports { type inet_proto . inet_service : verdict ; ${c('NodePort traffic')} ; }`,
    `add rule ${T} filter-input ct state new jump nodeport-endpoints-check`,
    `add rule ${T} filter-input ct state new jump service-endpoints-check`,
    `add rule ${T} filter-forward ct state new jump service-endpoints-check`,
    `add rule ${T} filter-output ct state new jump service-endpoints-check`,
    `add rule ${T} filter-forward ct state new jump cluster-ips-check`,
    `add rule ${T} filter-output-post-dnat ct state new jump cluster-ips-check`,
    `add rule ${T} nat-output jump services`,
    `add rule ${T} nat-prerouting jump services`,
    `add rule ${T} nat-postrouting jump masquerading`,
    `add rule ${T} mark-for-masquerade meta mark set meta mark | ${MASQ_MARK}`,
    `add rule ${T} masquerading meta mark & ${MASQ_MARK} == 0 return`,
    `add rule ${T} masquerading meta mark set meta mark ^ ${MASQ_MARK}`,
    `add rule ${T} masquerading masquerade fully-random`,
    `add rule ${T} cluster-ips-check ip daddr @cluster-ips reject ${c('Reject traffic to invalid ports of ClusterIPs')}`,
    ...(t.serviceCidrs.length
      ? [`add rule ${T} cluster-ips-check ip daddr { ${t.serviceCidrs.join(', ')} } drop ${c('Drop traffic to unallocated ClusterIPs')}`]
      : []),
    `add rule ${T} reject-chain reject`,
    `add rule ${T} service-endpoints-check ip daddr . meta l4proto . th dport vmap @no-endpoint-services`,
    // nodePortAddresses unset (iptables mode's default, as on AKS): every local address but localhost.
    `add rule ${T} nodeport-endpoints-check ip daddr != 127.0.0.0/8 meta l4proto . th dport vmap @no-endpoint-nodeports`,
    `add rule ${T} services ip daddr . meta l4proto . th dport vmap @service-ips`,
    `add rule ${T} services fib daddr type local ip daddr != 127.0.0.0/8 meta l4proto . th dport vmap @service-nodeports`,
  ];
}

const EMPTY: ProxyModel = { base: '', chains: new Map(), affinity: new Map(), elements: emptyElements() };

function element(container: ContainerName, key: string, value: string): string {
  if (value === '') return `{ ${key} }`;
  const [verdict, comment = ''] = value.split('|');
  return `{ ${key}${comment} : ${verdict} }`;
}

/** Chains of the last model that the next one drops: flushed now, deleted a second later (proxier.go staleChains). */
export function staleChains(prev: ProxyModel, next: ProxyModel): string[] {
  return [...prev.chains.keys()].filter((n) => !next.chains.has(n));
}

/**
 * The nft transaction from `prev` (undefined: nothing applied, or the table's fixed part changed) to `next`:
 * the whole table, or only what differs. Order matters inside one transaction: stale elements go first, chains
 * are declared and flushed before the sets their rules used are replaced, and elements come last, once the
 * chains their verdicts name exist.
 */
export function proxyScript(t: NodeServices, next: ProxyModel, prev: ProxyModel | undefined): string {
  const full = !prev || prev.base !== next.base;
  const from = full ? EMPTY : prev;
  const out: string[] = full ? [`add table ${T}`, `delete table ${T}`, `add table ${T} { comment "rules for kube-proxy" ; }`, ...baseScript(t)] : [];
  const changed = [...next.chains].filter(([n, rules]) => from.chains.get(n)?.join('\n') !== rules.join('\n')).map(([n]) => n);
  const replacedSets = [...from.affinity].filter(([n, s]) => next.affinity.has(n) && next.affinity.get(n) !== s).map(([n]) => n);
  for (const c of CONTAINERS) {
    for (const [k, v] of from.elements[c]) {
      const want = next.elements[c].get(k);
      if (want === undefined || want !== v) out.push(`delete element ${T} ${c} { ${k} }`);
    }
  }
  // A set whose timeout changed is made again, so every rule naming it is rewritten with it.
  const touching = new Set(replacedSets.map((s) => s.slice('affinity-'.length)));
  const rewrite = new Set(changed);
  if (touching.size) for (const [n, rules] of next.chains) if (rules.some((r) => [...touching].some((s) => r.includes(`@affinity-${s} `)))) rewrite.add(n);
  for (const n of rewrite) out.push(`add chain ${T} ${n}`, ...(from.chains.has(n) ? [`flush chain ${T} ${n}`] : []));
  for (const n of staleChains(from, next)) out.push(`flush chain ${T} ${n}`);
  for (const n of [...from.affinity.keys()].filter((n) => !next.affinity.has(n) || replacedSets.includes(n))) out.push(`delete set ${T} ${n}`);
  for (const [n, s] of next.affinity) {
    if (from.affinity.get(n) !== s) out.push(`add set ${T} ${n} { type ipv4_addr ; flags dynamic,timeout ; timeout ${s}s ; }`);
  }
  for (const n of rewrite) for (const r of next.chains.get(n)!) out.push(`add rule ${T} ${n} ${r}`);
  for (const c of CONTAINERS) {
    for (const [k, v] of next.elements[c]) if (from.elements[c].get(k) !== v) out.push(`add element ${T} ${c} ${element(c, k, v)}`);
  }
  return out.length ? `${out.join('\n')}\n` : '';
}

/** Deletes chains flushed by an earlier transaction. */
export function deleteChainsScript(names: string[]): string {
  return names.map((n) => `delete chain ${T} ${n}\n`).join('');
}

/** Removes the table (a node that has no Services any more keeps an empty one; this is for tests and cleanup). */
export const removeProxyScript = (): string => `add table ${T}\ndelete table ${T}\n`;
