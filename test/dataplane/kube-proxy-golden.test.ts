// kube-proxy's rules as nft text (docs/dataplane.md §12): the whole table, and the partial transactions an
// endpoint change or a timeout change gives. Golden files: test/fixtures/kube-proxy/ (UPDATE_GOLDEN=1 rewrites them).
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { proxyScript, renderProxy } from '../../src/dataplane/netns/kube-proxy-rules.js';
import { checkNodeServices } from '../../src/dataplane/services.js';
import { sampleServices } from './kube-proxy-sample.js';

const DIR = fileURLToPath(new URL('../../../test/fixtures/kube-proxy/', import.meta.url));

function golden(name: string, text: string): void {
  if (process.env['UPDATE_GOLDEN']) writeFileSync(DIR + name, text);
  assert.equal(text, readFileSync(DIR + name, 'utf8'), `${name} differs`);
}

test('the whole table: ClusterIP with affinity, NodePort eTP Local, no endpoints, iTP Local without local endpoints', () => {
  const t = sampleServices();
  golden('full.nft', proxyScript(t, renderProxy(t), undefined));
});

test("chain names are kube-proxy's (hash of the name, base32, 8 characters)", () => {
  const t = sampleServices();
  t.ports = [{ ...t.ports[0]!, namespace: 'ns1', name: 'svc1', portName: 'p80', clusterEndpoints: [{ ip: '10.180.0.1', port: 80 }] }];
  delete t.ports[0]!.affinitySeconds;
  // proxier.go's own examples: ULMVA6XW-ns1/svc1/tcp/p80 and 5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80.
  assert.deepEqual([...renderProxy(t).chains.keys()].sort(), [
    'endpoint-5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80',
    'external-ULMVA6XW-ns1/svc1/tcp/p80',
    'service-ULMVA6XW-ns1/svc1/tcp/p80',
  ]);
});

test('one endpoint going and a timeout changing is a small transaction; nothing changed is none', () => {
  const t = sampleServices();
  const before = renderProxy(t);
  assert.equal(proxyScript(t, renderProxy(t), before), '');
  const t2 = sampleServices();
  t2.ports[0]!.clusterEndpoints.pop();
  t2.ports[0]!.affinitySeconds = 60;
  golden('partial.nft', proxyScript(t2, renderProxy(t2), before));
  const t3 = sampleServices();
  t3.clusterCidr = '10.245.0.0/16';
  assert.match(proxyScript(t3, renderProxy(t3), before), /^add table ip aksemu_proxy\ndelete table/, 'a new cluster CIDR reloads the table');
});

test('hostile values never reach the nft text', () => {
  for (const bad of [
    { name: 'x"; flush ruleset' },
    { clusterIp: '10.0.0.1 } ; flush ruleset' },
    { port: 70000 },
    { portName: 'A b' },
    { clusterEndpoints: [{ ip: '1.2.3.4', port: 0 }] },
    { affinitySeconds: 1e9 },
  ]) {
    const t = sampleServices();
    t.ports[0] = { ...t.ports[0]!, ...bad } as never;
    assert.throws(() => checkNodeServices(t), Error, JSON.stringify(bad));
  }
  assert.throws(() => checkNodeServices({ ...sampleServices(), clusterCidr: '10.0.0.0/16 ; x' }));
});

test('a LoadBalancer ingress IP goes to the port external chain (proxier.go: LoadBalancerVIPs in service-ips), or is dropped without endpoints', () => {
  const t = sampleServices();
  const nodePort = t.ports.find((p) => p.nodePort !== undefined && p.hasEndpoints)!;
  nodePort.loadBalancerIps = ['198.19.0.5'];
  const m = renderProxy(t);
  const entry = [...m.elements['service-ips']].find(([k]) => k.startsWith('198.19.0.5 . '));
  assert.ok(entry, 'the ingress IP is in service-ips');
  assert.match(entry[1], /^goto external-/);
  nodePort.hasEndpoints = false;
  nodePort.clusterEndpoints = [];
  nodePort.localEndpoints = [];
  const none = renderProxy(t);
  assert.equal(
    [...none.elements['service-ips'].keys()].some((k) => k.startsWith('198.19.0.5 . ')),
    false,
  );
  assert.match(
    none.elements['no-endpoint-services'].get([...none.elements['no-endpoint-services'].keys()].find((k) => k.startsWith('198.19.0.5 . '))!)!,
    /^goto reject-chain/,
  );
  for (const bad of [['198.19.0.5; flush ruleset'], ['2001:2::1'], 'x']) {
    const u = sampleServices();
    u.ports[0] = { ...u.ports[0]!, loadBalancerIps: bad } as never;
    assert.throws(() => checkNodeServices(u), Error, JSON.stringify(bad));
  }
});
