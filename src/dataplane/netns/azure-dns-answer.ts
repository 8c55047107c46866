// How the emulated Azure DNS answers one question (docs/dataplane.md §14.4). Azure's resolver is recursive: it
// answers the VNet's internal names (a VM's or node's `<name>.<id>.<x>x.internal.cloudapp.net`) and resolves public
// names; offline, the only public names are those the zone holds (the clusters' API server FQDNs), and every other
// name does not exist: NXDOMAIN, which ends a stub resolver's search-list walk at that suffix and lets it try the
// next (as on AKS, where `web.default.svc.cluster.local.<suffix>` is NXDOMAIN at Azure DNS before the name itself is
// asked). Answers carry recursion-available and are not authoritative, as a recursive resolver's.
import type { AzureDnsZone } from '../azure-dns-zone.js';
import { dnsName, empty, RCODE, type Reply } from './dns-answer.js';

/** The TTL of every answer: short, since a VM or node name can move to another address when it is rebuilt. */
const TTL = 10;

export type LoadedAzureZone = Map<string, string[]>;

export function loadAzureZone(zone: AzureDnsZone): LoadedAzureZone {
  return new Map(zone.records);
}

export function resolveAzure(z: LoadedAzureZone, asked: string, type: string, klass: string): Reply {
  if (klass !== 'IN') return { ...empty(RCODE.REFUSED, false), ra: true };
  const addresses = z.get(dnsName(asked));
  if (!addresses) return { ...empty(RCODE.NXDOMAIN, false), ra: true };
  const reply = { ...empty(RCODE.NOERROR, false), ra: true };
  if (type !== 'A' && type !== 'ANY') return reply;
  return { ...reply, answers: addresses.map((data) => ({ name: asked, type: 'A' as const, ttl: TTL, class: 'IN' as const, data })) };
}
