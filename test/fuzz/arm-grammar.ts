// The ARM front door's request grammar: the real routes (resource groups, Microsoft.Network, Compute,
// ContainerService, Authorization, template deployments) with a valid body for each, and the ways a
// request is spoiled — body edits (mutate.ts), path segments, api-versions, methods, headers, tokens, raw
// JSON, size. Most requests are valid or one edit away from valid, so they pass authentication and the
// schema and reach the handlers. Names come from small fixed pools, so requests meet existing resources.
import { Rng } from './prng.js';
import { applyMutations, deepJson, randomMutation, serialize, type Mutation, type Value } from './mutate.js';
import type { Sent } from './oracle.js';

export const FIXTURE_GROUP = 'fz-rg0';
/** Groups the fuzzer may create and delete (the fixture group is never deleted). */
const GROUPS = [FIXTURE_GROUP, 'fz-rg1', 'fz-rg2'];
const VNETS = ['fz-vnet0', 'fz-vnet1'];
const SUBNETS = ['s0', 's1', 's2'];
const NSGS = ['fz-nsg0', 'fz-nsg1'];
const RULES = ['r0', 'r1'];
const TABLES = ['fz-rt0'];
const ROUTES = ['u0', 'u1'];
const NICS = ['fz-nic0', 'fz-nic1', 'fz-nic2'];
const VMS = ['fz-vm0'];
export const CLUSTERS = ['fz-c0', 'fz-c1'];
const POOLS = ['fzpool0', 'fzpool1'];
const DEPLOYMENTS = ['fz-d0', 'fz-d1', 'fz-d2'];
const ASSIGNMENTS = ['0a5c8f2e-1111-4c3b-9d6e-000000000001', '0a5c8f2e-1111-4c3b-9d6e-000000000002'];
const NETWORK_CONTRIBUTOR = '4d97b98b-1d4f-4787-a291-c67834d212e7';
const PASSWORD = 'Fuzz-Passw0rd!2024';

const API = {
  resources: '2021-04-01',
  network: '2022-07-01',
  compute: '2023-03-01',
  aks: ['2022-11-01', '2022-06-01', '2026-04-01'],
  authorization: '2022-04-01',
};

export interface ArmContext {
  sub: string;
  /** A valid bearer token, and hostile ones for the auth mutations. */
  token: string;
}

interface Op {
  /** `METHOD template`, the class name in reports. */
  name: string;
  weight: number;
  method: string;
  /** Path segments after the subscription (or from the root when absolute). */
  path: (rng: Rng, sub: string) => string[];
  apiVersion: (rng: Rng) => string;
  body?: (rng: Rng, sub: string) => Value;
}

const idx = (rng: Rng, names: readonly string[]) => rng.pick(names);
const rgPath = (rng: Rng, sub: string, deletable = false) => [
  'subscriptions',
  sub,
  'resourceGroups',
  deletable ? rng.pick(GROUPS.slice(1)) : weightedGroup(rng),
];
/** Mostly the fixture group, where the fixtures live. */
const weightedGroup = (rng: Rng) => (rng.chance(0.8) ? FIXTURE_GROUP : rng.pick(GROUPS));
const net = (rng: Rng, sub: string, type: string, names: readonly string[]) => [...rgPath(rng, sub), 'providers', 'Microsoft.Network', type, idx(rng, names)];
const fixed = (v: string) => () => v;

function subnetId(sub: string, group: string, vnet: string, subnet: string): string {
  return `/subscriptions/${sub}/resourceGroups/${group}/providers/Microsoft.Network/virtualNetworks/${vnet}/subnets/${subnet}`;
}

function vnetOctet(name: string): number {
  return 10 + VNETS.indexOf(name);
}

export function vnetBody(rng: Rng, vnet: string): Value {
  const o = vnetOctet(vnet);
  const subnets = SUBNETS.slice(0, rng.int(0, 2)).map((s, i) => ({ name: s, properties: { addressPrefix: `10.${o}.${i}.0/24` } }));
  return { location: 'eastus', tags: { fuzz: 'yes' }, properties: { addressSpace: { addressPrefixes: [`10.${o}.0.0/16`] }, subnets } };
}

function subnetBody(rng: Rng, sub: string): Value {
  const i = rng.int(0, 2);
  const props: Record<string, Value> = { addressPrefix: `10.${rng.pick([10, 11])}.${i + 3}.0/24` };
  if (rng.chance(0.3))
    props['networkSecurityGroup'] = {
      id: `/subscriptions/${sub}/resourceGroups/${FIXTURE_GROUP}/providers/Microsoft.Network/networkSecurityGroups/${rng.pick(NSGS)}`,
    };
  if (rng.chance(0.3))
    props['routeTable'] = { id: `/subscriptions/${sub}/resourceGroups/${FIXTURE_GROUP}/providers/Microsoft.Network/routeTables/${rng.pick(TABLES)}` };
  return { properties: props };
}

function ruleBody(rng: Rng): Value {
  return {
    properties: {
      protocol: rng.pick(['Tcp', 'Udp', '*']),
      sourcePortRange: '*',
      destinationPortRange: String(rng.int(1, 65535)),
      sourceAddressPrefix: rng.pick(['*', '10.0.0.0/8', 'Internet']),
      destinationAddressPrefix: '*',
      access: rng.pick(['Allow', 'Deny']),
      priority: rng.int(100, 4096),
      direction: rng.pick(['Inbound', 'Outbound']),
    },
  };
}

function routeBody(rng: Rng): Value {
  return rng.chance(0.5)
    ? { properties: { addressPrefix: `10.${rng.int(100, 200)}.0.0/16`, nextHopType: 'VirtualAppliance', nextHopIpAddress: '10.10.0.4' } }
    : { properties: { addressPrefix: '0.0.0.0/0', nextHopType: rng.pick(['Internet', 'None', 'VnetLocal']) } };
}

export function nicBody(rng: Rng, sub: string): Value {
  const ipConfig: Record<string, Value> = {
    subnet: { id: subnetId(sub, FIXTURE_GROUP, 'fz-vnet0', rng.pick(['s0', 's1'])) },
    privateIPAllocationMethod: 'Dynamic',
  };
  if (rng.chance(0.3)) Object.assign(ipConfig, { privateIPAllocationMethod: 'Static', privateIPAddress: `10.10.${rng.int(0, 1)}.${rng.int(4, 250)}` });
  return { location: 'eastus', properties: { ipConfigurations: [{ name: 'ipconfig1', properties: ipConfig }] } };
}

function vmBody(rng: Rng, sub: string): Value {
  return {
    location: 'eastus',
    properties: {
      hardwareProfile: { vmSize: rng.pick(['Standard_B1s', 'Standard_DS2_v2']) },
      storageProfile: { imageReference: { publisher: 'Canonical', offer: '0001-com-ubuntu-server-jammy', sku: '22_04-lts-gen2', version: 'latest' } },
      osProfile: { computerName: 'fzvm', adminUsername: 'azureuser', adminPassword: PASSWORD },
      networkProfile: {
        networkInterfaces: [{ id: `/subscriptions/${sub}/resourceGroups/${FIXTURE_GROUP}/providers/Microsoft.Network/networkInterfaces/${rng.pick(NICS)}` }],
      },
    },
  };
}

export function clusterBody(rng: Rng, name = 'fzc'): Value {
  return {
    location: 'eastus',
    identity: { type: 'SystemAssigned' },
    properties: {
      dnsPrefix: name.replace(/[^a-z0-9]/g, ''),
      agentPoolProfiles: [{ name: 'nodepool1', count: rng.int(1, 2), vmSize: 'Standard_DS2_v2', mode: 'System', osType: 'Linux' }],
      networkProfile: { networkPlugin: rng.pick(['kubenet', 'kubenet', 'azure', 'none']) },
    },
  };
}

function poolBody(rng: Rng): Value {
  const props: Record<string, Value> = { count: rng.int(0, 2), vmSize: 'Standard_DS2_v2', mode: rng.pick(['User', 'System']), osType: 'Linux' };
  if (rng.chance(0.3)) props['maxPods'] = rng.int(10, 110);
  if (rng.chance(0.2)) props['nodeTaints'] = ['k=v:NoSchedule'];
  return { properties: props };
}

function roleAssignmentBody(rng: Rng, sub: string): Value {
  return {
    properties: {
      roleDefinitionId: `/subscriptions/${sub}/providers/Microsoft.Authorization/roleDefinitions/${NETWORK_CONTRIBUTOR}`,
      principalId: `5e1f${rng.int(1000, 9999)}-0000-4000-8000-000000000000`,
      principalType: 'ServicePrincipal',
    },
  };
}

/** A small valid template: one VNet with a subnet, a parameter, a variable, an output. */
export function templateBody(rng: Rng): Value {
  const octet = rng.int(50, 59);
  return {
    properties: {
      mode: 'Incremental',
      parameters: { vnetName: { value: `fz-tvnet${octet}` } },
      template: {
        $schema: 'https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#',
        contentVersion: '1.0.0.0',
        parameters: { vnetName: { type: 'string' }, prefix: { type: 'string', defaultValue: `10.${octet}.0.0/16` } },
        variables: { subnetName: "[concat('sub', string(add(1, 1)))]" },
        resources: [
          {
            type: 'Microsoft.Network/virtualNetworks',
            apiVersion: API.network,
            name: "[parameters('vnetName')]",
            location: 'eastus',
            properties: {
              addressSpace: { addressPrefixes: ["[parameters('prefix')]"] },
              subnets: [{ name: "[variables('subnetName')]", properties: { addressPrefix: `10.${octet}.0.0/24` } }],
            },
          },
        ],
        outputs: { id: { type: 'string', value: "[resourceId('Microsoft.Network/virtualNetworks', parameters('vnetName'))]" } },
      },
    },
  };
}

/** Template expressions that blow up in time, memory or output size. */
export const HOSTILE_EXPRESSIONS = [
  "[replace(string(range(0,5000)), ',', string(range(0,5000)))]",
  "[padLeft('a', 1000000000, 'x')]",
  '[string(range(0, 100000000))]',
  '[length(range(0, 2147483647))]',
  '[concat(string(range(0,3000)), string(range(0,3000)), string(range(0,3000)))]',
  `[${'concat('.repeat(3000)}'a'${')'.repeat(3000)}]`,
  `[${'string('.repeat(5000)}1${')'.repeat(5000)}]`,
  '[json(\'{"__proto__":{"aksemuPolluted":"yes"}}\')]',
  "[createObject('__proto__', createObject('aksemuPolluted', 'yes'))]",
  '[union(json(\'{"__proto__":{"aksemuPolluted":"yes"}}\'), createObject(\'a\', 1))]',
  "[base64ToString(base64(padLeft('', 50000000, 'x')))]",
  "[split(padLeft('', 10000000, ','), ',')]",
  "[parameters('__proto__')]",
  "[variables('constructor')]",
  "[substring('abc', -1, 1000000000)]",
  '[take(range(0, 10), -1)]',
  "[uniqueString(padLeft('', 100000000, 'y'))]",
];

function hostileTemplate(rng: Rng): { body: Value; label: string } {
  const body = templateBody(rng) as any;
  const expr = rng.pick(HOSTILE_EXPRESSIONS);
  const t = body.properties.template;
  const where = rng.pick(['output', 'variable', 'name', 'copy', 'tags']);
  if (where === 'output') t.outputs.bad = { type: rng.pick(['string', 'object', 'array', 'int']), value: expr };
  else if (where === 'variable') {
    t.variables.bad = expr;
    t.outputs.bad = { type: 'string', value: "[string(variables('bad'))]" };
  } else if (where === 'name') t.resources[0].name = expr;
  else if (where === 'copy') t.resources[0].copy = { name: 'many', count: rng.pick([100000, 2147483647, -1, 801, '[length(range(0, 1000000))]']) };
  else t.resources[0].tags = { bad: expr };
  return { body, label: `template ${where} = ${expr.length > 80 ? `${expr.slice(0, 77)}…` : expr}` };
}

const aksCluster = (rng: Rng, sub: string) => [...rgPath(rng, sub), 'providers', 'Microsoft.ContainerService', 'managedClusters', idx(rng, CLUSTERS)];
const deployment = (rng: Rng, sub: string) => [...rgPath(rng, sub), 'providers', 'Microsoft.Resources', 'deployments', idx(rng, DEPLOYMENTS)];
const roleScope = (rng: Rng, sub: string): string[] =>
  rng.weighted<string[]>([
    [2, ['subscriptions', sub]],
    [3, rgPath(rng, sub)],
    [2, [...rgPath(rng, sub), 'providers', 'Microsoft.Network', 'virtualNetworks', 'fz-vnet0']],
    [1, []],
  ]);

const OPS: Op[] = [
  { name: 'GET /subscriptions', weight: 1, method: 'GET', path: () => ['subscriptions'], apiVersion: fixed(API.resources) },
  { name: 'GET /subscriptions/{s}', weight: 1, method: 'GET', path: (_r, s) => ['subscriptions', s], apiVersion: fixed(API.resources) },
  { name: 'GET …/locations', weight: 1, method: 'GET', path: (_r, s) => ['subscriptions', s, 'locations'], apiVersion: fixed(API.resources) },
  { name: 'GET /tenants', weight: 1, method: 'GET', path: () => ['tenants'], apiVersion: fixed(API.resources) },
  {
    name: 'PUT resourceGroup',
    weight: 5,
    method: 'PUT',
    path: (r, s) => rgPath(r, s),
    apiVersion: fixed(API.resources),
    body: (r) => ({ location: r.pick(['eastus', 'westeurope', 'EastUS']), tags: { a: 'b' } }),
  },
  {
    name: 'PATCH resourceGroup',
    weight: 3,
    method: 'PATCH',
    path: (r, s) => rgPath(r, s),
    apiVersion: fixed(API.resources),
    body: (r) => ({ tags: { k: String(r.int(0, 9)) } }),
  },
  { name: 'GET resourceGroup', weight: 2, method: 'GET', path: (r, s) => rgPath(r, s), apiVersion: fixed(API.resources) },
  { name: 'HEAD resourceGroup', weight: 1, method: 'HEAD', path: (r, s) => rgPath(r, s), apiVersion: fixed(API.resources) },
  { name: 'DELETE resourceGroup', weight: 1, method: 'DELETE', path: (r, s) => rgPath(r, s, true), apiVersion: fixed(API.resources) },
  { name: 'GET resourceGroups', weight: 1, method: 'GET', path: (_r, s) => ['subscriptions', s, 'resourcegroups'], apiVersion: fixed(API.resources) },
  {
    name: 'PUT virtualNetwork',
    weight: 6,
    method: 'PUT',
    path: (r, s) => net(r, s, 'virtualNetworks', VNETS),
    apiVersion: fixed(API.network),
    body: (r) => vnetBody(r, r.pick(VNETS)),
  },
  { name: 'GET virtualNetwork', weight: 2, method: 'GET', path: (r, s) => net(r, s, 'virtualNetworks', VNETS), apiVersion: fixed(API.network) },
  { name: 'DELETE virtualNetwork', weight: 1, method: 'DELETE', path: (r, s) => net(r, s, 'virtualNetworks', ['fz-vnet1']), apiVersion: fixed(API.network) },
  {
    name: 'GET virtualNetworks',
    weight: 1,
    method: 'GET',
    path: (_r, s) => ['subscriptions', s, 'providers', 'Microsoft.Network', 'virtualNetworks'],
    apiVersion: fixed(API.network),
  },
  {
    name: 'PUT subnet',
    weight: 5,
    method: 'PUT',
    path: (r, s) => [...net(r, s, 'virtualNetworks', ['fz-vnet0']), 'subnets', r.pick(SUBNETS)],
    apiVersion: fixed(API.network),
    body: (r, s) => subnetBody(r, s),
  },
  {
    name: 'GET subnet',
    weight: 1,
    method: 'GET',
    path: (r, s) => [...net(r, s, 'virtualNetworks', VNETS), 'subnets', r.pick(SUBNETS)],
    apiVersion: fixed(API.network),
  },
  {
    name: 'DELETE subnet',
    weight: 1,
    method: 'DELETE',
    path: (r, s) => [...net(r, s, 'virtualNetworks', VNETS), 'subnets', 's2'],
    apiVersion: fixed(API.network),
  },
  {
    name: 'PUT networkSecurityGroup',
    weight: 3,
    method: 'PUT',
    path: (r, s) => net(r, s, 'networkSecurityGroups', NSGS),
    apiVersion: fixed(API.network),
    body: (r) => ({ location: 'eastus', properties: { securityRules: [{ name: 'r9', ...(ruleBody(r) as object) }] } }),
  },
  {
    name: 'PUT securityRule',
    weight: 3,
    method: 'PUT',
    path: (r, s) => [...net(r, s, 'networkSecurityGroups', NSGS), 'securityRules', r.pick(RULES)],
    apiVersion: fixed(API.network),
    body: (r) => ruleBody(r),
  },
  {
    name: 'GET securityRules',
    weight: 1,
    method: 'GET',
    path: (r, s) => [...net(r, s, 'networkSecurityGroups', NSGS), r.pick(['securityRules', 'defaultSecurityRules'])],
    apiVersion: fixed(API.network),
  },
  {
    name: 'DELETE securityRule',
    weight: 1,
    method: 'DELETE',
    path: (r, s) => [...net(r, s, 'networkSecurityGroups', NSGS), 'securityRules', r.pick(RULES)],
    apiVersion: fixed(API.network),
  },
  {
    name: 'PUT routeTable',
    weight: 2,
    method: 'PUT',
    path: (r, s) => net(r, s, 'routeTables', TABLES),
    apiVersion: fixed(API.network),
    body: (r) => ({ location: 'eastus', properties: { routes: [{ name: 'u9', ...(routeBody(r) as object) }], disableBgpRoutePropagation: r.chance(0.5) } }),
  },
  {
    name: 'PUT route',
    weight: 3,
    method: 'PUT',
    path: (r, s) => [...net(r, s, 'routeTables', TABLES), 'routes', r.pick(ROUTES)],
    apiVersion: fixed(API.network),
    body: (r) => routeBody(r),
  },
  {
    name: 'DELETE route',
    weight: 1,
    method: 'DELETE',
    path: (r, s) => [...net(r, s, 'routeTables', TABLES), 'routes', r.pick(ROUTES)],
    apiVersion: fixed(API.network),
  },
  {
    name: 'PUT networkInterface',
    weight: 5,
    method: 'PUT',
    path: (r, s) => net(r, s, 'networkInterfaces', NICS),
    apiVersion: fixed(API.network),
    body: (r, s) => nicBody(r, s),
  },
  { name: 'GET networkInterface', weight: 1, method: 'GET', path: (r, s) => net(r, s, 'networkInterfaces', NICS), apiVersion: fixed(API.network) },
  {
    name: 'DELETE networkInterface',
    weight: 1,
    method: 'DELETE',
    path: (r, s) => net(r, s, 'networkInterfaces', NICS.slice(1)),
    apiVersion: fixed(API.network),
  },
  {
    name: 'GET networkInterfaces',
    weight: 1,
    method: 'GET',
    path: (_r, s) => ['subscriptions', s, 'providers', 'Microsoft.Network', 'networkInterfaces'],
    apiVersion: fixed(API.network),
  },
  {
    name: 'PUT virtualMachine',
    weight: 3,
    method: 'PUT',
    path: (r, s) => [...rgPath(r, s), 'providers', 'Microsoft.Compute', 'virtualMachines', r.pick(VMS)],
    apiVersion: fixed(API.compute),
    body: (r, s) => vmBody(r, s),
  },
  {
    name: 'GET virtualMachine',
    weight: 1,
    method: 'GET',
    path: (r, s) => [...rgPath(r, s), 'providers', 'Microsoft.Compute', 'virtualMachines', r.pick(VMS), ...(r.chance(0.5) ? ['instanceView'] : [])],
    apiVersion: fixed(API.compute),
  },
  {
    name: 'DELETE virtualMachine',
    weight: 1,
    method: 'DELETE',
    path: (r, s) => [...rgPath(r, s), 'providers', 'Microsoft.Compute', 'virtualMachines', r.pick(VMS)],
    apiVersion: fixed(API.compute),
  },
  { name: 'PUT managedCluster', weight: 5, method: 'PUT', path: aksCluster, apiVersion: (r) => r.pick(API.aks), body: (r) => clusterBody(r) },
  { name: 'GET managedCluster', weight: 2, method: 'GET', path: aksCluster, apiVersion: (r) => r.pick(API.aks) },
  {
    name: 'DELETE managedCluster',
    weight: 1,
    method: 'DELETE',
    path: (r, s) => [...aksCluster(r, s).slice(0, -1), 'fz-c1'],
    apiVersion: (r) => r.pick(API.aks),
  },
  {
    name: 'POST listClusterUserCredential',
    weight: 1,
    method: 'POST',
    path: (r, s) => [...aksCluster(r, s), r.pick(['listClusterUserCredential', 'listClusterAdminCredential'])],
    apiVersion: (r) => r.pick(API.aks),
  },
  {
    name: 'PUT agentPool',
    weight: 4,
    method: 'PUT',
    path: (r, s) => [...aksCluster(r, s), 'agentPools', r.pick(POOLS)],
    apiVersion: (r) => r.pick(API.aks),
    body: (r) => poolBody(r),
  },
  { name: 'GET agentPools', weight: 1, method: 'GET', path: (r, s) => [...aksCluster(r, s), 'agentPools'], apiVersion: (r) => r.pick(API.aks) },
  {
    name: 'DELETE agentPool',
    weight: 1,
    method: 'DELETE',
    path: (r, s) => [...aksCluster(r, s), 'agentPools', r.pick(POOLS)],
    apiVersion: (r) => r.pick(API.aks),
  },
  {
    name: 'GET kubernetesVersions',
    weight: 1,
    method: 'GET',
    path: (r, s) => [
      'subscriptions',
      s,
      'providers',
      'Microsoft.ContainerService',
      'locations',
      r.pick(['eastus', 'nowhere']),
      r.pick(['kubernetesVersions', 'orchestrators']),
    ],
    apiVersion: (r) => r.pick(API.aks),
  },
  {
    name: 'PUT roleAssignment',
    weight: 3,
    method: 'PUT',
    path: (r, s) => [...roleScope(r, s), 'providers', 'Microsoft.Authorization', 'roleAssignments', r.pick(ASSIGNMENTS)],
    apiVersion: fixed(API.authorization),
    body: (r, s) => roleAssignmentBody(r, s),
  },
  {
    name: 'GET roleAssignments',
    weight: 1,
    method: 'GET',
    path: (r, s) => [...roleScope(r, s), 'providers', 'Microsoft.Authorization', 'roleAssignments'],
    apiVersion: fixed(API.authorization),
  },
  {
    name: 'DELETE roleAssignment',
    weight: 1,
    method: 'DELETE',
    path: (r, s) => [...roleScope(r, s), 'providers', 'Microsoft.Authorization', 'roleAssignments', r.pick(ASSIGNMENTS)],
    apiVersion: fixed(API.authorization),
  },
  {
    name: 'GET roleDefinitions',
    weight: 1,
    method: 'GET',
    path: (r, s) => [...roleScope(r, s), 'providers', 'Microsoft.Authorization', 'roleDefinitions', ...(r.chance(0.5) ? [NETWORK_CONTRIBUTOR] : [])],
    apiVersion: fixed(API.authorization),
  },
  { name: 'PUT deployment', weight: 5, method: 'PUT', path: deployment, apiVersion: fixed(API.resources), body: (r) => templateBody(r) },
  {
    name: 'POST deployment validate/whatIf',
    weight: 2,
    method: 'POST',
    path: (r, s) => [...deployment(r, s), r.pick(['validate', 'whatIf'])],
    apiVersion: fixed(API.resources),
    body: (r) => templateBody(r),
  },
  {
    name: 'GET deployment',
    weight: 2,
    method: 'GET',
    path: (r, s) => [...deployment(r, s), ...r.pick([[], ['operations'], ['operations', 'x']])],
    apiVersion: fixed(API.resources),
  },
  {
    name: 'GET deployments',
    weight: 1,
    method: 'GET',
    path: (r, s) => [...rgPath(r, s), 'providers', 'Microsoft.Resources', 'deployments'],
    apiVersion: fixed(API.resources),
  },
  { name: 'POST exportTemplate', weight: 1, method: 'POST', path: (r, s) => [...deployment(r, s), 'exportTemplate'], apiVersion: fixed(API.resources) },
  { name: 'DELETE deployment', weight: 1, method: 'DELETE', path: deployment, apiVersion: fixed(API.resources) },
  {
    name: 'GET operation status',
    weight: 1,
    method: 'GET',
    path: (r, s) => [
      'subscriptions',
      s,
      'providers',
      r.pick(['Microsoft.Network', 'Microsoft.ContainerService']),
      'locations',
      'eastus',
      r.pick(['operations', 'operationresults']),
      r.pick(['00000000-0000-0000-0000-000000000000', 'x', '..']),
    ],
    apiVersion: fixed(API.resources),
  },
];

/** What the path segment of a name may be made into. */
function hostileSegment(rng: Rng, sub: string, original: string): { text: string; label: string } {
  const raw = rng.pick([
    `${sub}%2FresourceGroups%2Fr`,
    `${original}%2Fchild`,
    'a%2F..%2F..%2Fb',
    '%ZZ',
    '%',
    '%00',
    '%2e%2e',
    '..',
    '__proto__',
    'constructor',
    'prototype',
    'hasOwnProperty',
    encodeURIComponent('ÆØÅ-名前'),
    'x'.repeat(rng.pick([91, 300, 5000])),
    original.toUpperCase(),
    `${original}%20`,
    `${original}.`,
    '%7B%7D',
    '*',
    'undefined',
  ]);
  return { text: raw, label: `name segment ${original} → ${raw.length > 60 ? `${raw.slice(0, 20)}…(${raw.length})` : raw}` };
}

const ODD_API_VERSIONS = [
  '',
  'latest',
  '2099-01-01',
  '2022-11-01-preview',
  '1',
  '%ZZ',
  '2021-04-01%0AGET%20/forged%20200',
  'x'.repeat(2000),
  '2021-04-01&api-version=2022-07-01',
  '2021-04-01%00',
];
const ODD_METHODS = ['OPTIONS', 'TRACE', 'PROPFIND', 'MERGE', 'FOO', 'CONNECT', 'PATCH', 'POST', 'PUT', 'DELETE', 'GET', 'HEAD'];

function badTokens(ctx: ArmContext): Array<[string, string | undefined]> {
  const [h, p] = ctx.token.split('.');
  const payload = JSON.parse(Buffer.from(p!, 'base64url').toString()) as Record<string, unknown>;
  const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return [
    ['no Authorization header', undefined],
    ['empty bearer', 'Bearer '],
    ['garbage token', 'Bearer not.a.token'],
    ['Basic scheme', 'Basic dXNlcjpwYXNz'],
    ['alg none', `Bearer ${b64({ alg: 'none', typ: 'JWT' })}.${p}.`],
    ['expired (re-signed claims, old signature)', `Bearer ${h}.${b64({ ...payload, exp: 1_000_000_000 })}.${ctx.token.split('.')[2]}`],
    ['no exp (unsigned)', `Bearer ${h}.${b64({ ...payload, exp: undefined })}.`],
    ['wrong audience (tampered)', `Bearer ${h}.${b64({ ...payload, aud: 'https://graph.microsoft.com/' })}.${ctx.token.split('.')[2]}`],
    ['truncated signature', `Bearer ${ctx.token.slice(0, -10)}`],
    ['token repeated', `Bearer ${ctx.token} ${ctx.token}`],
  ];
}

const BAD_JSON = [
  '{',
  '{"location":',
  'null',
  '[]',
  '"text"',
  '1',
  'NaN',
  '{"a":1,}',
  '\u0000',
  '\ufeff{"location":"eastus"}',
  '{"location":"eastus"} trailing',
  "{'location':'eastus'}",
  '{"location":"eastus","location":"westus"}',
  '/* c */ {"location": "eastus"}',
  '{"\\ud800":1}',
  '\ud800',
];

function joinPath(segments: string[]): string {
  return `/${segments.map((s) => (s.includes('%') || s === '..' ? s : encodeURIComponent(s))).join('/')}`;
}

/** How often each way of spoiling a request is chosen. */
const ARM_SPOILS: Array<[number, string]> = [
  [30, 'none'],
  [44, 'body'],
  [3, 'template'],
  [8, 'path'],
  [4, 'query'],
  [3, 'method'],
  [3, 'headers'],
  [3, 'auth'],
  [2, 'json'],
  [0.15, 'oversize'],
];

/** AKSEMU_FUZZ_SPOILS=body,path narrows a run to some kinds of spoiling (to chase one failure class). */
export function onlySpoils(table: Array<[number, string]>, env: NodeJS.ProcessEnv = process.env): Array<[number, string]> {
  const only = env['AKSEMU_FUZZ_SPOILS']?.split(',').filter(Boolean);
  if (!only?.length) return table;
  const kept = table.filter(([, k]) => only.includes(k));
  if (kept.length === 0) throw new Error(`AKSEMU_FUZZ_SPOILS names none of ${table.map(([, k]) => k).join(', ')}`);
  return kept;
}

/** Request `index` of run `seed`. */
export function generateArm(seed: number, index: number, ctx: ArmContext): Sent {
  const rng = Rng.derive(seed, index);
  const op = rng.weighted(OPS.map((o) => [o.weight, o] as const));
  const labels: string[] = [];
  let segments = op.path(rng, ctx.sub);
  let method = op.method;
  let apiVersion: string | undefined = op.apiVersion(rng);
  const headers: Record<string, string> = { authorization: `Bearer ${ctx.token}` };
  let base = op.body?.(rng, ctx.sub);
  let mutations: Mutation[] | undefined;
  let body: string | undefined;
  let expectUnauthorized = false;
  let query = '';

  const spoil = rng.weighted<string>(onlySpoils(ARM_SPOILS));
  if (spoil === 'body' && base !== undefined) {
    mutations = Array.from(
      {
        length: rng.weighted([
          [6, 1],
          [3, 2],
          [1, 3],
        ]),
      },
      () => randomMutation(rng, base!),
    );
    labels.push(...mutations.map((m) => m.label));
  } else if (spoil === 'template') {
    const t = hostileTemplate(rng);
    method = 'PUT';
    segments = deployment(rng, ctx.sub);
    if (rng.chance(0.3)) {
      segments.push(rng.pick(['validate', 'whatIf']));
      method = 'POST';
    }
    apiVersion = API.resources;
    base = t.body;
    labels.push(t.label);
  } else if (spoil === 'path') {
    const at = rng.int(Math.min(3, segments.length - 1), segments.length - 1);
    const s = hostileSegment(rng, ctx.sub, segments[at]!);
    segments = [...segments];
    segments[at] = s.text;
    labels.push(s.label);
    if (rng.chance(0.2)) labels.push('trailing slash');
  } else if (spoil === 'query') {
    if (rng.chance(0.3)) {
      apiVersion = undefined;
      labels.push('no api-version');
    } else {
      apiVersion = rng.pick(ODD_API_VERSIONS);
      labels.push(`api-version=${apiVersion.length > 40 ? `${apiVersion.slice(0, 12)}…(${apiVersion.length})` : apiVersion}`);
    }
    if (rng.chance(0.5)) {
      query = `&${rng.pick(['$filter=atScope()', "$filter=principalId%20eq%20'%ZZ'", '$top=-1', '$expand=%00', '$skiptoken=' + 'z'.repeat(3000), 'x=<script>'])}`;
      labels.push(`query ${query.slice(1, 40)}`);
    }
  } else if (spoil === 'method') {
    method = rng.pick(ODD_METHODS.filter((m) => m !== op.method));
    labels.push(`method ${op.method} → ${method}`);
  } else if (spoil === 'headers') {
    const h = rng.pick<[string, string]>([
      ['content-type', 'text/plain'],
      ['content-type', 'application/json; charset=utf-16'],
      ['content-type', 'application/x-www-form-urlencoded'],
      ['content-type', 'multipart/form-data; boundary=x'],
      ['x-ms-client-request-id', 'x'.repeat(300)],
      ['x-ms-correlation-request-id', '\t<id>\t'],
      ['host', 'evil.example:443'],
      ['host', 'localhost'],
      ['accept', 'application/xml'],
      ['x-big', 'h'.repeat(rng.pick([9_000, 20_000, 70_000]))],
      ['if-match', '"nope"'],
      ['accept-language', '%ZZ'],
    ]);
    headers[h[0]] = h[1];
    labels.push(`header ${h[0]}: ${h[1].length > 40 ? `${h[1].slice(0, 10)}…(${h[1].length})` : h[1]}`);
  } else if (spoil === 'auth') {
    const [label, value] = rng.pick(badTokens(ctx));
    if (value === undefined) delete headers['authorization'];
    else headers['authorization'] = value;
    expectUnauthorized = true;
    labels.push(`auth: ${label}`);
  } else if (spoil === 'json') {
    body = rng.pick(BAD_JSON);
    labels.push(`body ${JSON.stringify(body).slice(0, 40)}`);
    if (method === 'GET' || method === 'DELETE' || method === 'HEAD') method = 'PUT';
  } else if (spoil === 'oversize') {
    body = `{"location":"eastus","tags":{"big":"${'x'.repeat(rng.pick([4_500_000, 9_000_000]))}"}}`;
    if (method === 'GET' || method === 'DELETE' || method === 'HEAD') method = 'PUT';
    labels.push(`body of ${body.length} bytes`);
  }
  if (body === undefined && base !== undefined) body = serialize(mutations ? applyMutations(base, mutations) : base);
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  if (rng.chance(0.03) && body !== undefined && spoil !== 'oversize' && spoil !== 'none') {
    // Deep nesting as the whole body, a value JSON.parse accepts and naive walkers do not.
    body = deepJson(rng.pick([1_000, 10_000]), rng.pick(['array', 'object'] as const)).text.replace(/^\{"a":/, '{"location":"eastus","tags":');
    labels.push('body nested deep');
    mutations = undefined;
  }
  const path = joinPath(segments) + (labels.includes('trailing slash') ? '/' : '');
  const q = apiVersion === undefined ? query.replace(/^&/, '') : `api-version=${apiVersion}${query}`;
  const wire = { method, path: q ? `${path}?${q}` : path, headers, ...(body === undefined ? {} : { body }) };
  const name = spoil === 'template' ? `${method} deployment (hostile template)` : op.name.replace(/^\S+/, method);
  return {
    api: 'arm',
    index,
    template: name,
    wire,
    labels,
    ...(base !== undefined && mutations ? { base, mutations } : {}),
    ...(expectUnauthorized ? { expectUnauthorized } : {}),
    // ARM answers every method it does not serve 405 in its envelope; Node would reset a CONNECT (issue 25).
    ...(method === 'CONNECT' && !expectUnauthorized ? { expectStatus: 405 } : {}),
  };
}

/** The same request with other body edits (for shrinking). */
export function rebuildArm(sent: Sent, mutations: Mutation[], base: Value = sent.base!): Sent {
  const body = serialize(applyMutations(base, mutations));
  return { ...sent, wire: { ...sent.wire, body }, base, mutations, labels: mutations.map((m) => m.label) };
}
