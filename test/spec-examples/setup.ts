// What an example refers to, created through the API before it runs: its resource groups, its parent (the
// cluster of an agent pool, the VNet of a subnet …), the resources its body names by id where aksemu serves the
// type (a subnet for vnetSubnetID …), and for reads, updates and deletes the resource itself. Types aksemu does
// not serve (disk encryption sets …) are left alone: the example meets them as it finds.
import { type ArmClient, errorLine } from './client.js';

const NETWORK_VERSION = '2023-11-01';

/** Members of a response that are not part of a request (read-only in the specs), dropped when a response is
 * sent back as a resource's body to create it for a read example; and the Kubernetes versions, which the
 * comparison masks (compare.ts), so a read example is not refused for the version it was recorded with. */
const READ_ONLY = new Set([
  'id',
  'etag',
  'type',
  'provisioningState',
  'resourceGuid',
  'powerState',
  'fqdn',
  'azurePortalFQDN',
  'privateFQDN',
  'currentKubernetesVersion',
  'currentOrchestratorVersion',
  'maxAgentPools',
  'nodeImageVersion',
  'kubernetesVersion',
  'orchestratorVersion',
  'defaultSecurityRules',
  'networkInterfaces',
  'macAddress',
  'primary',
  'virtualMachine',
  'identityProfile',
]);

interface Kind {
  apiVersion?: string;
  /** A minimal body for a resource of this type. */
  body(target: { id: string; name: string; location: string; next: () => number }): unknown;
  /** Resources to create first (a NIC's subnet). */
  needs?(id: string): string[];
}

/** A NIC's subnet: a VNet of its own in its group. */
function nicSubnet(nicId: string): string {
  return `${nicId.replace(/\/providers\/.*$/i, '')}/providers/Microsoft.Network/virtualNetworks/${nicId.split('/').pop()}-vnet/subnets/default`;
}

/** The types aksemu serves that examples refer to, by provider/type path (lower case). */
const KINDS: Record<string, Kind> = {
  'microsoft.containerservice/managedclusters': {
    body: ({ name, location }) => ({
      location,
      identity: { type: 'SystemAssigned' },
      properties: {
        dnsPrefix: name,
        agentPoolProfiles: [{ name: 'nodepool1', count: 1, vmSize: 'Standard_DS2_v2', mode: 'System', osType: 'Linux', type: 'VirtualMachineScaleSets' }],
      },
    }),
  },
  'microsoft.containerservice/managedclusters/agentpools': {
    body: () => ({ properties: { count: 1, vmSize: 'Standard_DS2_v2', mode: 'User', osType: 'Linux' } }),
  },
  // AKS's own default VNet space (10.224.0.0/12), clear of the default pod and service CIDRs.
  'microsoft.network/virtualnetworks': {
    apiVersion: NETWORK_VERSION,
    body: ({ location }) => ({ location, properties: { addressSpace: { addressPrefixes: ['10.224.0.0/12'] } } }),
  },
  'microsoft.network/virtualnetworks/subnets': {
    apiVersion: NETWORK_VERSION,
    body: ({ next }) => ({ properties: { addressPrefix: `10.${224 + (next() % 16)}.0.0/16` } }),
  },
  'microsoft.network/networksecuritygroups': { apiVersion: NETWORK_VERSION, body: ({ location }) => ({ location }) },
  'microsoft.network/networksecuritygroups/securityrules': {
    apiVersion: NETWORK_VERSION,
    body: ({ next }) => ({
      properties: {
        protocol: '*',
        access: 'Allow',
        direction: 'Inbound',
        priority: 100 + next(),
        sourceAddressPrefix: '*',
        destinationAddressPrefix: '*',
        sourcePortRange: '*',
        destinationPortRange: '*',
      },
    }),
  },
  'microsoft.network/routetables': { apiVersion: NETWORK_VERSION, body: ({ location }) => ({ location }) },
  'microsoft.managedidentity/userassignedidentities': { apiVersion: '2023-01-31', body: ({ location }) => ({ location }) },
  'microsoft.network/routetables/routes': {
    apiVersion: NETWORK_VERSION,
    body: () => ({ properties: { addressPrefix: '10.1.0.0/16', nextHopType: 'VnetLocal' } }),
  },
  'microsoft.network/networkinterfaces': {
    apiVersion: NETWORK_VERSION,
    body: ({ id, location }) => ({ location, properties: { ipConfigurations: [{ name: 'ipconfig1', properties: { subnet: { id: nicSubnet(id) } } }] } }),
    needs: (id) => [nicSubnet(id)],
  },
};

export interface ParsedId {
  group: string;
  /** provider/type[/type] in lower case: the key of KINDS. */
  kind: string;
  name: string;
  parent?: string;
}

/** /subscriptions/s/resourceGroups/g/providers/NS/t1/n1[/t2/n2]; undefined for anything else. */
export function parseId(id: string): ParsedId | undefined {
  const m = /^\/subscriptions\/[^/]+\/resourceGroups\/([^/]+)\/providers\/([^/]+)\/([^/]+)\/([^/]+)(?:\/([^/]+)\/([^/]+))?$/i.exec(id);
  if (!m) return undefined;
  const [, group, ns, t1, n1, t2, n2] = m;
  if (t2 === undefined) return { group: group!, kind: `${ns}/${t1}`.toLowerCase(), name: n1! };
  return { group: group!, kind: `${ns}/${t1}/${t2}`.toLowerCase(), name: n2!, parent: id.slice(0, id.length - t2.length - n2!.length - 2) };
}

/** Every ARM id an example's body names (values and map keys). */
export function idsIn(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string' && /^\/subscriptions\/[^/]+\/resourceGroups\//i.test(value)) out.push(value);
  else if (Array.isArray(value)) for (const v of value) idsIn(v, out);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k.startsWith('/subscriptions/')) out.push(k);
      idsIn(v, out);
    }
  }
  return out;
}

/** A subnet body's address prefixes (addressPrefix, addressPrefixes), for the VNet made to hold it. */
export function prefixesOf(body: unknown): string[] {
  const p = (body as { properties?: { addressPrefix?: unknown; addressPrefixes?: unknown } } | undefined)?.properties;
  return [p?.addressPrefix, ...(Array.isArray(p?.addressPrefixes) ? p.addressPrefixes : [])].filter((x): x is string => typeof x === 'string');
}

export function stripReadOnly(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripReadOnly);
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).flatMap(([k, v]) => (READ_ONLY.has(k) ? [] : [[k, stripReadOnly(v)]])));
}

export class Setup {
  private counter = 0;
  private readonly groups = new Set<string>();

  constructor(
    private readonly client: ArmClient,
    private readonly subscription: string,
    /** The api-version for Microsoft.ContainerService parents: the example's own. */
    private readonly aksVersion: string,
    private readonly location: string,
  ) {}

  async group(name: string): Promise<void> {
    if (this.groups.has(name.toLowerCase())) return;
    const res = await this.client.send('PUT', `/subscriptions/${this.subscription}/resourcegroups/${name}`, '2021-04-01', { location: this.location });
    if (res.status >= 300) throw new Error(`setup: resource group ${name}: ${errorLine(res)}`);
    this.groups.add(name.toLowerCase());
  }

  /** Deletes the groups this case made, and all in them: clusters left running would slow the cases after. */
  async cleanUp(): Promise<void> {
    for (const name of this.groups) {
      await this.client.settle(await this.client.send('DELETE', `/subscriptions/${this.subscription}/resourcegroups/${name}`, '2021-04-01'));
    }
  }

  /** Creates id (and what it needs) unless it exists or aksemu does not serve its type. A VNet made for a
   * subnet also spans the subnet's own prefixes (`prefixes`). */
  async ensure(id: string, prefixes: string[] = []): Promise<void> {
    const parsed = parseId(id);
    if (!parsed) return;
    await this.group(parsed.group);
    const kind = KINDS[parsed.kind];
    if (!kind) return;
    const apiVersion = kind.apiVersion ?? this.aksVersion;
    if ((await this.client.send('GET', id, apiVersion)).status === 200) return;
    if (parsed.parent) await this.ensure(parsed.parent);
    for (const need of kind.needs?.(id) ?? []) await this.ensure(need);
    const body = kind.body({ id, name: parsed.name, location: this.location, next: () => this.counter++ }) as {
      properties?: { addressSpace?: { addressPrefixes: string[] } };
    };
    if (body.properties?.addressSpace) body.properties.addressSpace.addressPrefixes.push(...new Set(prefixes));
    await this.put(id, apiVersion, body);
  }

  /** Creates the nearest resource of a served type at or above path (the cluster of an upgrade profile …). */
  async ensureAncestor(path: string): Promise<void> {
    for (let p = path; /\/providers\//i.test(p); p = p.replace(/\/[^/]+$/, '')) {
      const parsed = parseId(p);
      if (parsed && KINDS[parsed.kind]) return this.ensure(p);
    }
  }

  /** Creates the resource a read example shows, from its response (read-only members dropped). */
  async seed(id: string, apiVersion: string, shown: unknown): Promise<void> {
    const parsed = parseId(id);
    if (!parsed || !KINDS[parsed.kind]) return this.ensureAncestor(id);
    await this.group(parsed.group);
    if (parsed.parent) await this.ensure(parsed.parent, prefixesOf(shown));
    for (const ref of idsIn(shown)) if (ref.toLowerCase() !== id.toLowerCase() && !ref.toLowerCase().startsWith(`${id.toLowerCase()}/`)) await this.ensure(ref);
    await this.put(id, apiVersion, stripReadOnly(shown));
  }

  private async put(id: string, apiVersion: string, body: unknown): Promise<void> {
    const res = await this.client.send('PUT', id, apiVersion, body);
    if (res.status >= 300) throw new Error(`setup: ${parseId(id)?.kind} ${errorLine(res)}`);
    const end = await this.client.settle(res);
    if (end.failed) throw new Error(`setup: ${parseId(id)?.kind} ${end.failed}`);
  }
}
