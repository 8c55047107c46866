// `aksemu plan`'s flags (az's, for `az aks create`, plus the subnet and VNet the cluster would sit in) made into the
// planner's input, and the plan with, when it fails, the designs that would pass. The CLI and the dashboard's plan
// endpoint (docs/dashboard.md §3) share it, so both plan the same flags the same way.
import { CliUsageError, parseIntFlag, validateAutoscaler, validateMaxSurge, validateNodepoolName } from './az-validators.js';
import type { ConnectedKind, ConnectedNetwork } from './environment.js';
import { dualStackMembers, type AzNetworkFlags } from './network-flags.js';
import { parseCidrField } from './parsed-network.js';
import { planCluster, PlanInputError, type PlanInput } from './plan.js';
import { suggestDesigns } from './plan-suggestions.js';
import type { PlanOutcome } from './plan-svg.js';
import type { AgentPoolProfile, NetworkProfile } from './types.js';

export interface PlanFlags extends AzNetworkFlags {
  maxPods?: string;
  nodeCount?: string;
  maxSurge?: string;
  osType?: string;
  enableClusterAutoscaler?: boolean;
  minCount?: string;
  maxCount?: string;
  nodepoolName?: string;
  nodeVmSize?: string;
  kubernetesVersion?: string;
  windowsAdminUsername?: string;
  subnetCidr?: string;
  subnetName?: string;
  vnetCidr?: string;
  podSubnetCidr?: string;
  podSubnetName?: string;
  podIpAllocationMode?: string;
  peeredCidr?: string[];
  onPremisesCidr?: string[];
  apiVersion: string;
  name?: string;
  nodes?: boolean;
}

export function planInput(f: PlanFlags): PlanInput {
  const int = (flag: string, v: string | undefined) => (v === undefined ? undefined : parseIntFlag(flag, v));
  const nodeCount = int('--node-count', f.nodeCount);
  const minCount = int('--min-count', f.minCount);
  const maxCount = int('--max-count', f.maxCount);
  const maxPods = int('--max-pods', f.maxPods);
  if (f.nodepoolName !== undefined) validateNodepoolName(f.nodepoolName);
  if (f.maxSurge !== undefined) validateMaxSurge(f.maxSurge);
  validateAutoscaler({
    enabled: f.enableClusterAutoscaler === true,
    ...(minCount !== undefined ? { minCount } : {}),
    ...(maxCount !== undefined ? { maxCount } : {}),
    ...(nodeCount !== undefined ? { nodeCount } : {}),
  });

  const net: NetworkProfile = {};
  if (f.networkPlugin !== undefined) net.networkPlugin = f.networkPlugin;
  if (f.networkPluginMode !== undefined) net.networkPluginMode = f.networkPluginMode;
  if (f.networkPolicy !== undefined) net.networkPolicy = f.networkPolicy;
  if (f.podCidr !== undefined) net.podCidr = f.podCidr;
  if (f.serviceCidr !== undefined) net.serviceCidr = f.serviceCidr;
  if (f.dnsServiceIp !== undefined) net.dnsServiceIP = f.dnsServiceIp;
  Object.assign(net, dualStackMembers(f));

  const pool: AgentPoolProfile = { name: f.nodepoolName ?? 'nodepool1', mode: 'System' };
  if (nodeCount !== undefined) pool.count = nodeCount;
  if (maxPods !== undefined) pool.maxPods = maxPods;
  if (f.osType !== undefined) pool.osType = f.osType;
  if (f.nodeVmSize !== undefined) pool.vmSize = f.nodeVmSize;
  if (f.maxSurge !== undefined) pool.upgradeSettings = { maxSurge: f.maxSurge };
  if (f.podIpAllocationMode !== undefined) pool.podIPAllocationMode = f.podIpAllocationMode;
  if (f.enableClusterAutoscaler) {
    pool.enableAutoScaling = true;
    pool.minCount = minCount!;
    pool.maxCount = maxCount!;
    if (pool.count === undefined) pool.count = minCount!;
  }

  const input: PlanInput = { apiVersion: f.apiVersion, networkProfile: net, agentPoolProfiles: [pool] };
  if (f.kubernetesVersion !== undefined) input.kubernetesVersion = f.kubernetesVersion;
  if (f.windowsAdminUsername !== undefined) input.windowsProfile = { adminUsername: f.windowsAdminUsername };
  if (f.subnetCidr !== undefined) input.subnetCidr = f.subnetCidr;
  if (f.subnetName !== undefined) input.subnetName = f.subnetName;
  if (f.vnetCidr !== undefined) input.vnetCidr = f.vnetCidr;
  if (f.podSubnetCidr !== undefined) input.podSubnetCidr = f.podSubnetCidr;
  if (f.podSubnetName !== undefined) input.podSubnetName = f.podSubnetName;
  if (f.name !== undefined) input.clusterName = f.name;
  if (f.nodes) input.includeNodes = true;
  const connected = [
    ...(f.peeredCidr ?? []).map((v, i) => connectedNetwork('peered', '--peered-cidr', v, `peered-vnet-${i + 1}`)),
    ...(f.onPremisesCidr ?? []).map((v, i) => connectedNetwork('on-premises', '--on-premises-cidr', v, `on-premises-${i + 1}`)),
  ];
  if (connected.length > 0) input.connectedNetworks = connected;
  return input;
}

/** `[name=]cidr[,cidr…]`: each prefix must parse, so a typo is a usage error rather than a silent miss. */
function connectedNetwork(kind: ConnectedKind, flag: string, value: string, fallbackName: string): ConnectedNetwork {
  const eq = value.indexOf('=');
  const name = eq > 0 ? value.slice(0, eq) : fallbackName;
  const addressPrefixes = (eq > 0 ? value.slice(eq + 1) : value).split(',').map((p) => p.trim());
  for (const p of addressPrefixes) {
    if (!parseCidrField(p).value) throw new CliUsageError(`${flag}: '${p}' is not a CIDR (e.g. 10.1.0.0/16)`);
  }
  return { kind, name, addressPrefixes };
}

/** The plan of `input`; when it is INVALID, the nearest designs that pass. A flag value the planner cannot read is an error of the plan. */
export function planOutcome(input: PlanInput): PlanOutcome {
  try {
    const plan = planCluster(input);
    return plan.valid ? plan : { ...plan, suggestions: suggestDesigns(input, plan) };
  } catch (e) {
    if (!(e instanceof PlanInputError)) throw e;
    return { valid: false, errors: [e.problem], warnings: [] };
  }
}
