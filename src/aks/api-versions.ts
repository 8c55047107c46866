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
  /** The values of the `networkPolicy` enum (cilium from 2023-02-01, none from 2024-07-01 and 2023-08-02-preview). */
  networkPolicies: readonly string[];
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
  /**
   * Unknown request members are refused from 2024-01-01 and 2024-01-02-preview on, ignored before (Azure/AKS#4060,
   * 2024-01-11: "All current AKS API versions silently ignore unknown fields … Starting in AKS API version
   * 2024-01-01 and 2024-01-02-preview this behavior is changing"). By date, so a preview dated 2024-01-02 is in.
   */
  unknownFieldsRefusedSince: '2024-01-01',
};

/** Whether the RP refuses a request member its version does not define (docs/aks-rules.md §1.5). */
export function refusesUnknownMembers(version: string): boolean {
  return version.slice(0, 10) >= FACTS.unknownFieldsRefusedSince;
}

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
    // Before 2018-03-31 there is no network profile: every cluster was kubenet.
    pluginDefault: !schema.definition('ContainerServiceNetworkProfile') || net('networkPlugin')?.default === 'kubenet' ? 'kubenet' : 'by-kubernetes-version',
    maxSurgeDefault: defaultOf(memberOf(schema, 'AgentPoolUpgradeSettings', 'maxSurge')) ?? '1',
    hasNetworkPluginMode: net('networkPluginMode') !== undefined,
    hasNetworkDataplane: net('networkDataplane') !== undefined,
    hasDockerBridgeCidr: net('dockerBridgeCidr') !== undefined,
    networkPolicies: (net('networkPolicy')?.enum?.values as string[] | undefined) ?? ['azure', 'calico'],
    networkPolicyNoneDefault: net('networkPolicy')?.enum?.values.includes('none') ?? false,
    hasETag: memberOf(schema, 'ManagedCluster', 'eTag') !== undefined,
    returnsPodCidrForNone: version >= since,
  };
}

const PROFILES = new Map<string, ApiVersionProfile>();
for (const v of dataVersions()) PROFILES.set(v, buildProfile(v));

/**
 * What ARM serves today, as data (docs/aks-rules.md §1.4). Retired: the previews AKS has retired, which ARM refuses
 * with NoRegisteredProviderFound; the data keeps their schemas (--loose reads a request at them). ARM's list of
 * 2025-02-21 (hashicorp/terraform-provider-azurerm#27921) has no preview before 2023-04-02-preview; 2024-04-02-preview
 * and 2024-09-02-preview were retired on 2026-07-01 (kubernetes-sigs/cluster-api-provider-azure#6427,
 * Azure-Samples/aks-store-demo#398), and previews live about a year (AKS's preview API life cycle page), so every
 * preview up to 2024-09-02-preview is taken as retired. `listedAfter`: ARM's message lists its versions in the
 * order they were registered, sorted but for 2022-05-01, which comes after 2023-11-02-preview (Azure/azure-cli#28368,
 * 2024-01) and is not between 2022-04-01 and 2022-06-01 in 2025 (#27921); that preview retired, it follows 2023-11-01.
 */
const SERVED = {
  lastRetiredPreview: '2024-09-02-preview',
  listedAfter: { '2022-05-01': '2023-11-01' } as Record<string, string>,
  /** managedClusters/agentPools is a resource type from this version on (the first spec with AgentPool). */
  agentPoolsSince: '2019-02-01',
};

/** A retired preview: ARM answers NoRegisteredProviderFound. */
function isRetiredApiVersion(version: string): boolean {
  const v = version.toLowerCase();
  return isPreview(v) && v <= SERVED.lastRetiredPreview;
}

/** Oldest first. */
export const SUPPORTED_API_VERSIONS: readonly string[] = [...PROFILES.keys()].filter((v) => !isRetiredApiVersion(v)).sort();

/** The newest stable version, the one current az sends (its SDK's latest profile); `aksemu plan` plans at it. */
export const NEWEST_STABLE_API_VERSION: string = SUPPORTED_API_VERSIONS.filter((v) => !isPreview(v)).at(-1)!;

/** managedClusters' versions in the order ARM's NoRegisteredProviderFound lists them. */
export const ARM_LISTED_API_VERSIONS: readonly string[] = (() => {
  const listed = SUPPORTED_API_VERSIONS.filter((v) => !Object.hasOwn(SERVED.listedAfter, v));
  for (const [v, after] of Object.entries(SERVED.listedAfter)) {
    if (!SUPPORTED_API_VERSIONS.includes(v)) continue;
    // Where its neighbour is no longer served either, the version keeps its place by date.
    const at = listed.includes(after) ? listed.indexOf(after) + 1 : listed.findIndex((x) => x > v);
    listed.splice(at < 0 ? listed.length : at, 0, v);
  }
  return listed;
})();

/** managedClusters/agentPools' versions, in ARM's order. */
export const AGENT_POOL_API_VERSIONS: readonly string[] = ARM_LISTED_API_VERSIONS.filter((v) => v >= SERVED.agentPoolsSince);

export function apiVersionProfile(version: string): ApiVersionProfile | undefined {
  return PROFILES.get(version) ?? PROFILES.get(version.toLowerCase());
}
