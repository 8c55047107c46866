// How the cluster DNS answers one query from the zone (dataplane/dns-zone.ts), as CoreDNS with AKS's Corefile
// answers it (`kubernetes cluster.local in-addr.arpa ip6.arpa { pods insecure; fallthrough in-addr.arpa ip6.arpa }`,
// then `forward . /etc/resolv.conf`; docs/dataplane.md §14):
//   - inside the cluster domain it is authoritative (aa): the records, or NOERROR without answers (NODATA) for a
//     name that exists, or NXDOMAIN; both with the zone's SOA in the authority section;
//   - a reverse name it holds gets its PTR; any other name — outside the domain, or a reverse name it does not hold
//     (the plugin's fallthrough) — goes to `forward`: answerMessage says 'forward' and the server (dns-server.ts)
//     relays the query to the upstream of the pod's resolv.conf (Azure DNS, azure-dns-answer.ts); with no upstream
//     the answer is SERVFAIL, as the forward plugin's when no upstream answered (coredns plugin/forward/forward.go:
//     ServeDNS returns RcodeServerFailure with the upstream's error or ErrNoHealthy);
//   - hostile input: a packet that does not decode gets FORMERR when its header can be read (else it is dropped),
//     a response or a query without exactly one question FORMERR, an opcode other than QUERY NOTIMP; a UDP answer
//     larger than the client's buffer (512 bytes, or its EDNS size up to 1232) is sent truncated (TC) so it retries
//     over TCP.
// Pure: the server (dns-server.ts) does the sockets.
import dnsPacket from 'dns-packet';
import type { DnsRecord, DnsZone } from '../dns-zone.js';

/** A zone ready to answer from: the records by name, and every name that exists (empty non-terminals too). */
export interface LoadedZone {
  zone: DnsZone;
  names: Map<string, DnsRecord[]>;
  exists: Set<string>;
  namespaces: Set<string>;
}

export const RCODE = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5 } as const;
const FLAG = { QR: 0x8000, AA: 0x0400, TC: 0x0200, RD: 0x0100, RA: 0x0080 } as const;
const HEADER_BYTES = 12;
const UDP_DEFAULT = 512;
/** The EDNS buffer size DNS Flag Day 2020 settled on; larger client sizes are capped to it. */
const UDP_MAX = 1232;
/** The kubernetes plugin's answer to `dns-version.<zone> TXT` (the DNS-based service discovery spec's version). */
const SPEC_VERSION = '1.1.0';

/** Normalises a name: lower case, no trailing dot. */
export function dnsName(name: string): string {
  return name.toLowerCase().replace(/\.$/, '');
}

export function loadZone(zone: DnsZone): LoadedZone {
  const names = new Map<string, DnsRecord[]>();
  const exists = new Set<string>([zone.domain]);
  for (const [name, records] of zone.records) {
    names.set(name, records);
    // Every ancestor up to the zone apex exists (empty non-terminals answer NODATA, not NXDOMAIN).
    for (let n = name; n.length > 0 && !exists.has(n); n = n.slice(n.indexOf('.') + 1 || n.length)) exists.add(n);
  }
  for (const ns of zone.namespaces) exists.add(`${ns}.svc.${zone.domain}`);
  return { zone, names, exists, namespaces: new Set(zone.namespaces) };
}

const inZone = (name: string, domain: string): boolean => name === domain || name.endsWith(`.${domain}`);
const isReverse = (name: string): boolean => inZone(name, 'in-addr.arpa') || inZone(name, 'ip6.arpa');

/** `10-244-0-5.<ns>.pod.<domain>` → 10.244.0.5 when <ns> exists (CoreDNS `pods insecure`: no pod lookup). */
function podAddress(z: LoadedZone, name: string): string | undefined {
  const suffix = `.pod.${z.zone.domain}`;
  if (!name.endsWith(suffix)) return undefined;
  const labels = name.slice(0, -suffix.length).split('.');
  if (labels.length !== 2 || !z.namespaces.has(labels[1]!)) return undefined;
  const octets = labels[0]!.split('-');
  if (octets.length !== 4 || !octets.every((o) => /^(0|[1-9][0-9]{0,2})$/.test(o) && Number(o) <= 255)) return undefined;
  return octets.join('.');
}

export type Answer = dnsPacket.Answer;

function rr(name: string, ttl: number, r: DnsRecord): Answer {
  switch (r.type) {
    case 'A':
      return { name, type: 'A', ttl, class: 'IN', data: r.address };
    case 'CNAME':
      return { name, type: 'CNAME', ttl, class: 'IN', data: r.target };
    case 'PTR':
      return { name, type: 'PTR', ttl, class: 'IN', data: r.target };
    case 'SRV':
      return { name, type: 'SRV', ttl, class: 'IN', data: { priority: r.priority, weight: r.weight, port: r.port, target: r.target } };
  }
}

function soa(z: LoadedZone): Answer {
  const { domain, ttl, serial } = z.zone;
  // CoreDNS's SOA for the kubernetes zone (plugin/backend_lookup.go SOA): ns.dns.<zone>, hostmaster.<zone>,
  // refresh 7200, retry 1800, expire 86400, minimum the plugin's ttl.
  return {
    name: domain,
    type: 'SOA',
    ttl,
    class: 'IN',
    data: { mname: `ns.dns.${domain}`, rname: `hostmaster.${domain}`, serial, refresh: 7200, retry: 1800, expire: 86400, minimum: ttl },
  };
}

export interface Reply {
  rcode: number;
  aa: boolean;
  /** Recursion available (a resolver's answer: Azure DNS). */
  ra?: boolean;
  /** Not this server's to answer: CoreDNS's `forward` plugin takes it (SERVFAIL when there is no upstream). */
  forward?: true;
  answers: Answer[];
  authorities: Answer[];
  additionals: Answer[];
}

export const empty = (rcode: number, aa: boolean): Reply => ({ rcode, aa, answers: [], authorities: [], additionals: [] });

/** The reply to one question (name as asked, type, class). */
export function resolve(z: LoadedZone, asked: string, type: string, klass: string): Reply {
  const name = dnsName(asked);
  const { domain, ttl } = z.zone;
  if (klass !== 'IN') return { ...empty(RCODE.SERVFAIL, false), forward: true };
  const held = z.names.get(name);
  if (!inZone(name, domain)) {
    if (isReverse(name) && held && (type === 'PTR' || type === 'ANY')) return { ...empty(RCODE.NOERROR, true), answers: held.map((r) => rr(asked, ttl, r)) };
    return { ...empty(RCODE.SERVFAIL, false), forward: true };
  }
  const reply = empty(RCODE.NOERROR, true);
  const nodata = (): Reply => ({ ...reply, authorities: [soa(z)] });
  if (name === domain) {
    if (type === 'SOA') return { ...reply, answers: [{ ...soa(z), name: asked }] };
    if (type === 'NS') return { ...reply, answers: [{ name: asked, type: 'NS', ttl, class: 'IN', data: `ns.dns.${domain}` }] };
    return nodata();
  }
  if (name === `dns-version.${domain}`) {
    return type === 'TXT' || type === 'ANY' ? { ...reply, answers: [{ name: asked, type: 'TXT', ttl, class: 'IN', data: SPEC_VERSION }] } : nodata();
  }
  const pod = podAddress(z, name);
  const records: DnsRecord[] = held ?? (pod ? [{ type: 'A', address: pod }] : []);
  if (records.length === 0 && !z.exists.has(name)) {
    return { ...empty(RCODE.NXDOMAIN, true), authorities: [soa(z)] };
  }
  const cname = records.find((r) => r.type === 'CNAME');
  // An ExternalName Service: its CNAME answers every type; the target lies outside and is not chased (no upstream).
  const matching = cname && type !== 'CNAME' ? [cname] : records.filter((r) => type === 'ANY' || r.type === type);
  if (matching.length === 0) return nodata();
  const additionals: Answer[] = [];
  for (const r of matching) {
    if (r.type !== 'SRV') continue;
    for (const a of z.names.get(r.target) ?? []) if (a.type === 'A') additionals.push(rr(r.target, ttl, a));
  }
  return { ...reply, answers: matching.map((r) => rr(asked, ttl, r)), additionals };
}

/** The 12-byte header of an answer to a packet that could not be decoded: its id and opcode, no sections. */
function bareReply(query: Buffer, rcode: number): Buffer {
  const out = Buffer.alloc(HEADER_BYTES);
  out.writeUInt16BE(query.readUInt16BE(0), 0);
  const flags = query.readUInt16BE(2);
  out.writeUInt16BE(FLAG.QR | (flags & 0x7800) | (flags & FLAG.RD) | rcode, 2);
  return out;
}

/** How one question is answered: the cluster zone's resolve(), or Azure DNS's (azure-dns-answer.ts). */
export type Resolver = (name: string, type: string, klass: string) => Reply;

/**
 * The answer to one DNS message as bytes, or undefined to drop it (too short to carry a header, or itself a
 * response), or 'forward' when `forward` is on and the zone does not hold the name (the server relays it upstream).
 * `udp`: the answer must fit the client's buffer, else it is truncated.
 */
export function answerMessage(z: LoadedZone | undefined, message: Buffer, udp: boolean): Buffer | undefined;
export function answerMessage(z: LoadedZone | undefined, message: Buffer, udp: boolean, forward: boolean): Buffer | 'forward' | undefined;
export function answerMessage(z: LoadedZone | undefined, message: Buffer, udp: boolean, forward = false): Buffer | 'forward' | undefined {
  // No zone yet (the program has not sent one): nothing can be answered, as CoreDNS before its informers synced.
  return answerWith(message, udp, (name, type, klass) => (z ? resolve(z, name, type, klass) : empty(RCODE.SERVFAIL, false)), forward);
}

/** A SERVFAIL answer to a query (its question echoed): what the cluster DNS says when no upstream answered. */
export function servfail(message: Buffer): Buffer | undefined {
  const out = answerWith(message, true, () => empty(RCODE.SERVFAIL, false), false);
  return out === 'forward' ? undefined : out;
}

/** answerMessage with any resolver. */
export function answerWith(message: Buffer, udp: boolean, resolver: Resolver, forward: boolean): Buffer | 'forward' | undefined {
  if (message.length < HEADER_BYTES) return undefined;
  if (message.readUInt16BE(2) & FLAG.QR) return undefined;
  let query: dnsPacket.Packet;
  try {
    query = dnsPacket.decode(message);
  } catch {
    return bareReply(message, RCODE.FORMERR);
  }
  const questions = query.questions ?? [];
  if ((message.readUInt16BE(2) >> 11) & 0xf) return bareReply(message, RCODE.NOTIMP);
  if (questions.length !== 1) return bareReply(message, RCODE.FORMERR);
  const q = questions[0]!;
  if (typeof q.name !== 'string' || q.name.length > 253) return bareReply(message, RCODE.FORMERR);
  const opt = (query.additionals ?? []).find((a) => a.type === 'OPT') as { udpPayloadSize?: number } | undefined;
  const reply = resolver(q.name, String(q.type), String(q.class ?? 'IN'));
  if (reply.forward && forward) return 'forward';
  const flags = (reply.aa ? FLAG.AA : 0) | (reply.ra ? FLAG.RA : 0) | ((query.flags ?? 0) & FLAG.RD) | reply.rcode;
  const edns: Answer[] = opt ? [{ type: 'OPT', name: '.', udpPayloadSize: UDP_MAX } as unknown as Answer] : [];
  const packet = (truncated: boolean): Buffer =>
    dnsPacket.encode({
      type: 'response',
      id: query.id ?? 0,
      flags: flags | (truncated ? FLAG.TC : 0),
      questions: [q],
      answers: truncated ? [] : reply.answers,
      authorities: truncated ? [] : reply.authorities,
      additionals: truncated ? edns : [...reply.additionals, ...edns],
    });
  const full = packet(false);
  const limit = opt ? Math.min(Math.max(opt.udpPayloadSize ?? UDP_DEFAULT, UDP_DEFAULT), UDP_MAX) : UDP_DEFAULT;
  return udp && full.length > limit ? packet(true) : full;
}
