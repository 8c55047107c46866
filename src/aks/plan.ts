// `aksemu plan` without the command line: defaults, every rule, capacity and (optionally) the node
// addresses for one cluster on one subnet. Pure: no server, no store.
import { apiVersionProfile } from './api-versions.js';
import { summarizeCapacity, type CapacitySummary } from './capacity.js';
import { canonicalIpFamily, GENERATED_WINDOWS_PROFILE, isDualStack, sizingNodes, surgeNodes, type ResolvedPool } from './defaults.js';
import { managedSubnet, type ConnectedNetwork, type NetworkEnvironment, type SubnetInfo } from './environment.js';
import { clusterDigits } from './naming.js';
import { parseCidrField } from './parsed-network.js';
import { AllocationError, IpPlanner, type PlannedNode, type PlannedRoute } from './planner.js';
import type { AgentPoolProfile, NetworkProfile, Problem } from './types.js';
import { validateCluster } from './validate.js';

export interface PlanInput {
  apiVersion: string;
  kubernetesVersion?: string;
  networkProfile: NetworkProfile;
  agentPoolProfiles: AgentPoolProfile[];
  windowsProfile?: { adminUsername?: string };
  /** Node subnet; default the managed 10.224.0.0/16. A dual-stack subnet is "IPv4,IPv6" (comma-separated). */
  subnetCidr?: string;
  subnetName?: string;
  /** VNet address space; default the managed 10.224.0.0/12, or the subnet itself when only the subnet is given. */
  vnetCidr?: string;
  /** A pod subnet in the same VNet (Azure CNI with a pod subnet): every pool takes its pods' addresses from it. */
  podSubnetCidr?: string;
  podSubnetName?: string;
  /** Seeds the 8 digits in node names. */
  clusterName?: string;
  /** Allocate and list every node's addresses and routes. */
  includeNodes?: boolean;
  /** Peered VNets' and on-premises ranges the cluster's ranges must avoid (C18, C19). */
  connectedNetworks?: ConnectedNetwork[];
}

export interface UpgradeSummary {
  surgeNodes: number;
  ipsRequired: number;
  ipsAvailable: number;
  fits: boolean;
}

export interface PlanResult {
  valid: boolean;
  errors: Problem[];
  warnings: Problem[];
  apiVersion: string;
  kubernetesVersion: string;
  networkProfile: NetworkProfile;
  agentPoolProfiles: ResolvedPool[];
  subnet: { name: string; cidr: string; vnetCidr: string; managed: boolean };
  podSubnet?: { name: string; cidr: string };
  capacity?: CapacitySummary;
  upgrade?: UpgradeSummary;
  nodes?: PlannedNode[];
  routes?: PlannedRoute[];
}

/** Input the planner cannot even start from (unknown api-version, a subnet outside its VNet). */
export class PlanInputError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.message);
    this.name = 'PlanInputError';
  }
}

function outsideVnet(name: string, prefixes: string[], vnetPrefixes: string[]): PlanInputError | undefined {
  const vs = vnetPrefixes.map((p) => parseCidrField(p).value);
  const outside = prefixes.some((p) => {
    const s = parseCidrField(p).value;
    return s !== undefined && vs.every((v) => v !== undefined) && !vs.some((v) => v!.containsCidr(s));
  });
  if (!outside) return undefined;
  return new PlanInputError({
    code: 'NetcfgSubnetRangeOutsideVnet',
    message: `Subnet '${name}' is not valid because its IP address range is outside the IP address range of virtual network 'aks-vnet'.`,
    target: 'subnet',
    rule: 'plan',
  });
}

/** The plan's pod subnet, a sibling of the node subnet in its VNet (src/aks/pod-subnet.ts). */
function addPodSubnet(input: PlanInput, env: NetworkEnvironment, node: SubnetInfo): SubnetInfo | undefined {
  if (input.podSubnetCidr === undefined) return undefined;
  const name = input.podSubnetName ?? 'pod-subnet';
  const prefixes = input.podSubnetCidr.split(',');
  const outside = outsideVnet(name, prefixes, node.vnet.addressSpace);
  if (outside) throw outside;
  const pod: SubnetInfo = { id: `${node.vnet.id}/subnets/${name}`, name, addressPrefixes: prefixes, vnet: node.vnet };
  node.vnet.subnets.push({ id: pod.id, name, addressPrefixes: prefixes });
  env.subnets[pod.id.toLowerCase()] = pod;
  return pod;
}

function planEnvironment(input: PlanInput): { env: NetworkEnvironment; subnet: SubnetInfo } {
  const name = input.subnetName ?? 'aks-subnet';
  if (input.subnetCidr === undefined && input.vnetCidr === undefined) {
    const subnet = managedSubnet({ subnets: {} }, isDualStack({ ipFamilies: (input.networkProfile.ipFamilies ?? []).map(canonicalIpFamily) }));
    return { env: { subnets: {}, managedSubnet: subnet }, subnet };
  }
  const subnetPrefixes = (input.subnetCidr ?? input.vnetCidr!).split(',');
  const vnetPrefixes = input.vnetCidr?.split(',') ?? subnetPrefixes;
  const outside = outsideVnet(name, subnetPrefixes, vnetPrefixes);
  if (outside) throw outside;
  const vnetId = 'plan:aks-vnet';
  const subnet: SubnetInfo = {
    id: `${vnetId}/subnets/${name}`,
    name,
    addressPrefixes: subnetPrefixes,
    vnet: { id: vnetId, name: 'aks-vnet', addressSpace: vnetPrefixes, subnets: [] },
  };
  subnet.vnet.subnets.push({ id: subnet.id, name, addressPrefixes: subnetPrefixes });
  // Pools of a plan all use this subnet: present it as a BYO subnet the pools point at.
  return { env: { subnets: { [subnet.id.toLowerCase()]: subnet } }, subnet };
}

export function planCluster(input: PlanInput): PlanResult {
  const api = apiVersionProfile(input.apiVersion);
  if (!api) {
    throw new PlanInputError({
      code: 'InvalidApiVersionParameter',
      message: `The api-version '${input.apiVersion}' is invalid. The supported versions are '2022-06-01,2022-11-01,2026-04-01'.`,
      target: 'api-version',
      rule: 'plan',
    });
  }
  const { env, subnet } = planEnvironment(input);
  if (input.connectedNetworks?.length) env.connectedNetworks = input.connectedNetworks;
  const podSubnet = addPodSubnet(input, env, subnet);
  const pools = input.agentPoolProfiles.map((p) => ({
    ...p,
    ...(subnet.managed ? {} : { vnetSubnetID: subnet.id }),
    ...(podSubnet ? { podSubnetID: podSubnet.id } : {}),
  }));
  const spec = {
    networkProfile: input.networkProfile,
    agentPoolProfiles: pools,
    ...(input.kubernetesVersion !== undefined ? { kubernetesVersion: input.kubernetesVersion } : {}),
    // A create: AKS generates a windowsProfile when none is given (docs/aks-rules.md §3.7).
    windowsProfile: input.windowsProfile ?? { ...GENERATED_WINDOWS_PROFILE },
  };
  const v = validateCluster({ spec, api, env });
  const result: PlanResult = {
    valid: v.valid,
    errors: v.errors,
    warnings: v.warnings,
    apiVersion: api.version,
    kubernetesVersion: v.cluster.kubernetesVersion,
    networkProfile: v.cluster.network,
    agentPoolProfiles: v.cluster.pools.map((p) => (subnet.managed ? p : { ...p, vnetSubnetID: undefined })) as ResolvedPool[],
    subnet: {
      name: subnet.name,
      cidr: subnet.addressPrefixes[0] ?? '',
      vnetCidr: subnet.vnet.addressSpace[0] ?? '',
      managed: subnet.managed === true,
    },
  };
  if (podSubnet) result.podSubnet = { name: podSubnet.name, cidr: podSubnet.addressPrefixes[0] ?? '' };
  for (const p of result.agentPoolProfiles) {
    if (p.vnetSubnetID === undefined) delete p.vnetSubnetID;
    // The plan's own ids name no real subnet: the pod subnet is shown by name above.
    delete p.podSubnetID;
  }
  // Capacity needs every address field the plugin uses; the parse rules have already said what is wrong.
  const podNeeded = v.model?.nodes.carvesPodCidr === true;
  if (!v.model || (podNeeded && !v.parsed.podCidr.value)) return result;
  const capacity = summarizeCapacity(v.cluster, env, v.model, v.parsed.podCidr.value);
  if (capacity) {
    result.capacity = capacity;
    const surge = v.cluster.pools.reduce((s, p) => s + (surgeNodes(p) ?? 0), 0);
    const available = capacity.usableIps - capacity.ipsInUse;
    result.upgrade = {
      surgeNodes: surge,
      ipsRequired: capacity.ipsRequiredForUpgrade,
      ipsAvailable: available,
      fits: capacity.ipsRequiredForUpgrade <= available,
    };
  }
  if (input.includeNodes && v.valid) {
    const planner = new IpPlanner(v.cluster, v.model, env, clusterDigits(input.clusterName ?? 'aksemu-plan'));
    try {
      for (const pool of v.cluster.pools) planner.addNodes(pool.name, sizingNodes(pool));
      result.nodes = planner.list();
      result.routes = planner.routes();
    } catch (e) {
      if (!(e instanceof AllocationError)) throw e;
      result.valid = false;
      result.errors.push(e.problem);
    }
  }
  return result;
}
