// listClusterUserCredential / listClusterAdminCredential (docs/clients.md §3.6): POST, no body, answer
// {"kubeconfigs":[{"name":"clusterUser","value":"<base64 kubeconfig>"}]}. The kubeconfig points at the
// cluster's own API server (src/cluster), which the server runs beside ARM.
import { ArmError } from '../../arm/errors.js';
import type { RequestContext, Route } from '../../arm/provider.js';
import { lifecycleOf, type CredentialKind } from '../../cluster/lifecycle.js';
import { requestedCluster } from './clusters.js';

const CLUSTER = '/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.ContainerService/managedClusters/{resourceName}';

function credentialAction(kind: CredentialKind) {
  return async (ctx: RequestContext) => {
    const cluster = requestedCluster(ctx);
    const lifecycle = lifecycleOf(ctx.store);
    if (!lifecycle) throw new ArmError(500, 'InternalServerError', 'The cluster API servers are not running in this process.');
    const yaml = await lifecycle.kubeconfig(cluster.id, kind);
    return {
      status: 200,
      body: { kubeconfigs: [{ name: kind === 'admin' ? 'clusterAdmin' : 'clusterUser', value: Buffer.from(yaml, 'utf8').toString('base64') }] },
    };
  };
}

export const credentialRoutes: Route[] = [
  { method: 'POST', path: `${CLUSTER}/listClusterUserCredential`, resourceType: 'managedClusters', handle: credentialAction('user') },
  { method: 'POST', path: `${CLUSTER}/listClusterAdminCredential`, resourceType: 'managedClusters', handle: credentialAction('admin') },
];
