// What the kubelet reports of its node's runtime network: the Ready condition's messages and the not-ready taint
// (kubelet.ts decides network readiness; cloud/nodes.ts builds the Node with them).
export const NOT_READY_MESSAGE =
  'container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized';
export const READY_MESSAGE = 'kubelet is posting ready status';
export const NOT_READY_TAINT = { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' };

/** What the kubelet knows about a node's runtime network. */
export interface KubeletState {
  networkReady: boolean;
  /** When networkReady last changed (RFC 3339). */
  since: string;
}
