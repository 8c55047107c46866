// What the store keeps for Microsoft.ContainerService: the cluster, its agent pools (ARM child resources),
// and one record per node with the addresses it holds. The provider writes them (and renders its responses
// from them); the cluster runtime and the data plane read them, so they live below all three
// (docs/architecture.md §2).
import { defaultOsSku, type ResolvedCluster, type ResolvedPool } from '../aks/defaults.js';
import { nodeImageOf, type NodeImage } from '../aks/node-images.js';
import type { PlannedNode } from '../aks/planner.js';
import type { ManagedClusterSpec } from '../aks/types.js';
import { NODES_PREFIX } from '../store/keys.js';
import type { Store } from '../store/store.js';
import { idKey } from '../ids/compare.js';

export const CLUSTER_TYPE = 'Microsoft.ContainerService/managedClusters';
export const POOL_TYPE = 'Microsoft.ContainerService/managedClusters/agentPools';
export const NAMESPACE = 'Microsoft.ContainerService';

export type ProvisioningState = 'Creating' | 'Updating' | 'Upgrading' | 'Scaling' | 'Deleting' | 'Starting' | 'Stopping' | 'Succeeded' | 'Failed' | 'Canceled';

/** properties.powerState.code: a stopped cluster or pool has its nodes deallocated (docs/aks-rules.md §8.1). */
export type PowerState = 'Running' | 'Stopped';

export interface ClusterRecord {
  id: string;
  name: string;
  resourceGroup: string;
  subscriptionId: string;
  location: string;
  tags?: Record<string, string>;
  /** sku.tier as the request gave it (Free when never given). */
  tier?: string;
  /** The api-version of the PUT that created it: its defaults were applied. */
  createdWithApiVersion: string;
  /** The request's properties as sent (agent pools live in their own records). */
  spec: ManagedClusterSpec;
  /** Defaults applied; pools here mirror the pool records. */
  resolved: ResolvedCluster;
  provisioningState: ProvisioningState;
  /** The operation running on the cluster, for OperationNotAllowed. */
  activeOperation?: { name: string };
  /** The 8 digits in node, VMSS and route table names. */
  digits: string;
  nodeResourceGroup: string;
  dnsPrefix: string;
  fqdn: string;
  identity: ClusterIdentity;
  kubeletIdentity: KubeletIdentity;
  createdAt: string;
  /** Absent: Running. Stopped: the control plane and every pool are stopped (managedClusters/stop). */
  powerState?: PowerState;
  /** A new opaque value on every write of the cluster (its pools' change with it); docs/aks-rules.md §3.7. */
  eTag?: string;
}

/**
 * The control-plane identity: SystemAssigned with a principal of its own, or UserAssigned with the identities it names
 * (principalId is then the first one's, the principal that acts for the cluster).
 */
export interface ClusterIdentity {
  type: 'SystemAssigned' | 'UserAssigned';
  principalId: string;
  tenantId: string;
  userAssignedIdentities?: Record<string, { principalId: string; clientId: string }>;
  /** The request named the identity: a service principal sent alongside does not hide it (docs/aks-rules.md §13). */
  explicit?: boolean;
}

/** The kubelet identity; resourceId only when the request named one (else `<cluster>-agentpool` in the node group). */
export interface KubeletIdentity {
  clientId: string;
  objectId: string;
  resourceId?: string;
}

export interface PoolRecord {
  id: string;
  name: string;
  clusterId: string;
  /** The pool's properties as sent. */
  spec: Record<string, unknown>;
  resolved: ResolvedPool;
  provisioningState: ProvisioningState;
  currentOrchestratorVersion: string;
  /** Absent: Running. Stopped: the pool has no nodes while its count is kept (a PUT with powerState, or the cluster's stop). */
  powerState?: PowerState;
  /** A new opaque value on every write of the pool or its cluster. */
  eTag?: string;
}

/** The pool's OS SKU as AKS reports it: as given, else the default for its OS type and version. */
export function osSkuOf(pool: PoolRecord): string {
  const given = pool.spec['osSKU'];
  const r = pool.resolved;
  return typeof given === 'string' && given !== '' ? given : (r.osSKU ?? defaultOsSku(r.osType, r.orchestratorVersion));
}

/** The image the pool's nodes run at its current version: its nodeImageVersion and what its nodes show agree. */
export function poolNodeImage(pool: PoolRecord): NodeImage {
  return nodeImageOf(osSkuOf(pool), pool.currentOrchestratorVersion || pool.resolved.orchestratorVersion);
}

/** A cluster or pool record's power state: absent means Running. */
export function powerStateOf(record: { powerState?: PowerState }): PowerState {
  return record.powerState ?? 'Running';
}

export interface NodeRecord extends PlannedNode {
  clusterId: string;
  nicId: string;
  createdAt: string;
  /** When a network migration last reimaged the node in place (same name and address; its pods made again). */
  reimagedAt?: string;
}

export function clusterId(subscriptionId: string, resourceGroup: string, name: string): string {
  return `/subscriptions/${subscriptionId}/resourcegroups/${resourceGroup}/providers/${CLUSTER_TYPE}/${name}`;
}

export function poolId(cluster: string, pool: string): string {
  return `${cluster}/agentPools/${pool}`;
}

/** The key prefix of every cluster's node records, for readers of them all (defined with the other store keys). */
export { NODES_PREFIX };

/** Node records live beside the cluster, outside its ARM id space (they are not ARM resources). */
export function nodesPrefix(cluster: string): string {
  return `${NODES_PREFIX}${idKey(cluster)}/`;
}

export function nodeKey(cluster: string, node: string): string {
  return `${nodesPrefix(cluster)}${node}`;
}

export function poolsOf(store: Store, cluster: ClusterRecord): PoolRecord[] {
  return store.list<PoolRecord>(`${cluster.id}/agentPools/`, { children: true }).map((e) => e.value);
}

export function nodesOf(store: Store, cluster: ClusterRecord): NodeRecord[] {
  return store.list<NodeRecord>(nodesPrefix(cluster.id)).map((e) => e.value);
}

const CLUSTER_KEY = /^\/subscriptions\/[^/]+\/resourcegroups\/[^/]+\/providers\/microsoft\.containerservice\/managedclusters\/[^/]+/i;

/**
 * The cluster a changed store key belongs to (its record, a pool's, or a node's), for followers of the change
 * feed; `node` when the key is a node record or all of them.
 */
export function clusterOfKey(key: string): { clusterId: string; node: boolean } | undefined {
  if (key.startsWith(NODES_PREFIX)) {
    const end = key.lastIndexOf('/');
    return end > NODES_PREFIX.length ? { clusterId: key.slice(NODES_PREFIX.length, end), node: true } : undefined;
  }
  const m = CLUSTER_KEY.exec(key);
  return m ? { clusterId: m[0], node: false } : undefined;
}
