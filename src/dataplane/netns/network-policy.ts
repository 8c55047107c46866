// NetworkPolicy enforcement in a node's namespace (docs/dataplane.md §13). Issue 17: the policy work.
import type { NodePolicies } from '../policies.js';
import type { NetnsState } from './state.js';

/** Converges the node's policy rules on the table; idempotent. */
export async function applyNetworkPolicy(_state: NetnsState, _hostId: string, _table: NodePolicies): Promise<void> {
  throw new Error('network policy is not enforced yet');
}
