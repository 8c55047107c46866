// managedClusters: PUT (create or update, long-running), GET, LIST by group and subscription, DELETE.
// Validation runs before anything is accepted (400 with every problem); the work runs as an operation.
import { randomBytes, randomUUID } from 'node:crypto';
import type { ApiVersionProfile } from '../../aks/api-versions.js';
import { GENERATED_WINDOWS_PROFILE, isDualStack, resolveCluster, type ResolvedCluster } from '../../aks/defaults.js';
import { resolveKubernetesVersion } from '../../aks/kubernetes-versions.js';
import { clusterDigits, nodeResourceGroupName } from '../../aks/naming.js';
import { networkModelOf } from '../../aks/network-models/index.js';
import type { Phase } from '../../aks/rule-context.js';
import type { AgentPoolProfile, ManagedClusterSpec } from '../../aks/types.js';
import { validateCluster } from '../../aks/validate.js';
import {
  ArmError,
  invalidNodeResourceGroupName,
  locationRequired,
  nodeResourceGroupAlreadyExists,
  nodeResourceGroupSameAsResourceGroup,
  operationNotAllowed,
  resourceNotFound,
  validationFailed,
} from '../../arm/errors.js';
import { findRegion } from '../../arm/locations.js';
import { validateResourceGroupName } from '../../arm/names.js';
import type { OperationKind } from '../../arm/lro.js';
import type { RequestContext, Route } from '../../arm/provider.js';
import type { Store } from '../../store/store.js';
import { getResourceGroup, writableResourceGroup } from '../resources/resourceGroups.js';
import { controlPlaneIdentity, ensureDefaultKubeletIdentity, kubeletIdentity, type IdentityRequest } from './identity.js';
import { environmentFor, nodeResourceGroupId } from './network.js';
import { reconcile, resolvedWithPools, teardown } from './provisioner.js';
import {
  CLUSTER_TYPE,
  clusterId,
  NAMESPACE,
  poolId,
  poolsOf,
  type ClusterRecord,
  type PoolRecord,
  type ProvisioningState,
} from '../../model/cluster-records.js';
import { assertRunning } from './power-state.js';
import { renderCluster } from './render.js';
import { requestModel } from './schema.js';
import { profileFor } from './wire.js';
import { checkConditions, newETag } from './etags.js';
import { sameId } from '../../ids/compare.js';

export const CLUSTER_WRITE = 'Microsoft.ContainerService/managedClusters/write';
export const CLUSTER_DELETE = 'Microsoft.ContainerService/managedClusters/delete';

const CLUSTER = '/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.ContainerService/managedClusters/{resourceName}';

export function api(ctx: RequestContext): ApiVersionProfile {
  // The front door has checked the version against the provider's list; loose mode may let others through.
  return profileFor(ctx.apiVersion);
}

export function lookupCluster(store: Store, subscriptionId: string, group: string, name: string): ClusterRecord {
  const found = store.get<ClusterRecord>(clusterId(subscriptionId, group, name));
  if (!found) throw resourceNotFound(CLUSTER_TYPE, name, group);
  return found;
}

export function requestedCluster(ctx: RequestContext): ClusterRecord {
  const p = ctx.params;
  getResourceGroup(ctx.store, p['subscriptionId']!, p['resourceGroupName']!);
  return lookupCluster(ctx.store, p['subscriptionId']!, p['resourceGroupName']!, p['resourceName']!);
}

/** A cluster busy with an operation refuses another one (409 OperationNotAllowed). */
export function assertIdle(cluster: ClusterRecord): void {
  if (cluster.activeOperation) throw operationNotAllowed(cluster.activeOperation.name);
  if (cluster.provisioningState === 'Deleting') throw operationNotAllowed('Deleting');
}

/** AKS cluster names: 1–63 characters, letters, digits, '_' and '-', starting and ending alphanumeric. */
function checkClusterName(name: string): void {
  if (!/^[a-zA-Z0-9]$|^[a-zA-Z0-9][-_a-zA-Z0-9]{0,61}[a-zA-Z0-9]$/.test(name)) {
    throw new ArmError(
      400,
      'InvalidParameter',
      'The value of parameter resourceName is invalid. Please see https://aka.ms/aks-naming-rules for more details.',
      'resourceName',
    );
  }
}

/**
 * AKS makes up no DNS prefix: the request names one (az computes it client-side, cli/az/commands/aks-body.ts), or
 * an fqdnSubdomain instead (a private cluster with its own private DNS zone), never both (docs/aks-rules.md §3.2).
 * The stem of the cluster's FQDN is whichever was given.
 */
function requiredDnsPrefix(spec: ManagedClusterSpec): string {
  const given = spec['dnsPrefix'];
  const subdomain = spec['fqdnSubdomain'];
  const hasPrefix = typeof given === 'string' && given !== '';
  const hasSubdomain = typeof subdomain === 'string' && subdomain !== '';
  if (hasPrefix && hasSubdomain) {
    throw new ArmError(400, 'InvalidParameter', 'Only one of dnsPrefix and fqdnSubdomain can be specified.', 'fqdnSubdomain');
  }
  if (hasPrefix) return given;
  if (hasSubdomain) return subdomain;
  throw new ArmError(
    400,
    'InvalidParameter',
    "The value of parameter dnsPrefix is invalid. Error details: DNS prefix '' is invalid. DNS prefix must contain between 1 and 54 characters. Please see https://aka.ms/aks-naming-rules for more details.. Please see https://aka.ms/aks-naming-rules for more details.",
    'dnsPrefix',
  );
}

/**
 * A deep copy without null members: to AKS a null member is one not given, and the model reads
 * members without expecting null (kubernetesVersion: null would reach a string method).
 */
export function withoutNulls<T>(value: T): T {
  return JSON.parse(JSON.stringify(value), (_key, member: unknown) => (member === null ? undefined : member)) as T;
}

/** az sends "let the server choose" as empty strings and zeros; the model wants them absent. */
function normalizeSpec(properties: Record<string, unknown>): ManagedClusterSpec {
  const spec = withoutNulls(properties ?? {}) as ManagedClusterSpec & Record<string, unknown>;
  for (const k of [
    'provisioningState',
    'powerState',
    'currentKubernetesVersion',
    'fqdn',
    'azurePortalFQDN',
    'privateFQDN',
    'maxAgentPools',
    'identityProfile',
  ]) {
    delete spec[k];
  }
  if (spec.kubernetesVersion === '') delete spec.kubernetesVersion;
  for (const pool of spec.agentPoolProfiles ?? []) normalizePoolSpec(pool);
  return spec;
}

export function normalizePoolSpec(pool: AgentPoolProfile): AgentPoolProfile {
  for (const k of ['provisioningState', 'powerState', 'currentOrchestratorVersion', 'nodeImageVersion']) delete pool[k];
  if (pool.orchestratorVersion === '') delete pool.orchestratorVersion;
  if (pool['osDiskSizeGB'] === 0) delete pool['osDiskSizeGB'];
  return pool;
}

/**
 * A PUT in an api-version that cannot express a member keeps what the cluster has, as ARM providers do
 * for older clients: az 2.45 (2022-11-01) reads an overlay cluster without networkPluginMode and
 * writes it back without it, which is no request to change the mode. A spec that names no plugin (a
 * cluster PUT without networkProfile; the stored spec an agentPools PUT validates, when the cluster was
 * created without one) keeps the network model the cluster resolved to, plugin and mode: re-resolving it
 * with this api-version's defaults would read a defaulted overlay cluster as Azure CNI node subnet.
 */
export function keepUnexpressible(api: ApiVersionProfile, existing: ResolvedCluster, spec: ManagedClusterSpec): ManagedClusterSpec {
  const before = existing.network;
  const net = spec.networkProfile ?? {};
  const kept = { ...net, networkPlugin: net.networkPlugin || before.networkPlugin };
  if (!net.networkPlugin && kept.networkPluginMode == null && before.networkPluginMode != null) kept.networkPluginMode = before.networkPluginMode;
  if (kept.ipFamilies == null && before.ipFamilies != null) kept.ipFamilies = before.ipFamilies; // docs/aks-rules.md §9.6 D13
  if (kept.networkPlugin.toLowerCase() !== before.networkPlugin.toLowerCase()) return spec;
  if (!api.hasNetworkPluginMode) {
    for (const m of ['networkPluginMode', 'networkDataplane'] as const) if (kept[m] == null && before[m] != null) kept[m] = before[m];
  }
  if (
    !api.returnsPodCidrForNone &&
    networkModelOf(existing)?.podCidr === 'user' &&
    kept.podCidr == null &&
    kept.podCidrs == null &&
    before.podCidr !== undefined
  ) {
    kept.podCidr = before.podCidr;
  }
  return { ...spec, networkProfile: kept };
}

/** Pools live in their own records; the cluster keeps the rest of what was sent. */
function withoutPools(spec: ManagedClusterSpec): ManagedClusterSpec {
  const { agentPoolProfiles: _pools, ...rest } = spec;
  return rest;
}

function newRecord(ctx: RequestContext, spec: ManagedClusterSpec, resolved: ResolvedCluster, location: string): ClusterRecord {
  const p = ctx.params;
  const sub = p['subscriptionId']!;
  const group = getResourceGroup(ctx.store, sub, p['resourceGroupName']!);
  const name = p['resourceName']!;
  const id = clusterId(sub, group.name, name);
  const dnsPrefix = requiredDnsPrefix(spec);
  return {
    id,
    name,
    resourceGroup: group.name,
    subscriptionId: sub,
    location,
    createdWithApiVersion: ctx.apiVersion,
    spec,
    resolved,
    provisioningState: 'Creating',
    digits: clusterDigits(id.toLowerCase()),
    nodeResourceGroup: (spec['nodeResourceGroup'] as string | undefined) || nodeResourceGroupName(group.name, name, location),
    dnsPrefix,
    fqdn: `${dnsPrefix}-${randomBytes(4).toString('hex')}.hcp.${location}.azmk8s.io`,
    identity: { type: 'SystemAssigned', principalId: randomUUID(), tenantId: ctx.identity.tenantId },
    kubeletIdentity: { clientId: randomUUID(), objectId: randomUUID() },
    createdAt: new Date().toISOString(),
    eTag: newETag(),
  };
}

function poolRecord(cluster: ClusterRecord, raw: AgentPoolProfile, resolved: ResolvedCluster, index: number, previous?: PoolRecord): PoolRecord {
  const r = resolved.pools[index]!;
  const { name: _name, ...spec } = raw;
  return {
    id: poolId(cluster.id, r.name),
    name: r.name,
    clusterId: cluster.id,
    spec,
    resolved: r,
    provisioningState: previous ? 'Updating' : 'Creating',
    currentOrchestratorVersion: previous?.currentOrchestratorVersion ?? r.orchestratorVersion,
    ...(previous?.powerState ? { powerState: previous.powerState } : {}),
    // A cluster write changes every pool's eTag (AKSDOCS use-etags).
    eTag: newETag(),
  };
}

/** The request's api-version, able to express the plugin mode the cluster already has (kept by keepUnexpressible). */
function expressing(profile: ApiVersionProfile, previous: ResolvedCluster | undefined): ApiVersionProfile {
  const net = previous?.network;
  const hasMode = net !== undefined && (net.networkPluginMode != null || net.networkDataplane != null);
  return hasMode && !profile.hasNetworkPluginMode ? { ...profile, hasNetworkPluginMode: true } : profile;
}

/** Validates one operation of the model against the stored state; throws 400 with every problem. */
export function validateOrThrow(
  ctx: RequestContext,
  cluster: Pick<ClusterRecord, 'id' | 'location' | 'subscriptionId' | 'nodeResourceGroup' | 'digits'>,
  spec: ManagedClusterSpec,
  phase: Phase,
  extra: { previous?: ResolvedCluster; poolName?: string; upgradePools?: string[]; identity?: ClusterRecord['identity'] } = {},
): ResolvedCluster {
  const profile = expressing(api(ctx), extra.previous);
  const provisional = resolveCluster(spec, profile);
  const envOpts = extra.identity && phase !== 'create' ? { principal: { clientId: extra.identity.principalId, objectId: extra.identity.principalId } } : {};
  const env = environmentFor(ctx.store, cluster, provisional.pools, { ...envOpts, dualStack: isDualStack(provisional.network), network: provisional.network });
  const input: Parameters<typeof validateCluster>[0] = { spec, api: profile, phase, env };
  if (extra.previous) input.previous = extra.previous;
  if (extra.poolName !== undefined) input.poolName = extra.poolName;
  if (extra.upgradePools) input.upgradePools = extra.upgradePools;
  const result = validateCluster(input);
  if (!result.valid) throw validationFailed(result.errors);
  return result.cluster;
}

function put(ctx: RequestContext) {
  const body = (ctx.body ?? {}) as {
    location?: string;
    tags?: Record<string, string>;
    sku?: { tier?: unknown };
    identity?: IdentityRequest['identity'];
    properties?: Record<string, unknown>;
  };
  const name = ctx.params['resourceName']!;
  const tier = skuTier(body.sku?.tier);
  checkClusterName(name);
  if (!body.location) throw locationRequired();
  const region = findRegion(body.location);
  if (!region)
    throw new ArmError(
      400,
      'LocationNotAvailableForResourceType',
      `The provided location '${body.location}' is not available for resource type '${CLUSTER_TYPE}'.`,
    );
  // identityProfile is read before the spec drops it: the kubelet identity it names is resolved, not kept as sent.
  const identities: IdentityRequest = { identity: body.identity, identityProfile: body.properties?.['identityProfile'] };
  const spec = normalizeSpec(body.properties ?? {});
  const sub = ctx.params['subscriptionId']!;
  const group = writableResourceGroup(ctx.store, sub, ctx.params['resourceGroupName']!);
  const existing = ctx.store.get<ClusterRecord>(clusterId(sub, group.name, name));
  checkConditions(ctx, api(ctx), existing !== undefined, existing?.eTag);
  checkSupportPlan(spec['supportPlan'] ?? existing?.spec['supportPlan'], tier ?? existing?.tier);
  return existing ? update(ctx, existing, spec, identities, body.tags, tier) : create(ctx, spec, identities, region.name, body.tags, tier);
}

/**
 * The node resource group is a new group of the cluster's own: a name that is no group name could
 * reach other records' keys, and an existing group (the cluster's own among them) would be deleted
 * with the cluster.
 */
function checkNodeResourceGroup(store: Store, cluster: ClusterRecord, given: unknown): void {
  if (given !== undefined && given !== '') {
    try {
      validateResourceGroupName(String(given));
    } catch {
      throw invalidNodeResourceGroupName();
    }
  }
  if (sameId(cluster.nodeResourceGroup, cluster.resourceGroup)) {
    throw nodeResourceGroupSameAsResourceGroup(cluster.nodeResourceGroup, cluster.resourceGroup);
  }
  if (store.get(nodeResourceGroupId(cluster))) throw nodeResourceGroupAlreadyExists(cluster.nodeResourceGroup, cluster.subscriptionId);
}

/** The tiers of ManagedClusterSKUTier across the versions served (Paid in the 2022 specs), in their spelling. */
const SKU_TIERS = ['Free', 'Standard', 'Premium', 'Paid'];

/** sku.tier as the spec spells it; absent when not given; any other value is refused. */
function skuTier(given: unknown): string | undefined {
  if (given === undefined || given === null || given === '') return undefined;
  const known = SKU_TIERS.find((t) => typeof given === 'string' && t.toLowerCase() === given.toLowerCase());
  if (!known) throw new ArmError(400, 'InvalidParameter', `The value of parameter sku.tier is invalid: it must be one of ${SKU_TIERS.join(', ')}.`, 'sku.tier');
  return known;
}

/**
 * Long-term support comes with the Premium tier only (docs/aks-rules.md §3.7): AKS's LTS page and az (which checks it
 * before sending, Azure/azure-cli-extensions#9785, with this message) say so; the RP's own wording is not published.
 */
function checkSupportPlan(plan: unknown, tier: string | undefined): void {
  if (typeof plan !== 'string' || plan.toLowerCase() !== 'akslongtermsupport' || tier === 'Premium') return;
  throw new ArmError(400, 'BadRequest', 'AKS Long Term Support is only available for Premium tier clusters.', 'supportPlan');
}

function create(ctx: RequestContext, given: ManagedClusterSpec, identities: IdentityRequest, location: string, tags?: Record<string, string>, tier?: string) {
  const spec: ManagedClusterSpec = given.windowsProfile ? given : { ...given, windowsProfile: { ...GENERATED_WINDOWS_PROFILE } };
  const fresh = newRecord(ctx, spec, resolveCluster(spec, api(ctx)), location);
  const identity = controlPlaneIdentity(ctx.store, fresh.id, ctx.identity.tenantId, identities);
  const provisional = { ...fresh, identity, kubeletIdentity: kubeletIdentity(ctx.store, fresh, identities, identity) };
  checkNodeResourceGroup(ctx.store, provisional, spec['nodeResourceGroup']);
  const resolved = validateOrThrow(ctx, provisional, spec, 'create');
  const cluster: ClusterRecord = { ...provisional, spec: withoutPools(spec), resolved, ...(tags ? { tags } : {}), ...(tier ? { tier } : {}) };
  const pools = (spec.agentPoolProfiles ?? []).map((raw, i) => poolRecord(cluster, raw, resolved, i));
  return begin(ctx, cluster, pools, 'Creating', 201);
}

function update(
  ctx: RequestContext,
  stored: ClusterRecord,
  sent: ManagedClusterSpec,
  identities: IdentityRequest,
  tags?: Record<string, string>,
  tier?: string,
) {
  assertIdle(stored);
  assertRunning(stored, 'updating');
  const identity = controlPlaneIdentity(ctx.store, stored.id, ctx.identity.tenantId, identities, stored.identity);
  const existing: ClusterRecord = { ...stored, identity, kubeletIdentity: kubeletIdentity(ctx.store, stored, identities, identity, stored.kubeletIdentity) };
  // A PUT without windowsProfile keeps the cluster's (AKS has no way to remove one).
  const withWindows = sent.windowsProfile || !existing.spec.windowsProfile ? sent : { ...sent, windowsProfile: existing.spec.windowsProfile };
  const spec = keepUnexpressible(api(ctx), existing.resolved, withWindows);
  const storedPools = poolsOf(ctx.store, existing);
  const previous = resolvedWithPools(existing, storedPools);
  // Pools the PUT leaves out are kept: pool deletion is the agentPools API's job.
  const listed = spec.agentPoolProfiles ?? [];
  const kept = storedPools.filter((p) => !listed.some((l) => sameId(l.name, p.name)));
  const full: ManagedClusterSpec = { ...spec, agentPoolProfiles: [...listed, ...kept.map((p) => ({ name: p.name, ...p.spec, count: p.resolved.count }))] };
  const asked = spec.kubernetesVersion === undefined ? undefined : (resolveKubernetesVersion(spec.kubernetesVersion) ?? spec.kubernetesVersion);
  const upgrading = asked !== undefined && asked !== existing.resolved.kubernetesVersion;
  const resolved = validateOrThrow(ctx, existing, full, upgrading ? 'upgrade' : 'update', { previous, identity: existing.identity });
  if (upgrading) validateOrThrow(ctx, existing, full, 'update', { previous, identity: existing.identity });
  const cluster: ClusterRecord = { ...existing, spec: withoutPools(full), resolved, eTag: newETag(), ...(tags ? { tags } : {}), ...(tier ? { tier } : {}) };
  const pools = (full.agentPoolProfiles ?? []).map((raw, i) =>
    poolRecord(
      cluster,
      raw,
      resolved,
      i,
      storedPools.find((p) => sameId(p.name, resolved.pools[i]!.name)),
    ),
  );
  // A network migration (U2) reimages every pool: the nodes come back under the new model.
  const reimage = networkModelOf(previous) !== networkModelOf(resolved);
  return begin(ctx, cluster, pools, upgrading ? 'Upgrading' : 'Updating', 200, upgrading ? pools.map((p) => p.name) : undefined, reimage);
}

function begin(
  ctx: RequestContext,
  cluster: ClusterRecord,
  pools: PoolRecord[],
  state: ProvisioningState,
  status: number,
  surgePools?: string[],
  reimage?: boolean,
) {
  const accepted: ClusterRecord = { ...cluster, provisioningState: state };
  return ctx.lro.begin(ctx, {
    kind: CLUSTER_WRITE,
    namespace: NAMESPACE,
    location: cluster.location,
    resourceId: cluster.id,
    method: 'PUT',
    input: { surgePools, ...(reimage ? { reimage } : {}) },
    // The nodes of its pools: what the operation's time grows with, hence when clients are told to poll.
    work: pools.reduce((n, p) => n + p.resolved.count, 0),
    prepare: () => {
      ctx.store.put(cluster.id, { ...accepted, activeOperation: { name: state } });
      for (const p of pools) ctx.store.put(p.id, p);
    },
    response: { status, body: renderCluster(accepted, pools, api(ctx)) },
    headers: 'async-operation',
  });
}

/** Ends an operation on the cluster: every pool and the cluster take the final state. */
export function settle(store: Store, id: string, state: ProvisioningState): void {
  const cluster = store.get<ClusterRecord>(id);
  if (!cluster) return;
  for (const p of poolsOf(store, cluster)) {
    store.put(p.id, {
      ...p,
      provisioningState: state,
      currentOrchestratorVersion: state === 'Succeeded' ? p.resolved.orchestratorVersion : p.currentOrchestratorVersion,
    });
  }
  const { activeOperation: _done, ...rest } = cluster;
  store.put(id, { ...rest, provisioningState: state });
}

export const clusterWriteKind: OperationKind = {
  kind: CLUSTER_WRITE,
  run(op, { store }) {
    const cluster = store.get<ClusterRecord>(op.resourceId);
    if (!cluster) return;
    const input = (op.input ?? {}) as { surgePools?: string[]; reimage?: boolean };
    reconcile(store, cluster, { ...(input.surgePools ? { surgePools: input.surgePools } : {}), ...(input.reimage ? { reimage: true } : {}) });
    ensureDefaultKubeletIdentity(store, cluster);
    settle(store, cluster.id, 'Succeeded');
  },
  fail(op, { store }) {
    settle(store, op.resourceId, 'Failed');
  },
};

function remove(ctx: RequestContext) {
  const cluster = requestedCluster(ctx);
  checkConditions(ctx, api(ctx), true, cluster.eTag);
  assertIdle(cluster);
  return ctx.lro.begin(ctx, {
    kind: CLUSTER_DELETE,
    namespace: NAMESPACE,
    location: cluster.location,
    resourceId: cluster.id,
    method: 'DELETE',
    prepare: () => ctx.store.put(cluster.id, { ...cluster, provisioningState: 'Deleting', activeOperation: { name: 'Deleting' } }),
    response: { status: 202 },
    headers: 'async-operation+location',
  });
}

export const clusterDeleteKind: OperationKind = {
  kind: CLUSTER_DELETE,
  run(op, { store }) {
    const cluster = store.get<ClusterRecord>(op.resourceId);
    if (cluster) teardown(store, cluster);
  },
  fail(op, { store }) {
    settle(store, op.resourceId, 'Failed');
  },
};

function get(ctx: RequestContext) {
  const cluster = requestedCluster(ctx);
  return { status: 200, body: renderCluster(cluster, poolsOf(ctx.store, cluster), api(ctx)) };
}

function list(ctx: RequestContext) {
  const sub = ctx.params['subscriptionId']!;
  const group = ctx.params['resourceGroupName'];
  if (group !== undefined) getResourceGroup(ctx.store, sub, group);
  const prefix = group === undefined ? `/subscriptions/${sub}/resourcegroups/` : `/subscriptions/${sub}/resourcegroups/${group}/providers/${CLUSTER_TYPE}/`;
  const clusters = ctx.store
    .list<ClusterRecord>(prefix)
    .filter((e) => CLUSTER_KEY.test(e.key))
    .map((e) => renderCluster(e.value, poolsOf(ctx.store, e.value), api(ctx)));
  return { status: 200, body: { value: clusters } };
}

/** Cluster records, not their agent pools, under a group or subscription prefix. */
const CLUSTER_KEY = /\/providers\/Microsoft\.ContainerService\/managedClusters\/[^/]+$/i;

export const clusterRoutes: Route[] = [
  { method: 'PUT', path: CLUSTER, resourceType: 'managedClusters', body: requestModel('ManagedCluster'), bodyRequired: true, handle: put },
  { method: 'GET', path: CLUSTER, resourceType: 'managedClusters', handle: get },
  { method: 'DELETE', path: CLUSTER, resourceType: 'managedClusters', handle: remove },
  {
    method: 'GET',
    path: '/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.ContainerService/managedClusters',
    resourceType: 'managedClusters',
    handle: list,
  },
  {
    method: 'GET',
    path: '/subscriptions/{subscriptionId}/providers/Microsoft.ContainerService/managedClusters',
    resourceType: 'managedClusters',
    handle: list,
  },
];
