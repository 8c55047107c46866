// managedClusters/stop and /start (POST, long-running, 202 with Location and Azure-AsyncOperation): the
// cluster and every pool take powerState Stopped or Running; stopping deallocates every node (the records
// go, the pools keep their counts) and the cluster's API server stops with it; starting brings them back
// (docs/aks-rules.md §8). Pools stop and start through agentPools PUT (power-state.ts).
import { clusterPowerStateConflict } from '../../arm/errors.js';
import type { OperationKind } from '../../arm/lro.js';
import type { RequestContext, Route } from '../../arm/provider.js';
import { NAMESPACE, poolsOf, powerStateOf, type ClusterRecord, type PowerState } from '../../model/cluster-records.js';
import { writableResourceGroup } from '../resources/resourceGroups.js';
import { assertIdle, requestedCluster, settle } from './clusters.js';
import { reconcile } from './provisioner.js';
import { newETag } from './etags.js';

const CLUSTER_POWER = 'Microsoft.ContainerService/managedClusters/power';

export const CLUSTER = '/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.ContainerService/managedClusters/{resourceName}';

/** The power state a record stores: Running is the absence of one. */
function withPower<T extends { powerState?: PowerState }>(record: T, power: PowerState): T {
  const { powerState: _old, ...rest } = record;
  return (power === 'Stopped' ? { ...rest, powerState: power } : rest) as T;
}

function changePower(ctx: RequestContext, target: PowerState) {
  writableResourceGroup(ctx.store, ctx.params['subscriptionId']!, ctx.params['resourceGroupName']!);
  const cluster = requestedCluster(ctx);
  assertIdle(cluster);
  const power = powerStateOf(cluster);
  if (power === target) throw clusterPowerStateConflict(target === 'Stopped' ? 'stopping' : 'starting', cluster.provisioningState, power);
  const state = target === 'Stopped' ? 'Stopping' : 'Starting';
  return ctx.lro.begin(ctx, {
    kind: CLUSTER_POWER,
    namespace: NAMESPACE,
    location: cluster.location,
    resourceId: cluster.id,
    method: 'POST',
    input: { power: target },
    prepare: () => ctx.store.put(cluster.id, { ...cluster, provisioningState: state, activeOperation: { name: state } }),
    response: { status: 202 },
    headers: 'async-operation+location',
  });
}

export const clusterPowerKind: OperationKind = {
  kind: CLUSTER_POWER,
  run(op, { store }) {
    const cluster = store.get<ClusterRecord>(op.resourceId);
    if (!cluster) return;
    const power = (op.input as { power: PowerState }).power;
    // A power change is a write: new eTags on the cluster and its pools (docs/aks-rules.md §3.7).
    const updated = { ...withPower(cluster, power), eTag: newETag() };
    store.put(cluster.id, updated);
    for (const pool of poolsOf(store, cluster)) store.put(pool.id, { ...withPower(pool, power), eTag: newETag() });
    reconcile(store, updated);
    settle(store, cluster.id, 'Succeeded');
  },
  fail(op, { store }) {
    settle(store, op.resourceId, 'Failed');
  },
};

export const powerRoutes: Route[] = [
  { method: 'POST', path: `${CLUSTER}/stop`, resourceType: 'managedClusters', handle: (ctx) => changePower(ctx, 'Stopped') },
  { method: 'POST', path: `${CLUSTER}/start`, resourceType: 'managedClusters', handle: (ctx) => changePower(ctx, 'Running') },
];
