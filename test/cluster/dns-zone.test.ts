// The cluster DNS without a network: the zone built from objects (golden, zone-file lines) and the answers the
// server gives from it (dns-answer.ts) for services, headless endpoints, pod names, SRV, PTR, NXDOMAIN with the
// SOA, names outside cluster.local (left to the forward: SERVFAIL without an upstream), Azure DNS's answers for a
// VNet (docs/dataplane.md §14.4) and hostile packets (docs/dataplane.md §14).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import dnsPacket from 'dns-packet';
import { buildZone, zoneText } from '../../src/cluster/dns/zone.js';
import type { KubeObject } from '../../src/cluster/apimachinery/object.js';
import { loadAzureZone, resolveAzure } from '../../src/dataplane/netns/azure-dns-answer.js';
import { answerMessage, answerWith, loadZone, resolve, servfail } from '../../src/dataplane/netns/dns-answer.js';

const meta = (namespace: string, name: string, labels: Record<string, string> = {}) => ({ namespace, name, uid: `${namespace}-${name}`, labels });
const svc = (namespace: string, name: string, spec: Record<string, unknown>): KubeObject =>
  ({ apiVersion: 'v1', kind: 'Service', metadata: meta(namespace, name), spec }) as unknown as KubeObject;
const slice = (namespace: string, service: string, endpoints: unknown[], ports: unknown[]): KubeObject =>
  ({
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: meta(namespace, `${service}-abcde`, { 'kubernetes.io/service-name': service }),
    addressType: 'IPv4',
    endpoints,
    ports,
  }) as unknown as KubeObject;
const pod = (namespace: string, name: string, spec: Record<string, unknown>): KubeObject =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: meta(namespace, name), spec }) as unknown as KubeObject;
const ready = (ip: string, podName?: string, isReady = true) => ({
  addresses: [ip],
  conditions: { ready: isReady },
  ...(podName ? { targetRef: { kind: 'Pod', namespace: 'default', name: podName } } : {}),
});

const INPUT = {
  serial: 1700000000,
  namespaces: ['default', 'kube-system', 'Bad_NS'],
  services: [
    svc('default', 'web', {
      type: 'ClusterIP',
      clusterIP: '10.0.55.12',
      clusterIPs: ['10.0.55.12'],
      ports: [{ name: 'http', port: 80, protocol: 'TCP' }, { port: 8443 }],
    }),
    svc('default', 'db', { clusterIP: 'None', ports: [{ name: 'pg', port: 5432 }] }),
    svc('default', 'ext', { type: 'ExternalName', externalName: 'Example.COM.' }),
    svc('kube-system', 'kube-dns', {
      clusterIP: '10.0.0.10',
      ports: [
        { name: 'dns', port: 53, protocol: 'UDP' },
        { name: 'dns-tcp', port: 53, protocol: 'TCP' },
      ],
    }),
    svc('default', 'pending', { type: 'ClusterIP' }),
    svc('default', 'UPPER', { clusterIP: '10.0.0.99' }),
  ],
  endpointSlices: [
    slice(
      'default',
      'db',
      [ready('10.244.0.7', 'db-0'), ready('10.244.1.4', 'other'), ready('10.244.1.9', 'db-2', false)],
      [{ name: 'pg', port: 5432, protocol: 'TCP' }],
    ),
    slice('default', 'web', [ready('10.244.0.5')], [{ name: 'http', port: 8080, protocol: 'TCP' }]),
  ],
  pods: [pod('default', 'db-0', { hostname: 'db-0', subdomain: 'db' }), pod('default', 'other', { hostname: 'other', subdomain: 'elsewhere' })],
};

const GOLDEN = `10-244-1-4.db.default.svc.cluster.local. 5 IN A 10.244.1.4
10.0.0.10.in-addr.arpa. 5 IN PTR kube-dns.kube-system.svc.cluster.local.
12.55.0.10.in-addr.arpa. 5 IN PTR web.default.svc.cluster.local.
4.1.244.10.in-addr.arpa. 5 IN PTR 10-244-1-4.db.default.svc.cluster.local.
7.0.244.10.in-addr.arpa. 5 IN PTR db-0.db.default.svc.cluster.local.
_dns-tcp._tcp.kube-dns.kube-system.svc.cluster.local. 5 IN SRV 0 100 53 kube-dns.kube-system.svc.cluster.local.
_dns._udp.kube-dns.kube-system.svc.cluster.local. 5 IN SRV 0 100 53 kube-dns.kube-system.svc.cluster.local.
_http._tcp.web.default.svc.cluster.local. 5 IN SRV 0 100 80 web.default.svc.cluster.local.
_pg._tcp.db.default.svc.cluster.local. 5 IN SRV 0 50 5432 10-244-1-4.db.default.svc.cluster.local.
_pg._tcp.db.default.svc.cluster.local. 5 IN SRV 0 50 5432 db-0.db.default.svc.cluster.local.
db-0.db.default.svc.cluster.local. 5 IN A 10.244.0.7
db.default.svc.cluster.local. 5 IN A 10.244.0.7
db.default.svc.cluster.local. 5 IN A 10.244.1.4
db.default.svc.cluster.local. 5 IN SRV 0 50 5432 10-244-1-4.db.default.svc.cluster.local.
db.default.svc.cluster.local. 5 IN SRV 0 50 5432 db-0.db.default.svc.cluster.local.
ext.default.svc.cluster.local. 5 IN CNAME example.com.
kube-dns.kube-system.svc.cluster.local. 5 IN A 10.0.0.10
kube-dns.kube-system.svc.cluster.local. 5 IN SRV 0 100 53 kube-dns.kube-system.svc.cluster.local.
web.default.svc.cluster.local. 5 IN A 10.0.55.12
web.default.svc.cluster.local. 5 IN SRV 0 50 80 web.default.svc.cluster.local.
web.default.svc.cluster.local. 5 IN SRV 0 50 8443 web.default.svc.cluster.local.`;

const zone = loadZone(buildZone(INPUT));
const ask = (name: string, type: string) => resolve(zone, name, type, 'IN');
const data = (answers: dnsPacket.Answer[]) => answers.map((a) => `${a.name} ${a.type} ${JSON.stringify((a as { data?: unknown }).data)}`);

describe('cluster DNS zone', () => {
  it('builds the zone CoreDNS serves (golden)', () => {
    assert.equal(zoneText(buildZone(INPUT)), GOLDEN);
    assert.deepEqual(buildZone(INPUT).namespaces, ['default', 'kube-system']);
  });

  it('answers a Service A with its ClusterIP, authoritatively, with the asked case', () => {
    const r = ask('Web.default.svc.cluster.local', 'A');
    assert.equal(r.rcode, 0);
    assert.equal(r.aa, true);
    assert.deepEqual(data(r.answers), ['Web.default.svc.cluster.local A "10.0.55.12"']);
  });

  it('answers a headless Service with its ready endpoints and each endpoint by hostname', () => {
    assert.deepEqual(data(ask('db.default.svc.cluster.local', 'A').answers), [
      'db.default.svc.cluster.local A "10.244.0.7"',
      'db.default.svc.cluster.local A "10.244.1.4"',
    ]);
    assert.deepEqual(data(ask('db-0.db.default.svc.cluster.local', 'A').answers), ['db-0.db.default.svc.cluster.local A "10.244.0.7"']);
  });

  it('answers SRV with the targets A records as additionals', () => {
    const r = ask('_pg._tcp.db.default.svc.cluster.local', 'SRV');
    assert.equal(r.answers.length, 2);
    assert.deepEqual(data(r.additionals).sort(), [
      '10-244-1-4.db.default.svc.cluster.local A "10.244.1.4"',
      'db-0.db.default.svc.cluster.local A "10.244.0.7"',
    ]);
    assert.deepEqual(data(ask('_http._tcp.web.default.svc.cluster.local', 'SRV').answers), [
      '_http._tcp.web.default.svc.cluster.local SRV {"priority":0,"weight":100,"port":80,"target":"web.default.svc.cluster.local"}',
    ]);
  });

  it('answers PTR for ClusterIPs and endpoint addresses; other reverse names fall through to an upstream that is not there', () => {
    assert.deepEqual(data(ask('12.55.0.10.in-addr.arpa', 'PTR').answers), ['12.55.0.10.in-addr.arpa PTR "web.default.svc.cluster.local"']);
    assert.deepEqual(data(ask('7.0.244.10.in-addr.arpa', 'PTR').answers), ['7.0.244.10.in-addr.arpa PTR "db-0.db.default.svc.cluster.local"']);
    assert.equal(ask('9.9.9.10.in-addr.arpa', 'PTR').rcode, 2);
  });

  it('answers pod A records from the name in namespaces that exist (pods insecure)', () => {
    assert.deepEqual(data(ask('10-244-3-7.default.pod.cluster.local', 'A').answers), ['10-244-3-7.default.pod.cluster.local A "10.244.3.7"']);
    assert.equal(ask('10-244-3-7.nowhere.pod.cluster.local', 'A').rcode, 3);
    assert.equal(ask('10-244-3-700.default.pod.cluster.local', 'A').rcode, 3);
    const aaaa = ask('10-244-3-7.default.pod.cluster.local', 'AAAA');
    assert.equal(aaaa.rcode, 0);
    assert.equal(aaaa.answers.length, 0);
  });

  it('says NXDOMAIN with the SOA for unknown names, NODATA with the SOA for names that exist without that type', () => {
    const nx = ask('nope.default.svc.cluster.local', 'A');
    assert.equal(nx.rcode, 3);
    assert.deepEqual(data(nx.authorities), [
      'cluster.local SOA {"mname":"ns.dns.cluster.local","rname":"hostmaster.cluster.local","serial":1700000000,"refresh":7200,"retry":1800,"expire":86400,"minimum":5}',
    ]);
    const nodata = ask('web.default.svc.cluster.local', 'AAAA');
    assert.equal(nodata.rcode, 0);
    assert.equal(nodata.authorities.length, 1);
    assert.equal(ask('default.svc.cluster.local', 'A').rcode, 0);
    assert.equal(ask('svc.cluster.local', 'A').rcode, 0);
    assert.equal(ask('cluster.local', 'SOA').answers.length, 1);
    const empty = loadZone(buildZone({ ...INPUT, endpointSlices: [] }));
    assert.deepEqual(
      [resolve(empty, 'db.default.svc.cluster.local', 'A', 'IN').rcode, resolve(empty, 'db.default.svc.cluster.local', 'A', 'IN').answers.length],
      [0, 0],
      'a headless Service without ready endpoints exists (NODATA)',
    );
    assert.equal(ask('pending.default.svc.cluster.local', 'A').rcode, 0);
  });

  it('answers an ExternalName Service with its CNAME, not chased', () => {
    assert.deepEqual(data(ask('ext.default.svc.cluster.local', 'A').answers), ['ext.default.svc.cluster.local CNAME "example.com"']);
  });

  it('leaves names outside cluster.local to the forward plugin: SERVFAIL, not authoritative, when nothing is forwarded', () => {
    const r = ask('www.example.com', 'A');
    assert.equal(r.rcode, 2);
    assert.equal(r.aa, false);
    assert.equal(r.forward, true);
    assert.equal(resolve(zone, 'version.bind', 'TXT', 'CH').rcode, 2);
    assert.equal(ask('web.default.svc.cluster.local', 'A').forward, undefined);
  });
});

describe('cluster DNS messages', () => {
  const decode = (b: Buffer) => dnsPacket.decode(b) as dnsPacket.DecodedPacket & { rcode?: string };
  const query = (name: string, type: dnsPacket.RecordType, extra: Partial<dnsPacket.Packet> = {}) =>
    dnsPacket.encode({ type: 'query', id: 4242, flags: dnsPacket.RECURSION_DESIRED, questions: [{ name, type, class: 'IN' }], ...extra });

  it('answers a well-formed query with id, RD echoed, AA set, no RA', () => {
    const out = decode(answerMessage(zone, query('web.default.svc.cluster.local', 'A'), true)!);
    assert.equal(out.id, 4242);
    assert.equal(out.flag_aa, true);
    assert.equal(out.flag_rd, true);
    assert.equal(out.flag_ra, false);
    assert.equal(out.rcode, 'NOERROR');
    assert.equal(out.answers?.length, 1);
  });

  it("says 'forward' for a name outside the zone when the server forwards (and SERVFAIL when it does not)", () => {
    assert.equal(answerMessage(zone, query('www.example.com', 'A'), true, true), 'forward');
    assert.equal(decode(answerMessage(zone, query('www.example.com', 'A'), true)!).rcode, 'SERVFAIL');
    assert.notEqual(answerMessage(zone, query('web.default.svc.cluster.local', 'A'), true, true), 'forward');
    const failed = decode(servfail(query('www.example.com', 'A'))!);
    assert.deepEqual([failed.id, failed.rcode, failed.questions?.[0]?.name], [4242, 'SERVFAIL', 'www.example.com']);
  });

  it("Azure DNS: a VNet's internal name and a public name it holds, NXDOMAIN for the rest; recursion available, not authoritative", () => {
    const azure = loadAzureZone({
      records: [
        ['aks-nodepool1-12345678-vmss000000.abc.ix.internal.cloudapp.net', ['10.224.0.4']],
        ['k1-dns-1234.hcp.eastus.azmk8s.io', ['198.18.3.4']],
      ],
    });
    const ask = (name: string, type: dnsPacket.RecordType) =>
      decode(answerWith(query(name, type), true, (n, t, k) => resolveAzure(azure, n, t, k), false) as Buffer);
    const node = ask('AKS-nodepool1-12345678-vmss000000.abc.ix.internal.cloudapp.net.', 'A');
    assert.deepEqual(
      [node.rcode, node.flag_ra, node.flag_aa, node.answers?.map((a) => (a as { data?: unknown }).data)],
      ['NOERROR', true, false, ['10.224.0.4']],
    );
    assert.deepEqual(
      ask('k1-dns-1234.hcp.eastus.azmk8s.io', 'A').answers?.map((a) => (a as { data?: unknown }).data),
      ['198.18.3.4'],
    );
    const aaaa = ask('k1-dns-1234.hcp.eastus.azmk8s.io', 'AAAA');
    assert.deepEqual([aaaa.rcode, aaaa.answers?.length], ['NOERROR', 0]);
    for (const name of ['web.default.svc.cluster.local.abc.ix.internal.cloudapp.net', 'nosuch.abc.ix.internal.cloudapp.net', 'www.example.com']) {
      const nx = ask(name, 'A');
      assert.deepEqual([nx.rcode, nx.flag_ra], ['NXDOMAIN', true], name);
    }
    assert.equal(resolveAzure(azure, 'version.bind', 'TXT', 'CH').rcode, 5);
  });

  it('truncates a UDP answer larger than 512 bytes, and sends it whole over TCP', () => {
    const many = buildZone({
      ...INPUT,
      endpointSlices: [
        slice(
          'default',
          'db',
          Array.from({ length: 60 }, (_, i) => ready(`10.244.2.${i + 1}`)),
          [{ name: 'pg', port: 5432 }],
        ),
      ],
    });
    const big = loadZone(many);
    const udp = decode(answerMessage(big, query('db.default.svc.cluster.local', 'A'), true)!);
    assert.equal(udp.flag_tc, true);
    assert.equal(udp.answers?.length, 0);
    const tcp = decode(answerMessage(big, query('db.default.svc.cluster.local', 'A'), false)!);
    assert.equal(tcp.answers?.length, 60);
  });

  it('answers hostile packets with FORMERR or NOTIMP, or drops them; never throws', () => {
    assert.equal(answerMessage(zone, Buffer.from([1, 2, 3]), true), undefined);
    const garbage = Buffer.concat([Buffer.from([0x12, 0x34, 0x01, 0x00, 0x00, 0x01, 0, 0, 0, 0, 0, 0]), Buffer.from([0xc0, 0x0c, 0xc0, 0x0c])]);
    const formerr = decode(answerMessage(zone, garbage, true)!);
    assert.equal(formerr.id, 0x1234);
    assert.equal(formerr.rcode, 'FORMERR');
    const two = dnsPacket.encode({
      type: 'query',
      id: 7,
      questions: [
        { name: 'a', type: 'A' },
        { name: 'b', type: 'A' },
      ],
    });
    assert.equal(decode(answerMessage(zone, two, true)!).rcode, 'FORMERR');
    const response = dnsPacket.encode({ type: 'response', id: 8, questions: [{ name: 'a', type: 'A' }] });
    assert.equal(answerMessage(zone, response, true), undefined);
    const update = Buffer.from(query('a.cluster.local', 'A'));
    update.writeUInt16BE((5 << 11) | 0x0100, 2);
    assert.equal(decode(answerMessage(zone, update, true)!).rcode, 'NOTIMP');
    for (let i = 0; i < 2000; i++) {
      const b = Buffer.from(query('web.default.svc.cluster.local', 'SRV'));
      for (let k = 0; k < 3; k++) b[12 + ((i * 7 + k * 13) % (b.length - 12))] = (i * 31 + k) & 0xff;
      answerMessage(zone, b, true);
    }
    assert.equal(decode(answerMessage(undefined, query('web.default.svc.cluster.local', 'A'), true)!).rcode, 'SERVFAIL');
  });
});
