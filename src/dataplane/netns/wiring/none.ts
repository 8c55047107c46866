// BYO CNI nodes (docs/dataplane.md §6): AKS gives them an address and nothing else, so a pod can only be
// attached through the node's CNI configuration (the `cni` wiring); without one it is refused.
import type { Wiring } from './wiring.js';

export const none: Wiring = {
  admit(pod) {
    throw new Error(`node ${pod.node} has no network plugin: its pods need the CNI configuration of the node (cni)`);
  },
  wire: () => Promise.reject(new Error('a node without a network plugin wires no pods')),
};
