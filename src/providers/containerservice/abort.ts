// AbortLatestOperation (POST managedClusters/{n}/abort, agentPools/{p}/abort; long-running, 202 with Location
// and Azure-AsyncOperation), the cluster-scoped operation-status routes (OperationStatusResult), and
// runCommand, which aksemu refuses (docs/aks-rules.md §8).
import { commandResultNotFound, noOperationToAbort, operationNotFound, runCommandUnavailable } from '../../arm/errors.js';
import type { Operation, OperationKind } from '../../arm/lro.js';
import type { RequestContext, Route } from '../../arm/provider.js';
import { s } from '../../arm/schema.js';
import { NAMESPACE, type ClusterRecord, type PoolRecord } from '../../model/cluster-records.js';
import { sameId } from '../../ids/compare.js';
import { requestedPool } from './agent-pools.js';
import { requestedCluster, settle } from './clusters.js';
import { assertRunning } from './power-state.js';
import { CLUSTER } from './power.js';

const ABORT = 'Microsoft.ContainerService/managedClusters/abort';
const POOL = `${CLUSTER}/agentPools/{agentPoolName}`;

/** The operations an abort of `resourceId` cancels: those running on it or under it, other than aborts. */
function abortable(ctx: RequestContext, resourceId: string): Operation[] {
  return ctx.lro.running(resourceId).filter((op) => op.kind !== ABORT);
}

/**
 * Cancels what runs on the cluster (or one pool) before its work is done: aksemu's operations do their work in one
 * transaction, so an abort always comes in time, and what was asked stays recorded (AKS does not roll back) with
 * provisioningState Canceled.
 */
function abort(ctx: RequestContext, pool: boolean) {
  const cluster = requestedCluster(ctx);
  const target = pool ? requestedPool(ctx, cluster) : undefined;
  const running = abortable(ctx, target?.id ?? cluster.id);
  if (running.length === 0) throw noOperationToAbort(target ? `${cluster.name}/${target.name}` : cluster.name);
  return ctx.lro.begin(ctx, {
    kind: ABORT,
    namespace: NAMESPACE,
    location: cluster.location,
    resourceId: target?.id ?? cluster.id,
    method: 'POST',
    prepare: () => {
      for (const op of running) ctx.lro.cancel(op.id);
      if (!target) return settle(ctx.store, cluster.id, 'Canceled');
      const { activeOperation: _done, ...idle } = ctx.store.get<ClusterRecord>(cluster.id)!;
      ctx.store.put(cluster.id, idle);
      ctx.store.put(target.id, { ...ctx.store.get<PoolRecord>(target.id)!, provisioningState: 'Canceled' });
    },
    response: { status: 202 },
    headers: 'async-operation+location',
  });
}

/** The abort's own work was done when it was accepted. */
export const abortKind: OperationKind = { kind: ABORT, run() {} };

/** OperationStatusResult: one operation on the cluster or one of its pools. */
function operationStatus(ctx: RequestContext, pool: boolean) {
  const cluster = requestedCluster(ctx);
  const scope = pool ? requestedPool(ctx, cluster).id : cluster.id;
  const id = ctx.params['operationId']!;
  const op = ctx.lro.get(id);
  if (!op || !(sameId(op.resourceId, scope) || op.resourceId.toLowerCase().startsWith(`${scope.toLowerCase()}/`))) throw operationNotFound(id);
  return {
    status: 200,
    body: {
      id: `${scope}/operations/${op.id}`,
      name: op.id,
      status: op.status,
      ...(op.status === 'InProgress' ? {} : { percentComplete: 100 }),
      startTime: op.startTime,
      ...(op.endTime ? { endTime: op.endTime } : {}),
      ...(op.error ? { error: op.error } : {}),
    },
  };
}

const runCommandModel = s.object('RunCommandRequest', { command: s.string(), context: s.string(), clusterToken: s.string() });

function runCommand(ctx: RequestContext): never {
  assertRunning(requestedCluster(ctx), 'running command');
  throw runCommandUnavailable();
}

export const abortRoutes: Route[] = [
  { method: 'POST', path: `${CLUSTER}/abort`, resourceType: 'managedClusters', handle: (ctx) => abort(ctx, false) },
  { method: 'POST', path: `${POOL}/abort`, resourceType: 'managedClusters/agentPools', handle: (ctx) => abort(ctx, true) },
  { method: 'GET', path: `${CLUSTER}/operations/{operationId}`, resourceType: 'managedClusters', handle: (ctx) => operationStatus(ctx, false) },
  { method: 'GET', path: `${POOL}/operations/{operationId}`, resourceType: 'managedClusters/agentPools', handle: (ctx) => operationStatus(ctx, true) },
  { method: 'POST', path: `${CLUSTER}/runCommand`, resourceType: 'managedClusters', body: runCommandModel, bodyRequired: true, handle: runCommand },
  {
    method: 'GET',
    path: `${CLUSTER}/commandResults/{commandId}`,
    resourceType: 'managedClusters',
    handle: (ctx) => {
      requestedCluster(ctx);
      throw commandResultNotFound(ctx.params['commandId']!);
    },
  },
];
