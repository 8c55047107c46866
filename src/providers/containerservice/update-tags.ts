// PATCH managedClusters/{n} (ManagedClusters_UpdateTags, body TagsObject): the tags replace the cluster's,
// long-running as the spec declares it (200 with the cluster Updating, then Azure-AsyncOperation).
import { newETag } from './etags.js';
import type { RequestContext, Route } from '../../arm/provider.js';
import { NAMESPACE, poolsOf } from '../../model/cluster-records.js';
import { tagsObjectModel } from '../network/updateTags.js';
import { writableResourceGroup } from '../resources/resourceGroups.js';
import { api, assertIdle, CLUSTER_WRITE, requestedCluster } from './clusters.js';
import { CLUSTER } from './power.js';
import { renderCluster } from './render.js';

function updateTags(ctx: RequestContext) {
  writableResourceGroup(ctx.store, ctx.params['subscriptionId']!, ctx.params['resourceGroupName']!);
  const cluster = requestedCluster(ctx);
  assertIdle(cluster);
  const { tags: _old, ...rest } = cluster;
  const tags = (ctx.body as { tags?: Record<string, string> } | undefined)?.tags;
  const updated = { ...rest, ...(tags ? { tags } : {}), provisioningState: 'Updating' as const, eTag: newETag() };
  return ctx.lro.begin(ctx, {
    kind: CLUSTER_WRITE,
    namespace: NAMESPACE,
    location: cluster.location,
    resourceId: cluster.id,
    method: 'PATCH',
    prepare: () => ctx.store.put(cluster.id, { ...updated, activeOperation: { name: 'Updating' } }),
    response: { status: 200, body: renderCluster(updated, poolsOf(ctx.store, cluster), api(ctx)) },
    headers: 'async-operation',
  });
}

export const updateTagsRoute: Route = {
  method: 'PATCH',
  path: CLUSTER,
  resourceType: 'managedClusters',
  body: tagsObjectModel,
  bodyRequired: true,
  handle: updateTags,
};
