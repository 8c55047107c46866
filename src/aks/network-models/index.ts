// The one table from the wire values (networkPlugin, networkPluginMode) to the network model: the only place
// plugin names are compared, by lookup. Everything else asks networkModelOf(cluster) and reads the model.
import type { NetworkProfile } from '../types.js';
import { azureNodeSubnet } from './azure-node-subnet.js';
import { azureOverlay } from './azure-overlay.js';
import { byoCni } from './byo-cni.js';
import { kubenet } from './kubenet.js';
import type { NetworkModel } from './model.js';

/** Every model; each declares the plugin (and mode) that selects it. */
export const NETWORK_MODELS: readonly NetworkModel[] = [byoCni, kubenet, azureNodeSubnet, azureOverlay];

/** networkPlugin → networkPluginMode ('' for none) → model. */
const TABLE = new Map<string, Map<string, NetworkModel>>();
for (const model of NETWORK_MODELS) {
  let modes = TABLE.get(model.plugin);
  if (!modes) TABLE.set(model.plugin, (modes = new Map()));
  modes.set(model.mode ?? '', model);
}

/**
 * The model a networkPlugin and networkPluginMode select; undefined for an unknown plugin (N1 reports it).
 * A mode the plugin does not have selects the plugin's own model: N1m reports the mode, and the other rules
 * judge the request by its plugin.
 */
export function networkModelFor(plugin: string | undefined, mode: string | undefined): NetworkModel | undefined {
  const modes = plugin === undefined ? undefined : TABLE.get(plugin);
  return modes?.get(mode ?? '') ?? modes?.get('');
}

/** The model of a cluster (resolved, or as stored) or of a network profile's owner. */
export function networkModelOf(cluster: { network: Pick<NetworkProfile, 'networkPlugin' | 'networkPluginMode'> }): NetworkModel | undefined {
  return networkModelFor(cluster.network.networkPlugin, cluster.network.networkPluginMode);
}

/** The model a networkPluginMode names, whatever the plugin beside it (N1m, U3); undefined for no or an unknown mode. */
export function modelOfMode(mode: string | undefined): NetworkModel | undefined {
  return mode ? NETWORK_MODELS.find((m) => m.mode === mode) : undefined;
}

/** The networkPluginMode values there are. */
export const NETWORK_PLUGIN_MODES: readonly string[] = NETWORK_MODELS.flatMap((m) => (m.mode ? [m.mode] : []));

export { azureNodeSubnet, azureOverlay, byoCni, kubenet };
export { DEFAULT_POD_CIDR, ipsPerNode, NODE_POD_CIDR_MASK, NODE_POD_CIDR_MASK_IPV6, NODE_POD_CIDR_SIZE } from './model.js';
export type { Conflist, NetworkModel, NetworkModelId, PodAddressSource, PodIpam, RuleHooks } from './model.js';
