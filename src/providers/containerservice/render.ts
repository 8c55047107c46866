// ARM response bodies, shaped by the api-version of the request: each body is rendered with everything the
// cluster has and the defaults AKS reports, then pruned to the members the version defines (wire.ts), so a 2022
// client sees no networkPluginMode and a 2025 one no dockerBridgeCidr.
import type { ApiVersionProfile } from '../../aks/api-versions.js';
import type { ResolvedPool } from '../../aks/defaults.js';
import { effectiveOutboundIds, loadBalancerOutbound } from '../../aks/outbound.js';
import { podIpAllocationMode } from '../../aks/pod-subnet.js';
import { networkModelOf } from '../../aks/network-models/index.js';
import type { NetworkProfile } from '../../aks/types.js';
import { CLUSTER_TYPE, osSkuOf, POOL_TYPE, poolNodeImage, type ClusterRecord, type PoolRecord } from '../../model/cluster-records.js';
import { createHash } from 'node:crypto';
import { defaultKubeletIdentityId } from './identity.js';
import { onTheWire } from './wire.js';

const LOAD_BALANCER_SKUS = new Set(['standard', 'basic']);

function clean<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

export function renderNetworkProfile(network: NetworkProfile, api: ApiVersionProfile, nodeResourceGroupId: string): NetworkProfile {
  const out: NetworkProfile = { ...network };
  if (!api.hasNetworkPluginMode) delete out.networkPluginMode;
  if (!api.hasNetworkPluginMode) delete out.networkDataplane;
  if (!api.hasDockerBridgeCidr) delete out.dockerBridgeCidr;
  // 'none' is not a value of the older enum: there, no policy is the absence of one.
  if (!api.networkPolicyNoneDefault && out.networkPolicy === 'none') delete out.networkPolicy;
  if (api.hasDockerBridgeCidr && out.dockerBridgeCidr === undefined) out.dockerBridgeCidr = '172.17.0.1/16';
  // The dataplane AKS reports: cilium with the cilium policy, azure on Azure CNI (docs/aks-rules.md §3.7).
  if (api.hasNetworkDataplane && out.networkDataplane === undefined) {
    const dataplane = out.networkPolicy === 'cilium' ? 'cilium' : networkModelOf({ network })?.defaults.networkDataplane;
    if (dataplane !== undefined) out.networkDataplane = dataplane;
  }
  // AKS answers with the spec's lower-case enum value whatever case was sent ('Standard' reads back 'standard';
  // docs/aks-rules.md §3.7).
  if (typeof out.loadBalancerSku === 'string' && LOAD_BALANCER_SKUS.has(out.loadBalancerSku.toLowerCase()))
    out.loadBalancerSku = out.loadBalancerSku.toLowerCase();
  if (networkModelOf({ network })?.podCidr === 'user' && !api.returnsPodCidrForNone) {
    // Before 2026-01-01 AKS did not return the pod CIDR of a BYO CNI cluster (CHANGELOG 2026-01-04).
    delete out.podCidr;
    delete out.podCidrs;
  }
  // effectiveOutboundIPs: the public IP resources the cluster sends from (docs/aks-rules.md §14.1).
  const effective = effectiveOutboundIds(network, nodeResourceGroupId).map((id) => ({ id }));
  if (out.outboundType === 'loadBalancer') {
    const given = (out['loadBalancerProfile'] as Record<string, unknown> | undefined) ?? {};
    const lb = loadBalancerOutbound(network);
    const managed =
      lb.managedCount !== undefined
        ? { managedOutboundIPs: { count: lb.managedCount, ...(network.ipFamilies?.includes('IPv6') ? { countIPv6: lb.managedCountIPv6 ?? 1 } : {}) } }
        : {};
    out['loadBalancerProfile'] = {
      ...managed,
      ...given,
      allocatedOutboundPorts: lb.allocatedOutboundPorts,
      idleTimeoutInMinutes: lb.idleTimeoutInMinutes,
      effectiveOutboundIPs: effective,
      ...(api.hasNetworkPluginMode ? { backendPoolType: 'nodeIPConfiguration' } : {}),
    };
  } else if (out.outboundType === 'managedNATGateway') {
    out['natGatewayProfile'] = { ...((out['natGatewayProfile'] as Record<string, unknown> | undefined) ?? {}), effectiveOutboundIPs: effective };
  }
  return out;
}

/** One pool as it appears in the cluster's agentPoolProfiles and as an agentPools resource's properties. */
export function renderPoolProperties(pool: PoolRecord, api: ApiVersionProfile): Record<string, unknown> {
  const r: ResolvedPool = pool.resolved;
  const spec = pool.spec as Record<string, unknown>;
  const givenUpgrade = (spec['upgradeSettings'] as Record<string, unknown> | undefined) ?? {};
  return clean({
    ...spec,
    count: r.count,
    vmSize: r.vmSize,
    osDiskSizeGB: typeof spec['osDiskSizeGB'] === 'number' && spec['osDiskSizeGB'] > 0 ? spec['osDiskSizeGB'] : 128,
    osDiskType: spec['osDiskType'] ?? 'Managed',
    kubeletDiskType: spec['kubeletDiskType'] ?? 'OS',
    workloadRuntime: spec['workloadRuntime'] ?? 'OCIContainer',
    vnetSubnetID: r.vnetSubnetID,
    podSubnetID: r.podSubnetID,
    // AKS reports the mode of a pool with a pod subnet, DynamicIndividual unless asked (the versions without it prune it).
    podIPAllocationMode: podIpAllocationMode(r),
    maxPods: r.maxPods,
    type: r.type,
    enableAutoScaling: r.enableAutoScaling,
    minCount: r.minCount,
    maxCount: r.maxCount,
    provisioningState: pool.provisioningState,
    powerState: { code: pool.powerState ?? 'Running' },
    orchestratorVersion: spec['orchestratorVersion'] || r.orchestratorVersion,
    currentOrchestratorVersion: pool.currentOrchestratorVersion,
    enableNodePublicIP: spec['enableNodePublicIP'] ?? false,
    mode: r.mode,
    osType: r.osType,
    osSKU: osSkuOf(pool),
    // The image its nodes run, which their node-image-version label shows (src/aks/node-images.ts).
    nodeImageVersion: poolNodeImage(pool).nodeImageVersion,
    // The 2022 specs echo what was sent; later ones always show the effective surge.
    upgradeSettings: api.maxSurgeDefault === '1' ? givenUpgrade : { ...givenUpgrade, maxSurge: r.maxSurge },
    enableFIPS: spec['enableFIPS'] ?? false,
    ...spotDefaults(spec),
    eTag: pool.eTag,
  });
}

/** A Spot pool's eviction policy and price cap as the spec defaults them (Delete, -1: up to the on-demand price);
 * neither is shown for a Regular pool, which cannot have them (docs/aks-rules.md §3.7). */
function spotDefaults(spec: Record<string, unknown>): Record<string, unknown> {
  if (typeof spec['scaleSetPriority'] !== 'string' || spec['scaleSetPriority'].toLowerCase() !== 'spot') return {};
  return { scaleSetEvictionPolicy: spec['scaleSetEvictionPolicy'] ?? 'Delete', spotMaxPrice: spec['spotMaxPrice'] ?? -1 };
}

export function renderPool(pool: PoolRecord, api: ApiVersionProfile): Record<string, unknown> {
  return onTheWire(api, 'AgentPool', { id: pool.id, name: pool.name, type: POOL_TYPE, properties: renderPoolProperties(pool, api) });
}

export function renderCluster(c: ClusterRecord, pools: PoolRecord[], api: ApiVersionProfile): Record<string, unknown> {
  const spec = c.spec as Record<string, unknown>;
  const nodeRgId = `/subscriptions/${c.subscriptionId}/resourceGroups/${c.nodeResourceGroup}`;
  const servicePrincipal = usesServicePrincipal(spec);
  const body = clean({
    id: c.id,
    location: c.location,
    name: c.name,
    tags: c.tags,
    type: CLUSTER_TYPE,
    sku: { name: 'Base', tier: c.tier ?? 'Free' },
    eTag: c.eTag,
    // A cluster created with a service principal and no identity has none (docs/aks-rules.md §3.7); one that named an
    // identity too shows both (docs/aks-rules.md §13).
    identity: servicePrincipal && !c.identity.explicit ? undefined : renderIdentity(c.identity),
    properties: {
      // What the request gave and the version keeps (upgradeSettings, autoScalerProfile, apiServerAccessProfile, …).
      ...spec,
      provisioningState: c.provisioningState,
      powerState: { code: c.powerState ?? 'Running' },
      kubernetesVersion: (spec['kubernetesVersion'] as string | undefined) || c.resolved.kubernetesVersion,
      currentKubernetesVersion: c.resolved.kubernetesVersion,
      // A cluster named by fqdnSubdomain has no dnsPrefix (the spec's PrivateClusterFQDNSubdomain example).
      dnsPrefix: spec['fqdnSubdomain'] ? undefined : c.dnsPrefix,
      fqdn: c.fqdn,
      azurePortalFQDN: c.fqdn.replace('.hcp.', '.portal.hcp.'),
      ...privateCluster(c, spec),
      agentPoolProfiles: pools.map((p) => ({ name: p.name, ...renderPoolProperties(p, api) })),
      servicePrincipalProfile: servicePrincipal ? spec['servicePrincipalProfile'] : { clientId: 'msi' },
      addonProfiles: spec['addonProfiles'] ?? {},
      nodeResourceGroup: c.nodeResourceGroup,
      enableRBAC: spec['enableRBAC'] ?? true,
      // What the request chose (LTS needs the Premium tier, checked at PUT), else the default plan.
      supportPlan: spec['supportPlan'] ?? 'KubernetesOfficial',
      networkProfile: renderNetworkProfile(c.resolved.network, api, nodeRgId),
      maxAgentPools: 100,
      identityProfile: {
        kubeletidentity: {
          resourceId: c.kubeletIdentity.resourceId ?? defaultKubeletIdentityId(c),
          clientId: c.kubeletIdentity.clientId,
          objectId: c.kubeletIdentity.objectId,
        },
      },
      disableLocalAccounts: spec['disableLocalAccounts'] ?? false,
      securityProfile: spec['securityProfile'] ?? {},
      storageProfile: spec['storageProfile'] ?? {
        diskCSIDriver: { enabled: true },
        fileCSIDriver: { enabled: true },
        snapshotController: { enabled: true },
      },
      oidcIssuerProfile: spec['oidcIssuerProfile'] ?? { enabled: false },
      workloadAutoScalerProfile: spec['workloadAutoScalerProfile'] ?? {},
    },
  });
  return onTheWire(api, 'ManagedCluster', body);
}

/** SystemAssigned shows its principal and tenant; UserAssigned the identities it names, each with its ids (docs/aks-rules.md §13). */
function renderIdentity(identity: ClusterRecord['identity']): Record<string, unknown> {
  if (identity.type === 'UserAssigned') return { type: identity.type, userAssignedIdentities: identity.userAssignedIdentities };
  return { type: identity.type, principalId: identity.principalId, tenantId: identity.tenantId };
}

/**
 * A private cluster's API server name and zone (docs/aks-rules.md §3.7): privateDNSZone defaults to 'system', where
 * privateFQDN is `<dnsPrefix>-<hash>.<guid>.privatelink.<location>.azmk8s.io`; a cluster named by fqdnSubdomain in
 * its own zone gets `<fqdnSubdomain>.<zone name>`. The guid is derived from the cluster's id, so it is stable.
 */
function privateCluster(c: ClusterRecord, spec: Record<string, unknown>): Record<string, unknown> {
  const access = spec['apiServerAccessProfile'] as Record<string, unknown> | undefined;
  if (access?.['enablePrivateCluster'] !== true) return {};
  const zone = typeof access['privateDNSZone'] === 'string' && access['privateDNSZone'] !== '' ? access['privateDNSZone'] : 'system';
  const subdomain = spec['fqdnSubdomain'];
  const custom = zone.startsWith('/');
  const h = createHash('sha1').update(c.id.toLowerCase()).digest('hex');
  const guid = `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
  const privateFQDN =
    custom && typeof subdomain === 'string' && subdomain !== '' ? `${subdomain}.${zone.split('/').pop()}` : c.fqdn.replace('.hcp.', `.${guid}.privatelink.`);
  return { privateFQDN, apiServerAccessProfile: { ...access, privateDNSZone: zone } };
}

/** A service principal other than the managed identity's placeholder 'msi' (docs/aks-rules.md §3.7). */
function usesServicePrincipal(spec: Record<string, unknown>): boolean {
  const clientId = (spec['servicePrincipalProfile'] as { clientId?: unknown } | undefined)?.clientId;
  return typeof clientId === 'string' && clientId !== '' && clientId.toLowerCase() !== 'msi';
}
