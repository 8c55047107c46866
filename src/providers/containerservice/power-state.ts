// The power-state rules of clusters and pools (docs/aks-rules.md §8): a stopped cluster can only be started
// or deleted; a pool is stopped or started by an agentPools PUT naming properties.powerState.code, and only a
// running User pool without the autoscaler can be stopped.
import { autoscaledPoolCannotStop, clusterPowerStateConflict, invalidPowerState, systemPoolCannotStop } from '../../arm/errors.js';
import { powerStateOf, type ClusterRecord, type PoolRecord, type PowerState } from '../../model/cluster-records.js';
import { own } from '../../http/own.js';

/** What AKS calls the operation in its power-state error ("stopping cannot be performed"). */
export type PowerOperation = 'stopping' | 'starting' | 'updating' | 'creating agent pool' | 'deleting agent pool' | 'running command';

/** A stopped cluster refuses everything but start and delete. */
export function assertRunning(cluster: ClusterRecord, operation: PowerOperation): void {
  const power = powerStateOf(cluster);
  if (power === 'Stopped') throw clusterPowerStateConflict(operation, cluster.provisioningState, power);
}

/** The power state a PUT body names (properties.powerState.code), when it names one. */
export function powerStateIn(properties: unknown): PowerState | undefined {
  const power = own(properties, 'powerState');
  const code = own(power, 'code');
  if (code === undefined || code === null) return undefined;
  const known = (['Running', 'Stopped'] as const).find((c) => typeof code === 'string' && c.toLowerCase() === code.toLowerCase());
  if (!known) throw invalidPowerState(String(code));
  return known;
}

/**
 * The power state an agentPools PUT leaves the pool in, checked: a change is a stop or a start; a PUT that
 * names none keeps what the pool has (a new pool runs).
 */
export function poolPowerAfterPut(
  existing: PoolRecord | undefined,
  asked: PowerState | undefined,
  resolved: { mode: string; enableAutoScaling?: boolean },
): { power: PowerState; change?: 'Stopping' | 'Starting' } {
  const before = existing ? powerStateOf(existing) : 'Running';
  const power = asked ?? before;
  if (power === before) return { power };
  if (power === 'Stopped') {
    const name = existing?.name ?? '';
    if (resolved.mode === 'System') throw systemPoolCannotStop(name);
    if (resolved.enableAutoScaling) throw autoscaledPoolCannotStop(name);
    return { power, change: 'Stopping' };
  }
  return { power, change: 'Starting' };
}
