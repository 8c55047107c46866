// What a rule sees: the request as given, the cluster with defaults applied, its parsed addresses,
// the VNet around it, and which operation is being validated.
import type { ApiVersionProfile } from './api-versions.js';
import { createNodes, upgradeSurgeNodes, type NodeCounter } from './capacity.js';
import type { ResolvedCluster, ResolvedPool } from './defaults.js';
import type { NetworkEnvironment } from './environment.js';
import type { ParsedNetwork } from './parsed-network.js';
import type { NetworkModel } from './network-models/index.js';
import type { ManagedClusterSpec } from './types.js';
import { sameId } from '../ids/compare.js';

/** The operations AKS validates: a new cluster, a PUT over an existing one, a pool scale, an upgrade, a pool PUT or DELETE. */
export type Phase = 'create' | 'update' | 'scale' | 'upgrade' | 'pool-add' | 'pool-delete';

export interface RuleContext {
  phase: Phase;
  api: ApiVersionProfile;
  raw: ManagedClusterSpec;
  cluster: ResolvedCluster;
  parsed: ParsedNetwork;
  /** The cluster's network model; undefined when the plugin is unknown (N1 reports that). */
  model?: NetworkModel;
  env: NetworkEnvironment;
  /** The stored cluster, for update, scale, upgrade and pool operations. */
  previous?: ResolvedCluster;
  /** The pool a pool-add, pool-delete or scale is about. */
  poolName?: string;
  /** Pools being upgraded (default: all). */
  upgradePools?: string[];
}

export function previousPool(ctx: RuleContext, name: string): ResolvedPool | undefined {
  return ctx.previous?.pools.find((p) => sameId(p.name, name));
}

/** The pools this operation is about: every pool at create, the named one for pool operations. */
export function poolsInScope(ctx: RuleContext): ResolvedPool[] {
  if (ctx.phase === 'pool-add' || ctx.phase === 'scale') {
    return ctx.cluster.pools.filter((p) => ctx.poolName === undefined || sameId(p.name, ctx.poolName));
  }
  if (ctx.phase === 'upgrade' && ctx.upgradePools) {
    return ctx.cluster.pools.filter((p) => ctx.upgradePools!.some((n) => sameId(n, p.name)));
  }
  return ctx.cluster.pools;
}

/** The new nodes this operation asks addresses for, per pool. */
export function newNodeCounter(ctx: RuleContext): NodeCounter {
  const inScope = new Set(poolsInScope(ctx));
  switch (ctx.phase) {
    case 'create':
      return createNodes;
    case 'pool-add':
      return (p) => (inScope.has(p) && !previousPool(ctx, p.name) ? createNodes(p) : 0);
    case 'update':
    case 'scale':
      // Only growth asks for addresses; what the pool already has is counted in the subnet's ipsInUse.
      return (p) => {
        if (!inScope.has(p)) return 0;
        const before = previousPool(ctx, p.name);
        return Math.max(createNodes(p) - (before ? createNodes(before) : 0), 0);
      };
    case 'upgrade':
      return (p) => (inScope.has(p) ? upgradeSurgeNodes(p) : 0);
    default:
      return () => 0;
  }
}
