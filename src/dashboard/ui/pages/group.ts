// `#/group/<rg>`: a resource group's VNets (each subnet's fill as a meter), clusters, route tables, NSGs, load
// balancers, public IPs and operations.
import { getJson } from '../api.js';
import { badge, groupOf, h, link, nameOf, num, section, table } from '../dom.js';
import { operationsTable } from '../operations.js';
import type { Page } from '../page.js';
import type { Group, SubnetSummary } from '../types.js';

function fill(s: SubnetSummary): HTMLElement {
  const label = `${s.name} ${s.addressPrefix}: ${num(s.used)} of ${num(s.total)} addresses used`;
  return h(
    'li',
    {},
    h('span', { class: 'subnet-name' }, `${s.name} `, h('code', {}, s.addressPrefix)),
    ' ',
    h('meter', { min: '0', max: String(s.total), value: String(s.used), 'aria-label': label, title: label }),
    ` ${num(s.used)} / ${num(s.total)}`,
  );
}

export function groupPage(name: string): Page {
  const inGroup = (id: string) => groupOf(id).toLowerCase() === name.toLowerCase();
  return {
    title: `Resource group ${name}`,
    // A change to anything in the group; node changes reach the clusters' ready counts through their cluster ids.
    wants: (change) => change.arm.some(inGroup) || change.clusters.some(inGroup),
    async render() {
      const g = await getJson<Group>('group', { name });
      return h(
        'div',
        {},
        h('p', {}, 'Location ', h('strong', {}, g.location)),
        section(
          'Virtual networks',
          2,
          table(
            'Virtual networks',
            [
              { title: 'Name', cell: (v) => link(`/vnet/${encodeURIComponent(v.id)}`, v.name), key: true },
              { title: 'Address space', cell: (v) => v.addressPrefixes.join(', ') },
              { title: 'Subnets (used / total addresses)', cell: (v) => h('ul', { class: 'fills' }, ...v.subnets.map(fill)) },
              { title: 'Peerings', cell: (v) => num(v.peerings), numeric: true },
            ],
            g.virtualNetworks,
            (v) => ({ 'data-testid': 'vnet-row', 'data-name': v.name }),
          ),
        ),
        section(
          'Clusters',
          2,
          table(
            'Clusters',
            [
              { title: 'Name', cell: (c) => link(`/cluster/${encodeURIComponent(c.id)}`, c.name), key: true },
              { title: 'State', cell: (c) => badge(c.provisioningState) },
              { title: 'Power', cell: (c) => c.powerState },
              { title: 'Kubernetes', cell: (c) => c.kubernetesVersion },
              { title: 'Network', cell: (c) => (c.networkPluginMode ? `${c.networkPlugin} (${c.networkPluginMode})` : c.networkPlugin) },
              { title: 'Nodes ready', cell: (c) => `${num(c.readyNodes)} / ${num(c.nodeCount)}`, numeric: true },
            ],
            g.managedClusters,
            (c) => ({ 'data-testid': 'cluster-row', 'data-name': c.name }),
          ),
        ),
        h(
          'div',
          { class: 'tiles' },
          section(
            'Route tables',
            2,
            table(
              'Route tables',
              [
                { title: 'Name', cell: (r) => r.name, key: true },
                { title: 'Routes', cell: (r) => num(r.routes), numeric: true },
                { title: 'Subnets', cell: (r) => r.subnets.map((id) => nameOf(id)).join(', ') },
              ],
              g.routeTables,
            ),
          ),
          section(
            'Network security groups',
            2,
            table(
              'Network security groups',
              [
                { title: 'Name', cell: (n) => n.name, key: true },
                { title: 'Rules', cell: (n) => num(n.rules), numeric: true },
              ],
              g.networkSecurityGroups,
            ),
          ),
          section(
            'Load balancers',
            2,
            table(
              'Load balancers',
              [
                { title: 'Name', cell: (l) => l.name, key: true },
                { title: 'SKU', cell: (l) => l.sku },
                {
                  title: 'Frontends',
                  cell: (l) =>
                    h(
                      'ul',
                      { class: 'plain' },
                      ...l.frontends.map((f) => h('li', {}, `${f.name}: ${f.privateIp ?? (f.publicIpId ? nameOf(f.publicIpId) : '—')}`)),
                    ),
                },
              ],
              g.loadBalancers,
            ),
          ),
          section(
            'Public IP addresses',
            2,
            table(
              'Public IP addresses',
              [
                { title: 'Name', cell: (p) => p.name, key: true },
                { title: 'Address', cell: (p) => p.ipAddress ?? '—' },
              ],
              g.publicIPAddresses,
            ),
          ),
        ),
        section('Operations', 2, operationsTable(g.operations)),
      );
    },
  };
}
