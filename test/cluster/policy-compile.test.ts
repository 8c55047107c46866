// Golden tests of the NetworkPolicy compiler (src/cluster/network-policy/policy-compile.ts, docs/dataplane.md §13):
// policies, pods and namespaces in, one NodePolicies table per node out.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compilePolicies, policyTypes } from '../../src/cluster/network-policy/policy-compile.js';
import type { KubeObject } from '../../src/cluster/apimachinery/object.js';

const CLUSTER = 'c1';

function ns(name: string, labels: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { 'kubernetes.io/metadata.name': name, ...labels } } };
}

function pod(namespace: string, name: string, node: string, ip: string, labels: Record<string, string>, extra: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { namespace, name, labels },
    spec: {
      nodeName: node,
      containers: [{ name: 'c', ...(extra['ports'] ? { ports: extra['ports'] } : {}) }],
      ...(extra['hostNetwork'] ? { hostNetwork: true } : {}),
    },
    status: { phase: (extra['phase'] as string) ?? 'Running', podIP: ip, podIPs: [{ ip }] },
  } as KubeObject;
}

function policy(namespace: string, name: string, spec: Record<string, unknown>): KubeObject {
  return { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { namespace, name }, spec } as KubeObject;
}

const NAMESPACES = [ns('default'), ns('prod', { team: 'a' }), ns('dev', { team: 'b' })];
const PODS = [
  pod('default', 'web-0', 'n0', '10.244.0.2', { app: 'web' }, { ports: [{ name: 'http', containerPort: 8080 }] }),
  pod('default', 'web-1', 'n1', '10.244.1.2', { app: 'web' }, { ports: [{ name: 'http', containerPort: 9090 }] }),
  pod('default', 'client', 'n0', '10.244.0.3', { app: 'client' }),
  pod('prod', 'api', 'n1', '10.244.1.3', { app: 'api' }, { ports: [{ name: 'dns', containerPort: 53, protocol: 'UDP' }] }),
  pod('dev', 'api', 'n1', '10.244.1.4', { app: 'api' }),
  pod('default', 'done', 'n0', '10.244.0.9', { app: 'web' }, { phase: 'Succeeded' }),
  pod('default', 'hostnet', 'n0', '10.224.0.4', { app: 'web' }, { hostNetwork: true }),
];

const compile = (policies: KubeObject[], pods = PODS) => Object.fromEntries(compilePolicies({ clusterId: CLUSTER, policies, pods, namespaces: NAMESPACES }));
const empty = { clusterId: CLUSTER, ingressIsolated: [], egressIsolated: [], ingress: [], egress: [] };

describe('NetworkPolicy compiler', () => {
  it('policyTypes defaults to Ingress, plus Egress only when egress rules exist', () => {
    assert.deepEqual(policyTypes({}), { ingress: true, egress: false });
    assert.deepEqual(policyTypes({ egress: [] }), { ingress: true, egress: false });
    assert.deepEqual(policyTypes({ egress: [{}] }), { ingress: true, egress: true });
    assert.deepEqual(policyTypes({ policyTypes: ['Egress'], ingress: [{}] }), { ingress: false, egress: true });
  });

  it('no policy: no table; a policy selecting no pod: no table', () => {
    assert.deepEqual(compile([]), {});
    assert.deepEqual(compile([policy('default', 'p', { podSelector: { matchLabels: { app: 'none' } } })]), {});
  });

  it('default deny ingress isolates every pod of the namespace on its node, and allows nothing', () => {
    assert.deepEqual(compile([policy('default', 'deny', { podSelector: {} })]), {
      n0: { ...empty, ingressIsolated: ['10.244.0.2', '10.244.0.3'] },
      n1: { ...empty, ingressIsolated: ['10.244.1.2'] },
    });
  });

  it('default deny egress (policyTypes Egress, no rules)', () => {
    assert.deepEqual(compile([policy('prod', 'deny', { podSelector: {}, policyTypes: ['Egress'] })]), {
      n1: { ...empty, egressIsolated: ['10.244.1.3'] },
    });
  });

  it('an allow rule with a podSelector: the local pods it is for, the peer pods of the namespace, the ports', () => {
    const t = compile([
      policy('default', 'deny', { podSelector: {} }),
      policy('default', 'allow', {
        podSelector: { matchLabels: { app: 'web' } },
        ingress: [{ from: [{ podSelector: { matchLabels: { app: 'client' } } }], ports: [{ port: 80 }] }],
      }),
    ]);
    const peers = { addresses: ['10.244.0.3'], blocks: [] };
    assert.deepEqual(t['n0']!.ingress, [{ rule: 'default/allow ingress 0', pods: ['10.244.0.2'], peers, ports: [{ protocol: 'TCP', port: 80 }] }]);
    assert.deepEqual(t['n1']!.ingress, [{ rule: 'default/allow ingress 0', pods: ['10.244.1.2'], peers, ports: [{ protocol: 'TCP', port: 80 }] }]);
  });

  it('namespaceSelector alone, both selectors, and an empty from (anyone)', () => {
    const t = compile([
      policy('default', 'ns', {
        podSelector: { matchLabels: { app: 'web' } },
        ingress: [
          { from: [{ namespaceSelector: { matchLabels: { team: 'a' } } }] },
          { from: [{ namespaceSelector: {}, podSelector: { matchLabels: { app: 'api' } } }] },
          {},
        ],
      }),
    ]);
    assert.deepEqual(t['n0']!.ingress, [
      { rule: 'default/ns ingress 0', pods: ['10.244.0.2'], peers: { addresses: ['10.244.1.3'], blocks: [] } },
      { rule: 'default/ns ingress 1', pods: ['10.244.0.2'], peers: { addresses: ['10.244.1.3', '10.244.1.4'], blocks: [] } },
      { rule: 'default/ns ingress 2', pods: ['10.244.0.2'] },
    ]);
  });

  it('a peer that selects nothing allows nothing (the rule is dropped, the pod stays isolated)', () => {
    const t = compile([
      policy('default', 'p', { podSelector: { matchLabels: { app: 'client' } }, ingress: [{ from: [{ podSelector: { matchLabels: { app: 'nobody' } } }] }] }),
    ]);
    assert.deepEqual(t, { n0: { ...empty, ingressIsolated: ['10.244.0.3'] } });
  });

  it('ipBlock with except: IPv4 only, except entries outside the block dropped, IPv6 left out', () => {
    const t = compile([
      policy('default', 'p', {
        podSelector: { matchLabels: { app: 'client' } },
        ingress: [{ from: [{ ipBlock: { cidr: '10.224.0.0/16', except: ['10.224.0.100/32', '192.168.0.0/24'] } }, { ipBlock: { cidr: 'fd00::/64' } }] }],
      }),
    ]);
    assert.deepEqual(t['n0']!.ingress, [
      { rule: 'default/p ingress 0', pods: ['10.244.0.3'], peers: { addresses: [], blocks: [{ cidr: '10.224.0.0/16', except: ['10.224.0.100/32'] }] } },
    ]);
  });

  it('named ports resolve per destination pod (ingress: the selected pod), port ranges and protocols', () => {
    const t = compile([
      policy('default', 'p', {
        podSelector: { matchLabels: { app: 'web' } },
        ingress: [{ ports: [{ port: 'http' }, { protocol: 'UDP', port: 5000, endPort: 5010 }, { protocol: 'SCTP' }] }],
      }),
    ]);
    assert.deepEqual(t['n0']!.ingress, [
      {
        rule: 'default/p ingress 0',
        pods: ['10.244.0.2'],
        ports: [{ protocol: 'TCP', port: 8080 }, { protocol: 'UDP', port: 5000, endPort: 5010 }, { protocol: 'SCTP' }],
      },
    ]);
    assert.deepEqual(t['n1']!.ingress[0]!.ports![0], { protocol: 'TCP', port: 9090 });
  });

  it('a named port no selected pod has (or with the wrong protocol) matches nothing', () => {
    const t = compile([policy('prod', 'p', { podSelector: {}, ingress: [{ ports: [{ port: 'dns' }] }] })]);
    assert.deepEqual(t, { n1: { ...empty, ingressIsolated: ['10.244.1.3'] } });
  });

  it('egress: named ports resolve per peer pod; an ipBlock peer takes numeric ports only', () => {
    const t = compile([
      policy('default', 'e', {
        podSelector: { matchLabels: { app: 'client' } },
        policyTypes: ['Egress'],
        egress: [
          { to: [{ podSelector: { matchLabels: { app: 'web' } } }, { ipBlock: { cidr: '198.51.100.0/24' } }], ports: [{ port: 'http' }, { port: 443 }] },
          { to: [{ namespaceSelector: { matchLabels: { team: 'a' } } }], ports: [{ protocol: 'UDP', port: 'dns' }] },
          { ports: [{ protocol: 'UDP', port: 'dns' }] },
        ],
      }),
    ]);
    assert.deepEqual(t['n0'], {
      ...empty,
      egressIsolated: ['10.244.0.3'],
      egress: [
        {
          rule: 'default/e egress 0',
          pods: ['10.244.0.3'],
          peers: { addresses: ['10.244.0.2'], blocks: [] },
          ports: [
            { protocol: 'TCP', port: 8080 },
            { protocol: 'TCP', port: 443 },
          ],
        },
        {
          rule: 'default/e egress 0',
          pods: ['10.244.0.3'],
          peers: { addresses: ['10.244.1.2'], blocks: [] },
          ports: [
            { protocol: 'TCP', port: 9090 },
            { protocol: 'TCP', port: 443 },
          ],
        },
        {
          rule: 'default/e egress 0',
          pods: ['10.244.0.3'],
          peers: { addresses: [], blocks: [{ cidr: '198.51.100.0/24', except: [] }] },
          ports: [{ protocol: 'TCP', port: 443 }],
        },
        { rule: 'default/e egress 1', pods: ['10.244.0.3'], peers: { addresses: ['10.244.1.3'], blocks: [] }, ports: [{ protocol: 'UDP', port: 53 }] },
        { rule: 'default/e egress 2', pods: ['10.244.0.3'], peers: { addresses: ['10.244.1.3'], blocks: [] }, ports: [{ protocol: 'UDP', port: 53 }] },
      ],
    });
  });

  it('hostile input: wrong types and values the apiserver refuses match nothing and never throw', () => {
    const t = compile([
      policy('default', 'bad', {
        podSelector: 'x',
        policyTypes: 'Ingress',
        ingress: [
          { from: 'x', ports: [{ port: 0 }, { port: 70000 }, { protocol: 'ICMP', port: 1 }, { port: 80, endPort: 79 }, { port: 'http', endPort: 90 }] },
          { from: [{ ipBlock: { cidr: 'nonsense' } }, {}] },
          null,
        ],
      }),
      policy('default', '__proto__', { podSelector: { matchLabels: { constructor: 'x' } } }),
    ]);
    assert.deepEqual(t['n0'], {
      ...empty,
      ingressIsolated: ['10.244.0.2', '10.244.0.3'],
      ingress: [{ rule: 'default/bad ingress 2', pods: ['10.244.0.2', '10.244.0.3'] }],
    });
  });
});
