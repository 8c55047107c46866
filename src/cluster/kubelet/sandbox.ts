// The contract between the kubelet's pod lifecycle (pod-lifecycle.ts) and the node's container runtime: a
// pod sandbox gets its network (an address from the plugin's pool, or the node's own for host-network
// pods), and its containers run: the init containers one after the other, then the app containers. Implementations: ipam*.ts and
// init-containers.ts; tests and the data plane may pass others to the ClusterRuntime.
import type { KubeObject } from '../apimachinery/object.js';
import type { Container } from '../apimachinery/types.js';
import type { Process, ProcessStdin, Stream } from '../images/processes.js';

export interface SandboxRequest {
  namespace: string;
  name: string;
  uid: string;
  node: string; // node name
  hostNetwork: boolean;
  sandboxId: string; // 64 hex chars, new per attempt
}
/** What the rebuild of a restored pod's network tells the kubelet (PodSandboxes.restore). */
export interface RestoreReport {
  /** One attempt failed (it is retried with back-off): the kubelet's FailedCreatePodSandBox. */
  failed(message: string): void;
  /** The network is back with another address than the pod had: its status must say so. */
  changed(ip: string, why: string): void;
  /** The pod went or the kubelet stopped: no more tries. */
  gone(): boolean;
}
export type SandboxResult = { ok: true; ip: string } | { ok: false; message: string };
export interface PodSandboxes {
  setUp(req: SandboxRequest): Promise<SandboxResult>; // hostNetwork → node IP
  tearDown(req: SandboxRequest): Promise<void>; // idempotent
  /**
   * A running pod found at start-up (restored from storage): mark its address as taken. A data plane rebuilds the
   * pod's network in the background and tells the kubelet through `report` when that fails (each attempt) or
   * when the network came back with another address.
   */
  restore(req: SandboxRequest, ip: string, report?: RestoreReport): void;
  /**
   * The network namespace (`/run/netns/<name>`) the data plane built for the pod's sandbox; undefined without a
   * data plane, for host-network pods, and while the sandbox is not set up.
   */
  netnsOf?(namespace: string, name: string): string | undefined;
  /**
   * netnsOf, once the sandbox's network is attached: a pod restored after a restart is attached in the
   * background, and a program that serves in its namespace must wait for it, not run without one.
   */
  netnsWhenAttached?(namespace: string, name: string): Promise<string | undefined>;
}
/**
 * What answers the kubelet's probes of a running container (cluster/kubelet/probes.ts), as its runtime knows it:
 *   program    a catalogued program whose health endpoints aksemu does not serve: its own state answers (its
 *              readiness as it reports it, alive while it runs)
 *   listeners  a catalogued server (the backend images): exactly these listen in the pod (none until it binds)
 *   process    anything else: what really listens in the pod's namespace, if it has one
 */
export type ProbeTarget = { kind: 'program' } | { kind: 'listeners'; listeners: ReadonlyArray<ServedListener> } | { kind: 'process' };

/** One listener a catalogued server binds: HTTP listeners with `paths` answer only those (404 elsewhere). */
export interface ServedListener {
  proto: 'http' | 'tcp' | 'udp';
  port: number;
  paths?: readonly string[];
}

/** An exec probe's command as the container's runtime ran it, or why it could not run it. */
export type ExecProbeResult = { code: number; output: string } | { unsupported: string };

export interface ContainerStart {
  pod: KubeObject;
  node: string;
  container: Container;
  /** An init container (an installer: programs aksemu cannot emulate end at once) or an app container. */
  init: boolean;
  /** Where the process's output goes (the container's log, and sessions attached: container-io.ts). */
  write(stream: Stream, text: string): void;
  /**
   * aksemu's own line about the container (what it does not emulate): into the log as `write` does, and told to
   * every session that attaches later too (container-io.ts), so `kubectl run -i` does not wait on silence.
   */
  notice?(text: string): void;
  /**
   * aksemu's line about a resumed container that its run told already (in the run's log, which the container goes
   * on with): told again only to the sessions that attach, made when the first does.
   */
  told?(text: () => string): void;
  /** The container's stdin (`stdin: true`: what attached sessions send), undefined without one. */
  stdin?: ProcessStdin | undefined;
  /** The container's readiness as its program reports it (default: ready once started). */
  setReady?(ready: boolean): void;
  /** The pod's network namespace (PodSandboxes.netnsWhenAttached), asked by a program that serves or a tool that connects in it. */
  netns?(): Promise<string | undefined>;
  /** An event on the pod about this container (the kubelet's, with the container's fieldPath). */
  event?(type: 'Normal' | 'Warning', reason: string, message: string): void;
  /** What answers the container's probes: told when it starts, and again when a server binds its listeners. */
  probeTarget?(target: ProbeTarget): void;
  /**
   * A running container restored after a restart, run again as it was, that nothing probes and that reads no stdin:
   * when its program would only wait for its stop, writing and serving nothing (ImageSpec.idle, no data plane), the
   * runtime need not run it at all: its process just waits to be stopped (docs/performance.md §2.16).
   */
  resumedUnobserved?: boolean;
  /**
   * A running container restored after a restart: the same container, still running (containerd's outlive the
   * kubelet), so what its run told already (aksemu's line in its log, its Warning) is not told again when its
   * process is known to have done nothing else (docs/performance.md §2.18).
   */
  resumed?: boolean;
}
export interface ContainerRunner {
  /** Starts one container of the pod on the node. */
  start(c: ContainerStart): Process;
  /**
   * Whether start, asked to resume this container with `resumedUnobserved`, would run nothing: its process would only
   * wait for its stop. The kubelet then makes that process itself, without the start's context (docs/performance.md §2.26).
   */
  resumesIdle?(c: Pick<ContainerStart, 'pod' | 'node' | 'container'>): boolean;
  /** Runs an exec probe's command in the running container (its environment and files), bounded by timeoutMs. */
  execProbe?(c: Pick<ContainerStart, 'pod' | 'node' | 'container'>, argv: string[], timeoutMs: number): Promise<ExecProbeResult>;
}
