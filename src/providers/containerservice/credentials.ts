// listClusterUserCredential / listClusterAdminCredential (docs/clients.md §3.6): POST, no body, answer
// {"kubeconfigs":[{"name":"clusterUser","value":"<base64 kubeconfig>"}]}. The kubeconfig points at the
// cluster's own API server (src/cluster), which the server runs beside ARM and hands in as the issuer: the
// cluster layer sits above this one (docs/architecture.md §4).
import { ArmError, clusterPowerStateConflict, resourceNotFound } from '../../arm/errors.js';
import { CLUSTER_TYPE, powerStateOf, type ClusterRecord } from '../../model/cluster-records.js';
import type { RequestContext, Route } from '../../arm/provider.js';
import { requestedCluster } from './clusters.js';

export type CredentialKind = 'user' | 'admin';

/** Who writes a cluster's kubeconfigs: the cluster APIs (src/cluster/server.ts). */
export interface KubeconfigIssuer {
  /** The kubeconfig YAML for a cluster's user or admin credential; undefined when the cluster has no API to name. */
  kubeconfig(clusterId: string, kind: CredentialKind): Promise<string | undefined>;
}

const CLUSTER = '/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.ContainerService/managedClusters/{resourceName}';

function credentialAction(kind: CredentialKind, issuer: KubeconfigIssuer | undefined) {
  return async (ctx: RequestContext) => {
    const cluster = requestedCluster(ctx);
    if (!issuer) throw new ArmError(500, 'InternalServerError', 'The cluster API servers are not running in this process.');
    const yaml = await issuer.kubeconfig(cluster.id, kind);
    if (yaml === undefined) {
      // A cluster whose API server never ran (stopped first, or no nodes yet): ARM's answer, not a 500 (ours; AKS
      // keeps an API endpoint for every cluster it created).
      const now = ctx.store.get<ClusterRecord>(cluster.id);
      if (!now) throw resourceNotFound(CLUSTER_TYPE, cluster.name, ctx.params['resourceGroupName']!);
      throw clusterPowerStateConflict('listing credentials', now.provisioningState, powerStateOf(now));
    }
    return {
      status: 200,
      body: { kubeconfigs: [{ name: kind === 'admin' ? 'clusterAdmin' : 'clusterUser', value: Buffer.from(yaml, 'utf8').toString('base64') }] },
    };
  };
}

export function credentialRoutes(issuer: KubeconfigIssuer | undefined): Route[] {
  return [
    { method: 'POST', path: `${CLUSTER}/listClusterUserCredential`, resourceType: 'managedClusters', handle: credentialAction('user', issuer) },
    { method: 'POST', path: `${CLUSTER}/listClusterAdminCredential`, resourceType: 'managedClusters', handle: credentialAction('admin', issuer) },
  ];
}
