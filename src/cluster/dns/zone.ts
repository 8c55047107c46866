// The cluster.local zone from the cluster's objects, as CoreDNS's kubernetes plugin serves it (the Kubernetes
// DNS-Based Service Discovery specification in the kubernetes/dns repository; coredns plugin/kubernetes kubernetes.go
// findServices / findPods, reverse.go; docs/dataplane.md §14):
//   - a Service with a ClusterIP: `<svc>.<ns>.svc.<domain>` A the ClusterIP(s), its PTR, and SRV
//     `_<port>._<proto>.<svc>.<ns>.svc.<domain>` per named port (and on the Service's own name, every port)
//     pointing at the Service's name;
//   - a headless Service (clusterIP None): A for each ready endpoint address of its EndpointSlices, each endpoint
//     also under `<host>.<svc>.<ns>.svc.<domain>` where <host> is its hostname (the pod's spec.hostname when its
//     spec.subdomain names the Service, what the endpoints controller copies) or else its address with dashes;
//     SRV per port per endpoint pointing at that name; PTR from each address to that name;
//   - an ExternalName Service: a CNAME to its externalName;
//   - pod A records `a-b-c-d.<ns>.pod.<domain>` are answered from the name itself (`pods insecure`,
//     dns-answer.ts), so the zone lists the namespaces only.
// Pure: the coredns program (images/coredns.ts) calls it on every change with what its watches hold.
import type { DnsRecord, DnsZone } from '../../dataplane/dns-zone.js';
import type { KubeObject } from '../apimachinery/object.js';

/** The kubernetes plugin's default `ttl` (AKS's Corefile sets none). */
export const DNS_TTL = 5;
export const CLUSTER_DOMAIN = 'cluster.local';

export interface ZoneInput {
  domain?: string;
  serial: number;
  namespaces: readonly string[];
  services: readonly KubeObject[];
  endpointSlices: readonly KubeObject[];
  pods: readonly KubeObject[];
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
/** A DNS-1123 label, what every name the zone is built from must be (hostile objects are skipped, not served). */
const LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** The reverse name of an IPv4 address: 10.0.0.10 → 10.0.0.10.in-addr.arpa with the octets reversed. */
export function reverseName(ip: string): string {
  return `${ip.split('.').reverse().join('.')}.in-addr.arpa`;
}

/** The CoreDNS endpoint name when the endpoint has no hostname: its address with dashes. */
export const dashed = (ip: string): string => ip.replaceAll('.', '-');

interface Port {
  name: string;
  port: number;
  protocol: string;
}

function portsOf(list: unknown): Port[] {
  return arr(list).flatMap((p) => {
    const o = obj(p);
    const port = o['port'];
    if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) return [];
    const name = str(o['name']) ?? '';
    if (name !== '' && !LABEL.test(name)) return [];
    return [{ name, port, protocol: (str(o['protocol']) ?? 'TCP').toLowerCase() }];
  });
}

class ZoneBuilder {
  private readonly records = new Map<string, DnsRecord[]>();

  /** A name that exists with no records yet (a headless Service without ready endpoints answers NODATA, not NXDOMAIN). */
  touch(name: string): void {
    if (!this.records.has(name)) this.records.set(name, []);
  }

  add(name: string, record: DnsRecord): void {
    const list = this.records.get(name) ?? [];
    const key = JSON.stringify(record);
    if (!list.some((r) => JSON.stringify(r) === key)) list.push(record);
    this.records.set(name, list);
  }

  /** SRV for each port on the base name and, for a named port, on `_<port>._<proto>.<base>`. */
  srv(base: string, ports: readonly Port[], target: string): void {
    for (const p of ports) {
      const record: DnsRecord = { type: 'SRV', priority: 0, weight: 0, port: p.port, target };
      this.add(base, record);
      if (p.name) this.add(`_${p.name}._${p.protocol}.${base}`, record);
    }
  }

  /** Sorted, records in a stable order, SRV weights set as CoreDNS spreads 100 over one priority's records. */
  done(): Array<[string, DnsRecord[]]> {
    return [...this.records.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, list]) => {
        const srvs = list.filter((r) => r.type === 'SRV').length;
        // coredns plugin/backend_lookup.go SRV: weight = floor(100 / n × 100 / 100) for n records of equal priority.
        const sorted = [...list].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
        return [name, sorted.map((r) => (r.type === 'SRV' ? { ...r, weight: Math.floor(100 / srvs) } : r))];
      });
  }
}

/** The hostname an endpoint is known by: its own, else its pod's spec.hostname when the pod's subdomain is the Service. */
function hostOf(endpoint: Obj, service: string, pods: Map<string, Obj>): string | undefined {
  const own = str(endpoint['hostname']);
  if (own) return LABEL.test(own) ? own : undefined;
  const ref = obj(endpoint['targetRef']);
  if (ref['kind'] !== 'Pod') return undefined;
  const spec = obj(pods.get(`${str(ref['namespace']) ?? ''}/${str(ref['name']) ?? ''}`)?.['spec']);
  const hostname = str(spec['hostname']);
  return hostname && spec['subdomain'] === service && LABEL.test(hostname) ? hostname : undefined;
}

export function buildZone(input: ZoneInput): DnsZone {
  const domain = input.domain ?? CLUSTER_DOMAIN;
  const z = new ZoneBuilder();
  const pods = new Map(input.pods.map((p) => [`${p.metadata.namespace ?? ''}/${p.metadata.name}`, p as unknown as Obj]));
  const slices = new Map<string, Obj[]>();
  for (const s of input.endpointSlices) {
    const svc = str(obj(s.metadata.labels)['kubernetes.io/service-name']);
    if (!svc || (s as unknown as Obj)['addressType'] !== 'IPv4') continue;
    const key = `${s.metadata.namespace ?? ''}/${svc}`;
    slices.set(key, [...(slices.get(key) ?? []), s as unknown as Obj]);
  }
  for (const service of input.services) {
    const name = service.metadata.name;
    const ns = service.metadata.namespace ?? '';
    if (!LABEL.test(name) || !LABEL.test(ns)) continue;
    const spec = obj((service as unknown as Obj)['spec']);
    const base = `${name}.${ns}.svc.${domain}`;
    z.touch(base);
    if (spec['type'] === 'ExternalName') {
      const target = str(spec['externalName']);
      if (target) z.add(base, { type: 'CNAME', target: target.toLowerCase().replace(/\.$/, '') });
      continue;
    }
    const clusterIps = [...arr(spec['clusterIPs']), spec['clusterIP']].filter((ip): ip is string => typeof ip === 'string');
    if (clusterIps.length === 0) continue;
    if (clusterIps[0] !== 'None') {
      for (const ip of clusterIps.filter((ip) => IPV4.test(ip))) {
        z.add(base, { type: 'A', address: ip });
        z.add(reverseName(ip), { type: 'PTR', target: base });
      }
      z.srv(base, portsOf(spec['ports']), base);
      continue;
    }
    for (const slice of slices.get(`${ns}/${name}`) ?? []) {
      const ports = portsOf(slice['ports']);
      for (const endpoint of arr(slice['endpoints']).map(obj)) {
        if (obj(endpoint['conditions'])['ready'] === false) continue;
        for (const ip of arr(endpoint['addresses']).filter((a): a is string => typeof a === 'string' && IPV4.test(a))) {
          const target = `${hostOf(endpoint, name, pods) ?? dashed(ip)}.${base}`;
          z.add(base, { type: 'A', address: ip });
          z.add(target, { type: 'A', address: ip });
          z.add(reverseName(ip), { type: 'PTR', target });
          z.srv(base, ports, target);
        }
      }
    }
  }
  return {
    domain,
    ttl: DNS_TTL,
    serial: input.serial,
    namespaces: input.namespaces.filter((n) => LABEL.test(n)).sort(),
    records: z.done(),
  };
}

/** The zone as zone-file lines (`name. ttl IN TYPE data`), for golden tests and logs. */
export function zoneText(zone: DnsZone): string {
  const data = (r: DnsRecord): string => {
    switch (r.type) {
      case 'A':
        return r.address;
      case 'CNAME':
      case 'PTR':
        return `${r.target}.`;
      case 'SRV':
        return `${r.priority} ${r.weight} ${r.port} ${r.target}.`;
    }
  };
  return zone.records.flatMap(([name, records]) => records.map((r) => `${name}. ${zone.ttl} IN ${r.type} ${data(r)}`)).join('\n');
}
