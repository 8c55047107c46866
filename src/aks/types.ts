// The wire shapes the model reads: the ARM `managedClusters` properties that matter for networking,
// spelled as the REST API spells them (docs/aks-rules.md §1.1, §1.3). Everything is optional because users omit things.

export interface NetworkProfile {
  networkPlugin?: string;
  networkPluginMode?: string;
  networkPolicy?: string;
  networkMode?: string;
  networkDataplane?: string;
  podCidr?: string;
  serviceCidr?: string;
  dnsServiceIP?: string;
  dockerBridgeCidr?: string;
  outboundType?: string;
  loadBalancerSku?: string;
  podCidrs?: string[];
  serviceCidrs?: string[];
  ipFamilies?: string[];
  [extra: string]: unknown;
}

export interface AgentPoolProfile {
  name?: string;
  count?: number;
  vmSize?: string;
  osType?: string;
  mode?: string;
  type?: string;
  maxPods?: number;
  vnetSubnetID?: string;
  podSubnetID?: string;
  podIPAllocationMode?: string;
  enableAutoScaling?: boolean;
  minCount?: number;
  maxCount?: number;
  orchestratorVersion?: string;
  upgradeSettings?: { maxSurge?: string; [extra: string]: unknown };
  nodeLabels?: Record<string, string>;
  [extra: string]: unknown;
}

export interface ManagedClusterSpec {
  kubernetesVersion?: string;
  networkProfile?: NetworkProfile;
  agentPoolProfiles?: AgentPoolProfile[];
  windowsProfile?: { adminUsername?: string; adminPassword?: string };
  [extra: string]: unknown;
}

/** One finding of validation, in the shape every client expects (ARM error body fields). */
export interface Problem {
  code: string;
  message: string;
  target: string;
  /** The rule-table id that produced it (C1, N7, …). */
  rule: string;
}
