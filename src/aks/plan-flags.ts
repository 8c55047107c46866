// `aksemu plan`'s flags (az's, for `az aks create`, plus the subnet and VNet the cluster would sit in) made into the
// planner's input, and the plan with, when it fails, the designs that would pass. The CLI and the dashboard's plan
// endpoint (docs/dashboard.md §3) share it, so both plan the same flags the same way.
import { NEWEST_STABLE_API_VERSION } from './api-versions.js';
import { CliUsageError, parseIntFlag, validateAutoscaler, validateMaxSurge, validateNodepoolName } from './az-validators.js';
import type { ConnectedKind, ConnectedNetwork } from './environment.js';
import { DUAL_STACK_FLAGS, dualStackMembers, type AzNetworkFlags } from './network-flags.js';
import { parseCidrField } from './parsed-network.js';
import { planCluster, PlanInputError, type PlanInput } from './plan.js';
import { suggestDesigns } from './plan-suggestions.js';
import type { PlanOutcome } from './plan-svg.js';
import type { AgentPoolProfile, NetworkProfile } from './types.js';

/**
 * The flags `aksemu plan` takes, in the order its help lists them: commander's flag text (a value name in <…>, none
 * for a switch) and help. `list` flags may be given again (each adds one); `defaultValue` is the CLI's default. The
 * CLI registers them and the dashboard's plan endpoint accepts exactly these, so the two cannot drift apart.
 */
export interface PlanFlagSpec {
  flags: string;
  help: string;
  list?: true;
  defaultValue?: string;
}

export const PLAN_FLAG_SPECS: readonly PlanFlagSpec[] = [
  { flags: '--network-plugin <plugin>', help: 'none | kubenet | azure' },
  { flags: '--network-plugin-mode <mode>', help: 'overlay (azure only, api-version 2023-02-01 and later)' },
  { flags: '--network-policy <policy>', help: 'azure | calico | cilium | none' },
  { flags: '--pod-cidr <cidr>', help: 'pod CIDR (kubenet, overlay, none)' },
  { flags: '--service-cidr <cidr>', help: 'service CIDR (default 10.0.0.0/16)' },
  { flags: '--dns-service-ip <ip>', help: 'DNS service IP (default 10.0.0.10)' },
  { flags: `${DUAL_STACK_FLAGS[0].option} <cidrs>`, help: DUAL_STACK_FLAGS[0].help },
  { flags: `${DUAL_STACK_FLAGS[1].option} <cidrs>`, help: DUAL_STACK_FLAGS[1].help },
  { flags: `${DUAL_STACK_FLAGS[2].option} <families>`, help: DUAL_STACK_FLAGS[2].help },
  { flags: '-m, --max-pods <n>', help: 'maximum pods per node' },
  { flags: '-c, --node-count <n>', help: 'nodes in the first pool (default 1)' },
  { flags: '--max-surge <n|%>', help: 'upgrade surge, e.g. 1 or 33%' },
  { flags: '--os-type <type>', help: 'Linux | Windows' },
  { flags: '--enable-cluster-autoscaler', help: 'size for --max-count instead of --node-count' },
  { flags: '--min-count <n>', help: 'autoscaler minimum' },
  { flags: '--max-count <n>', help: 'autoscaler maximum' },
  { flags: '--nodepool-name <name>', help: 'first pool name (default nodepool1)' },
  { flags: '-s, --node-vm-size <size>', help: 'VM size (default Standard_DS2_v2)' },
  { flags: '-k, --kubernetes-version <version>', help: 'Kubernetes version, e.g. 1.32 or 1.32.9' },
  { flags: '--windows-admin-username <name>', help: 'the windowsProfile admin user name (AKS generates azureuser otherwise)' },
  { flags: '--subnet-cidr <cidr>', help: 'node subnet (default the managed 10.224.0.0/16); IPv4,IPv6 for a dual-stack subnet' },
  { flags: '--subnet-name <name>', help: 'node subnet name (default aks-subnet)' },
  { flags: '--pod-subnet-cidr <cidr>', help: 'a pod subnet in the VNet (Azure CNI with a pod subnet; needs --subnet-cidr)' },
  { flags: '--pod-subnet-name <name>', help: 'pod subnet name (default pod-subnet)' },
  { flags: '--pod-ip-allocation-mode <mode>', help: 'DynamicIndividual (16-address batches, default) | StaticBlock (/28 blocks)' },
  { flags: '--vnet-cidr <cidr>', help: 'VNet address space (default the managed 10.224.0.0/12); comma-separated for several' },
  { flags: '--peered-cidr <[name=]cidrs>', help: "a peered VNet's address space, comma-separated; repeat for each VNet", list: true },
  { flags: '--on-premises-cidr <[name=]cidrs>', help: 'an on-premises range reached over ExpressRoute or a VPN; repeat for each', list: true },
  { flags: '--api-version <version>', help: 'Microsoft.ContainerService api-version (default: the newest stable)', defaultValue: NEWEST_STABLE_API_VERSION },
  { flags: '-n, --name <name>', help: 'cluster name, seeds the node names' },
  { flags: '--nodes', help: 'list every node with its addresses and routes' },
];

/** A spec's long flag without its dashes: `network-plugin`. */
export function longFlagOf(spec: PlanFlagSpec): string {
  return /--([a-z-]+)/.exec(spec.flags)![1]!;
}

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
