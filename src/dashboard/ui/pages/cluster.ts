// `#/cluster/<id>`: a managed cluster's network profile, pools, nodes (Ready or NotReady with the kubelet's own
// message), each node's pod CIDRs or secondary IPs, pods with their IPs, Services with ClusterIPs and endpoints, and
// NetworkPolicies grouped per namespace.
import { getJson } from '../api.js';
import { badge, type Child, facts, groupOf, h, link, nameOf, num, section, table } from '../dom.js';
import { within } from '../live.js';
import type { Page } from '../page.js';
import type { ClusterView, NodeView, PolicyView } from '../types.js';

const PROFILE: Array<[string, string]> = [
  ['networkPlugin', 'Network plugin'],
  ['networkPluginMode', 'Plugin mode'],
  ['networkDataplane', 'Dataplane'],
  ['networkPolicy', 'Network policy'],
  ['podCidr', 'Pod CIDR'],
  ['serviceCidr', 'Service CIDR'],
  ['dnsServiceIP', 'DNS service IP'],
  ['outboundType', 'Outbound type'],
  ['loadBalancerSku', 'Load balancer SKU'],
  ['ipFamilies', 'IP families'],
];

function text(v: unknown): Child {
  if (v === undefined || v === null) return undefined;
  return Array.isArray(v) ? v.join(', ') : String(v);
}

function subnetLink(id: string | undefined): Child {
  if (!id) return '—';
  const vnetId = id.replace(/\/subnets\/[^/]+$/i, '');
  return link(`/vnet/${encodeURIComponent(vnetId)}`, `${nameOf(vnetId)}/${nameOf(id)}`);
}

function nodeAddresses(n: NodeView): string {
  if (n.podCIDRs.length > 0) return n.podCIDRs.join(', ');
  if (n.secondaryIPs > 0) return `${num(n.secondaryIPs)} secondary IPs`;
  return '—';
}

function policies(list: readonly PolicyView[]): Node[] {
  const byNs = new Map<string, PolicyView[]>();
  for (const p of list) byNs.set(p.namespace, [...(byNs.get(p.namespace) ?? []), p]);
  if (byNs.size === 0) return [h('p', { class: 'empty' }, 'NetworkPolicies: none.')];
  return [...byNs.keys()].sort().map((ns) =>
    h(
      'section',
      { class: 'namespace' },
      h('h3', {}, 'Namespace ', h('code', {}, ns)),
      table(
        `NetworkPolicies in ${ns}`,
        [
          { title: 'Name', cell: (p: PolicyView) => p.name, key: true },
          { title: 'Pod selector', cell: (p) => p.podSelector },
          { title: 'Policy types', cell: (p) => p.policyTypes.join(', ') },
          { title: 'Ingress rules', cell: (p) => num(p.ingressRules), numeric: true },
          { title: 'Egress rules', cell: (p) => num(p.egressRules), numeric: true },
        ],
        byNs.get(ns) ?? [],
        () => ({ 'data-testid': 'policy-row' }),
      ),
    ),
  );
}

export function clusterPage(id: string): Page {
  return {
    title: `Cluster ${nameOf(id)}`,
    wants: (change) => change.clusters.some((c) => within(c, id)) || change.arm.some((a) => within(a, id)),
    async render() {
      const v = await getJson<ClusterView>('cluster', { id });
      const props = v.cluster.properties ?? {};
      const profile = props.networkProfile ?? {};
      const rg = groupOf(v.cluster.id ?? id);
      return h(
        'div',
        {},
        facts([
          ['Resource group', rg ? link(`/group/${encodeURIComponent(rg)}`, rg) : ''],
          ['Provisioning state', badge(props.provisioningState)],
          ['Power state', props.powerState?.code],
          ['Kubernetes version', props.kubernetesVersion],
          ['Node resource group', props.nodeResourceGroup],
          [
            'Cluster API',
            v.api.reachable
              ? h('span', { 'data-testid': 'api-state' }, 'reachable')
              : h('span', { 'data-testid': 'api-state', class: 'error-text' }, v.api.message ?? 'unreachable'),
          ],
        ]),
        section('Network profile', 2, facts(PROFILE.map(([k, label]) => [label, text(profile[k])]))),
        section(
          'Node pools',
          2,
          table(
            'Node pools',
            [
              { title: 'Name', cell: (p) => p.name, key: true },
              { title: 'Mode', cell: (p) => p.properties?.mode },
              { title: 'Nodes', cell: (p) => num(p.properties?.count), numeric: true },
              {
                title: 'Autoscaler',
                cell: (p) => (p.properties?.enableAutoScaling ? `${num(p.properties.minCount)}–${num(p.properties.maxCount)}` : 'off'),
              },
              { title: 'VM size', cell: (p) => p.properties?.vmSize },
              { title: 'OS', cell: (p) => p.properties?.osType },
              { title: 'Max pods', cell: (p) => num(p.properties?.maxPods), numeric: true },
              { title: 'Node subnet', cell: (p) => subnetLink(p.properties?.vnetSubnetID) },
              { title: 'Pod subnet', cell: (p) => subnetLink(p.properties?.podSubnetID) },
              { title: 'State', cell: (p) => badge(p.properties?.provisioningState) },
            ],
            v.agentPools,
            (p) => ({ 'data-testid': 'pool-row', 'data-name': p.name }),
          ),
        ),
        section(
          'Nodes',
          2,
          table(
            'Nodes',
            [
              { title: 'Name', cell: (n) => n.name, key: true },
              { title: 'Pool', cell: (n) => n.pool },
              { title: 'Ready', cell: (n) => badge(n.ready ? 'Ready' : 'NotReady') },
              { title: 'Condition', cell: (n) => h('span', { class: n.ready ? undefined : 'error-text' }, [n.reason, n.message].filter(Boolean).join(': ')) },
              { title: 'Internal IP', cell: (n) => n.internalIP ?? '—' },
              { title: 'Pod CIDRs or secondary IPs', cell: nodeAddresses },
              { title: 'Pods', cell: (n) => num(n.pods), numeric: true },
            ],
            v.nodes,
            (n) => ({ 'data-testid': 'node-row', 'data-name': n.name, 'data-ready': String(n.ready) }),
          ),
        ),
        section(
          'Pods',
          2,
          v.podsTruncated ? h('p', {}, `The first ${num(v.pods.length)} pods of ${num(v.podsTruncated)}.`) : null,
          table(
            'Pods',
            [
              { title: 'Namespace', cell: (p) => p.namespace },
              { title: 'Name', cell: (p) => p.name, key: true },
              { title: 'Node', cell: (p) => p.node ?? '—' },
              { title: 'Pod IP', cell: (p) => (p.podIP ? `${p.podIP}${p.hostNetwork ? ' (host network)' : ''}` : '—') },
              { title: 'Phase', cell: (p) => badge(p.phase) },
              { title: 'Ready', cell: (p) => p.ready ?? '—' },
            ],
            v.pods,
            () => ({ 'data-testid': 'pod-row' }),
          ),
        ),
        section(
          'Services',
          2,
          table(
            'Services',
            [
              { title: 'Namespace', cell: (s) => s.namespace },
              { title: 'Name', cell: (s) => s.name, key: true },
              { title: 'Type', cell: (s) => s.type },
              { title: 'ClusterIP', cell: (s) => s.clusterIP ?? '—' },
              { title: 'Ports', cell: (s) => s.ports },
              { title: 'External IP', cell: (s) => s.loadBalancerIP ?? '—' },
              { title: 'Endpoints', cell: (s) => (s.endpoints.length ? s.endpoints.join(', ') : 'none') },
            ],
            v.services,
            () => ({ 'data-testid': 'service-row' }),
          ),
        ),
        section('NetworkPolicies', 2, ...policies(v.networkPolicies)),
      );
    },
  };
}
