// Long-running operations as they progress: a table shared by the overview and a group's page.
import { badge, type Child, h, link, nameOf, table } from './dom.js';
import type { Operation } from './types.js';

function when(iso: string | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime())
    ? iso
    : d
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, 'Z');
}

function resourceLink(op: Operation): Child {
  const id = op.resourceId ?? '';
  if (/\/providers\/Microsoft\.ContainerService\/managedClusters\/[^/]+$/i.test(id)) return link(`/cluster/${encodeURIComponent(id)}`, op.name);
  if (/\/providers\/Microsoft\.Network\/virtualNetworks\/[^/]+$/i.test(id)) return link(`/vnet/${encodeURIComponent(id)}`, op.name);
  return op.name || nameOf(id);
}

export function operationsTable(ops: readonly Operation[]): HTMLElement {
  return table(
    'Operations, newest first',
    [
      { title: 'Resource', cell: resourceLink, key: true },
      { title: 'Kind', cell: (o) => o.kind },
      { title: 'Status', cell: (o) => badge(o.status) },
      { title: 'Started', cell: (o) => when(o.startTime) },
      { title: 'Ended', cell: (o) => when(o.endTime) },
      { title: 'Error', cell: (o) => (o.error ? h('span', { class: 'error-text' }, h('code', {}, o.error.code), ' ', o.error.message) : '') },
    ],
    ops,
    (o) => ({ 'data-testid': 'operation-row', 'data-status': o.status }),
  );
}
