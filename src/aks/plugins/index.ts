import type { ResolvedCluster } from '../defaults.js';
import { azureStrategy } from './azure.js';
import { kubenetStrategy } from './kubenet.js';
import { noneStrategy } from './none.js';
import type { NetworkPluginStrategy } from './strategy.js';

const STRATEGIES: Record<string, NetworkPluginStrategy> = {
  none: noneStrategy,
  kubenet: kubenetStrategy,
  azure: azureStrategy,
};

/** The strategy of a resolved cluster, or undefined for an unknown plugin (rule N1 reports it). */
export function strategyFor(cluster: ResolvedCluster): NetworkPluginStrategy | undefined {
  return STRATEGIES[cluster.network.networkPlugin];
}

export type { NetworkPluginStrategy } from './strategy.js';
