// az network vnet / vnet subnet / nsg / route-table (AAZ commands, docs/clients.md §3.9): api-version
// 2022-01-01 (route tables 2021-08-01), output with `properties` flattened, creates of a vnet or an
// NSG wrapped as {"newVNet": …} / {"NewNSG": …}.
import { API } from '../api-versions.js';
import { flag, list, str, type ArgDef, type ParsedArgs } from '../args.js';
import { longRunning, type CommandDef, type Invocation } from '../command.js';
import { groupScope, nameOrId } from '../resource-id.js';
import { parseTags } from '../tags.js';
import { flattenProperties } from '../transforms.js';
import { groupLocation, listAll, LOCATION, NAME, NO_WAIT, OPTIONAL_RESOURCE_GROUP, RESOURCE_GROUP, TAGS } from './common.js';

export interface Kind {
  /** az's group, e.g. "network nsg" */
  group: string;
  type: string;
  apiVersion: string;
  noun: string;
}

const VNET: Kind = { group: 'network vnet', type: 'virtualNetworks', apiVersion: API.network, noun: 'virtual network' };
const NSG: Kind = { group: 'network nsg', type: 'networkSecurityGroups', apiVersion: API.network, noun: 'network security group' };
const ROUTE_TABLE: Kind = { group: 'network route-table', type: 'routeTables', apiVersion: API.routeTables, noun: 'route table' };

export function resourcePath(ctx: Invocation, kind: Kind, resourceGroup: string, name: string): string {
  return `${groupScope(ctx.subscriptionId(), resourceGroup)}/providers/Microsoft.Network/${kind.type}/${encodeURIComponent(name)}`;
}

/** `…/virtualNetworks/<--vnet-name>/<segment>`, and `/<--name>` when `named`. */
export function vnetChildPath(ctx: Invocation, args: ParsedArgs, segment: string, named = true): string {
  const vnet = `${resourcePath(ctx, VNET, str(args, 'resourceGroup')!, str(args, 'vnetName')!)}/${segment}`;
  return named ? `${vnet}/${encodeURIComponent(str(args, 'name')!)}` : vnet;
}

function subnetPath(ctx: Invocation, args: ParsedArgs): string {
  return vnetChildPath(ctx, args, 'subnets');
}

/** show, list and delete of a VNet's children (subnets, peerings): `-g`, `--vnet-name`, `-n`, AAZ at 2022-01-01. */
export function vnetChildBasics(group: string, segment: string, noun: string, args: ArgDef[]): CommandDef[] {
  return [
    {
      name: `${group} show`,
      help: `Show details of a ${noun}.`,
      args,
      async run(ctx, a) {
        return flattenProperties(await get(ctx, vnetChildPath(ctx, a, segment), API.network));
      },
    },
    {
      name: `${group} list`,
      help: `List the ${noun}s of a virtual network.`,
      args: args.filter((x) => x.dest !== 'name'),
      async run(ctx, a) {
        return (await listAll(ctx, vnetChildPath(ctx, a, segment, false), API.network)).map(flattenProperties);
      },
    },
    {
      name: `${group} delete`,
      help: `Delete a ${noun}.`,
      args: [...args, NO_WAIT],
      async run(ctx, a) {
        await longRunning(ctx, { method: 'DELETE', path: vnetChildPath(ctx, a, segment), apiVersion: API.network, accept: [200, 202, 204] }, flag(a, 'noWait'));
        return undefined;
      },
    },
  ];
}

export async function get(ctx: Invocation, path: string, apiVersion: string): Promise<unknown> {
  return (await ctx.client().send({ method: 'GET', path, apiVersion, accept: [200] })).body;
}

export async function put(ctx: Invocation, path: string, apiVersion: string, body: unknown, noWait: boolean): Promise<unknown> {
  const result = await longRunning(ctx, { method: 'PUT', path, apiVersion, body, accept: [200, 201] }, noWait);
  return result === undefined ? undefined : flattenProperties(result);
}

/** show, list and delete are the same for every kind. */
export function basics(kind: Kind, table?: (r: unknown) => unknown): CommandDef[] {
  return [
    {
      name: `${kind.group} show`,
      help: `Get the details of a ${kind.noun}.`,
      args: [RESOURCE_GROUP, NAME],
      async run(ctx, args) {
        return flattenProperties(await get(ctx, resourcePath(ctx, kind, str(args, 'resourceGroup')!, str(args, 'name')!), kind.apiVersion));
      },
    },
    {
      name: `${kind.group} list`,
      help: `List ${kind.noun}s.`,
      args: [OPTIONAL_RESOURCE_GROUP],
      ...(table ? { table } : {}),
      async run(ctx, args) {
        const rg = str(args, 'resourceGroup');
        const scope = rg === undefined ? `/subscriptions/${ctx.subscriptionId()}` : groupScope(ctx.subscriptionId(), rg);
        return (await listAll(ctx, `${scope}/providers/Microsoft.Network/${kind.type}`, kind.apiVersion)).map(flattenProperties);
      },
    },
    {
      name: `${kind.group} delete`,
      help: `Delete a ${kind.noun}.`,
      args: [RESOURCE_GROUP, NAME, NO_WAIT],
      async run(ctx, args) {
        const path = resourcePath(ctx, kind, str(args, 'resourceGroup')!, str(args, 'name')!);
        await longRunning(ctx, { method: 'DELETE', path, apiVersion: kind.apiVersion, accept: [200, 202, 204] }, flag(args, 'noWait'));
        return undefined;
      },
    },
  ];
}

/** A VNet as az shows it (properties flattened): the members its table prints. */
interface VnetView {
  subnets?: unknown[];
  addressSpace?: { addressPrefixes?: string[] };
  dhcpOptions?: { dnsServers?: string[] };
  [member: string]: unknown;
}

/** network _format.py transform_vnet_table_output */
function vnetTable(result: unknown): unknown {
  const one = (r: VnetView) => ({
    Name: r['name'],
    ResourceGroup: r['resourceGroup'],
    Location: r['location'],
    NumSubnets: (r['subnets'] ?? []).length,
    Prefixes: (r['addressSpace']?.['addressPrefixes'] ?? []).join(', ') || ' ',
    DnsServers: (r['dhcpOptions']?.['dnsServers'] ?? []).join(', ') || ' ',
    DDOSProtection: r['enableDdosProtection'],
    VMProtection: r['enableVmProtection'],
  });
  return Array.isArray(result) ? result.map(one) : one(result as VnetView);
}

const NSG_ARG: ArgDef = { dest: 'nsg', options: ['--network-security-group', '--nsg'], help: 'Name or ID of a network security group' };
const ROUTE_TABLE_ARG: ArgDef = { dest: 'routeTable', options: ['--route-table'], help: 'Name or ID of a route table' };
const SUBNET_ARGS: ArgDef[] = [
  RESOURCE_GROUP,
  { dest: 'vnetName', options: ['--vnet-name'], required: true, help: 'The virtual network (VNet) name' },
  { ...NAME, help: 'The subnet name' },
];

/** The arguments `subnet create` and `subnet update` share: what a subnet's properties take (az's help differs in one line). */
function subnetWriteArgs(delegationsHelp: string): ArgDef[] {
  return [
    ...SUBNET_ARGS,
    { dest: 'addressPrefixes', options: ['--address-prefixes'], type: 'list', help: 'Space-separated address prefixes in CIDR format' },
    { dest: 'delegations', options: ['--delegations'], type: 'list', help: delegationsHelp },
    NSG_ARG,
    ROUTE_TABLE_ARG,
    { dest: 'serviceEndpoints', options: ['--service-endpoints'], type: 'list', help: 'Space-separated services allowed private access' },
    NO_WAIT,
  ];
}

/** VNetSubnetCreate.pre_operations: one prefix → addressPrefix, several → addressPrefixes; delegations by service. */
function applySubnetArgs(ctx: Invocation, args: ParsedArgs, properties: Record<string, unknown>): void {
  const rg = str(args, 'resourceGroup')!;
  const prefixes = list(args, 'addressPrefixes');
  if (prefixes !== undefined) {
    delete properties['addressPrefix'];
    delete properties['addressPrefixes'];
    if (prefixes.length === 1) properties['addressPrefix'] = prefixes[0];
    else properties['addressPrefixes'] = prefixes;
  }
  const delegations = list(args, 'delegations');
  if (delegations !== undefined) {
    properties['delegations'] = delegations
      .filter((d) => d !== '')
      .map((service, i) => {
        const parts = service.split('.');
        const serviceName = !service.includes('/') && parts.length === 3 ? `Microsoft.${parts[1]}/${parts[2]}` : service;
        return { name: String(i), properties: { serviceName } };
      });
  }
  const nsg = str(args, 'nsg');
  if (nsg !== undefined) {
    properties['networkSecurityGroup'] =
      nsg === '' || nsg === 'null' ? null : { id: nameOrId(nsg, ctx.subscriptionId(), rg, 'Microsoft.Network', 'networkSecurityGroups') };
  }
  const routeTable = str(args, 'routeTable');
  if (routeTable !== undefined) {
    properties['routeTable'] =
      routeTable === '' || routeTable === 'null' ? null : { id: nameOrId(routeTable, ctx.subscriptionId(), rg, 'Microsoft.Network', 'routeTables') };
  }
  const endpoints = list(args, 'serviceEndpoints');
  if (endpoints !== undefined) properties['serviceEndpoints'] = endpoints.map((service) => ({ service }));
}

export const networkCommands: CommandDef[] = [
  {
    name: 'network vnet create',
    help: 'Create a virtual network.',
    args: [
      RESOURCE_GROUP,
      NAME,
      LOCATION,
      TAGS,
      { dest: 'addressPrefixes', options: ['--address-prefixes'], type: 'list', help: 'Space-separated IP address prefixes (default 10.0.0.0/16)' },
      { dest: 'subnetName', options: ['--subnet-name'], help: 'Name of a new subnet to create within the VNet' },
      { dest: 'subnetPrefixes', options: ['--subnet-prefixes'], type: 'list', help: 'Space-separated address prefixes for the new subnet' },
      NSG_ARG,
      { dest: 'dnsServers', options: ['--dns-servers'], type: 'list', help: 'Space-separated DNS server IPs' },
      NO_WAIT,
    ],
    async run(ctx, args) {
      const rg = str(args, 'resourceGroup')!;
      const location = str(args, 'location') ?? (await groupLocation(ctx, rg));
      const prefixes = list(args, 'addressPrefixes') ?? ['10.0.0.0/16'];
      const properties: Record<string, unknown> = { addressSpace: { addressPrefixes: prefixes } };
      const dns = list(args, 'dnsServers');
      if (dns !== undefined) properties['dhcpOptions'] = { dnsServers: dns };
      properties['enableDdosProtection'] = false;
      properties['enableVmProtection'] = false;
      const subnetName = str(args, 'subnetName');
      if (subnetName !== undefined) {
        const subnet: Record<string, unknown> = {};
        const subnetPrefixes = list(args, 'subnetPrefixes');
        if (subnetPrefixes === undefined) {
          // VNetCreate.pre_operations: the first VNet prefix with a /24 mask (or its own if longer).
          const [address, bits] = prefixes[0]!.split('/');
          subnet['addressPrefix'] = `${address}/${Number(bits) < 24 ? 24 : bits}`;
        } else if (subnetPrefixes.length === 1) subnet['addressPrefix'] = subnetPrefixes[0];
        else subnet['addressPrefixes'] = subnetPrefixes;
        const nsg = str(args, 'nsg');
        if (nsg !== undefined) subnet['networkSecurityGroup'] = { id: nameOrId(nsg, ctx.subscriptionId(), rg, 'Microsoft.Network', 'networkSecurityGroups') };
        properties['subnets'] = [{ name: subnetName, properties: subnet }];
      }
      const body: Record<string, unknown> = { location, properties };
      const tags = parseTags(list(args, 'tags'));
      if (tags !== undefined) body['tags'] = tags;
      const result = await put(ctx, resourcePath(ctx, VNET, rg, str(args, 'name')!), VNET.apiVersion, body, flag(args, 'noWait'));
      return result === undefined ? undefined : { newVNet: result };
    },
  },
  ...basics(VNET, vnetTable),
  {
    name: 'network vnet subnet create',
    help: 'Create a subnet and associate an existing NSG and route table.',
    args: subnetWriteArgs('Space-separated services to delegate the subnet to, e.g. Microsoft.Sql/servers'),
    async run(ctx, args) {
      const properties: Record<string, unknown> = {};
      applySubnetArgs(ctx, args, properties);
      return put(ctx, subnetPath(ctx, args), API.network, { name: str(args, 'name'), properties }, flag(args, 'noWait'));
    },
  },
  {
    name: 'network vnet subnet update',
    help: 'Update a subnet.',
    args: subnetWriteArgs('Space-separated services to delegate the subnet to'),
    async run(ctx, args) {
      // AAZ generic update: GET the subnet, change it, PUT it back whole.
      const path = subnetPath(ctx, args);
      const current = (await get(ctx, path, API.network)) as Record<string, unknown>;
      const properties = { ...((current['properties'] as Record<string, unknown> | undefined) ?? {}) };
      delete properties['provisioningState'];
      applySubnetArgs(ctx, args, properties);
      const body: Record<string, unknown> = { name: current['name'] ?? str(args, 'name'), properties };
      if (current['id'] !== undefined) body['id'] = current['id'];
      return put(ctx, path, API.network, body, flag(args, 'noWait'));
    },
  },
  ...vnetChildBasics('network vnet subnet', 'subnets', 'subnet', SUBNET_ARGS),
  {
    name: 'network nsg create',
    help: 'Create a network security group.',
    args: [RESOURCE_GROUP, NAME, LOCATION, TAGS, NO_WAIT],
    async run(ctx, args) {
      const rg = str(args, 'resourceGroup')!;
      const body: Record<string, unknown> = { location: str(args, 'location') ?? (await groupLocation(ctx, rg)) };
      const tags = parseTags(list(args, 'tags'));
      if (tags !== undefined) body['tags'] = tags;
      const result = await put(ctx, resourcePath(ctx, NSG, rg, str(args, 'name')!), NSG.apiVersion, body, flag(args, 'noWait'));
      return result === undefined ? undefined : { NewNSG: result };
    },
  },
  ...basics(NSG),
  {
    name: 'network route-table create',
    help: 'Create a route table.',
    args: [
      RESOURCE_GROUP,
      NAME,
      LOCATION,
      TAGS,
      { dest: 'disableBgp', options: ['--disable-bgp-route-propagation'], choices: ['false', 'true'], help: 'Disable routes learned by BGP' },
      NO_WAIT,
    ],
    async run(ctx, args) {
      const rg = str(args, 'resourceGroup')!;
      const body: Record<string, unknown> = { location: str(args, 'location') ?? (await groupLocation(ctx, rg)) };
      const disable = str(args, 'disableBgp');
      if (disable !== undefined) body['properties'] = { disableBgpRoutePropagation: disable === 'true' };
      const tags = parseTags(list(args, 'tags'));
      if (tags !== undefined) body['tags'] = tags;
      return put(ctx, resourcePath(ctx, ROUTE_TABLE, rg, str(args, 'name')!), ROUTE_TABLE.apiVersion, body, flag(args, 'noWait'));
    },
  },
  ...basics(ROUTE_TABLE),
];
