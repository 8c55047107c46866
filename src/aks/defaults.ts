// Defaults by api-version (docs/aks-rules.md §1, §2.4 M2, §3.7, §5 step 1). The resolved cluster is what the rules,
// the planner and the ARM response read; the raw request stays available for "what did the user say".
import type { ApiVersionProfile } from './api-versions.js';
import { minorOf, resolveKubernetesVersion } from './kubernetes-versions.js';
import { azureOverlay, DEFAULT_POD_CIDR, kubenet, networkModelFor, type NetworkModel } from './network-models/index.js';
import type { AgentPoolProfile, ManagedClusterSpec, NetworkProfile } from './types.js';

export const DEFAULTS = {
  podCidr: DEFAULT_POD_CIDR,
  serviceCidr: '10.0.0.0/16',
  dnsServiceIP: '10.0.0.10',
  dockerBridgeCidr: '172.17.0.1/16',
  outboundType: 'loadBalancer',
  loadBalancerSku: 'standard',
  poolName: 'nodepool1',
  vmSize: 'Standard_DS2_v2',
  count: 1,
  /** The managed VNet AKS creates when no vnetSubnetID is given (docs/aks-rules.md §3.7, §6 X8). */
  managedVnetCidr: '10.224.0.0/12',
  managedSubnetCidr: '10.224.0.0/16',
  managedSubnetName: 'aks-subnet',
} as const;

/** Default maxPods by network model (docs/aks-rules.md §2.4 M2); an unknown plugin gets the kubelet's 110. */
function defaultMaxPods(model: NetworkModel | undefined, podSubnetID?: string): number {
  if (!model) return 110;
  return (podSubnetID ? model.defaults.maxPodsWithPodSubnet : undefined) ?? model.defaults.maxPods;
}

export interface ResolvedPool {
  name: string;
  count: number;
  vmSize: string;
  osType: string;
  mode: string;
  type: string;
  maxPods: number;
  vnetSubnetID?: string;
  podSubnetID?: string;
  enableAutoScaling: boolean;
  minCount?: number;
  maxCount?: number;
  maxSurge: string;
  orchestratorVersion: string;
}

export interface ResolvedCluster {
  apiVersion: string;
  /** The resolved patch version, or the raw text when the catalogue does not offer it. */
  kubernetesVersion: string;
  kubernetesVersionKnown: boolean;
  network: Required<Pick<NetworkProfile, 'networkPlugin' | 'serviceCidr' | 'dnsServiceIP' | 'outboundType' | 'loadBalancerSku'>> & NetworkProfile;
  pools: ResolvedPool[];
  windowsProfile?: ManagedClusterSpec['windowsProfile'];
}

/** The model a cluster gets when no networkPlugin is given, by the api-version's rule. */
const DEFAULT_MODEL: Record<ApiVersionProfile['pluginDefault'], (k8sVersion: string) => NetworkModel> = {
  kubenet: () => kubenet,
  // PR #30845: "< 1.30 will remain kubenet while in 1.30+ it will be CNI Overlay".
  'by-kubernetes-version': (k8sVersion) => (minorOf(k8sVersion) >= 30 ? azureOverlay : kubenet),
};

export function resolveNetworkProfile(raw: NetworkProfile | undefined, profile: ApiVersionProfile, k8sVersion: string): ResolvedCluster['network'] {
  const given = { ...(raw ?? {}) };
  // The single-valued fields win; the list forms are filled from them (what AKS returns), or seed them when alone.
  if (given.podCidr === undefined && given.podCidrs?.length === 1) given.podCidr = given.podCidrs[0];
  if (given.serviceCidr === undefined && given.serviceCidrs?.length === 1) given.serviceCidr = given.serviceCidrs[0];
  // Mixed-case plugin names are accepted (CHANGELOG 2026-07-17); we fold case for every version.
  if (typeof given.networkPlugin === 'string') given.networkPlugin = given.networkPlugin.toLowerCase();
  if (typeof given.networkPluginMode === 'string') given.networkPluginMode = given.networkPluginMode.toLowerCase();

  let plugin = given.networkPlugin;
  let mode = given.networkPluginMode;
  if (plugin === undefined || plugin === '') {
    const d = DEFAULT_MODEL[profile.pluginDefault](k8sVersion);
    plugin = d.plugin;
    if (mode === undefined && d.mode) mode = d.mode;
  }
  const defaultPodCidr = networkModelFor(plugin, mode)?.defaults.podCidr;
  const net: ResolvedCluster['network'] = {
    ...given,
    networkPlugin: plugin,
    serviceCidr: given.serviceCidr ?? DEFAULTS.serviceCidr,
    dnsServiceIP: given.dnsServiceIP ?? DEFAULTS.dnsServiceIP,
    outboundType: given.outboundType ?? DEFAULTS.outboundType,
    loadBalancerSku: given.loadBalancerSku ?? DEFAULTS.loadBalancerSku,
  };
  if (mode !== undefined) net.networkPluginMode = mode;
  else delete net.networkPluginMode;
  if (defaultPodCidr !== undefined && net.podCidr === undefined) net.podCidr = defaultPodCidr;
  if (profile.hasDockerBridgeCidr && net.dockerBridgeCidr === undefined) net.dockerBridgeCidr = DEFAULTS.dockerBridgeCidr;
  if (profile.networkPolicyNoneDefault && net.networkPolicy === undefined) net.networkPolicy = 'none';
  if (net.podCidr !== undefined) net.podCidrs = [net.podCidr];
  net.serviceCidrs = [net.serviceCidr];
  net.ipFamilies = given.ipFamilies ?? ['IPv4'];
  return net;
}

export function resolvePool(
  raw: AgentPoolProfile,
  index: number,
  network: ResolvedCluster['network'],
  profile: ApiVersionProfile,
  k8sVersion: string,
): ResolvedPool {
  const pool: ResolvedPool = {
    name: raw.name ?? (index === 0 ? DEFAULTS.poolName : `nodepool${index + 1}`),
    count: raw.count ?? DEFAULTS.count,
    vmSize: raw.vmSize ?? DEFAULTS.vmSize,
    osType: raw.osType ?? 'Linux',
    // ARM makes the first pool the system pool when no mode is given.
    mode: raw.mode ?? (index === 0 ? 'System' : 'User'),
    type: raw.type ?? 'VirtualMachineScaleSets',
    maxPods: raw.maxPods ?? defaultMaxPods(networkModelFor(network.networkPlugin, network.networkPluginMode), raw.podSubnetID),
    enableAutoScaling: raw.enableAutoScaling ?? false,
    maxSurge: raw.upgradeSettings?.maxSurge ?? profile.maxSurgeDefault,
    // A version the catalogue does not offer stays as given, for the rules to name (V1, V1b).
    orchestratorVersion: resolveKubernetesVersion(raw.orchestratorVersion ?? k8sVersion) ?? String(raw.orchestratorVersion ?? k8sVersion),
  };
  if (raw.vnetSubnetID !== undefined) pool.vnetSubnetID = raw.vnetSubnetID;
  if (raw.podSubnetID !== undefined) pool.podSubnetID = raw.podSubnetID;
  if (raw.minCount !== undefined) pool.minCount = raw.minCount;
  if (raw.maxCount !== undefined) pool.maxCount = raw.maxCount;
  return pool;
}

export function resolveCluster(spec: ManagedClusterSpec, profile: ApiVersionProfile): ResolvedCluster {
  const resolved = resolveKubernetesVersion(spec.kubernetesVersion);
  const kubernetesVersion = resolved ?? String(spec.kubernetesVersion);
  const network = resolveNetworkProfile(spec.networkProfile, profile, kubernetesVersion);
  const rawPools = spec.agentPoolProfiles ?? [];
  const cluster: ResolvedCluster = {
    apiVersion: profile.version,
    kubernetesVersion,
    kubernetesVersionKnown: resolved !== undefined,
    network,
    pools: rawPools.map((p, i) => resolvePool(p, i, network, profile, kubernetesVersion)),
  };
  if (spec.windowsProfile) cluster.windowsProfile = spec.windowsProfile;
  return cluster;
}

/** How many nodes a pool must be sized for: maxCount under the autoscaler (docs/aks-rules.md §2.5), else count. */
export function sizingNodes(pool: ResolvedPool): number {
  return pool.enableAutoScaling && typeof pool.maxCount === 'number' ? pool.maxCount : pool.count;
}

/** Surge nodes for an upgrade: an integer, or a percentage of the pool rounded up (docs/aks-rules.md §1.3; AKSDOCS), capped at the pool. */
export function surgeNodes(pool: ResolvedPool): number | undefined {
  const text = String(pool.maxSurge).trim();
  const pct = /^(\d+)%$/.exec(text);
  let n: number;
  if (pct) n = Math.ceil((pool.count * Number(pct[1])) / 100);
  else if (/^\d+$/.test(text)) n = Number(text);
  else return undefined;
  return Math.min(n, Math.max(pool.count, 0));
}
