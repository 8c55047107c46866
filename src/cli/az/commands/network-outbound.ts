// az network public-ip / public-ip prefix / nat gateway / lb / vnet peering, as az 2.45 sends them
// (docs/clients.md §3.13): public IPs and load balancers at 2022-05-01 (AAZ), prefixes and peerings at 2022-01-01
// (AAZ), NAT gateways through the Network SDK at 2022-01-01; output with `properties` flattened.
import { API } from '../api-versions.js';
import { flag, list, num, str, type ArgDef, type ParsedArgs } from '../args.js';
import { longRunning, type CommandDef, type Invocation } from '../command.js';
import { nameOrId } from '../resource-id.js';
import { parseTags } from '../tags.js';
import { flattenProperties } from '../transforms.js';
import { groupLocation, LOCATION, NAME, NO_WAIT, RESOURCE_GROUP, TAGS } from './common.js';
import { basics, get, put, resourcePath, type Kind, vnetChildBasics, vnetChildPath } from './network.js';

const PUBLIC_IP: Kind = { group: 'network public-ip', type: 'publicIPAddresses', apiVersion: API.publicIp, noun: 'public IP address' };
const PREFIX: Kind = { group: 'network public-ip prefix', type: 'publicIPPrefixes', apiVersion: API.network, noun: 'public IP prefix' };
const NAT: Kind = { group: 'network nat gateway', type: 'natGateways', apiVersion: API.natGateway, noun: 'NAT gateway' };
const LB: Kind = { group: 'network lb', type: 'loadBalancers', apiVersion: API.publicIp, noun: 'load balancer' };

/** What every create here takes first. */
const CREATE_ARGS: ArgDef[] = [RESOURCE_GROUP, NAME, LOCATION, TAGS];

const ZONE: ArgDef = { dest: 'zone', options: ['--zone', '-z'], type: 'list', help: 'Space-separated availability zones' };
const VERSION: ArgDef = { dest: 'version', options: ['--version'], choices: ['IPv4', 'IPv6'], help: 'IP address type' };

/** What az 2.45's public-ip create prints for a Standard address without --zone (its _validators.py). */
const ZONE_WARNING =
  '[Coming breaking change] In the coming release, the default behavior will be changed as follows when sku is Standard and zone is not provided: For zonal regions, you will get a zone-redundant IP indicated by zones:["1","2","3"]; For non-zonal regions, you will get a non zone-redundant IP indicated by zones:null.';

/**
 * commands.py public_ip_show_table_transform. Its AddressVersion and AllocationMethod read members spelt
 * publicIpAddressVersion and publicIpAllocationMethod, which the output does not have, so those columns are always
 * empty and the table leaves them out; its Zones column joins with the JMESPath literal `` ` ` ``, which reads as an
 * empty string, so zones 1 2 3 print as 123 (as the real az prints them).
 */
function publicIpTable(result: unknown): unknown {
  const one = (r: Record<string, unknown>) => ({
    Name: r['name'],
    ResourceGroup: r['resourceGroup'],
    Location: r['location'],
    Zones: Array.isArray(r['zones']) && r['zones'].length > 0 ? r['zones'].join('') : ' ',
    Address: r['ipAddress'],
    IdleTimeoutInMinutes: r['idleTimeoutInMinutes'],
    ProvisioningState: r['provisioningState'],
  });
  return Array.isArray(result) ? result.map(one) : one(result as Record<string, unknown>);
}

const id = (ctx: Invocation, args: ParsedArgs, value: string, type: string) =>
  nameOrId(value, ctx.subscriptionId(), str(args, 'resourceGroup')!, 'Microsoft.Network', type);

/** location (the group's by default), tags and zones, as every create here sends them. */
async function trackedBody(ctx: Invocation, args: ParsedArgs): Promise<Record<string, unknown>> {
  const body: Record<string, unknown> = { location: str(args, 'location') ?? (await groupLocation(ctx, str(args, 'resourceGroup')!)) };
  const tags = parseTags(list(args, 'tags'));
  if (tags !== undefined) body['tags'] = tags;
  const zones = list(args, 'zone');
  if (zones !== undefined) body['zones'] = zones;
  return body;
}

const create = async (ctx: Invocation, args: ParsedArgs, kind: Kind, body: unknown) =>
  put(ctx, resourcePath(ctx, kind, str(args, 'resourceGroup')!, str(args, 'name')!), kind.apiVersion, body, flag(args, 'noWait'));

const PEERING_ARGS: ArgDef[] = [
  RESOURCE_GROUP,
  { dest: 'vnetName', options: ['--vnet-name'], required: true, help: 'The virtual network (VNet) name' },
  { ...NAME, help: 'The name of the VNet peering' },
];

const peeringPath = (ctx: Invocation, args: ParsedArgs): string => vnetChildPath(ctx, args, 'virtualNetworkPeerings');

export const networkOutboundCommands: CommandDef[] = [
  {
    name: 'network public-ip create',
    help: 'Create a public IP address.',
    args: [
      ...CREATE_ARGS,
      ZONE,
      VERSION,
      { dest: 'sku', options: ['--sku'], choices: ['Basic', 'Standard'], help: 'Name of a public IP address SKU' },
      { dest: 'allocationMethod', options: ['--allocation-method'], choices: ['Dynamic', 'Static'], help: 'IP address allocation method' },
      { dest: 'idleTimeout', options: ['--idle-timeout'], type: 'int', help: 'Idle timeout in minutes' },
      { dest: 'dnsName', options: ['--dns-name'], help: 'Globally unique DNS entry' },
      { dest: 'prefix', options: ['--public-ip-prefix'], help: 'Name or ID of a public IP prefix' },
    ],
    async run(ctx, args) {
      // custom.py create_public_ip: no --sku warns and sends none; the method follows the sku.
      const sku = str(args, 'sku');
      if (sku === undefined) ctx.warn('Please note that the default public IP used for creation will be changed from Basic to Standard in the future.');
      else if (sku.toLowerCase() === 'standard' && list(args, 'zone') === undefined) ctx.warn(ZONE_WARNING);
      const properties: Record<string, unknown> = {
        idleTimeoutInMinutes: num(args, 'idleTimeout') ?? 4,
        publicIPAllocationMethod: str(args, 'allocationMethod') ?? (sku?.toLowerCase() === 'standard' ? 'Static' : 'Dynamic'),
      };
      const version = str(args, 'version');
      if (version !== undefined) properties['publicIPAddressVersion'] = version;
      const dns = str(args, 'dnsName');
      if (dns !== undefined) properties['dnsSettings'] = { domainNameLabel: dns };
      const prefix = str(args, 'prefix');
      if (prefix !== undefined) properties['publicIPPrefix'] = { id: id(ctx, args, prefix, 'publicIPPrefixes') };
      const body = { ...(await trackedBody(ctx, args)), properties, ...(sku ? { sku: { name: sku } } : {}) };
      const result = await create(ctx, args, PUBLIC_IP, body);
      return result === undefined ? undefined : { publicIp: result };
    },
  },
  ...basics(PUBLIC_IP, publicIpTable),
  {
    name: 'network public-ip prefix create',
    help: 'Create a public IP prefix.',
    args: [
      ...CREATE_ARGS,
      ZONE,
      VERSION,
      { dest: 'length', options: ['--length'], type: 'int', required: true, help: 'Length of the prefix (28–31 for IPv4)' },
    ],
    async run(ctx, args) {
      const properties: Record<string, unknown> = { prefixLength: num(args, 'length') };
      const version = str(args, 'version');
      if (version !== undefined) properties['publicIPAddressVersion'] = version;
      return create(ctx, args, PREFIX, { ...(await trackedBody(ctx, args)), properties, sku: { name: 'Standard' } });
    },
  },
  ...basics(PREFIX),
  {
    name: 'network nat gateway create',
    help: 'Create a NAT gateway.',
    args: [
      ...CREATE_ARGS,
      ZONE,
      { dest: 'publicIps', options: ['--public-ip-addresses'], type: 'list', help: 'Space-separated names or IDs of public IP addresses' },
      { dest: 'prefixes', options: ['--public-ip-prefixes'], type: 'list', help: 'Space-separated names or IDs of public IP prefixes' },
      { dest: 'idleTimeout', options: ['--idle-timeout'], type: 'int', help: 'Idle timeout in minutes' },
      NO_WAIT,
    ],
    async run(ctx, args) {
      // natgateway custom.py create_nat_gateway: sku Standard always.
      const properties: Record<string, unknown> = {};
      const idle = num(args, 'idleTimeout');
      if (idle !== undefined) properties['idleTimeoutInMinutes'] = idle;
      const pips = list(args, 'publicIps');
      if (pips !== undefined) properties['publicIpAddresses'] = pips.map((p) => ({ id: id(ctx, args, p, 'publicIPAddresses') }));
      const prefixes = list(args, 'prefixes');
      if (prefixes !== undefined) properties['publicIpPrefixes'] = prefixes.map((p) => ({ id: id(ctx, args, p, 'publicIPPrefixes') }));
      return create(ctx, args, NAT, { ...(await trackedBody(ctx, args)), sku: { name: 'Standard' }, properties });
    },
  },
  ...basics(NAT),
  {
    name: 'network lb create',
    help: 'Create a load balancer with one frontend (a public IP address, or a private address of a subnet) and one backend pool.',
    args: [
      ...CREATE_ARGS,
      { dest: 'sku', options: ['--sku'], choices: ['Basic', 'Gateway', 'Standard'], help: 'Load balancer SKU' },
      { dest: 'publicIp', options: ['--public-ip-address'], help: 'Name or ID of an existing public IP address' },
      { dest: 'vnetName', options: ['--vnet-name'], help: 'The virtual network of the subnet (internal load balancer)' },
      { dest: 'subnet', options: ['--subnet'], help: 'Name or ID of a subnet (internal load balancer)' },
      { dest: 'privateIp', options: ['--private-ip-address'], help: 'Static private IP address to use' },
      { dest: 'frontendName', options: ['--frontend-ip-name'], help: 'The name of the frontend IP configuration' },
      { dest: 'poolName', options: ['--backend-pool-name'], help: 'The name of the backend address pool' },
      NO_WAIT,
    ],
    async run(ctx, args) {
      const name = str(args, 'name')!;
      const frontend: Record<string, unknown> = {};
      const subnet = str(args, 'subnet');
      if (subnet !== undefined) {
        const vnet = str(args, 'vnetName');
        frontend['subnet'] = { id: subnet.startsWith('/') || vnet === undefined ? subnet : `${id(ctx, args, vnet, 'virtualNetworks')}/subnets/${subnet}` };
        const ip = str(args, 'privateIp');
        frontend['privateIPAllocationMethod'] = ip === undefined ? 'Dynamic' : 'Static';
        if (ip !== undefined) frontend['privateIPAddress'] = ip;
      } else {
        const pip = str(args, 'publicIp');
        if (pip === undefined) throw new Error('usage error: --public-ip-address NAME_OR_ID | --subnet NAME_OR_ID [--vnet-name NAME]');
        frontend['publicIPAddress'] = { id: id(ctx, args, pip, 'publicIPAddresses') };
      }
      const body = {
        ...(await trackedBody(ctx, args)),
        sku: { name: str(args, 'sku') ?? 'Standard' },
        properties: {
          frontendIPConfigurations: [{ name: str(args, 'frontendName') ?? 'LoadBalancerFrontEnd', properties: frontend }],
          backendAddressPools: [{ name: str(args, 'poolName') ?? `${name}bepool` }],
        },
      };
      const result = await create(ctx, args, LB, body);
      return result === undefined ? undefined : { loadBalancer: result };
    },
  },
  ...basics(LB),
  {
    name: 'network vnet peering create',
    help: 'Create a virtual network peering connection.',
    args: [
      ...PEERING_ARGS,
      { dest: 'remoteVnet', options: ['--remote-vnet'], required: true, help: 'Resource ID or name of the remote VNet' },
      { dest: 'allowVnetAccess', options: ['--allow-vnet-access'], type: 'flag', help: 'Allow access from the local VNet to the remote VNet' },
      { dest: 'allowForwarded', options: ['--allow-forwarded-traffic'], type: 'flag', help: 'Allow forwarded traffic from the remote VNet' },
      { dest: 'allowTransit', options: ['--allow-gateway-transit'], type: 'flag', help: 'Allow gateway link to be used in the remote VNet' },
      { dest: 'useRemote', options: ['--use-remote-gateways'], type: 'flag', help: "Use the remote VNet's gateways" },
      NO_WAIT,
    ],
    async run(ctx, args) {
      const properties: Record<string, unknown> = { remoteVirtualNetwork: { id: id(ctx, args, str(args, 'remoteVnet')!, 'virtualNetworks') } };
      if (flag(args, 'allowVnetAccess')) properties['allowVirtualNetworkAccess'] = true;
      if (flag(args, 'allowForwarded')) properties['allowForwardedTraffic'] = true;
      if (flag(args, 'allowTransit')) properties['allowGatewayTransit'] = true;
      if (flag(args, 'useRemote')) properties['useRemoteGateways'] = true;
      return put(ctx, peeringPath(ctx, args), API.network, { name: str(args, 'name'), properties }, flag(args, 'noWait'));
    },
  },
  ...vnetChildBasics('network vnet peering', 'virtualNetworkPeerings', 'peering', PEERING_ARGS),
  {
    name: 'network vnet peering sync',
    help: 'Sync a peering with the remote VNet’s address space.',
    args: PEERING_ARGS,
    async run(ctx, args) {
      // custom.py sync_vnet_peering: GET the peering, PUT it back with syncRemoteAddressSpace=true.
      const path = peeringPath(ctx, args);
      const current = (await get(ctx, path, API.network)) as { name?: string; properties?: Record<string, unknown> };
      const p = current.properties ?? {};
      const body = {
        name: current.name,
        properties: {
          allowForwardedTraffic: p['allowForwardedTraffic'],
          allowGatewayTransit: p['allowGatewayTransit'],
          allowVirtualNetworkAccess: p['allowVirtualNetworkAccess'],
          remoteVirtualNetwork: p['remoteVirtualNetwork'],
          useRemoteGateways: p['useRemoteGateways'],
        },
      };
      const result = await longRunning(
        ctx,
        { method: 'PUT', path, apiVersion: API.network, query: { syncRemoteAddressSpace: 'true' }, body, accept: [200, 201] },
        false,
      );
      return result === undefined ? undefined : flattenProperties(result);
    },
  },
];
