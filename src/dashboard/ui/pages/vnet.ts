// `#/vnet/<id>`: a VNet's subnets, each with its address map and legend, its route table with the UDRs and its NSG
// with the rules; then the VNet's peerings.
import { getJson } from '../api.js';
import { badge, facts, groupOf, h, link, nameOf, num, section, table } from '../dom.js';
import { addressMap } from '../map.js';
import type { Page } from '../page.js';
import type { SubnetMap, SubnetView, VnetView } from '../types.js';

function subnetSection(s: SubnetView, map: SubnetMap | Error): HTMLElement {
  const parts: Node[] = [];
  parts.push(
    map instanceof Error ? h('p', { class: 'error-text', role: 'alert' }, `The address map could not be read: ${map.message}`) : addressMap(map, s.name),
  );
  if (s.routeTable) {
    parts.push(
      h('h4', {}, 'Route table ', h('code', {}, s.routeTable.name)),
      table(
        `User-defined routes of ${s.routeTable.name}`,
        [
          { title: 'Name', cell: (r) => r.name, key: true },
          { title: 'Address prefix', cell: (r) => r.addressPrefix },
          { title: 'Next hop', cell: (r) => r.nextHopType },
          { title: 'Next hop IP', cell: (r) => r.nextHopIpAddress ?? '—' },
        ],
        s.routeTable.routes,
        () => ({ 'data-testid': 'route-row' }),
      ),
    );
  }
  if (s.networkSecurityGroup) {
    parts.push(
      h('h4', {}, 'Network security group ', h('code', {}, s.networkSecurityGroup.name)),
      table(
        `Security rules of ${s.networkSecurityGroup.name}`,
        [
          { title: 'Priority', cell: (r) => String(r.priority), key: true, numeric: true },
          { title: 'Name', cell: (r) => r.name },
          { title: 'Direction', cell: (r) => r.direction },
          { title: 'Access', cell: (r) => badge(r.access) },
          { title: 'Protocol', cell: (r) => r.protocol },
          { title: 'Source', cell: (r) => r.sourceAddressPrefix ?? '*' },
          { title: 'Destination', cell: (r) => r.destinationAddressPrefix ?? '*' },
          { title: 'Ports', cell: (r) => r.destinationPortRange ?? '*' },
        ],
        [...s.networkSecurityGroup.securityRules].sort((a, b) => (a.direction === b.direction ? a.priority - b.priority : a.direction < b.direction ? -1 : 1)),
        () => ({ 'data-testid': 'nsg-rule-row' }),
      ),
    );
  }
  return h(
    'section',
    { class: 'subnet', 'data-subnet': s.name, 'aria-labelledby': `subnet-${s.name}` },
    h('h3', { id: `subnet-${s.name}` }, `Subnet ${s.name} `, h('code', {}, s.addressPrefix), ` (${num(s.total)} addresses)`),
    ...parts,
  );
}

export function vnetPage(id: string): Page {
  return {
    title: `Virtual network ${nameOf(id)}`,
    // Any ARM change may take or free an address here: nodes' NICs live in the cluster's node resource group, and a
    // node record's change is named by its cluster's id.
    wants: (change) => change.arm.length > 0,
    async render() {
      const v = await getJson<VnetView>('vnet', { id });
      const maps = await Promise.all(v.subnets.map((s) => getJson<SubnetMap>('subnet-map', { id: s.id }).catch((e: Error) => e)));
      const rg = groupOf(v.vnet.id ?? id);
      return h(
        'div',
        {},
        facts([
          ['Resource group', rg ? link(`/group/${encodeURIComponent(rg)}`, rg) : ''],
          ['Location', v.vnet.location],
          ['Address space', (v.vnet.properties?.addressSpace?.addressPrefixes ?? []).join(', ')],
          ['Provisioning state', v.vnet.properties?.provisioningState],
        ]),
        section('Subnets', 2, v.subnets.length === 0 ? h('p', { class: 'empty' }, 'No subnets.') : null, ...v.subnets.map((s, i) => subnetSection(s, maps[i]))),
        section(
          'Peerings',
          2,
          table(
            'Peerings',
            [
              { title: 'Name', cell: (p) => p.name, key: true },
              {
                title: 'Remote VNet',
                cell: (p) => (p.remoteVirtualNetworkId ? link(`/vnet/${encodeURIComponent(p.remoteVirtualNetworkId)}`, nameOf(p.remoteVirtualNetworkId)) : '—'),
              },
              { title: 'State', cell: (p) => badge(p.peeringState) },
              { title: 'VNet access', cell: (p) => String(p.allowVirtualNetworkAccess ?? '—') },
              { title: 'Forwarded traffic', cell: (p) => String(p.allowForwardedTraffic ?? '—') },
              { title: 'Gateway transit', cell: (p) => String(p.allowGatewayTransit ?? '—') },
            ],
            v.peerings,
            () => ({ 'data-testid': 'peering-row' }),
          ),
        ),
      );
    },
  };
}
