// Request-body models of managedClusters and agentPools: every member of the 2022-06-01 and 2022-11-01 specs
// that az 2.45 and the SDKs send, plus the networking members of 2026-04-01. Members we don't model in depth
// are `any`; members that exist only in some api-versions are checked against the version in versioned-members.ts.
import { s, type Schema } from '../../arm/schema.js';

const any = s.any;
const str = s.string;
const int = s.integer;
const bool = s.boolean;

const upgradeSettings = s.object('AgentPoolUpgradeSettings', {
  maxSurge: str(),
  maxUnavailable: str(),
  drainTimeoutInMinutes: int(),
  nodeSoakDurationInMinutes: int(),
  undrainableNodeBehavior: str(),
});

const poolMembers: Record<string, Schema> = {
  count: int(),
  vmSize: str(),
  osDiskSizeGB: int(),
  osDiskType: str(),
  kubeletDiskType: str(),
  workloadRuntime: str(),
  messageOfTheDay: str(),
  vnetSubnetID: str(),
  podSubnetID: str(),
  podIPAllocationMode: str(),
  maxPods: int(),
  osType: str(),
  osSKU: str(),
  maxCount: int(),
  minCount: int(),
  enableAutoScaling: bool(),
  scaleDownMode: str(),
  type: str(),
  mode: str(),
  orchestratorVersion: str(),
  currentOrchestratorVersion: str(),
  nodeImageVersion: str(),
  upgradeSettings,
  provisioningState: str(),
  powerState: any(),
  availabilityZones: s.array(str()),
  enableNodePublicIP: bool(),
  enableCustomCATrust: bool(),
  nodePublicIPPrefixID: str(),
  scaleSetPriority: str(),
  scaleSetEvictionPolicy: str(),
  spotMaxPrice: s.number(),
  tags: s.tags(),
  nodeLabels: s.map(str()),
  nodeTaints: s.array(str()),
  nodeInitializationTaints: s.array(str()),
  proximityPlacementGroupID: str(),
  kubeletConfig: any(),
  linuxOSConfig: any(),
  enableEncryptionAtHost: bool(),
  enableUltraSSD: bool(),
  enableFIPS: bool(),
  gpuInstanceProfile: str(),
  gpuProfile: any(),
  creationData: any(),
  capacityReservationGroupID: str(),
  hostGroupID: str(),
  networkProfile: any(),
  windowsProfile: any(),
  securityProfile: any(),
  artifactStreamingProfile: any(),
  virtualMachinesProfile: any(),
  virtualMachineNodesStatus: any(),
  status: any(),
  eTag: str(),
};

const agentPoolProfile = s.object('ManagedClusterAgentPoolProfile', { name: str(), ...poolMembers });

export const networkProfileModel = s.object('ContainerServiceNetworkProfile', {
  networkPlugin: str(),
  networkPluginMode: str(),
  networkPolicy: str(),
  networkMode: str(),
  networkDataplane: str(),
  podCidr: str(),
  serviceCidr: str(),
  dnsServiceIP: str(),
  dockerBridgeCidr: str(),
  outboundType: str(),
  loadBalancerSku: str(),
  loadBalancerProfile: any(),
  natGatewayProfile: any(),
  staticEgressGatewayProfile: any(),
  podCidrs: s.array(str()),
  serviceCidrs: s.array(str()),
  ipFamilies: s.array(str()),
  advancedNetworking: any(),
  kubeProxyConfig: any(),
  podLinkLocalAccess: str(),
});

const linuxProfile = s.object('ContainerServiceLinuxProfile', {
  adminUsername: str(),
  ssh: s.object('ContainerServiceSshConfiguration', {
    publicKeys: s.array(s.object('ContainerServiceSshPublicKey', { keyData: str() })),
  }),
});

const windowsProfile = s.object('ManagedClusterWindowsProfile', {
  adminUsername: str(),
  adminPassword: str(),
  licenseType: str(),
  enableCSIProxy: bool(),
  gmsaProfile: any(),
});

const clusterProperties = s.object('ManagedClusterProperties', {
  provisioningState: str(),
  powerState: any(),
  maxAgentPools: int(),
  kubernetesVersion: str(),
  currentKubernetesVersion: str(),
  dnsPrefix: str(),
  fqdnSubdomain: str(),
  fqdn: str(),
  privateFQDN: str(),
  azurePortalFQDN: str(),
  agentPoolProfiles: s.array(agentPoolProfile),
  linuxProfile,
  windowsProfile,
  servicePrincipalProfile: s.object('ManagedClusterServicePrincipalProfile', { clientId: str(), secret: str() }),
  addonProfiles: s.map(any()),
  podIdentityProfile: any(),
  oidcIssuerProfile: any(),
  nodeResourceGroup: str(),
  nodeResourceGroupProfile: any(),
  enableRBAC: bool(),
  enablePodSecurityPolicy: bool(),
  enableNamespaceResources: bool(),
  networkProfile: networkProfileModel,
  aadProfile: any(),
  autoUpgradeProfile: any(),
  upgradeSettings: any(),
  autoScalerProfile: any(),
  apiServerAccessProfile: any(),
  diskEncryptionSetID: str(),
  identityProfile: any(),
  privateLinkResources: any(),
  disableLocalAccounts: bool(),
  httpProxyConfig: any(),
  securityProfile: any(),
  storageProfile: any(),
  ingressProfile: any(),
  publicNetworkAccess: str(),
  workloadAutoScalerProfile: any(),
  azureMonitorProfile: any(),
  serviceMeshProfile: any(),
  metricsProfile: any(),
  nodeProvisioningProfile: any(),
  bootstrapProfile: any(),
  aiToolchainOperatorProfile: any(),
  supportPlan: str(),
  resourceUID: str(),
  status: any(),
});

export const managedClusterModel = s.object('ManagedCluster', {
  id: str(),
  name: str(),
  type: str(),
  location: str(),
  tags: s.tags(),
  sku: s.object('ManagedClusterSKU', { name: str(), tier: str() }),
  identity: s.object('ManagedClusterIdentity', {
    type: str(),
    principalId: str(),
    tenantId: str(),
    userAssignedIdentities: s.map(any()),
    delegatedResources: any(),
  }),
  extendedLocation: any(),
  kind: str(),
  eTag: str(),
  systemData: any(),
  properties: clusterProperties,
});

export const agentPoolModel = s.object('AgentPool', {
  id: str(),
  name: str(),
  type: str(),
  systemData: any(),
  properties: s.object('ManagedClusterAgentPoolProfileProperties', poolMembers),
});

export const tagsModel = s.object('TagsObject', { tags: s.tags() });
