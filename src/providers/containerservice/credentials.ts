// listClusterUserCredential / listClusterAdminCredential (docs/clients.md §3.6): POST, no body, answer
// {"kubeconfigs":[{"name":"clusterUser","value":"<base64 kubeconfig>"}]}. The kubeconfig points at the
// cluster's own API server (src/cluster), which the server runs beside ARM and hands in as the issuer: the
// cluster layer sits above this one (docs/architecture.md §4).
import { ArmError } from '../../arm/errors.js';
import type { RequestContext, Route } from '../../arm/provider.js';
import { requestedCluster } from './clusters.js';

export type CredentialKind = 'user' | 'admin';

/** Who writes a cluster's kubeconfigs: the cluster APIs (src/cluster/server.ts). */
export interface KubeconfigIssuer {
  /** The kubeconfig YAML for a cluster's user or admin credential. */
  kubeconfig(clusterId: string, kind: CredentialKind): Promise<string>;
}

const CLUSTER = '/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.ContainerService/managedClusters/{resourceName}';

function credentialAction(kind: CredentialKind, issuer: KubeconfigIssuer | undefined) {
  return async (ctx: RequestContext) => {
    const cluster = requestedCluster(ctx);
    if (!issuer) throw new ArmError(500, 'InternalServerError', 'The cluster API servers are not running in this process.');
    const yaml = await issuer.kubeconfig(cluster.id, kind);
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
