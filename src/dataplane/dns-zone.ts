// What the cluster DNS serves: the `cluster.local` zone CoreDNS's kubernetes plugin answers from the cluster's
// Services, EndpointSlices and Pods (docs/dataplane.md §14). The cluster runtime builds it (cluster/dns/zone.ts);
// the DNS server in the coredns pod's namespace answers from it (netns/dns-answer.ts, netns/dns-server.ts), fed as
// one JSON line per change. Plain data, so building and answering have golden tests.

/** One resource record's data; the owner name is the key it is filed under. */
export type DnsRecord =
  | { type: 'A'; address: string }
  | { type: 'CNAME'; target: string }
  | { type: 'SRV'; priority: number; weight: number; port: number; target: string }
  | { type: 'PTR'; target: string };

export interface DnsZone {
  /** The cluster domain (kubelet's --cluster-domain; AKS: cluster.local). */
  domain: string;
  /** Seconds, on every answer and the SOA's minimum (CoreDNS kubernetes plugin `ttl`, default 5). */
  ttl: number;
  /** The SOA serial. */
  serial: number;
  /** Namespaces that exist: pod A records (`a-b-c-d.<ns>.pod.<domain>`) answer only inside these. */
  namespaces: string[];
  /** Owner name (lower case, no trailing dot) and its records, sorted by name; reverse names under in-addr.arpa. */
  records: Array<[string, DnsRecord[]]>;
}

/** Bounds of what the server accepts on stdin (a zone line) and holds. */
export const DNS_ZONE_LIMITS = { lineBytes: 64 * 1024 * 1024, names: 1_000_000 } as const;
