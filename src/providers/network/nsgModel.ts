import type { Store } from '../../store/store.js';
import {
  duplicateResourceName,
  inUseNetworkSecurityGroupCannotBeDeleted,
  securityRuleConflict,
  securityRuleInvalidPriority,
  securityRuleInvalidProperty,
} from './errors.js';
import type { NetworkSecurityGroup, SecurityRule } from './models.js';
import { compact, newEtag, putLocation, TYPES, type ProvisioningState, trackedHead, trackedProperties } from './resource.js';
import { validateResourceName } from '../../arm/names.js';
import { sameId } from '../../ids/compare.js';

export interface SecurityRuleInput {
  name?: string;
  properties?: {
    description?: string | null;
    protocol?: string | null;
    sourcePortRange?: string | null;
    destinationPortRange?: string | null;
    sourceAddressPrefix?: string | null;
    destinationAddressPrefix?: string | null;
    sourcePortRanges?: string[] | null;
    destinationPortRanges?: string[] | null;
    sourceAddressPrefixes?: string[] | null;
    destinationAddressPrefixes?: string[] | null;
    access?: string | null;
    priority?: number | null;
    direction?: string | null;
  };
}

export interface NsgInput {
  location?: string;
  tags?: Record<string, string> | null;
  properties?: { securityRules?: SecurityRuleInput[] | null; flushConnection?: boolean | null };
}

const PROTOCOLS = ['Tcp', 'Udp', 'Icmp', 'Esp', 'Ah', '*'];

/** Azure's enumerations compare case-insensitively and come back in their canonical casing. */
function canonical(value: string | null | undefined, allowed: readonly string[]): string | undefined {
  return allowed.find((a) => sameId(a, value));
}

/** The six rules every NSG has (priorities 65000–65500), as GET shows them under defaultSecurityRules. */
const DEFAULT_RULES: ReadonlyArray<
  readonly [
    name: string,
    description: string,
    direction: 'Inbound' | 'Outbound',
    access: 'Allow' | 'Deny',
    priority: number,
    source: string,
    destination: string,
  ]
> = [
  ['AllowVnetInBound', 'Allow inbound traffic from all VMs in VNET', 'Inbound', 'Allow', 65000, 'VirtualNetwork', 'VirtualNetwork'],
  ['AllowAzureLoadBalancerInBound', 'Allow inbound traffic from azure load balancer', 'Inbound', 'Allow', 65001, 'AzureLoadBalancer', '*'],
  ['DenyAllInBound', 'Deny all inbound traffic', 'Inbound', 'Deny', 65500, '*', '*'],
  ['AllowVnetOutBound', 'Allow outbound traffic from all VMs to all VMs in VNET', 'Outbound', 'Allow', 65000, 'VirtualNetwork', 'VirtualNetwork'],
  ['AllowInternetOutBound', 'Allow outbound traffic from all VMs to Internet', 'Outbound', 'Allow', 65001, '*', 'Internet'],
  ['DenyAllOutBound', 'Deny all outbound traffic', 'Outbound', 'Deny', 65500, '*', '*'],
];

export function defaultSecurityRules(nsg: NetworkSecurityGroup): SecurityRule[] {
  return DEFAULT_RULES.map(([name, description, direction, access, priority, source, destination]) => ({
    id: `${nsg.id}/defaultSecurityRules/${name}`,
    name,
    type: TYPES.defaultSecurityRule,
    etag: nsg.etag,
    properties: {
      provisioningState: nsg.properties.provisioningState,
      description,
      protocol: '*',
      sourcePortRange: '*',
      destinationPortRange: '*',
      sourceAddressPrefix: source,
      destinationAddressPrefix: destination,
      access,
      priority,
      direction,
      sourcePortRanges: [],
      destinationPortRanges: [],
      sourceAddressPrefixes: [],
      destinationAddressPrefixes: [],
    },
  }));
}

function buildSecurityRule(nsgId: string, input: SecurityRuleInput, name: string, state: ProvisioningState): SecurityRule {
  const id = `${nsgId}/securityRules/${name}`;
  const p = input.properties ?? {};
  const priority = p.priority;
  if (typeof priority !== 'number' || !Number.isInteger(priority) || priority < 100 || priority > 4096) throw securityRuleInvalidPriority(id, priority);
  const protocol = canonical(p.protocol, PROTOCOLS);
  if (!protocol) throw securityRuleInvalidProperty(id, 'protocol', p.protocol);
  const access = canonical(p.access, ['Allow', 'Deny']) as 'Allow' | 'Deny' | undefined;
  if (!access) throw securityRuleInvalidProperty(id, 'access', p.access);
  const direction = canonical(p.direction, ['Inbound', 'Outbound']) as 'Inbound' | 'Outbound' | undefined;
  if (!direction) throw securityRuleInvalidProperty(id, 'direction', p.direction);
  const sourcePortRanges = p.sourcePortRanges ?? [];
  const destinationPortRanges = p.destinationPortRanges ?? [];
  const sourceAddressPrefixes = p.sourceAddressPrefixes ?? [];
  const destinationAddressPrefixes = p.destinationAddressPrefixes ?? [];
  // Each endpoint needs a value, singular or plural.
  if (!p.sourcePortRange && sourcePortRanges.length === 0) throw securityRuleInvalidProperty(id, 'sourcePortRange', p.sourcePortRange);
  if (!p.destinationPortRange && destinationPortRanges.length === 0) throw securityRuleInvalidProperty(id, 'destinationPortRange', p.destinationPortRange);
  if (!p.sourceAddressPrefix && sourceAddressPrefixes.length === 0) throw securityRuleInvalidProperty(id, 'sourceAddressPrefix', p.sourceAddressPrefix);
  if (!p.destinationAddressPrefix && destinationAddressPrefixes.length === 0)
    throw securityRuleInvalidProperty(id, 'destinationAddressPrefix', p.destinationAddressPrefix);
  return compact({
    id,
    name,
    type: TYPES.securityRule,
    etag: newEtag(),
    properties: {
      provisioningState: state,
      description: p.description ?? undefined,
      protocol,
      sourcePortRange: p.sourcePortRange ?? undefined,
      destinationPortRange: p.destinationPortRange ?? undefined,
      sourceAddressPrefix: p.sourceAddressPrefix ?? undefined,
      destinationAddressPrefix: p.destinationAddressPrefix ?? undefined,
      access,
      priority,
      direction,
      sourcePortRanges,
      destinationPortRanges,
      sourceAddressPrefixes,
      destinationAddressPrefixes,
    },
  });
}

/** Rule names unique, one rule per (priority, direction). */
function checkRules(nsgId: string, rules: readonly SecurityRule[]): void {
  rules.forEach((rule, i) => {
    for (const other of rules.slice(0, i)) {
      if (sameId(other.name, rule.name)) throw duplicateResourceName(nsgId, 'securityRules', rule.name);
      if (other.properties.priority === rule.properties.priority && other.properties.direction === rule.properties.direction) {
        throw securityRuleConflict(rule.id, other.id);
      }
    }
  });
}

export function writeNetworkSecurityGroup(
  store: Store,
  id: string,
  input: NsgInput,
  state: ProvisioningState,
): { nsg: NetworkSecurityGroup; created: boolean } {
  const existing = store.get<NetworkSecurityGroup>(id);
  const location = putLocation(input.location, existing, TYPES.networkSecurityGroup);
  const nsgId = existing?.id ?? id;
  const rules = (input.properties?.securityRules ?? []).map((r, i) => {
    if (!r.name) throw securityRuleInvalidProperty(`${nsgId}/securityRules/${i}`, 'name', r.name);
    validateResourceName(r.name);
    return buildSecurityRule(nsgId, r, r.name, state);
  });
  checkRules(nsgId, rules);
  const nsg: NetworkSecurityGroup = compact({
    ...trackedHead(existing, nsgId, TYPES.networkSecurityGroup, location, input.tags),
    properties: {
      ...trackedProperties(existing, state),
      // Network answers false when it was not sent (the 2023-11-01 examples).
      flushConnection: input.properties?.flushConnection ?? false,
      securityRules: rules,
      subnets: existing?.properties.subnets,
      networkInterfaces: existing?.properties.networkInterfaces,
    },
  });
  store.put(nsg.id, nsg);
  return { nsg, created: !existing };
}

/** Adds or replaces one rule (securityRules PUT). */
export function writeSecurityRule(
  store: Store,
  nsg: NetworkSecurityGroup,
  name: string,
  input: SecurityRuleInput,
  state: ProvisioningState,
): { rule: SecurityRule; created: boolean } {
  const existing = nsg.properties.securityRules.find((r) => sameId(r.name, name));
  const rule = buildSecurityRule(nsg.id, input, existing?.name ?? name, state);
  const rules = existing ? nsg.properties.securityRules.map((r) => (r === existing ? rule : r)) : [...nsg.properties.securityRules, rule];
  checkRules(nsg.id, rules);
  store.put(nsg.id, { ...nsg, etag: newEtag(), properties: { ...nsg.properties, securityRules: rules } });
  return { rule, created: !existing };
}

export function removeSecurityRule(store: Store, nsg: NetworkSecurityGroup, name: string): boolean {
  const rules = nsg.properties.securityRules.filter((r) => !sameId(r.name, name));
  if (rules.length === nsg.properties.securityRules.length) return false;
  store.put(nsg.id, { ...nsg, etag: newEtag(), properties: { ...nsg.properties, securityRules: rules } });
  return true;
}

export function renderNetworkSecurityGroup(nsg: NetworkSecurityGroup): unknown {
  const { subnets, networkInterfaces, ...rest } = nsg.properties;
  return compact({
    ...nsg,
    properties: {
      ...rest,
      // Groups stored before aksemu kept the member read as Network's default.
      flushConnection: rest.flushConnection ?? false,
      defaultSecurityRules: defaultSecurityRules(nsg),
      subnets: subnets && subnets.length > 0 ? subnets : undefined,
      networkInterfaces: networkInterfaces && networkInterfaces.length > 0 ? networkInterfaces : undefined,
    },
  });
}

export function removeNetworkSecurityGroup(store: Store, nsg: NetworkSecurityGroup): void {
  const users = [...(nsg.properties.subnets ?? []), ...(nsg.properties.networkInterfaces ?? [])].map((r) => r.id);
  if (users.length > 0) throw inUseNetworkSecurityGroupCannotBeDeleted(nsg.id, users);
  store.delete(nsg.id);
}

export function findNetworkSecurityGroup(store: Store, id: string): NetworkSecurityGroup | undefined {
  const nsg = store.get<NetworkSecurityGroup>(id);
  return nsg && nsg.type === TYPES.networkSecurityGroup ? nsg : undefined;
}
