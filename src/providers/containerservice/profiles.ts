// The read-only profiles clients ask for before an upgrade or a new pool: a cluster's and a pool's
// upgradeProfiles/default, availableAgentPoolVersions, and a location's osOptions/default. Versions come from
// aksemu's catalogue (aks/kubernetes-versions.ts), none of which is a preview (docs/aks-rules.md §8).
import { compareVersions, KUBERNETES_VERSIONS, maxPoolMinorSkew, minorOf } from '../../aks/kubernetes-versions.js';
import type { RequestContext, Route } from '../../arm/provider.js';
import { poolNodeImage, poolsOf, type ClusterRecord, type PoolRecord } from '../../model/cluster-records.js';
import { requestedPool } from './agent-pools.js';
import { requestedCluster } from './clusters.js';
import { CLUSTER } from './power.js';
import { LOCATION, region, upgradesOf } from './versions.js';

const POOL = `${CLUSTER}/agentPools/{agentPoolName}`;

const upgrades = (versions: readonly string[]) => versions.map((kubernetesVersion) => ({ kubernetesVersion }));

/** A pool goes no further than its control plane. */
function poolUpgrades(cluster: ClusterRecord, pool: PoolRecord): string[] {
  const controlPlane = cluster.resolved.kubernetesVersion;
  return KUBERNETES_VERSIONS.filter((v) => compareVersions(v, pool.currentOrchestratorVersion) > 0 && compareVersions(v, controlPlane) <= 0);
}

function osTypeOf(pool: PoolRecord): string {
  return pool.resolved.osType;
}

function clusterUpgradeProfile(ctx: RequestContext) {
  const cluster = requestedCluster(ctx);
  return {
    status: 200,
    body: {
      id: `${cluster.id}/upgradeprofiles/default`,
      name: 'default',
      type: 'Microsoft.ContainerService/managedClusters/upgradeprofiles',
      properties: {
        controlPlaneProfile: {
          kubernetesVersion: cluster.resolved.kubernetesVersion,
          osType: 'Linux',
          upgrades: upgrades(upgradesOf(cluster.resolved.kubernetesVersion)),
        },
        agentPoolProfiles: poolsOf(ctx.store, cluster).map((pool) => ({
          name: pool.name,
          kubernetesVersion: pool.currentOrchestratorVersion,
          osType: osTypeOf(pool),
          upgrades: upgrades(poolUpgrades(cluster, pool)),
        })),
      },
    },
  };
}

function poolUpgradeProfile(ctx: RequestContext) {
  const cluster = requestedCluster(ctx);
  const pool = requestedPool(ctx, cluster);
  return {
    status: 200,
    body: {
      id: `${pool.id}/upgradeprofiles/default`,
      name: 'default',
      type: 'Microsoft.ContainerService/managedClusters/agentPools/upgradeProfiles',
      properties: {
        kubernetesVersion: pool.currentOrchestratorVersion,
        osType: osTypeOf(pool),
        upgrades: upgrades(poolUpgrades(cluster, pool)),
        latestNodeImageVersion: poolNodeImage(pool).nodeImageVersion,
      },
    },
  };
}

/** The versions a new pool may run: not newer than the control plane, within the minor skew AKS allows (V2, V3). */
function availableAgentPoolVersions(ctx: RequestContext) {
  const cluster = requestedCluster(ctx);
  const controlPlane = cluster.resolved.kubernetesVersion;
  const oldest = minorOf(controlPlane) - maxPoolMinorSkew(controlPlane);
  const versions = KUBERNETES_VERSIONS.filter((v) => compareVersions(v, controlPlane) <= 0 && minorOf(v) >= oldest);
  return {
    status: 200,
    body: {
      id: `${cluster.id}/availableagentpoolversions`,
      name: 'default',
      type: 'Microsoft.ContainerService/managedClusters/availableAgentpoolVersions',
      properties: {
        // A pool created without orchestratorVersion gets the control plane's.
        agentPoolVersions: versions.map((kubernetesVersion) => ({ ...(kubernetesVersion === controlPlane ? { default: true } : {}), kubernetesVersion })),
      },
    },
  };
}

function osOptions(ctx: RequestContext) {
  const location = region(ctx);
  return {
    status: 200,
    body: {
      id: `/subscriptions/${ctx.params['subscriptionId']}/providers/Microsoft.ContainerService/locations/${location}/osOptions/default`,
      name: 'default',
      type: 'Microsoft.ContainerService/locations/osOptions',
      properties: {
        osOptionPropertyList: [
          { 'os-type': 'Linux', 'enable-fips-image': false },
          { 'os-type': 'Windows', 'enable-fips-image': false },
        ],
      },
    },
  };
}

export const profileRoutes: Route[] = [
  { method: 'GET', path: `${CLUSTER}/upgradeProfiles/default`, resourceType: 'managedClusters', handle: clusterUpgradeProfile },
  { method: 'GET', path: `${POOL}/upgradeProfiles/default`, resourceType: 'managedClusters/agentPools', handle: poolUpgradeProfile },
  { method: 'GET', path: `${CLUSTER}/availableAgentPoolVersions`, resourceType: 'managedClusters', handle: availableAgentPoolVersions },
];

/** osOptions is a location's, served at every api-version the location routes take. */
export const osOptionsRoute: Route = { method: 'GET', path: `${LOCATION}/osOptions/default`, handle: osOptions };
