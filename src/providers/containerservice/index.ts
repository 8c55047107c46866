// Microsoft.ContainerService: managed clusters and their agent pools, on the AKS network model.
import { AGENT_POOL_API_VERSIONS, ARM_LISTED_API_VERSIONS, SUPPORTED_API_VERSIONS } from '../../aks/api-versions.js';
import type { Route } from '../../arm/provider.js';
import type { Provider } from '../../arm/provider.js';
import type { Store } from '../../store/store.js';
import { agentPoolRoutes, poolDeleteKind, poolWriteKind } from './agent-pools.js';
import { clusterDeleteKind, clusterRoutes, clusterWriteKind } from './clusters.js';
import { credentialRoutes, type KubeconfigIssuer } from './credentials.js';
import { teardown } from './provisioner.js';
import { CLUSTER_TYPE, NAMESPACE, type ClusterRecord } from '../../model/cluster-records.js';
import { versionRoutes } from './versions.js';
import { abortKind, abortRoutes } from './abort.js';
import { clusterPowerKind, powerRoutes } from './power.js';
import { osOptionsRoute, profileRoutes } from './profiles.js';
import { updateTagsRoute } from './update-tags.js';
import { unknownMemberAnswer } from './schema.js';

/** `kubeconfigs`: the cluster APIs, without which listClusterUserCredential is a 500. */
export function containerServiceProvider(options: { kubeconfigs?: KubeconfigIssuer } = {}): Provider {
  return {
    namespace: NAMESPACE,
    // In ARM's order (its NoRegisteredProviderFound lists them so); 2019-04-01 and 2019-08-01 are what older clients
    // use for the orchestrators listing. agentPools is a type of its own, with its own versions.
    apiVersions: ARM_LISTED_API_VERSIONS,
    routes: [
      ...clusterRoutes,
      ...credentialRoutes(options.kubeconfigs),
      ...agentPoolRoutes,
      ...powerRoutes,
      ...abortRoutes,
      ...profileRoutes,
      updateTagsRoute,
      ...[...versionRoutes, osOptionsRoute].map((r) => ({
        ...r,
        apiVersions: [...new Set([...[...SUPPORTED_API_VERSIONS].reverse(), '2019-08-01', '2019-04-01'])],
      })),
    ].map(poolVersions),
    // The RP's own decoder judges members the api-version lacks: ignored before 2024-01-01, refused from it (schema.ts).
    unknownMembers: unknownMemberAnswer,
    operationKinds: [clusterWriteKind, clusterDeleteKind, poolWriteKind, poolDeleteKind, clusterPowerKind, abortKind],
    deleteSliceOfResourceGroup(groupId: string, store: Store) {
      // One cluster at a time: its addresses live in subnets that may sit outside its group, its node resource group too.
      const [first] = store.list<ClusterRecord>(`${groupId}/providers/${CLUSTER_TYPE}/`, { children: true, limit: 1 });
      if (!first) return false;
      teardown(store, first.value);
      return true;
    },
  };
}

/** A route on the agentPools type answers at the agentPools versions. */
function poolVersions(route: Route): Route {
  return route.resourceType === 'managedClusters/agentPools' && !route.apiVersions ? { ...route, apiVersions: AGENT_POOL_API_VERSIONS } : route;
}
