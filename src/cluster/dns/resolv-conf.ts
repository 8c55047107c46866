// A pod's /etc/resolv.conf and /etc/hosts as the kubelet makes them (docs/dataplane.md §14.3):
//   - resolv.conf (kubernetes pkg/kubelet/network/dns/dns.go GetPodDNS): dnsPolicy ClusterFirst (the default) on
//     the pod network, and ClusterFirstWithHostNet, get the cluster DNS as the only nameserver, the search path
//     `<ns>.svc.<domain> svc.<domain> <domain>` followed by the node's own search domains, and `options ndots:5`
//     (the node's options are dropped); Default, and ClusterFirst on the host network, get the node's resolv.conf
//     (the one kubelet's --resolv-conf names); None starts empty. dnsConfig is then appended (nameservers and
//     searches without duplicates, options merged by name, the pod's value winning), and the result cut to the
//     limits (3 nameservers; 32 search domains and 2048 characters, pkg/apis/core/validation MaxDNSNameservers,
//     MaxDNSSearchPaths, MaxDNSSearchListChars). Written as containerd writes it: search, nameserver lines, options.
//   - hosts (pkg/kubelet/kubelet_pods.go managedHostsFileContent): the managed header, localhost and the IPv6
//     names, the pod's addresses with its FQDN when it has a subdomain, then hostAliases; a host-network pod gets
//     the node's /etc/hosts under its own header.
// Pure: pod-files.ts writes them.
import type { KubeObject } from '../apimachinery/object.js';

/** A resolver configuration: what a resolv.conf says. */
export interface ResolverConfig {
  nameservers: string[];
  searches: string[];
  options: string[];
}

/** The kubelet's DNS settings (--cluster-dns, --cluster-domain, and the node's resolv.conf it reads). */
export interface KubeletDns {
  clusterDns: string[];
  clusterDomain: string;
  node: ResolverConfig;
}

export const DNS_LIMITS = { nameservers: 3, searchPaths: 32, searchChars: 2048 } as const;
const DEFAULT_OPTIONS = ['ndots:5'];

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);
const unique = (list: string[]): string[] => [...new Set(list)];
/** Nothing a user writes may break a line or add a directive. */
const clean = (list: string[]): string[] => list.filter((s) => s !== '' && !/[\s#;]/.test(s));

function mergeOptions(existing: string[], given: unknown): string[] {
  const merged = new Map<string, string>();
  for (const o of existing) {
    const at = o.indexOf(':');
    merged.set(at < 0 ? o : o.slice(0, at), at < 0 ? '' : o.slice(at + 1));
  }
  for (const o of Array.isArray(given) ? given.map(obj) : []) {
    if (typeof o['name'] !== 'string' || o['name'] === '') continue;
    merged.set(o['name'], typeof o['value'] === 'string' ? o['value'] : '');
  }
  return [...merged].map(([name, value]) => (value ? `${name}:${value}` : name));
}

function fitSearches(searches: string[]): string[] {
  let list = searches.slice(0, DNS_LIMITS.searchPaths);
  while (list.join(' ').length > DNS_LIMITS.searchChars) list = list.slice(0, -1);
  return list;
}

/** The resolver configuration the kubelet gives a pod. */
export function podResolverConfig(pod: KubeObject, kubelet: KubeletDns): ResolverConfig {
  const spec = obj((pod as unknown as Obj)['spec']);
  const policy = typeof spec['dnsPolicy'] === 'string' ? spec['dnsPolicy'] : 'ClusterFirst';
  const hostNetwork = spec['hostNetwork'] === true;
  const cluster = (policy === 'ClusterFirst' && !hostNetwork) || policy === 'ClusterFirstWithHostNet';
  let config: ResolverConfig;
  if (policy === 'None') config = { nameservers: [], searches: [], options: [] };
  else if (cluster && kubelet.clusterDns.length > 0) {
    const d = kubelet.clusterDomain;
    const ns = pod.metadata.namespace ?? 'default';
    config = { nameservers: [...kubelet.clusterDns], searches: unique([`${ns}.svc.${d}`, `svc.${d}`, d, ...kubelet.node.searches]), options: DEFAULT_OPTIONS };
  } else config = { ...kubelet.node };
  const given = obj(spec['dnsConfig']);
  if (spec['dnsConfig'] !== undefined) {
    config = {
      nameservers: unique([...config.nameservers, ...clean(strings(given['nameservers']))]),
      searches: unique([...config.searches, ...clean(strings(given['searches']))]),
      options: clean(mergeOptions(config.options, given['options'])),
    };
  }
  return { nameservers: config.nameservers.slice(0, DNS_LIMITS.nameservers), searches: fitSearches(config.searches), options: config.options };
}

export function resolvConfText(c: ResolverConfig): string {
  return [
    ...(c.searches.length ? [`search ${c.searches.join(' ')}`] : []),
    ...c.nameservers.map((n) => `nameserver ${n}`),
    ...(c.options.length ? [`options ${c.options.join(' ')}`] : []),
  ]
    .map((l) => `${l}\n`)
    .join('');
}

/** The pod's hostname and, with a subdomain, its domain (kubelet GeneratePodHostNameAndDomain). */
export function podHostname(pod: KubeObject, clusterDomain: string): { hostname: string; domain?: string } {
  const spec = obj((pod as unknown as Obj)['spec']);
  const given = typeof spec['hostname'] === 'string' && spec['hostname'] ? spec['hostname'] : pod.metadata.name;
  // truncatePodHostnameIfNeeded: at most 63 characters, without a trailing '-' or '.'.
  const hostname = given.length > 63 ? given.slice(0, 63).replace(/[-.]+$/, '') : given;
  const sub = spec['subdomain'];
  return typeof sub === 'string' && sub ? { hostname, domain: `${sub}.${pod.metadata.namespace ?? 'default'}.svc.${clusterDomain}` } : { hostname };
}

export function podHostsText(pod: KubeObject, podIps: string[], clusterDomain: string, nodeHosts?: string): string {
  const spec = obj((pod as unknown as Obj)['spec']);
  const aliases = (Array.isArray(spec['hostAliases']) ? spec['hostAliases'].map(obj) : []).flatMap((a) =>
    typeof a['ip'] === 'string' && !/\s/.test(a['ip']) ? clean(strings(a['hostnames'])).map((h) => `${a['ip']}\t${h}\n`) : [],
  );
  const tail = aliases.length ? `\n# Entries added by HostAliases.\n${aliases.join('')}` : '';
  if (spec['hostNetwork'] === true) return `# Kubernetes-managed hosts file (host network).\n${nodeHosts ?? ''}${tail}`;
  const { hostname, domain } = podHostname(pod, clusterDomain);
  const self = podIps.map((ip) => (domain ? `${ip}\t${hostname}.${domain}\t${hostname}\n` : `${ip}\t${hostname}\n`)).join('');
  return (
    '# Kubernetes-managed hosts file.\n' +
    '127.0.0.1\tlocalhost\n' +
    '::1\tlocalhost ip6-localhost ip6-loopback\n' +
    'fe00::0\tip6-localnet\n' +
    'fe00::0\tip6-mcastprefix\n' +
    'fe00::1\tip6-allnodes\n' +
    'fe00::2\tip6-allrouters\n' +
    self +
    tail
  );
}
