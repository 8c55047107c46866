// kube-proxy's nftables mode in a node's namespace (docs/dataplane.md §12). Issue 17: the proxy work.
import type { NodeServices } from '../services.js';
import type { NetnsState } from './state.js';

/** Converges the node's service rules on the table; idempotent. */
export async function applyKubeProxy(_state: NetnsState, _hostId: string, _table: NodeServices): Promise<void> {
  throw new Error('kube-proxy is not emulated yet');
}
