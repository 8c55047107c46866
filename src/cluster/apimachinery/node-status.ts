// What a Node's status says, read the one way the kubelet, the printers and the dashboard all need it: its Ready
// condition and its InternalIP address.
import type { KubeObject } from './object.js';
import type { Condition, Node } from './types.js';

/** The Node's Ready condition, as its kubelet last wrote it. */
export function readyCondition(node: KubeObject): Condition | undefined {
  return ((node as Node).status?.conditions ?? []).find((c) => c.type === 'Ready');
}

/** Whether any Ready condition of the Node says True (as the kubelet's pod admission has always asked). */
export function nodeReady(node: KubeObject): boolean {
  return ((node as Node).status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

/** The Node's InternalIP address, when it has one. */
export function internalIp(node: KubeObject): string | undefined {
  return ((node as Node).status?.addresses ?? []).find((a) => a.type === 'InternalIP')?.address;
}
