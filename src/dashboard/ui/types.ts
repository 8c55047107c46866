// The shapes of the dashboard API's answers (docs/dashboard.md §3), as the browser reads them. The browser code
// imports nothing from the server's sources, so these are written here once for all pages.

export interface Operation {
  id: string;
  resourceId: string;
  name: string;
  kind: 'create' | 'update' | 'delete' | 'other';
  status: 'InProgress' | 'Succeeded' | 'Failed' | 'Canceled';
  startTime: string;
  endTime?: string;
  error?: { code: string; message: string };
}

export interface Overview {
  subscriptionId: string;
  groups: Array<{ name: string; location: string; counts: Record<string, number> }>;
  operations: Operation[];
}

export interface SubnetSummary {
  id: string;
  name: string;
  addressPrefix: string;
  used: number;
  total: number;
}

export interface VnetSummary {
  id: string;
  name: string;
  location: string;
  addressPrefixes: string[];
  subnets: SubnetSummary[];
  peerings: number;
}

export interface ClusterSummary {
  id: string;
  name: string;
  location: string;
  provisioningState: string;
  powerState: string;
  kubernetesVersion: string;
  networkPlugin: string;
  networkPluginMode?: string;
  nodeCount: number;
  readyNodes: number;
}

export interface Group {
  name: string;
  location: string;
  virtualNetworks: VnetSummary[];
  managedClusters: ClusterSummary[];
  routeTables: Array<{ id: string; name: string; routes: number; subnets: string[] }>;
  networkSecurityGroups: Array<{ id: string; name: string; rules: number }>;
  loadBalancers: Array<{ id: string; name: string; sku: string; frontends: Array<{ name: string; privateIp?: string; publicIpId?: string }> }>;
  publicIPAddresses: Array<{ id: string; name: string; ipAddress?: string }>;
  operations: Operation[];
}

export const KINDS = ['reserved', 'node', 'pod', 'vm', 'lb', 'other', 'free'] as const;
export type Kind = (typeof KINDS)[number];
export type Counts = Record<Kind, number>;

export interface Route {
  name: string;
  addressPrefix: string;
  nextHopType: string;
  nextHopIpAddress?: string;
}

export interface SecurityRule {
  name: string;
  priority: number;
  direction: string;
  access: string;
  protocol: string;
  sourceAddressPrefix?: string;
  destinationAddressPrefix?: string;
  destinationPortRange?: string;
}

export interface SubnetView {
  id: string;
  name: string;
  addressPrefix: string;
  total: number;
  counts: Counts;
  routeTable?: { id: string; name: string; routes: Route[] };
  networkSecurityGroup?: { id: string; name: string; securityRules: SecurityRule[] };
}

export interface Peering {
  name: string;
  remoteVirtualNetworkId?: string;
  peeringState?: string;
  allowForwardedTraffic?: boolean;
  allowGatewayTransit?: boolean;
  allowVirtualNetworkAccess?: boolean;
  useRemoteGateways?: boolean;
}

export interface VnetView {
  vnet: { id: string; name: string; location?: string; properties?: { addressSpace?: { addressPrefixes?: string[] }; provisioningState?: string } };
  subnets: SubnetView[];
  peerings: Peering[];
}

export interface Run {
  first: string;
  last: string;
  count: number;
  kind: Kind;
  owner: string;
  ownerId?: string;
}

export interface SubnetMap {
  id: string;
  addressPrefix: string;
  total: number;
  counts: Counts;
  cells: boolean;
  runs: Run[];
}

export interface NodeView {
  name: string;
  pool: string;
  ready: boolean;
  reason?: string;
  message?: string;
  internalIP?: string;
  podCIDRs: string[];
  secondaryIPs: number;
  pods: number;
}

export interface PodView {
  namespace: string;
  name: string;
  node?: string;
  podIP?: string;
  phase?: string;
  ready?: string;
  hostNetwork?: boolean;
}

export interface ServiceView {
  namespace: string;
  name: string;
  type: string;
  clusterIP?: string;
  ports: string;
  endpoints: string[];
  loadBalancerIP?: string;
}

export interface PolicyView {
  namespace: string;
  name: string;
  podSelector: string;
  policyTypes: string[];
  ingressRules: number;
  egressRules: number;
}

/** The ARM body of a managed cluster, as much of it as the page shows. */
export interface ClusterBody {
  id: string;
  name: string;
  location?: string;
  properties?: {
    provisioningState?: string;
    powerState?: { code?: string };
    kubernetesVersion?: string;
    fqdn?: string;
    nodeResourceGroup?: string;
    networkProfile?: Record<string, unknown>;
  };
}

export interface PoolBody {
  id?: string;
  name: string;
  properties?: {
    count?: number;
    vmSize?: string;
    mode?: string;
    osType?: string;
    maxPods?: number;
    vnetSubnetID?: string;
    podSubnetID?: string;
    provisioningState?: string;
    enableAutoScaling?: boolean;
    minCount?: number;
    maxCount?: number;
  };
}

export interface ClusterView {
  cluster: ClusterBody;
  agentPools: PoolBody[];
  api: { reachable: boolean; message?: string };
  nodes: NodeView[];
  pods: PodView[];
  podsTruncated?: number;
  services: ServiceView[];
  networkPolicies: PolicyView[];
}

export interface Problem {
  code: string;
  message: string;
  target?: string;
  rule?: string;
}

export interface Suggestion {
  kind: string;
  flags: Array<[string, string]>;
  summary: string;
  maxNodes: number;
  maxPods: number;
  ipsRequired: number;
  usableIps: number;
}

export interface PlanAnswer {
  plan: {
    valid: boolean;
    errors: Problem[];
    warnings: Problem[];
    apiVersion?: string;
    capacity?: {
      plugin: string;
      subnetCidr: string;
      usableIps: number;
      ipsRequired: number;
      ipsRequiredForUpgrade?: number;
      maxNodes: number;
      maxPods: number;
    };
    suggestions?: Suggestion[];
  };
  svg: string;
}

/** One `change` event of /ui/api/events. */
export interface Change {
  arm: string[];
  clusters: string[];
}
