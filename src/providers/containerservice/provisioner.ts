// The work behind managedClusters and agentPools operations, run by the LRO machinery inside one store
// transaction: bring every pool's nodes to its count (addresses, NICs, kubenet routes), or take the
// cluster apart. A failure throws, the transaction rolls back, and the operation ends Failed.
import { isDualStack, sizingNodes, type ResolvedCluster } from '../../aks/defaults.js';
import { AllocationError, IpPlanner } from '../../aks/planner.js';
import { instanceIdOf } from '../../aks/naming.js';
import { networkModelOf } from '../../aks/network-models/index.js';
import { operationFailed } from '../../arm/errors.js';
import type { Store } from '../../store/store.js';
import { RESOURCE_GROUP_TYPE, type ResourceGroup } from '../resources/resourceGroups.js';
import {
  ensureManagedVnet,
  ensureManagedNatGateway,
  ensureOutboundLoadBalancer,
  environmentFor,
  ipamAllocators,
  nodeResourceGroupId,
  removeLoadBalancing,
  removeNodeNic,
  syncRouteTable,
  clearRouteTable,
  writeNodeNics,
} from './network.js';
import {
  nodeKey,
  nodesOf,
  nodesPrefix,
  poolId,
  poolsOf,
  powerStateOf,
  type ClusterRecord,
  type NodeRecord,
  type PoolRecord,
} from '../../model/cluster-records.js';

/** The cluster as the model sees it now: its pools are the pool records. */
export function resolvedWithPools(cluster: ClusterRecord, pools: PoolRecord[]): ResolvedCluster {
  return { ...cluster.resolved, pools: pools.map((p) => p.resolved) };
}

function ensureNodeResourceGroup(store: Store, cluster: ClusterRecord): void {
  const id = nodeResourceGroupId(cluster);
  if (store.get(id)) return;
  const group: ResourceGroup = {
    id,
    name: cluster.nodeResourceGroup,
    type: RESOURCE_GROUP_TYPE,
    location: cluster.location,
    managedBy: cluster.id,
    properties: { provisioningState: 'Succeeded' },
  };
  store.put(id, group);
}

function plannerFor(store: Store, cluster: ClusterRecord, pools: PoolRecord[]): IpPlanner {
  const resolved = resolvedWithPools(cluster, pools);
  const env = environmentFor(store, cluster, resolved.pools, { dualStack: isDualStack(resolved.network) });
  const planner = new IpPlanner(resolved, networkModelOf(resolved)!, env, cluster.digits, ipamAllocators(store, cluster));
  planner.restore(nodesOf(store, cluster));
  return planner;
}

function failWith(e: unknown): never {
  if (e instanceof AllocationError) throw operationFailed(e.problem);
  throw e;
}

/**
 * Brings every pool to its node count; upgrades run each upgraded pool's surge nodes through the subnet; a network
 * migration (`reimage`, U2) reimages every node in place under the cluster's new model.
 */
export function reconcile(store: Store, cluster: ClusterRecord, opts: { surgePools?: string[]; reimage?: boolean } = {}): void {
  ensureNodeResourceGroup(store, cluster);
  const pools = poolsOf(store, cluster);
  if (pools.some((p) => !p.resolved.vnetSubnetID)) ensureManagedVnet(store, cluster);
  const planner = plannerFor(store, cluster, pools);
  const now = new Date().toISOString();
  try {
    for (const pool of pools) {
      const current = planner.list(pool.name).sort((a, b) => (instanceIdOf(a.name) ?? 0) - (instanceIdOf(b.name) ?? 0));
      // A stopped pool keeps its count and has no nodes: its VMs are deallocated (docs/aks-rules.md §8).
      const running = powerStateOf(pool) === 'Running';
      const want = running ? pool.resolved.count : 0;
      if (current.length > want) {
        // VMSS scale-in removes the highest instance ids first.
        for (const node of current.slice(want).reverse()) {
          planner.removeNode(node.name);
          removeNodeNic(store, nodeRecord(store, cluster, node.name).nicId);
          store.delete(nodeKey(cluster.id, node.name));
        }
      } else if (current.length < want) {
        const added = planner.addNodes(pool.name, want - current.length);
        const nics = writeNodeNics(store, cluster, added);
        added.forEach((node, i) => {
          const record: NodeRecord = { ...node, clusterId: cluster.id, nicId: nics[i]!, createdAt: now };
          store.put(nodeKey(cluster.id, node.name), record);
        });
      }
      if (opts.reimage) {
        // Same names and addresses; what the new model gives a node (a /24, no secondary IPs) and a NIC to match.
        const nodes = planner.list(pool.name).map((node) => ({ node, next: planner.reimage(node.name) ?? node }));
        const nics = writeNodeNics(
          store,
          cluster,
          nodes.map((n) => n.next),
        );
        nodes.forEach(({ node, next }, i) => {
          const { secondaryIps: _gone, podCidr: _old, ...kept } = nodeRecord(store, cluster, node.name);
          const record: NodeRecord = { ...kept, ...next, clusterId: cluster.id, nicId: nics[i]!, reimagedAt: now };
          store.put(nodeKey(cluster.id, node.name), record);
        });
      }
      if (running && opts.surgePools?.includes(pool.name)) {
        // Surge nodes must find addresses for the upgrade to start; they leave when it ends.
        const surge = Math.min(sizingNodes(pool.resolved), surgeCount(pool));
        const extra = planner.addNodes(pool.name, surge);
        for (const node of extra) planner.removeNode(node.name);
      }
    }
  } catch (e) {
    failWith(e);
  }
  // The planner's nodes are the node records as this transaction leaves them.
  const subnets = [...new Set(planner.list().map((n) => n.subnetId))];
  if (networkModelOf(cluster.resolved)!.nic.routeTable) {
    syncRouteTable(store, cluster, planner.routes(), subnets);
  } else {
    // Off kubenet (a migration to overlay): the cluster's routes go and its route table leaves the subnets.
    clearRouteTable(store, cluster, subnets);
  }
  ensureOutboundLoadBalancer(store, cluster);
  ensureManagedNatGateway(store, cluster);
  // The cluster's API server picks up the nodes from the change feed once this transaction has committed.
}

function surgeCount(pool: PoolRecord): number {
  const text = pool.resolved.maxSurge.trim();
  const pct = /^(\d+)%$/.exec(text);
  return pct ? Math.ceil((pool.resolved.count * Number(pct[1])) / 100) : Number(text) || 0;
}

function nodeRecord(store: Store, cluster: ClusterRecord, name: string): NodeRecord {
  return store.get<NodeRecord>(nodeKey(cluster.id, name))!;
}

/** Removes one pool's nodes and record. */
export function removePool(store: Store, cluster: ClusterRecord, poolName: string): void {
  for (const node of nodesOf(store, cluster).filter((n) => n.pool === poolName)) {
    removeNodeNic(store, node.nicId);
    store.delete(nodeKey(cluster.id, node.name));
  }
  store.delete(poolId(cluster.id, poolName));
  if (networkModelOf(cluster.resolved)?.nic.routeTable) reconcile(store, cluster);
}

/** Takes the whole cluster apart: nodes, NICs (and so their addresses), routes, pools, the node resource group. */
export function teardown(store: Store, cluster: ClusterRecord): void {
  clearRouteTable(store, cluster);
  removeLoadBalancing(store, cluster);
  for (const node of nodesOf(store, cluster)) removeNodeNic(store, node.nicId);
  store.deletePrefix(nodesPrefix(cluster.id));
  store.deletePrefix(`${cluster.id}/`);
  store.delete(cluster.id);
  const rg = nodeResourceGroupId(cluster);
  store.deletePrefix(`${rg}/`);
  store.delete(rg);
}
