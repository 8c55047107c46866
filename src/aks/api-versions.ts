// The Microsoft.ContainerService api-versions aksemu answers, and what changes between them (docs/aks-rules.md §1.4;
// docs/aks-rules.md §1.2, §3.7, §6 X1). The versions are those of the generated data (api-version-data.ts); the facts
// the code needs are read from each version's schema, except the few a schema cannot state (FACTS below).
import { dataVersions, memberOf, versionSchema, type VersionSchema } from './api-version-data.js';

export interface ApiVersionProfile {
  version: string;
  schema: VersionSchema;
  /** `networkPlugin` default: kubenet while the spec states that default; once it does not, the server picks by Kubernetes version (PR #30845). */
  pluginDefault: 'kubenet' | 'by-kubernetes-version';
  /** `upgradeSettings.maxSurge` when not given, as the spec states it: "1" up to 2024-09-01, "10%" later. */
  maxSurgeDefault: string;
  /** `networkPluginMode` is a member (stable 2023-02-01 on, and the previews before). */
  hasNetworkPluginMode: boolean;
  /** `networkDataplane` is a member (2023-02-01 on). */
  hasNetworkDataplane: boolean;
  /** `dockerBridgeCidr` is a member (removed in 2023-04-01). */
  hasDockerBridgeCidr: boolean;
  /** `networkPolicy: none` is in the enum, and then is the default. */
  networkPolicyNoneDefault: boolean;
  /** Clusters and pools carry an `eTag`. */
  hasETag: boolean;
  /** podCidr is stored and returned for networkPlugin=none (FACTS.podCidrForNoneSince). */
  returnsPodCidrForNone: boolean;
}

/**
 * What no schema states, by the first version it holds for (docs/aks-rules.md §1.2): the pod CIDR of a BYO CNI
 * cluster is returned from preview 2023-06-02 and stable 2026-01-01 (CHANGELOG 2023-06-18, 2026-01-04).
 */
const FACTS = {
  podCidrForNoneSince: { stable: '2026-01-01', preview: '2023-06-02-preview' },
};

export const DEFAULT_API_VERSION = '2022-06-01';

const isPreview = (version: string) => version.toLowerCase().endsWith('-preview');

/** "If not specified, the default is 10%." → "10%". */
function defaultOf(member: { default?: unknown; defaultNote?: string } | undefined): string | undefined {
  if (member?.default !== undefined) return String(member.default);
  return member?.defaultNote?.match(/default is '?([^'\s]+?)'?\.?$/)?.[1];
}

function buildProfile(version: string): ApiVersionProfile {
  const schema = versionSchema(version)!;
  const net = (member: string) => memberOf(schema, 'ContainerServiceNetworkProfile', member);
  const since = isPreview(version) ? FACTS.podCidrForNoneSince.preview : FACTS.podCidrForNoneSince.stable;
  return {
    version,
    schema,
    pluginDefault: net('networkPlugin')?.default === 'kubenet' ? 'kubenet' : 'by-kubernetes-version',
    maxSurgeDefault: defaultOf(memberOf(schema, 'AgentPoolUpgradeSettings', 'maxSurge')) ?? '1',
    hasNetworkPluginMode: net('networkPluginMode') !== undefined,
    hasNetworkDataplane: net('networkDataplane') !== undefined,
    hasDockerBridgeCidr: net('dockerBridgeCidr') !== undefined,
    networkPolicyNoneDefault: net('networkPolicy')?.enum?.values.includes('none') ?? false,
    hasETag: memberOf(schema, 'ManagedCluster', 'eTag') !== undefined,
    returnsPodCidrForNone: version >= since,
  };
}

const PROFILES = new Map<string, ApiVersionProfile>();
for (const v of dataVersions()) PROFILES.set(v, buildProfile(v));

/** Oldest first. */
export const SUPPORTED_API_VERSIONS: readonly string[] = [...PROFILES.keys()].sort();

export function apiVersionProfile(version: string): ApiVersionProfile | undefined {
  return PROFILES.get(version) ?? PROFILES.get(version.toLowerCase());
}
