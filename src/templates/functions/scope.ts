// Functions that read the deployment: parameters, variables, the group, subscription and deployment
// objects, copyIndex, resource ids, reference() and list*().
import type { EvalEnv } from '../expression/env.js';
import { arity, fail, int, str, type FunctionTable } from './types.js';

/**
 * resourceId([subscriptionId], [resourceGroupName], type, name1, name2…): the type's segments and
 * the names interleave. ARM tells an optional leading subscription or group apart from the type by
 * the '/' every type contains.
 */
function resourceIdOf(env: EvalEnv, name: string, args: unknown[]): string {
  const parts = args.map((a) => str(name, a, 'its parameters'));
  const typeAt = parts.findIndex((p) => p.includes('/'));
  if (typeAt < 0 || typeAt > 2) fail(`Unable to evaluate template language function '${name}': the type must be a fully qualified resource type.`);
  const sub = env.subscription();
  const subscriptionId = typeAt === 2 ? parts[0]! : String(sub['subscriptionId']);
  // In a subscription deployment, resourceId() without a group is the subscription resource's id.
  if (typeAt === 0 && env.atSubscription) return buildResourceId(name, `/subscriptions/${subscriptionId}`, parts[0]!, parts.slice(1));
  const groupName = typeAt === 2 ? parts[1]! : typeAt === 1 ? parts[0]! : String(env.resourceGroup()['name']);
  return buildResourceId(name, `/subscriptions/${subscriptionId}/resourceGroups/${groupName}`, parts[typeAt]!, parts.slice(typeAt + 1));
}

function buildResourceId(fn: string, scope: string, type: string | undefined, names: string[]): string {
  if (type === undefined || !type.includes('/'))
    fail(`Unable to evaluate template language function '${fn}': the type must be a fully qualified resource type.`);
  const [namespace, ...types] = type.split('/');
  if (types.length !== names.length) {
    fail(
      `Unable to evaluate template language function '${fn}': the type '${type}' requires '${types.length}' resource name argument(s). Please see https://aka.ms/arm-template-expressions/#resourceid for usage details.`,
    );
  }
  return `${scope}/providers/${namespace}/${types.map((t, i) => `${t}/${names[i]}`).join('/')}`;
}

function notAtThisScope(name: string): string {
  return `The template function '${name}' is not expected at this location. It can only be used in a deployment at the management group scope.`;
}

// pickZones(): the resource types that are zonal (placed in one zone) and the regions with
// availability zones (https://learn.microsoft.com/azure/reliability/availability-zones-region-support),
// three zones each; a region or type outside them has none, as the function answers.
const ZONAL_TYPES = new Set(
  [
    'Microsoft.Compute/virtualMachines',
    'Microsoft.Compute/virtualMachineScaleSets',
    'Microsoft.Compute/disks',
    'Microsoft.Compute/dedicatedHosts',
    'Microsoft.Compute/hostGroups',
    'Microsoft.Network/publicIPAddresses',
    'Microsoft.Network/publicIPPrefixes',
    'Microsoft.Network/natGateways',
    'Microsoft.Network/applicationGateways',
    'Microsoft.Network/azureFirewalls',
    'Microsoft.ContainerService/managedClusters',
    'Microsoft.Storage/storageAccounts',
  ].map((t) => t.toLowerCase()),
);

const ZONAL_REGIONS = new Set([
  'australiaeast',
  'austriaeast',
  'brazilsouth',
  'canadacentral',
  'centralindia',
  'centralus',
  'chilecentral',
  'chinanorth3',
  'eastasia',
  'eastus',
  'eastus2',
  'francecentral',
  'germanywestcentral',
  'indonesiacentral',
  'israelcentral',
  'italynorth',
  'japaneast',
  'japanwest',
  'koreacentral',
  'malaysiawest',
  'mexicocentral',
  'newzealandnorth',
  'northeurope',
  'norwayeast',
  'polandcentral',
  'qatarcentral',
  'southafricanorth',
  'southcentralus',
  'southeastasia',
  'spaincentral',
  'swedencentral',
  'switzerlandnorth',
  'uaenorth',
  'uksouth',
  'westeurope',
  'westus2',
  'westus3',
]);

export const scopeFunctions: FunctionTable = {
  parameters: { eager: (a, e, n) => (arity(n, a, 1), e.parameter(str(n, a[0]))) },
  variables: { eager: (a, e, n) => (arity(n, a, 1), e.variable(str(n, a[0]))) },
  resourcegroup: { eager: (a, e, n) => (arity(n, a, 0), e.resourceGroup()) },
  subscription: { eager: (a, e, n) => (arity(n, a, 0), e.subscription()) },
  deployment: { eager: (a, e, n) => (arity(n, a, 0), e.deployment()) },
  environment: { eager: (a, e, n) => (arity(n, a, 0), e.environment()) },
  copyindex: {
    eager: (a, e, n) => {
      arity(n, a, 0, 2);
      // copyIndex(), copyIndex(offset), copyIndex('loop'), copyIndex('loop', offset)
      const loop = typeof a[0] === 'string' ? a[0] : undefined;
      const offsetArg = typeof a[0] === 'string' ? a[1] : a[0];
      const offset = offsetArg === undefined ? 0 : int(n, offsetArg, 'its offset');
      return e.copyIndex(loop) + offset;
    },
  },
  resourceid: { eager: (a, e, n) => resourceIdOf(e, n, a) },
  subscriptionresourceid: {
    eager: (a, e, n) => {
      const parts = a.map((x) => str(n, x, 'its parameters'));
      const typeAt = parts.findIndex((p) => p.includes('/'));
      const subscriptionId = typeAt === 1 ? parts[0]! : String(e.subscription()['subscriptionId']);
      return buildResourceId(n, `/subscriptions/${subscriptionId}`, typeAt < 0 ? undefined : parts[typeAt], parts.slice(typeAt + 1));
    },
  },
  tenantresourceid: {
    eager: (a, _e, n) => {
      const parts = a.map((x) => str(n, x, 'its parameters'));
      return buildResourceId(n, '', parts[0], parts.slice(1));
    },
  },
  extensionresourceid: {
    eager: (a, _e, n) => {
      const parts = a.map((x) => str(n, x, 'its parameters'));
      arity(n, a, 2, Infinity);
      return buildResourceId(n, parts[0]!, parts[1], parts.slice(2));
    },
  },
  tenant: {
    eager: (a, e, n) => {
      arity(n, a, 0);
      const tenantId = String(e.subscription()['tenantId']);
      return { id: `/tenants/${tenantId}`, tenantId };
    },
  },
  managementgroup: {
    eager: (a, e, n) => {
      arity(n, a, 0);
      return e.managementGroup?.() ?? fail(notAtThisScope(n));
    },
  },
  managementgroupresourceid: {
    eager: (a, e, n) => {
      const parts = a.map((x) => str(n, x, 'its parameters'));
      const typeAt = parts.findIndex((p) => p.includes('/'));
      const group = typeAt === 1 ? parts[0]! : String(e.managementGroup?.()['name'] ?? fail(notAtThisScope(n)));
      return buildResourceId(n, `/providers/Microsoft.Management/managementGroups/${group}`, typeAt < 0 ? undefined : parts[typeAt], parts.slice(typeAt + 1));
    },
  },
  deployer: {
    eager: (a, e, n) => {
      arity(n, a, 0);
      return e.deployer?.() ?? fail(`The template function '${n}' cannot be evaluated here: aksemu does not know the principal that runs this deployment.`);
    },
  },
  // Deprecated by ARM ("we recommend that you provide a specific API version in your template").
  providers: {
    eager: (_a, _e, n) =>
      fail(`The template function '${n}' is deprecated and aksemu does not evaluate it: write the resource's api-version in the template instead.`),
  },
  pickzones: {
    eager: (a, _e, n) => {
      arity(n, a, 3, 5);
      const [namespace, type, location] = [str(n, a[0], 'its first parameter'), str(n, a[1], 'its second parameter'), str(n, a[2], 'its third parameter')];
      const count = a[3] === undefined ? 1 : int(n, a[3], 'its fourth parameter');
      const offset = a[4] === undefined ? 0 : int(n, a[4], 'its fifth parameter');
      if (count < 1 || count > 3)
        fail(`The template language function '${n}' expects its number of zones to be from 1 to 3. The provided value is '${count}'.`);
      if (offset < 0) fail(`The template language function '${n}' expects its offset to be 0 or greater. The provided value is '${offset}'.`);
      if (!ZONAL_TYPES.has(`${namespace}/${type}`.toLowerCase()) || !ZONAL_REGIONS.has(location.toLowerCase().replaceAll(' ', ''))) return [];
      if (offset + count > 3)
        fail(`The template language function '${n}' cannot pick ${count} zone(s) from offset ${offset}: the location '${location}' has 3 zones.`);
      return Array.from({ length: count }, (_, i) => String(offset + i + 1));
    },
  },
  reference: {
    eager: (a, e, n) => {
      arity(n, a, 1, 3);
      const full = typeof a[2] === 'string' && a[2].toLowerCase() === 'full';
      return e.reference(str(n, a[0], 'its first parameter'), a[1] === undefined ? undefined : str(n, a[1], 'its second parameter'), full);
    },
  },
  references: {
    eager: (a, e, n) => {
      arity(n, a, 1, 2);
      const mode = a[1] === undefined ? 'properties' : str(n, a[1], 'its second parameter').toLowerCase();
      if (mode !== 'full' && mode !== 'properties')
        fail(`The template language function '${n}' expects its second parameter to be 'Full' or 'Properties'. The provided value is '${a[1]}'.`);
      return e.references(str(n, a[0], 'its first parameter'), mode === 'full');
    },
  },
};

/** list*() (listKeys, listClusterUserCredential…): any function whose name starts with "list". */
export function listFunction(action: string): FunctionTable[string] {
  return {
    eager: (a, e, n) => {
      arity(n, a, 2, 3);
      return e.list(action, str(n, a[0], 'its first parameter'), str(n, a[1], 'its second parameter'), a[2]);
    },
  };
}
