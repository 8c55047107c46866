// az vm create / show / list / delete (azure-mgmt-compute, api-version 2022-11-01). `vm create` makes the
// NIC <name>VMNic (ip configuration ipconfig<name>) on an existing subnet, an NSG <name>NSG allowing SSH
// unless --nsg "" (as az does), then the VM, and prints az's summary (powerState, privateIpAddress…).
// aksemu has no public IP addresses: the VM never gets one.
import { userInfo } from 'node:os';
import { isDisallowedAdminUsername } from '../../../providers/compute/adminUsernames.js';
import { API } from '../api-versions.js';
import { flag, list, str, type ArgDef, type ParsedArgs } from '../args.js';
import { longRunning, type CommandDef, type Invocation } from '../command.js';
import { AzCliError } from '../errors.js';
import type { ResourceBody } from '../bodies.js';
import { groupScope, isValidResourceId, nameOrId } from '../resource-id.js';
import { resolveSshKey } from '../ssh-key.js';
import { parseTags } from '../tags.js';
import { flattenProperties } from '../transforms.js';
import { groupLocation, listAll, LOCATION, NAME, NO_WAIT, OPTIONAL_RESOURCE_GROUP, RESOURCE_GROUP, TAGS, YES } from './common.js';
import { sameId } from '../../../ids/compare.js';

/** az's image aliases (azure-cli 2.45 aliases.json), the Linux ones: aksemu VMs take SSH keys only. */
const IMAGE_ALIASES: Record<string, { publisher: string; offer: string; sku: string; version: string }> = {
  CentOS85Gen2: { publisher: 'OpenLogic', offer: 'CentOS', sku: '8_5-gen2', version: 'latest' },
  Debian11: { publisher: 'Debian', offer: 'debian-11', sku: '11-backports-gen2', version: 'latest' },
  Ubuntu2204: { publisher: 'Canonical', offer: '0001-com-ubuntu-server-jammy', sku: '22_04-lts-gen2', version: 'latest' },
  UbuntuLTS: { publisher: 'Canonical', offer: 'UbuntuServer', sku: '18.04-LTS', version: 'latest' },
};

function vmPath(ctx: Invocation, resourceGroup: string, name: string): string {
  return `${groupScope(ctx.subscriptionId(), resourceGroup)}/providers/Microsoft.Compute/virtualMachines/${encodeURIComponent(name)}`;
}

function networkPath(ctx: Invocation, resourceGroup: string, type: string, name: string): string {
  return `${groupScope(ctx.subscriptionId(), resourceGroup)}/providers/Microsoft.Network/${type}/${encodeURIComponent(name)}`;
}

function imageReference(image: string) {
  const alias = Object.entries(IMAGE_ALIASES).find(([name]) => sameId(name, image));
  if (alias) return alias[1];
  const urn = image.split(':');
  if (urn.length === 4 && urn.every((part) => part !== '')) return { publisher: urn[0]!, offer: urn[1]!, sku: urn[2]!, version: urn[3]! };
  throw new AzCliError(
    `Invalid image "${image}". Use a valid image URN, custom image name, custom image id, VHD blob URI, or pick an image from ${JSON.stringify(Object.keys(IMAGE_ALIASES))}.\nSee vm create -h for more information on specifying an image.`,
  );
}

/** azure-cli _validate_admin_username (Linux). */
function checkAdminUsername(username: string): void {
  if (/[A-Z\\/"[\]:|<>+=;,?*@#()!]/.test(username) || /^[$-]/.test(username)) {
    throw new AzCliError('admin user name cannot contain upper case character A-Z, special characters \\/"[]:|<>+=;,?*@#()! or start with $ or -');
  }
  if (isDisallowedAdminUsername(username)) {
    throw new AzCliError(
      `This user name '${username}' meets the general requirements, but is specifically disallowed for this image. Please try a different value.`,
    );
  }
}

async function get<T>(ctx: Invocation, path: string, apiVersion: string, query: Record<string, string> = {}): Promise<T> {
  return (await ctx.client().send({ method: 'GET', path, apiVersion, query, accept: [200] })).body as T;
}

/** The members of a VM and of its NICs that `vm show -d` reads. */
interface VmBody {
  id?: string;
  location?: string;
  properties?: {
    instanceView?: { statuses?: Array<{ code?: string; displayStatus?: string }> };
    networkProfile?: { networkInterfaces?: Array<{ id: string }> };
  };
}
interface NicBody {
  properties?: { macAddress?: string; ipConfigurations?: Array<{ properties?: { privateIPAddress?: string } }> };
}

/** The subnet the NIC goes on: --subnet as an id, or --vnet-name + --subnet in the group; it must exist. */
async function findSubnet(ctx: Invocation, rg: string, args: ParsedArgs): Promise<string> {
  const subnet = str(args, 'subnet');
  const vnet = str(args, 'vnetName');
  if (subnet === undefined) throw new AzCliError('usage error: aksemu az vm create needs an existing subnet: --vnet-name NAME --subnet NAME, or --subnet ID');
  let path: string;
  if (isValidResourceId(subnet)) path = subnet;
  else if (vnet !== undefined) path = `${networkPath(ctx, rg, 'virtualNetworks', vnet)}/subnets/${encodeURIComponent(subnet)}`;
  else throw new AzCliError('usage error: --subnet NAME needs --vnet-name NAME (or give --subnet as a resource id)');
  const res = await ctx.client().raw('GET', ctx.client().url(path, API.network));
  if (res.status !== 200) {
    throw new AzCliError(
      `The subnet '${subnet}'${vnet === undefined ? '' : ` of virtual network '${vnet}'`} was not found in resource group '${rg}'. aksemu az vm create puts the VM on an existing subnet: create it first with 'aksemu az network vnet create'.`,
    );
  }
  return (res.body as { id: string }).id;
}

/** az's default NSG for a Linux VM: <vm>NSG with default-allow-ssh. */
async function createNsg(ctx: Invocation, rg: string, vmName: string, location: string, tags: Record<string, string> | undefined): Promise<string> {
  const body: Record<string, unknown> = {
    location,
    properties: {
      securityRules: [
        {
          name: 'default-allow-ssh',
          properties: {
            protocol: 'Tcp',
            sourcePortRange: '*',
            destinationPortRange: '22',
            sourceAddressPrefix: '*',
            destinationAddressPrefix: '*',
            access: 'Allow',
            priority: 1000,
            direction: 'Inbound',
          },
        },
      ],
    },
  };
  if (tags) body['tags'] = tags;
  const nsg = (await longRunning(
    ctx,
    { method: 'PUT', path: networkPath(ctx, rg, 'networkSecurityGroups', `${vmName}NSG`), apiVersion: API.network, body, accept: [200, 201] },
    false,
  )) as { id: string };
  return nsg.id;
}

/** What `vm show -d` adds and `vm create` prints: power state and the NICs' addresses. */
async function details(ctx: Invocation, vm: VmBody) {
  const statuses = vm['properties']?.['instanceView']?.['statuses'] ?? [];
  const power = statuses.find((s) => s.code?.startsWith('PowerState/'));
  const privateIps: string[] = [];
  const macs: string[] = [];
  for (const ref of vm['properties']?.['networkProfile']?.['networkInterfaces'] ?? []) {
    const nic = await get<NicBody>(ctx, ref.id, API.network);
    if (nic['properties']?.['macAddress']) macs.push(nic['properties']['macAddress']);
    for (const config of nic['properties']?.['ipConfigurations'] ?? []) {
      if (config['properties']?.['privateIPAddress']) privateIps.push(config['properties']['privateIPAddress']);
    }
  }
  return { powerState: power?.displayStatus ?? '', publicIps: '', fqdns: '', privateIps: privateIps.join(','), macAddresses: macs.join(',') };
}

const CREATE_ARGS: ArgDef[] = [
  RESOURCE_GROUP,
  { ...NAME, help: 'Name of the virtual machine' },
  LOCATION,
  TAGS,
  {
    dest: 'image',
    options: ['--image'],
    help: `The name of the operating system image, an alias (${Object.keys(IMAGE_ALIASES).join(', ')}) or a URN publisher:offer:sku:version; default Ubuntu2204`,
  },
  { dest: 'size', options: ['--size'], help: 'The VM size. Default: Standard_DS1_v2' },
  { dest: 'adminUsername', options: ['--admin-username'], help: 'Username for the VM. Default: the current user name' },
  { dest: 'generateSshKeys', options: ['--generate-ssh-keys'], type: 'flag', help: 'Generate an SSH key pair if none exists' },
  { dest: 'sshKeyValues', options: ['--ssh-key-values'], type: 'list', help: 'Space-separated SSH public keys or key files' },
  { dest: 'vnetName', options: ['--vnet-name'], help: 'Name of the (existing) virtual network' },
  { dest: 'subnet', options: ['--subnet'], help: 'Name or ID of an existing subnet' },
  { dest: 'privateIpAddress', options: ['--private-ip-address'], help: 'Static private IP address' },
  { dest: 'publicIpAddress', options: ['--public-ip-address'], help: 'Only "" (no public IP) is supported' },
  { dest: 'nsg', options: ['--nsg'], help: 'Name or ID of an existing NSG; "" for none. Default: a new <name>NSG allowing SSH' },
  { dest: 'computerName', options: ['--computer-name'], help: 'The host OS name. Default: the VM name' },
  NO_WAIT,
];

export const vmCommands: CommandDef[] = [
  {
    name: 'vm create',
    help: 'Create an Azure Virtual Machine.',
    args: CREATE_ARGS,
    async run(ctx, args) {
      const rg = str(args, 'resourceGroup')!;
      const name = str(args, 'name')!;
      const adminUsername = str(args, 'adminUsername') ?? userInfo().username;
      checkAdminUsername(adminUsername);
      const image = imageReference(str(args, 'image') ?? 'Ubuntu2204');
      const publicIp = str(args, 'publicIpAddress');
      if (publicIp === undefined) ctx.warn('aksemu has no public IP addresses: the VM gets none (as with --public-ip-address "").');
      else if (publicIp !== '') throw new AzCliError(`aksemu does not model public IP addresses: pass --public-ip-address "" instead of '${publicIp}'.`);
      const keys = list(args, 'sshKeyValues');
      const sshKeys = await Promise.all(
        keys !== undefined
          ? keys.map((value) => resolveSshKey({ value, generate: false, aksemuHome: ctx.home() }))
          : [resolveSshKey({ generate: flag(args, 'generateSshKeys'), aksemuHome: ctx.home() })],
      );
      const location = str(args, 'location') ?? (await groupLocation(ctx, rg));
      const tags = parseTags(list(args, 'tags'));
      const subnetId = await findSubnet(ctx, rg, args);

      const nsgArg = str(args, 'nsg');
      const nsgId =
        nsgArg === undefined
          ? await createNsg(ctx, rg, name, location, tags)
          : nsgArg === ''
            ? undefined
            : nameOrId(nsgArg, ctx.subscriptionId(), rg, 'Microsoft.Network', 'networkSecurityGroups');
      const privateIp = str(args, 'privateIpAddress');
      const ipConfig: Record<string, unknown> = { subnet: { id: subnetId }, privateIPAllocationMethod: privateIp === undefined ? 'Dynamic' : 'Static' };
      if (privateIp !== undefined) ipConfig['privateIPAddress'] = privateIp;
      const nicBody: Record<string, unknown> = {
        location,
        properties: { ipConfigurations: [{ name: `ipconfig${name}`, properties: ipConfig }], ...(nsgId ? { networkSecurityGroup: { id: nsgId } } : {}) },
      };
      if (tags) nicBody['tags'] = tags;
      const nic = (await longRunning(
        ctx,
        { method: 'PUT', path: networkPath(ctx, rg, 'networkInterfaces', `${name}VMNic`), apiVersion: API.network, body: nicBody, accept: [200, 201] },
        false,
      )) as { id: string };

      const vmBody: Record<string, unknown> = {
        location,
        properties: {
          hardwareProfile: { vmSize: str(args, 'size') ?? 'Standard_DS1_v2' },
          storageProfile: {
            imageReference: image,
            osDisk: { createOption: 'FromImage', caching: 'ReadWrite', managedDisk: { storageAccountType: 'Premium_LRS' } },
          },
          osProfile: {
            computerName: str(args, 'computerName') ?? name,
            adminUsername,
            linuxConfiguration: {
              disablePasswordAuthentication: true,
              ssh: { publicKeys: sshKeys.map((keyData) => ({ keyData, path: `/home/${adminUsername}/.ssh/authorized_keys` })) },
            },
          },
          networkProfile: { networkInterfaces: [{ id: nic.id }] },
        },
      };
      if (tags) vmBody['tags'] = tags;
      const path = vmPath(ctx, rg, name);
      const created = await longRunning(ctx, { method: 'PUT', path, apiVersion: API.compute, body: vmBody, accept: [200, 201] }, flag(args, 'noWait'));
      if (created === undefined) return undefined;
      const vm = await get<VmBody>(ctx, path, API.compute, { $expand: 'instanceView' });
      const d = await details(ctx, vm);
      return {
        fqdns: d.fqdns,
        id: vm['id'],
        location: vm['location'],
        macAddress: d.macAddresses,
        powerState: d.powerState,
        privateIpAddress: d.privateIps,
        publicIpAddress: d.publicIps,
        resourceGroup: rg,
        zones: '',
      };
    },
  },
  {
    name: 'vm show',
    help: 'Get the details of a VM.',
    args: [
      RESOURCE_GROUP,
      NAME,
      { dest: 'showDetails', options: ['--show-details', '-d'], type: 'flag', help: 'Show public ip address, FQDN, and power states' },
    ],
    async run(ctx, args) {
      const detailed = flag(args, 'showDetails');
      const vm = await get<VmBody>(ctx, vmPath(ctx, str(args, 'resourceGroup')!, str(args, 'name')!), API.compute, detailed ? { $expand: 'instanceView' } : {});
      return detailed ? { ...(flattenProperties(vm) as Record<string, unknown>), ...(await details(ctx, vm)) } : flattenProperties(vm);
    },
  },
  {
    name: 'vm list',
    help: 'List details of Virtual Machines.',
    args: [OPTIONAL_RESOURCE_GROUP],
    table: (result) => (result as ResourceBody[]).map((vm) => ({ Name: vm['name'], ResourceGroup: vm['resourceGroup'], Location: vm['location'], Zones: '' })),
    async run(ctx, args) {
      const rg = str(args, 'resourceGroup');
      const scope = rg === undefined ? `/subscriptions/${ctx.subscriptionId()}` : groupScope(ctx.subscriptionId(), rg);
      return (await listAll(ctx, `${scope}/providers/Microsoft.Compute/virtualMachines`, API.compute)).map(flattenProperties);
    },
  },
  {
    name: 'vm delete',
    help: 'Delete a VM (its NIC stays, as in Azure).',
    args: [RESOURCE_GROUP, NAME, YES, NO_WAIT],
    async run(ctx, args) {
      await ctx.confirm('Are you sure you want to perform this operation?', flag(args, 'yes'));
      const path = vmPath(ctx, str(args, 'resourceGroup')!, str(args, 'name')!);
      await longRunning(ctx, { method: 'DELETE', path, apiVersion: API.compute, accept: [200, 202, 204] }, flag(args, 'noWait'));
      return undefined;
    },
  },
];
