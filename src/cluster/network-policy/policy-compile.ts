// NetworkPolicies, Pods and Namespaces → one NodePolicies table per node (docs/dataplane.md §13): the selectors
// resolved to addresses, named ports to numbers, as a policy engine's agent computes them for its node. Pure.
//
// Semantics from the NetworkPolicy API (k8s.io/api networking/v1/types.go, the field docs of NetworkPolicySpec,
// NetworkPolicyPeer, NetworkPolicyPort and IPBlock; pkg/apis/networking/v1/defaults.go for policyTypes):
// - a pod is isolated for a direction once any policy of that type selects it; then only what some rule of
//   those policies allows passes (the union); a policy of that type with no rules allows nothing;
// - policyTypes absent: Ingress, plus Egress when the policy has egress rules;
// - `from`/`to` absent or empty: any address; `ports` absent or empty: any port;
// - a peer's podSelector alone selects pods of the policy's namespace; namespaceSelector alone every pod of the
//   namespaces it selects; both, the pods it selects in those namespaces; ipBlock a CIDR minus its `except`;
// - a port's protocol defaults to TCP; no port means every port of the protocol; `endPort` makes a range;
//   a named port is looked up in the destination pod's containerPorts (name and protocol), so it resolves
//   per pod and matches nothing where the pod has no such port (nor for an ipBlock destination).
// The data plane carries IPv4 only (docs/dataplane.md §1): IPv6 addresses and blocks are left out.
// Stored objects are user input: every field is read defensively, and what the apiserver would have refused
// matches nothing rather than everything.
import { Cidr } from '../../net/ip.js';
import { own } from '../../http/own.js';
import type { NodePolicies, PolicyAllow, PolicyPeers, PolicyPort, PolicyProtocol } from '../../dataplane/policies.js';
import type { KubeObject } from '../apimachinery/object.js';
import type { Pod } from '../apimachinery/types.js';
import { labelSelectorMatches } from '../apimachinery/selectors.js';

export interface PolicyInput {
  clusterId: string;
  policies: readonly KubeObject[];
  pods: readonly KubeObject[];
  namespaces: readonly KubeObject[];
}

type Selector = Parameters<typeof labelSelectorMatches>[0];

/** A pod a policy can select or name as a peer: on a node, on the pod network, with an IPv4 address. */
interface PolicyPod {
  namespace: string;
  node: string;
  ip: string;
  labels: Record<string, string> | undefined;
  pod: Pod;
}

const PROTOCOLS: readonly PolicyProtocol[] = ['TCP', 'UDP', 'SCTP'];
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const ipKey = (ip: string): number => ip.split('.').reduce((n, o) => n * 256 + Number(o), 0);
const byIp = (a: string, b: string): number => ipKey(a) - ipKey(b);

function policyPods(pods: readonly KubeObject[]): PolicyPod[] {
  const out: PolicyPod[] = [];
  for (const obj of pods) {
    const pod = obj as Pod;
    const phase = pod.status?.phase;
    const node = pod.spec?.nodeName;
    // Host-network pods have the node's address: policies neither select them nor name them as peers.
    if (!node || pod.spec?.hostNetwork === true || phase === 'Succeeded' || phase === 'Failed') continue;
    const ips = [pod.status?.podIP, ...list(pod.status?.podIPs).map((p) => own<string>(p, 'ip'))];
    const ip = ips.find((a): a is string => typeof a === 'string' && IPV4.test(a));
    if (ip) out.push({ namespace: obj.metadata.namespace ?? '', node, ip, labels: obj.metadata.labels, pod });
  }
  return out.sort((a, b) => byIp(a.ip, b.ip));
}

/** A selector field as the API decodes it: absent is `{}` where the field is a required struct. */
function selector(v: unknown): Selector {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Selector) : {};
}

/** policyTypes, or its default (pkg/apis/networking/v1/defaults.go). */
export function policyTypes(spec: unknown): { ingress: boolean; egress: boolean } {
  const types = list(own(spec, 'policyTypes'));
  if (types.length > 0) return { ingress: types.includes('Ingress'), egress: types.includes('Egress') };
  return { ingress: true, egress: list(own(spec, 'egress')).length > 0 };
}

function ipBlock(v: unknown): PolicyPeers['blocks'][number] | undefined {
  const parse = (text: unknown): Cidr | undefined => {
    if (typeof text !== 'string') return undefined;
    try {
      return Cidr.parse(text, { canonical: false });
    } catch {
      return undefined;
    }
  };
  const cidr = parse(own(v, 'cidr'));
  if (!cidr || cidr.family !== 4) return undefined;
  const except: string[] = [];
  for (const e of list(own(v, 'except'))) {
    const c = parse(e);
    if (c?.family === 4 && cidr.containsCidr(c)) except.push(c.toString());
  }
  return { cidr: cidr.toString(), except: [...new Set(except)].sort() };
}

/** The peers of a rule; undefined when the rule names none (any address). */
function resolvePeers(raw: unknown, namespace: string, pods: PolicyPod[], namespaces: Map<string, KubeObject>): PolicyPeers | undefined {
  const peers = list(raw);
  if (peers.length === 0) return undefined;
  const addresses = new Set<string>();
  const blocks: PolicyPeers['blocks'] = [];
  for (const peer of peers) {
    const block = own(peer, 'ipBlock');
    if (block !== undefined) {
      const b = ipBlock(block);
      if (b) blocks.push(b);
      continue;
    }
    const podSel = own(peer, 'podSelector');
    const nsSel = own(peer, 'namespaceSelector');
    if (podSel === undefined && nsSel === undefined) continue;
    const inNamespace = (ns: string): boolean =>
      nsSel === undefined ? ns === namespace : labelSelectorMatches(selector(nsSel), namespaces.get(ns)?.metadata.labels);
    for (const p of pods) {
      if (inNamespace(p.namespace) && (podSel === undefined || labelSelectorMatches(selector(podSel), p.labels))) addresses.add(p.ip);
    }
  }
  return { addresses: [...addresses].sort(byIp), blocks };
}

interface RawPort {
  protocol: PolicyProtocol;
  /** A number, a name, or undefined (every port). */
  port: number | string | undefined;
  endPort?: number;
}

const isPort = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= 65535;

/** The rule's ports; undefined when it names none (any port). An entry the API would refuse is left out. */
function rawPorts(raw: unknown): RawPort[] | undefined {
  const entries = list(raw);
  if (entries.length === 0) return undefined;
  const out: RawPort[] = [];
  for (const e of entries) {
    const protocol = own(e, 'protocol') ?? 'TCP';
    if (!PROTOCOLS.includes(protocol as PolicyProtocol)) continue;
    const port = own(e, 'port');
    const endPort = own(e, 'endPort');
    if (port === undefined || port === null) {
      out.push({ protocol: protocol as PolicyProtocol, port: undefined });
    } else if (typeof port === 'string' && port !== '') {
      // validation refuses endPort with a named port
      if (endPort === undefined) out.push({ protocol: protocol as PolicyProtocol, port });
    } else if (isPort(port)) {
      if (endPort === undefined || endPort === null) out.push({ protocol: protocol as PolicyProtocol, port });
      else if (isPort(endPort) && endPort >= port) out.push({ protocol: protocol as PolicyProtocol, port, ...(endPort > port ? { endPort } : {}) });
    }
  }
  return out;
}

/** The ports as they apply to one destination pod (undefined: a destination that is no pod, numeric ports only). */
function resolvePorts(ports: RawPort[], pod: PolicyPod | undefined, namedOnly = false): PolicyPort[] {
  const out: PolicyPort[] = [];
  for (const p of ports) {
    if (typeof p.port !== 'string') {
      if (!namedOnly) out.push({ protocol: p.protocol, ...(p.port !== undefined ? { port: p.port } : {}), ...(p.endPort ? { endPort: p.endPort } : {}) });
      continue;
    }
    for (const c of [...list(pod?.pod.spec?.containers), ...list(pod?.pod.spec?.initContainers)]) {
      for (const cp of list(own(c, 'ports'))) {
        const number = own(cp, 'containerPort');
        if (own(cp, 'name') === p.port && (own(cp, 'protocol') ?? 'TCP') === p.protocol && isPort(number)) out.push({ protocol: p.protocol, port: number });
      }
    }
  }
  return [...new Map(out.map((p) => [JSON.stringify(p), p])).values()];
}

/** Destinations grouped by the ports that apply to them; groups where nothing applies are dropped. */
function groupByPorts(ports: RawPort[], pods: PolicyPod[], namedOnly = false): Array<{ pods: PolicyPod[]; ports: PolicyPort[] }> {
  const groups = new Map<string, { pods: PolicyPod[]; ports: PolicyPort[] }>();
  for (const pod of pods) {
    const resolved = resolvePorts(ports, pod, namedOnly);
    if (resolved.length === 0) continue;
    const key = JSON.stringify(resolved);
    const g = groups.get(key) ?? { pods: [], ports: resolved };
    g.pods.push(pod);
    groups.set(key, g);
  }
  return [...groups.values()];
}

const hasPeers = (p: PolicyPeers): boolean => p.addresses.length > 0 || p.blocks.length > 0;

/** A policy allow before it is cut per node: `pods` are the selected pods on every node. */
interface ClusterAllow {
  rule: string;
  pods: PolicyPod[];
  peers?: PolicyPeers;
  ports?: PolicyPort[];
}

function ingressAllows(rule: string, raw: unknown, selected: PolicyPod[], namespace: string, pods: PolicyPod[], nss: Map<string, KubeObject>): ClusterAllow[] {
  const peers = resolvePeers(own(raw, 'from'), namespace, pods, nss);
  if (peers && !hasPeers(peers)) return [];
  const ports = rawPorts(own(raw, 'ports'));
  const peerPart = peers ? { peers } : {};
  if (!ports) return [{ rule, pods: selected, ...peerPart }];
  // The destination is the selected pod: its own containerPorts name the port.
  return groupByPorts(ports, selected).map((g) => ({ rule, pods: g.pods, ...peerPart, ports: g.ports }));
}

function egressAllows(rule: string, raw: unknown, selected: PolicyPod[], namespace: string, pods: PolicyPod[], nss: Map<string, KubeObject>): ClusterAllow[] {
  const peers = resolvePeers(own(raw, 'to'), namespace, pods, nss);
  if (peers && !hasPeers(peers)) return [];
  const ports = rawPorts(own(raw, 'ports'));
  if (!ports) return [{ rule, pods: selected, ...(peers ? { peers } : {}) }];
  const out: ClusterAllow[] = [];
  const numeric = resolvePorts(ports, undefined);
  // The destination is the peer: a named port resolves per peer pod, never for an address block.
  if (!peers) {
    if (numeric.length > 0) out.push({ rule, pods: selected, ports: numeric });
    for (const g of groupByPorts(ports, pods, true))
      out.push({ rule, pods: selected, peers: { addresses: g.pods.map((p) => p.ip), blocks: [] }, ports: g.ports });
    return out;
  }
  const byIpOf = new Map(pods.map((p) => [p.ip, p]));
  const peerPods = peers.addresses.map((a) => byIpOf.get(a)!);
  for (const g of groupByPorts(ports, peerPods)) out.push({ rule, pods: selected, peers: { addresses: g.pods.map((p) => p.ip), blocks: [] }, ports: g.ports });
  if (peers.blocks.length > 0 && numeric.length > 0) out.push({ rule, pods: selected, peers: { addresses: [], blocks: peers.blocks }, ports: numeric });
  return out;
}

/**
 * Every node's table, by node name; a node none of whose pods a policy selects has no entry (the caller
 * gives it an empty table).
 */
export function compilePolicies(input: PolicyInput): Map<string, NodePolicies> {
  const pods = policyPods(input.pods);
  const nss = new Map(input.namespaces.map((n) => [n.metadata.name, n]));
  const tables = new Map<string, NodePolicies>();
  const tableOf = (node: string): NodePolicies => {
    let t = tables.get(node);
    if (!t) tables.set(node, (t = { clusterId: input.clusterId, ingressIsolated: [], egressIsolated: [], ingress: [], egress: [] }));
    return t;
  };
  const policies = [...input.policies].sort((a, b) => `${a.metadata.namespace}/${a.metadata.name}`.localeCompare(`${b.metadata.namespace}/${b.metadata.name}`));
  const isolated = { ingress: new Map<string, Set<string>>(), egress: new Map<string, Set<string>>() };
  for (const policy of policies) {
    const namespace = policy.metadata.namespace ?? '';
    const spec = own(policy, 'spec');
    const podSelector = selector(own(spec, 'podSelector'));
    const selected = pods.filter((p) => p.namespace === namespace && labelSelectorMatches(podSelector, p.labels));
    if (selected.length === 0) continue;
    const types = policyTypes(spec);
    const name = `${namespace}/${policy.metadata.name}`;
    for (const direction of ['ingress', 'egress'] as const) {
      if (!types[direction]) continue;
      for (const p of selected) {
        const set = isolated[direction].get(p.node) ?? new Set<string>();
        isolated[direction].set(p.node, set.add(p.ip));
      }
      const compile = direction === 'ingress' ? ingressAllows : egressAllows;
      list(own(spec, direction)).forEach((raw, i) => {
        for (const allow of compile(`${name} ${direction} ${i}`, raw, selected, namespace, pods, nss)) {
          for (const node of new Set(allow.pods.map((p) => p.node))) {
            const local: PolicyAllow = { rule: allow.rule, pods: allow.pods.filter((p) => p.node === node).map((p) => p.ip) };
            if (allow.peers) local.peers = allow.peers;
            if (allow.ports) local.ports = allow.ports;
            tableOf(node)[direction].push(local);
          }
        }
      });
    }
  }
  for (const direction of ['ingress', 'egress'] as const) {
    for (const [node, ips] of isolated[direction]) tableOf(node)[direction === 'ingress' ? 'ingressIsolated' : 'egressIsolated'] = [...ips].sort(byIp);
  }
  return tables;
}
