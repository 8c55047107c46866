// Defaults by api-version (docs/aks-rules.md §1, §2.4 M2, §3.7, §5 step 1). The resolved cluster is what the rules,
// the planner and the ARM response read; the raw request stays available for "what did the user say".
import type { ApiVersionProfile } from './api-versions.js';
import { compareVersions, minorOf, resolveKubernetesVersion } from './kubernetes-versions.js';
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
  /** Dual-stack (docs/aks-rules.md §9.2): the IPv6 pod and service ranges AKS fills when none are given. */
  podCidrIPv6: 'fd12:3456:789a::/64',
  serviceCidrIPv6: 'fd12:3456:789a:1::/108',
  /** The IPv6 address space of the managed VNet and subnet of a dual-stack cluster (ours, docs/aks-rules.md §9.2). */
  managedVnetCidrIPv6: 'fd00:aaaa::/48',
  managedSubnetCidrIPv6: 'fd00:aaaa::/64',
} as const;

/** The IP families' wire spellings; the enum is modelAsString and az sends them lower-case (docs/aks-rules.md §9.1). */
export const IP_FAMILIES = ['IPv4', 'IPv6'] as const;

/** A family as the spec spells it, whatever the case; an unknown value stays as given for D1 to report. */
export function canonicalIpFamily(value: unknown): string {
  const text = String(value);
  return IP_FAMILIES.find((f) => f.toLowerCase() === text.toLowerCase()) ?? text;
}

/** True when the resolved cluster runs both stacks. */
export function isDualStack(network: Pick<NetworkProfile, 'ipFamilies'>): boolean {
  return network.ipFamilies?.includes('IPv6') === true && network.ipFamilies.includes('IPv4');
}

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
  /** The OS SKU given, else the default for the OS and the pool's version (docs/aks-rules.md §3.7); absent in older records. */
  osSKU?: string;
  mode: string;
  type: string;
  maxPods: number;
  vnetSubnetID?: string;
  podSubnetID?: string;
  /** As given (the rules judge the value); only pools with a pod subnet use it (pod-subnet.ts). */
  podIPAllocationMode?: string;
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
  // The first entry of a list is its IPv4 range (D3 checks the order), so it seeds the single-valued field.
  if (given.podCidr === undefined && given.podCidrs?.length) given.podCidr = given.podCidrs[0];
  if (given.serviceCidr === undefined && given.serviceCidrs?.length) given.serviceCidr = given.serviceCidrs[0];
  // An empty list is what az sends for `--ip-families ""`: no families given.
  const families = Array.isArray(given.ipFamilies) && given.ipFamilies.length > 0 ? given.ipFamilies.map(canonicalIpFamily) : ['IPv4'];
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
  // The cilium dataplane enforces policy itself: with no policy given, AKS sets cilium (docs/aks-rules.md §3.7, N5c).
  if (String(net.networkDataplane ?? '').toLowerCase() === 'cilium' && net.networkPolicy === undefined) net.networkPolicy = 'cilium';
  if (profile.networkPolicyNoneDefault && net.networkPolicy === undefined) net.networkPolicy = 'none';
  // A managed NAT gateway: one outbound IP and the spec's idle timeout of 4 minutes unless given (docs/aks-rules.md §1.1).
  if (net.outboundType === 'managedNATGateway' || given['natGatewayProfile'] !== undefined) {
    const nat = { ...((given['natGatewayProfile'] as Record<string, unknown> | undefined) ?? {}) };
    nat['idleTimeoutInMinutes'] ??= 4;
    if (net.outboundType === 'managedNATGateway') nat['managedOutboundIPProfile'] ??= { count: 1 };
    net['natGatewayProfile'] = nat;
  }
  net.ipFamilies = families;
  const dual = isDualStack(net);
  // Dual-stack: the second range of each list is the IPv6 one, AKS's default when only IPv4 was given (docs/aks-rules.md §9.2).
  // A BYO CNI cluster gets no pod range made up: its pod CIDRs are the user's, recorded as given.
  const podV6 = given.podCidrs?.[1] ?? (defaultPodCidr !== undefined ? DEFAULTS.podCidrIPv6 : undefined);
  if (net.podCidr !== undefined) net.podCidrs = dual && podV6 !== undefined ? [net.podCidr, podV6] : [net.podCidr];
  net.serviceCidrs = dual ? [net.serviceCidr, given.serviceCidrs?.[1] ?? DEFAULTS.serviceCidrIPv6] : [net.serviceCidr];
  if (dual && given['loadBalancerProfile'] !== undefined) net['loadBalancerProfile'] = withIPv6OutboundIps(given['loadBalancerProfile']);
  return net;
}

/**
 * A dual-stack cluster's managed outbound IPs get one IPv6 address by default ("0 for single-stack and 1 for
 * dual-stack", managedOutboundIPs.countIPv6 in the spec; docs/aks-rules.md §9.2). Only a profile the user gave is completed here:
 * without one, the response's default profile (render.ts) adds countIPv6.
 */
function withIPv6OutboundIps(profile: unknown): unknown {
  if (typeof profile !== 'object' || profile === null || Array.isArray(profile)) return profile;
  const p = profile as Record<string, unknown>;
  const ips = p['managedOutboundIPs'];
  if (typeof ips !== 'object' || ips === null || Array.isArray(ips) || 'countIPv6' in ips) return profile;
  return { ...p, managedOutboundIPs: { ...ips, countIPv6: 1 } };
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
  pool.osSKU = typeof raw['osSKU'] === 'string' && raw['osSKU'] !== '' ? raw['osSKU'] : defaultOsSku(pool.osType, pool.orchestratorVersion);
  if (raw.vnetSubnetID !== undefined) pool.vnetSubnetID = raw.vnetSubnetID;
  if (raw.podSubnetID !== undefined) pool.podSubnetID = raw.podSubnetID;
  if (raw.podIPAllocationMode !== undefined) pool.podIPAllocationMode = raw.podIPAllocationMode;
  if (raw.minCount !== undefined) pool.minCount = raw.minCount;
  if (raw.maxCount !== undefined) pool.maxCount = raw.maxCount;
  return pool;
}

/**
 * The OS SKU AKS gives a pool that names none: Ubuntu on Linux; on Windows, Windows Server 2019 before Kubernetes 1.25
 * and 2022 from it (windows-faq.md; CHANGELOG 2022-09-18).
 */
export function defaultOsSku(osType: string, orchestratorVersion: string): string {
  if (osType.toLowerCase() !== 'windows') return 'Ubuntu';
  return /^\d+\.\d+/.test(orchestratorVersion) && compareVersions(orchestratorVersion, '1.25.0') < 0 ? 'Windows2019' : 'Windows2022';
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

/**
 * The windowsProfile AKS generates for a new cluster given none (since 2020-05, Azure/AKS#1545 and #2101): the user
 * name the spec examples answer with and a password of its own, which AKS never returns and aksemu does not keep
 * (docs/aks-rules.md §3.7). So a Windows pool can be added later without WindowsProfileMissing.
 */
export const GENERATED_WINDOWS_PROFILE: Readonly<{ adminUsername: string }> = { adminUsername: 'azureuser' };

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
