// Golden rendering of a node's NetworkPolicy table as nftables (src/dataplane/netns/network-policy.ts,
// docs/dataplane.md §13); the netns tests (network-policy.test.ts) load such tables into real namespaces.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { policyTableBody } from '../../src/dataplane/netns/network-policy.js';

it('an empty table renders no nft table at all', () => {
  assert.equal(policyTableBody({ clusterId: 'c', ingressIsolated: [], egressIsolated: [], ingress: [], egress: [] }), undefined);
});

it('isolated pods as sets, egress before ingress, peers × protocols per allow, a counted drop at the end', () => {
  const body = policyTableBody({
    clusterId: 'c',
    ingressIsolated: ['10.244.0.2', '10.244.0.3'],
    egressIsolated: ['10.244.0.3'],
    ingress: [
      {
        rule: 'default/web ingress 0',
        pods: ['10.244.0.2'],
        peers: { addresses: ['10.244.0.3', '10.244.1.3'], blocks: [{ cidr: '10.0.0.0/8', except: ['10.244.0.2/32'] }] },
        ports: [{ protocol: 'TCP', port: 8080 }, { protocol: 'TCP', port: 9000, endPort: 9100 }, { protocol: 'UDP' }],
      },
    ],
    egress: [{ rule: 'default/client egress 0', pods: ['10.244.0.3'], peers: { addresses: [], blocks: [{ cidr: '10.224.0.100/32', except: [] }] } }],
  });
  assert.equal(
    body,
    `  set ingress_isolated {
    type ipv4_addr; flags interval;
    elements = { 10.244.0.2/32, 10.244.0.3/32 }
  }
  set egress_isolated {
    type ipv4_addr; flags interval;
    elements = { 10.244.0.3/32 }
  }
  chain forward {
    type filter hook forward priority filter; policy accept;
    ct state established,related accept
    ip saddr @egress_isolated jump egress
    ip daddr @ingress_isolated jump ingress
  }
  chain egress {
    ip saddr { 10.244.0.3/32 } ip daddr 10.224.0.100/32 return comment "default/client egress 0"
    counter drop comment "egress not allowed by any NetworkPolicy"
  }
  chain ingress {
    ip daddr { 10.244.0.2/32 } ip saddr { 10.244.0.3/32, 10.244.1.3/32 } tcp dport { 8080, 9000-9100 } accept comment "default/web ingress 0"
    ip daddr { 10.244.0.2/32 } ip saddr { 10.244.0.3/32, 10.244.1.3/32 } meta l4proto udp accept comment "default/web ingress 0"
    ip daddr { 10.244.0.2/32 } ip saddr 10.0.0.0/8 ip saddr != { 10.244.0.2/32 } tcp dport { 8080, 9000-9100 } accept comment "default/web ingress 0"
    ip daddr { 10.244.0.2/32 } ip saddr 10.0.0.0/8 ip saddr != { 10.244.0.2/32 } meta l4proto udp accept comment "default/web ingress 0"
    counter drop comment "ingress not allowed by any NetworkPolicy"
  }`,
  );
});

it('a comment keeps only characters nft takes unescaped, bounded', () => {
  const body = policyTableBody({
    clusterId: 'c',
    ingressIsolated: ['10.0.0.1'],
    egressIsolated: [],
    ingress: [{ rule: `ns/"x";${'y'.repeat(300)}`, pods: ['10.0.0.1'] }],
    egress: [],
  })!;
  const line = body.split('\n').find((l) => l.includes('accept comment'))!;
  assert.match(line, /accept comment "ns\/_x__y{113}"$/);
});
