// The members of ARM bodies that az commands read and change. az treats a body as a Python dict: it reads what
// it GETs, changes a few members and sends the rest back as it was, so every other member is `unknown` here and
// passes through untouched.

/** An agent pool's settings: a cluster's agentPoolProfiles entry, or an agentPools resource's properties. */
interface PoolProperties {
  count?: number;
  enableAutoScaling?: boolean;
  minCount?: number;
  maxCount?: number;
  orchestratorVersion?: string;
  upgradeSettings?: { maxSurge?: string; [member: string]: unknown };
  [member: string]: unknown;
}

/** An entry of a cluster's agentPoolProfiles. */
export interface PoolProfile extends PoolProperties {
  name?: string;
}

/** …/managedClusters/{name}/agentPools/{pool} */
export interface AgentPoolResource {
  name?: string;
  properties?: PoolProperties;
  [member: string]: unknown;
}

/** …/managedClusters/{name} */
export interface ClusterResource {
  tags?: Record<string, string>;
  properties: {
    kubernetesVersion?: string;
    provisioningState?: string;
    agentPoolProfiles?: PoolProfile[];
    [member: string]: unknown;
  };
  [member: string]: unknown;
}

/** Any ARM resource as az lists or shows it, for the members table views print. */
export interface ResourceBody {
  properties?: Record<string, unknown>;
  [member: string]: unknown;
}
