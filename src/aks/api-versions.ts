// The Microsoft.ContainerService api-versions aksemu answers, and what changes between them (docs/aks-rules.md §1.2, §1.4, §3.7, §6 X1).

export interface ApiVersionProfile {
  version: string;
  /** `networkPlugin` default: the 2022 specs default to kubenet; later the server picks by Kubernetes version (PR #30845). */
  pluginDefault: 'kubenet' | 'by-kubernetes-version';
  /** `upgradeSettings.maxSurge` when not given: "1" in the 2022 specs, "10%" later. */
  maxSurgeDefault: string;
  /** `networkPluginMode` exists from 2023-02-01. */
  hasNetworkPluginMode: boolean;
  /** `dockerBridgeCidr` was removed in 2023-04-01. */
  hasDockerBridgeCidr: boolean;
  /** `networkPolicy: none` exists and is the default in the newer specs. */
  networkPolicyNoneDefault: boolean;
  /** podCidr is stored and returned for networkPlugin=none from stable 2026-01-01 (CHANGELOG 2026-01-04). */
  returnsPodCidrForNone: boolean;
}

const V2022_06_01: ApiVersionProfile = {
  version: '2022-06-01',
  pluginDefault: 'kubenet',
  maxSurgeDefault: '1',
  hasNetworkPluginMode: false,
  hasDockerBridgeCidr: true,
  networkPolicyNoneDefault: false,
  returnsPodCidrForNone: false,
};

const PROFILES: ApiVersionProfile[] = [
  V2022_06_01,
  // What az 2.45 sends for managedClusters; its spec still defaults to kubenet and surge 1.
  { ...V2022_06_01, version: '2022-11-01' },
  {
    // The newest stable version read for docs/aks-rules.md (SPEC-2026).
    version: '2026-04-01',
    pluginDefault: 'by-kubernetes-version',
    maxSurgeDefault: '10%',
    hasNetworkPluginMode: true,
    hasDockerBridgeCidr: false,
    networkPolicyNoneDefault: true,
    returnsPodCidrForNone: true,
  },
];

export const DEFAULT_API_VERSION = '2022-06-01';

export const SUPPORTED_API_VERSIONS: readonly string[] = PROFILES.map((p) => p.version);

export function apiVersionProfile(version: string): ApiVersionProfile | undefined {
  return PROFILES.find((p) => p.version === version);
}
