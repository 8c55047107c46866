// The pod wirings, by kind: the one place the data plane turns a wiring kind into behaviour.
import type { PodAttachment } from '../../dataplane.js';
import type { NodeTopology } from '../../topology.js';
import { bridge } from './bridge.js';
import { cni } from './cni.js';
import { none } from './none.js';
import { overlay } from './overlay.js';
import { transparent } from './transparent.js';
import type { Wiring, WiringKind } from './wiring.js';

export type { NodePreparation, Wiring, WiringKind } from './wiring.js';

export const WIRINGS: Readonly<Record<WiringKind, Wiring>> = { bridge, transparent, overlay, none, cni };

/** A pod that comes with its node's CNI configuration goes through it, whatever the node's wiring. */
export function podWiring(pod: PodAttachment, node: NodeTopology): WiringKind;
export function podWiring(pod: PodAttachment, node: NodeTopology | undefined): WiringKind | undefined;
export function podWiring(pod: PodAttachment, node: NodeTopology | undefined): WiringKind | undefined {
  return pod.cni ? 'cni' : node?.wiring;
}
