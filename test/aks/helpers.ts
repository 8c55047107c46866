// Builders for rule tests: a cluster spec, a BYO subnet environment, and one call that validates them.
import { apiVersionProfile } from '../../src/aks/api-versions.js';
import { resolveCluster } from '../../src/aks/defaults.js';
import type { NetworkEnvironment, SubnetInfo } from '../../src/aks/environment.js';
import type { Phase } from '../../src/aks/rule-context.js';
import type { AgentPoolProfile, ManagedClusterSpec, NetworkProfile } from '../../src/aks/types.js';
import { validateCluster, type ValidationResult } from '../../src/aks/validate.js';

export const SUB = '/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/net/providers/Microsoft.Network';

export interface Scenario {
  net?: NetworkProfile;
  pools?: AgentPoolProfile[];
  api?: string;
  k8s?: string;
  env?: NetworkEnvironment;
  phase?: Phase;
  previous?: ManagedClusterSpec;
  poolName?: string;
  windows?: boolean;
}

export function spec(s: Scenario): ManagedClusterSpec {
  const out: ManagedClusterSpec = {
    networkProfile: s.net ?? {},
    agentPoolProfiles: s.pools ?? [{ name: 'nodepool1', count: 3, mode: 'System' }],
  };
  if (s.k8s) out.kubernetesVersion = s.k8s;
  if (s.windows) out.windowsProfile = { adminUsername: 'azureuser' };
  return out;
}

export function check(s: Scenario): ValidationResult {
  const api = apiVersionProfile(s.api ?? '2022-06-01')!;
  const input: Parameters<typeof validateCluster>[0] = { spec: spec(s), api, phase: s.phase ?? 'create' };
  if (s.env) input.env = s.env;
  if (s.previous) input.previous = resolveCluster(s.previous, api);
  if (s.poolName) input.poolName = s.poolName;
  return validateCluster(input);
}

export interface SubnetOptions {
  vnet?: string[];
  name?: string;
  others?: Array<{ name: string; prefix: string }>;
  extra?: Partial<SubnetInfo>;
  vnetName?: string;
}

/** One VNet with a node subnet (and optional neighbours); returns the env and the subnet id to put in pools. */
export function byo(prefix: string | string[], o: SubnetOptions = {}): { env: NetworkEnvironment; id: string; subnet: SubnetInfo } {
  const vnetName = o.vnetName ?? 'vnet1';
  const vnetId = `${SUB}/virtualNetworks/${vnetName}`;
  const name = o.name ?? 'aks';
  const id = `${vnetId}/subnets/${name}`;
  const prefixes = Array.isArray(prefix) ? prefix : [prefix];
  const subnet: SubnetInfo = {
    id,
    name,
    addressPrefixes: prefixes,
    vnet: {
      id: vnetId,
      name: vnetName,
      addressSpace: o.vnet ?? [prefixes[0]!],
      provisioningState: 'Succeeded',
      subnets: [
        { id, name, addressPrefixes: prefixes },
        ...(o.others ?? []).map((x) => ({ id: `${vnetId}/subnets/${x.name}`, name: x.name, addressPrefixes: [x.prefix] })),
      ],
    },
    ...o.extra,
  };
  return { env: { subnets: { [id.toLowerCase()]: subnet }, location: 'eastus' }, id, subnet };
}

/** Merges several byo() environments (pools in different VNets). */
export function mergeEnv(...envs: NetworkEnvironment[]): NetworkEnvironment {
  return { subnets: Object.assign({}, ...envs.map((e) => e.subnets)), location: 'eastus' };
}

export const codes = (r: ValidationResult): string[] => r.errors.map((e) => e.code);
export const rules = (r: ValidationResult): string[] => [...r.errors, ...r.warnings].map((e) => e.rule);
