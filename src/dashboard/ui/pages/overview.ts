// `#/`: the subscription's resource groups with what each holds, and the operations as they progress.
import { getJson } from '../api.js';
import { h, link, num, section, table } from '../dom.js';
import { operationsTable } from '../operations.js';
import type { Page } from '../page.js';
import type { Overview } from '../types.js';

const COUNTS: Array<[string, string]> = [
  ['virtualNetworks', 'VNets'],
  ['managedClusters', 'Clusters'],
  ['routeTables', 'Route tables'],
  ['networkSecurityGroups', 'NSGs'],
  ['loadBalancers', 'Load balancers'],
  ['publicIPAddresses', 'Public IPs'],
];

export function overviewPage(): Page {
  return {
    title: 'Overview',
    // Anything in the subscription can change a group's counts or the operations.
    wants: (change) => change.arm.length > 0 || change.clusters.length > 0,
    async render() {
      const o = await getJson<Overview>('overview');
      return h(
        'div',
        {},
        h('p', {}, 'Subscription ', h('code', {}, o.subscriptionId)),
        section(
          'Resource groups',
          2,
          table(
            'Resource groups',
            [
              { title: 'Name', cell: (g) => link(`/group/${encodeURIComponent(g.name)}`, g.name), key: true },
              { title: 'Location', cell: (g) => g.location },
              ...COUNTS.map(([k, title]) => ({ title, cell: (g: Overview['groups'][number]) => num(g.counts?.[k] ?? 0), numeric: true })),
            ],
            o.groups,
            (g) => ({ 'data-testid': 'group-row', 'data-name': g.name }),
          ),
        ),
        section('Operations', 2, operationsTable(o.operations)),
      );
    },
  };
}
