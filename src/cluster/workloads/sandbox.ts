// The contract between the kubelet's pod lifecycle (pod-lifecycle.ts) and the node's container runtime: a
// pod sandbox gets its network (an address from the plugin's pool, or the node's own for host-network
// pods), and init containers run before the app containers start. Implementations: ipam*.ts and
// init-containers.ts; tests and the data plane may pass others to the ClusterRuntime.
import type { KubeObject } from '../objects/object.js';

export interface SandboxRequest {
  namespace: string;
  name: string;
  uid: string;
  node: string; // node name
  hostNetwork: boolean;
  sandboxId: string; // 64 hex chars, new per attempt
}
export type SandboxResult = { ok: true; ip: string } | { ok: false; message: string };
export interface PodSandboxes {
  setUp(req: SandboxRequest): Promise<SandboxResult>; // hostNetwork → node IP
  tearDown(req: SandboxRequest): Promise<void>; // idempotent
  /** A running pod found at start-up (restored from storage): mark its address as taken. */
  restore(req: SandboxRequest, ip: string): void;
}
export interface InitContainerRunner {
  /** Runs the pod's init containers on the node; returns an error text when one fails. */
  run(pod: KubeObject, node: string): Promise<string | undefined>;
}
