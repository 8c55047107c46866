// The request bodies az 2.45 builds for `aks create` and `aks nodepool add` (docs/clients.md §3.4.2, §3.7):
// same members, same order, the same "let the server choose" encodings ("" versions, osDiskSizeGB 0).
import { dualStackMembers, type AzNetworkFlags } from '../../../aks/network-flags.js';

interface PoolOptions {
  count: number;
  vmSize: string;
  osType: string;
  mode: 'System' | 'User';
  vnetSubnetId?: string;
  podSubnetId?: string;
  maxPods?: number;
  enableAutoScaling: boolean;
  minCount?: number;
  maxCount?: number;
  maxSurge?: string;
  /** aks create always sends it ("" = default); nodepool add only when given. */
  orchestratorVersion?: string;
}

export function agentPoolProperties(pool: PoolOptions, forNodepoolAdd: boolean): Record<string, unknown> {
  const p: Record<string, unknown> = { count: pool.count, vmSize: pool.vmSize, osDiskSizeGB: 0 };
  if (pool.vnetSubnetId !== undefined) p['vnetSubnetID'] = pool.vnetSubnetId;
  if (pool.podSubnetId !== undefined) p['podSubnetID'] = pool.podSubnetId;
  if (pool.maxPods !== undefined) p['maxPods'] = pool.maxPods;
  p['osType'] = pool.osType;
  if (pool.enableAutoScaling) {
    p['maxCount'] = pool.maxCount;
    p['minCount'] = pool.minCount;
  }
  p['enableAutoScaling'] = pool.enableAutoScaling;
  if (forNodepoolAdd) p['scaleDownMode'] = 'Delete';
  p['type'] = 'VirtualMachineScaleSets';
  p['mode'] = pool.mode;
  if (pool.orchestratorVersion !== undefined) p['orchestratorVersion'] = pool.orchestratorVersion;
  p['upgradeSettings'] = pool.maxSurge === undefined ? {} : { maxSurge: pool.maxSurge };
  Object.assign(p, {
    enableNodePublicIP: false,
    scaleSetPriority: 'Regular',
    scaleSetEvictionPolicy: 'Delete',
    spotMaxPrice: -1.0,
    nodeTaints: [],
    enableEncryptionAtHost: false,
    enableUltraSSD: false,
    enableFIPS: false,
  });
  return p;
}

interface NetworkOptions extends AzNetworkFlags {
  dockerBridgeAddress?: string;
  outboundType: string;
  loadBalancerSku: string;
  loadBalancerProfile?: Record<string, unknown>;
  natGatewayProfile?: Record<string, unknown>;
}

/** The outbound profiles, in the SDK's attribute order after loadBalancerSku. */
function outboundProfiles(n: NetworkOptions): Record<string, unknown> {
  return {
    ...(n.loadBalancerProfile ? { loadBalancerProfile: n.loadBalancerProfile } : {}),
    ...(n.natGatewayProfile ? { natGatewayProfile: n.natGatewayProfile } : {}),
  };
}

/** With no network flag at all the SDK's own defaults get serialized (docs/clients.md §3.4.2, last row). */
function networkProfile(n: NetworkOptions): Record<string, unknown> {
  // Newer az counts the dual-stack lists among the network flags: any of them and the profile is built from the flags.
  const none = [
    n.networkPlugin,
    n.networkPolicy,
    n.podCidr,
    n.serviceCidr,
    n.dnsServiceIp,
    n.dockerBridgeAddress,
    n.ipFamilies,
    n.podCidrs,
    n.serviceCidrs,
  ].every((v) => v === undefined);
  if (none) {
    return {
      networkPlugin: 'kubenet',
      podCidr: '10.244.0.0/16',
      serviceCidr: '10.0.0.0/16',
      dnsServiceIP: '10.0.0.10',
      dockerBridgeCidr: '172.17.0.1/16',
      outboundType: n.outboundType,
      loadBalancerSku: n.loadBalancerSku,
      ...outboundProfiles(n),
    };
  }
  // The SDK serializes in its attribute order; networkPluginMode is not in 2022-11-01's model
  // (az 2.45 has no --network-plugin-mode), so it goes next to networkPlugin as newer az sends it.
  const p: Record<string, unknown> = { networkPlugin: n.networkPlugin };
  if (n.networkPluginMode !== undefined) p['networkPluginMode'] = n.networkPluginMode;
  if (n.networkPolicy !== undefined) p['networkPolicy'] = n.networkPolicy;
  if (n.podCidr !== undefined) p['podCidr'] = n.podCidr;
  if (n.serviceCidr !== undefined) p['serviceCidr'] = n.serviceCidr;
  if (n.dnsServiceIp !== undefined) p['dnsServiceIP'] = n.dnsServiceIp;
  if (n.dockerBridgeAddress !== undefined) p['dockerBridgeCidr'] = n.dockerBridgeAddress;
  p['outboundType'] = n.outboundType;
  p['loadBalancerSku'] = n.loadBalancerSku;
  Object.assign(p, outboundProfiles(n));
  Object.assign(p, dualStackMembers(n));
  return p;
}

/**
 * azure-cli's _get_default_dns_prefix (acs/custom.py): name[:10]-rg[:16]-sub[:6], a leading non-letter prefixed with
 * "a". It is az's alone: the server makes no prefix up (docs/aks-rules.md §3.2).
 */
export function defaultDnsPrefix(name: string, resourceGroup: string, subscriptionId: string): string {
  let namePart = name.replace(/[^A-Za-z0-9-]/g, '').slice(0, 10);
  if (!/^[A-Za-z]/.test(namePart)) namePart = `a${namePart}`.slice(0, 10);
  const rgPart = resourceGroup.replace(/[^A-Za-z0-9-]/g, '').slice(0, 16);
  return `${namePart}-${rgPart}-${subscriptionId.slice(0, 6)}`;
}

interface ClusterOptions {
  location: string;
  tags?: Record<string, string>;
  kubernetesVersion: string;
  dnsPrefix: string;
  pool: PoolOptions & { name: string };
  sshKey?: string;
  adminUsername: string;
  network: NetworkOptions;
  assignIdentity?: string;
}

export function managedClusterBody(c: ClusterOptions): Record<string, unknown> {
  const { name, ...pool } = c.pool;
  const properties: Record<string, unknown> = {
    kubernetesVersion: c.kubernetesVersion,
    dnsPrefix: c.dnsPrefix,
    agentPoolProfiles: [{ ...agentPoolProperties(pool, false), name }],
  };
  if (c.sshKey !== undefined) properties['linuxProfile'] = { adminUsername: c.adminUsername, ssh: { publicKeys: [{ keyData: c.sshKey }] } };
  Object.assign(properties, {
    addonProfiles: {},
    enableRBAC: true,
    networkProfile: networkProfile(c.network),
    disableLocalAccounts: false,
    storageProfile: {},
  });
  const body: Record<string, unknown> = { location: c.location };
  if (c.tags !== undefined) body['tags'] = c.tags;
  body['identity'] = c.assignIdentity === undefined ? { type: 'SystemAssigned' } : { type: 'UserAssigned', userAssignedIdentities: { [c.assignIdentity]: {} } };
  body['properties'] = properties;
  return body;
}
