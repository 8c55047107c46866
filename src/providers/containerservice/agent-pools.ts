// agentPools: the child resources of a cluster. PUT adds a pool, scales it (count) or upgrades it
// (orchestratorVersion, with surge nodes); DELETE removes it. Each is a long-running operation.
import { resolveKubernetesVersion } from '../../aks/kubernetes-versions.js';
import type { AgentPoolProfile, ManagedClusterSpec } from '../../aks/types.js';
import { resourceNotFound } from '../../arm/errors.js';
import type { OperationKind } from '../../arm/lro.js';
import type { RequestContext, Route } from '../../arm/provider.js';
import { writableResourceGroup } from '../resources/resourceGroups.js';
import { api, assertIdle, keepUnexpressible, normalizePoolSpec, requestedCluster, settle, validateOrThrow, withoutNulls } from './clusters.js';
import { reconcile, removePool, resolvedWithPools } from './provisioner.js';
import { NAMESPACE, POOL_TYPE, poolId, poolsOf, type ClusterRecord, type PoolRecord, type ProvisioningState } from '../../model/cluster-records.js';
import { assertRunning, poolPowerAfterPut, powerStateIn } from './power-state.js';
import { renderPool } from './render.js';
import { requestModel } from './schema.js';
import { checkConditions, newETag } from './etags.js';
import { sameId } from '../../ids/compare.js';

const POOL_WRITE = 'Microsoft.ContainerService/managedClusters/agentPools/write';
const POOL_DELETE = 'Microsoft.ContainerService/managedClusters/agentPools/delete';

const POOLS =
  '/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.ContainerService/managedClusters/{resourceName}/agentPools';
const POOL = `${POOLS}/{agentPoolName}`;

export function requestedPool(ctx: RequestContext, cluster: ClusterRecord): PoolRecord {
  const name = ctx.params['agentPoolName']!;
  const pool = poolsOf(ctx.store, cluster).find((p) => sameId(p.name, name));
  if (!pool) throw resourceNotFound(POOL_TYPE, `${cluster.name}/${name}`, cluster.resourceGroup);
  return pool;
}

/** The cluster spec with one pool replaced (or added), in the shape the model validates. */
function specWith(ctx: RequestContext, cluster: ClusterRecord, pools: PoolRecord[], name: string, profile: AgentPoolProfile | undefined): ManagedClusterSpec {
  const others = pools.filter((p) => !sameId(p.name, name)).map((p) => ({ name: p.name, ...p.spec, count: p.resolved.count }));
  // The stored network as the cluster resolved it, whatever the api-version of this pool request.
  const spec = keepUnexpressible(api(ctx), cluster.resolved, cluster.spec);
  return { ...spec, agentPoolProfiles: profile ? [...others, { ...profile, name }] : others };
}

/**
 * An update's properties over the pool's: a member the request omits keeps the pool's value, count included
 * (AgentPools_Start / AgentPools_Stop send only powerState and read back the pool's count and autoscaler;
 * docs/aks-rules.md §8). A member sent as null clears it. A request that turns the autoscaler off without
 * naming minCount / maxCount clears them too (the Stop example reads them back null).
 */
function updateOver(existing: PoolRecord, properties: AgentPoolProfile): AgentPoolProfile {
  const kept: Record<string, unknown> = { ...existing.spec, count: existing.resolved.count };
  if (properties.enableAutoScaling === false) {
    delete kept['minCount'];
    delete kept['maxCount'];
  }
  return { ...kept, ...properties } as AgentPoolProfile;
}

function put(ctx: RequestContext) {
  writableResourceGroup(ctx.store, ctx.params['subscriptionId']!, ctx.params['resourceGroupName']!);
  const cluster = requestedCluster(ctx);
  assertIdle(cluster);
  const name = ctx.params['agentPoolName']!;
  const body = (ctx.body ?? {}) as { properties?: AgentPoolProfile };
  const pools = poolsOf(ctx.store, cluster);
  const existing = pools.find((p) => sameId(p.name, name));
  const profile = normalizePoolSpec(withoutNulls(existing ? updateOver(existing, body.properties ?? {}) : (body.properties ?? {})));
  assertRunning(cluster, existing ? 'updating' : 'creating agent pool');
  checkConditions(ctx, api(ctx), existing !== undefined, existing?.eTag);
  const spec = specWith(ctx, cluster, pools, existing?.name ?? name, profile);
  const previous = resolvedWithPools(cluster, pools);
  const extra = { previous, poolName: name, identity: cluster.identity };
  let state: ProvisioningState = 'Creating';
  let surgePools: string[] | undefined;
  let resolved;
  if (!existing) {
    resolved = validateOrThrow(ctx, cluster, spec, 'pool-add', extra);
  } else {
    const asked =
      profile.orchestratorVersion === undefined ? undefined : (resolveKubernetesVersion(profile.orchestratorVersion) ?? profile.orchestratorVersion);
    const upgrading = asked !== undefined && asked !== existing.resolved.orchestratorVersion;
    // The version itself (supported, within the control plane's skew) is the rule table's (V1b–V3).
    resolved = validateOrThrow(ctx, cluster, spec, 'update', extra);
    if (upgrading) {
      validateOrThrow(ctx, cluster, spec, 'upgrade', { ...extra, upgradePools: [existing.name] });
      surgePools = [existing.name];
    }
    state = upgrading ? 'Upgrading' : profile.count !== existing.resolved.count ? 'Scaling' : 'Updating';
  }
  const r = resolved.pools.find((p) => sameId(p.name, name))!;
  const power = poolPowerAfterPut(existing, powerStateIn(body.properties), r);
  state = power.change ?? state;
  const { name: _n, ...rawSpec } = profile;
  const record: PoolRecord = {
    id: poolId(cluster.id, existing?.name ?? name),
    name: existing?.name ?? name,
    clusterId: cluster.id,
    spec: rawSpec,
    resolved: r,
    provisioningState: state,
    currentOrchestratorVersion: existing?.currentOrchestratorVersion ?? r.orchestratorVersion,
    ...(power.power === 'Stopped' ? { powerState: 'Stopped' as const } : {}),
    eTag: newETag(),
  };
  return ctx.lro.begin(ctx, {
    kind: POOL_WRITE,
    namespace: NAMESPACE,
    location: cluster.location,
    resourceId: record.id,
    method: 'PUT',
    input: { clusterId: cluster.id, surgePools },
    work: r.count,
    prepare: () => {
      ctx.store.put(record.id, record);
      ctx.store.put(cluster.id, { ...cluster, activeOperation: { name: state } });
    },
    response: { status: existing ? 200 : 201, body: renderPool(record, api(ctx)) },
    headers: 'async-operation',
  });
}

export const poolWriteKind: OperationKind = {
  kind: POOL_WRITE,
  run(op, { store }) {
    const input = op.input as { clusterId: string; surgePools?: string[] };
    const cluster = store.get<ClusterRecord>(input.clusterId);
    if (!cluster) return;
    reconcile(store, cluster, input.surgePools ? { surgePools: input.surgePools } : {});
    settle(store, cluster.id, 'Succeeded');
  },
  fail(op, { store }) {
    settle(store, (op.input as { clusterId: string }).clusterId, 'Failed');
  },
};

function remove(ctx: RequestContext) {
  const cluster = requestedCluster(ctx);
  assertIdle(cluster);
  assertRunning(cluster, 'deleting agent pool');
  const pool = requestedPool(ctx, cluster);
  checkConditions(ctx, api(ctx), true, pool.eTag);
  const pools = poolsOf(ctx.store, cluster);
  validateOrThrow(ctx, cluster, specWith(ctx, cluster, pools, pool.name, pool.spec as AgentPoolProfile), 'pool-delete', { poolName: pool.name });
  return ctx.lro.begin(ctx, {
    kind: POOL_DELETE,
    namespace: NAMESPACE,
    location: cluster.location,
    resourceId: pool.id,
    method: 'DELETE',
    input: { clusterId: cluster.id, pool: pool.name },
    prepare: () => {
      ctx.store.put(pool.id, { ...pool, provisioningState: 'Deleting' });
      ctx.store.put(cluster.id, { ...cluster, activeOperation: { name: 'Deleting' } });
    },
    response: { status: 202 },
    headers: 'async-operation+location',
  });
}

export const poolDeleteKind: OperationKind = {
  kind: POOL_DELETE,
  run(op, { store }) {
    const input = op.input as { clusterId: string; pool: string };
    const cluster = store.get<ClusterRecord>(input.clusterId);
    if (!cluster) return;
    removePool(store, cluster, input.pool);
    settle(store, cluster.id, 'Succeeded');
  },
  fail(op, { store }) {
    settle(store, (op.input as { clusterId: string }).clusterId, 'Failed');
  },
};

export const agentPoolRoutes: Route[] = [
  { method: 'PUT', path: POOL, resourceType: 'managedClusters/agentPools', body: requestModel('AgentPool'), bodyRequired: true, handle: put },
  {
    method: 'GET',
    path: POOL,
    resourceType: 'managedClusters/agentPools',
    handle: (ctx) => ({ status: 200, body: renderPool(requestedPool(ctx, requestedCluster(ctx)), api(ctx)) }),
  },
  { method: 'DELETE', path: POOL, resourceType: 'managedClusters/agentPools', handle: remove },
  {
    method: 'GET',
    path: POOLS,
    resourceType: 'managedClusters/agentPools',
    handle: (ctx) => {
      const cluster = requestedCluster(ctx);
      return { status: 200, body: { value: poolsOf(ctx.store, cluster).map((p) => renderPool(p, api(ctx))) } };
    },
  },
];
