// The contract between the node's container runtime and the CNI agents aksemu emulates (issue 16). A CNI
// project's images are described as data (catalogue.ts): which files the image holds (the plugin binaries its
// installers copy to the node) and which programs its containers run. A program is what one container's process
// does on its node: read and write the node's files through the container's mounts, read and write objects
// through the cluster's API as the agent would, program the node's network when the data plane is on, print its
// log, and end with a status (or run until stopped). Matching is by image and argv, never by object names
// (KWOK's Stage idea applied to CNI agents).
import type { OutgoingMasquerade, VxlanOverlay } from '../../dataplane/dataplane.js';
import type { NodePolicies } from '../../dataplane/policies.js';
import type { NodeServices } from '../../dataplane/services.js';
import type { KubeObject } from '../apimachinery/object.js';
import type { Stream } from './processes.js';
import type { AgentClient } from '../client/agent-client.js';

/** A file as a container sees it, through its volume mounts (ConfigMap, Secret, hostPath, projected token). */
export interface ContainerFiles {
  /** Content; undefined when missing; null when it lives in the image (not known to aksemu as text). */
  read(path: string): string | undefined | null;
  /**
   * Writes atomically (write + rename); into a read-only volume it throws the tool's error. A write into the
   * image lands in the container's own layer (read back by this container only); one on the node outside the
   * CNI projects' dirs is ignored (node-root.ts WRITABLE_NODE_DIRS).
   */
  write(path: string, content: string, mode?: number): void;
  remove(path: string): void;
  /** Names in a directory (empty when missing). */
  list(path: string): string[];
  /** The real file under the node's root for a container path on a hostPath mount, else undefined. */
  host(path: string): string | undefined;
  /** Installs a binary of the image (catalogue `files`) at a container path (a plugin into /opt/cni/bin). */
  installImageFile(imagePath: string, path: string): void;
}

// A VXLAN overlay on one node (flannel.1, vxlan.calico, cilium_vxlan): the data plane defines it, it builds it.
export type { VxlanOverlay } from '../../dataplane/dataplane.js';

/** What an agent can do to its node's network when the data plane is on (`--dataplane netns`). */
export interface NodeNetwork {
  /** Creates or converges the overlay device, its FDB and neighbour entries and its routes; idempotent. */
  applyOverlay(node: string, overlay: VxlanOverlay): Promise<void>;
  removeOverlay(node: string, device: string): Promise<void>;
  /** kube-proxy's rules on the node (dataplane/services.ts). */
  applyServices?(node: string, table: NodeServices): Promise<void>;
  /** The policy engine's rules on the node (dataplane/policies.ts). */
  applyPolicies?(node: string, table: NodePolicies): Promise<void>;
  /** The agent's masquerade of its pods' outgoing traffic (Calico natOutgoing, Cilium enable-ipv4-masquerade). */
  applyMasquerade?(node: string, masquerade: OutgoingMasquerade): Promise<void>;
  /** The node's network namespace once built (the kubelet's probes run there: cluster/kubelet/probes.ts). */
  nodeNetns?(node: string): Promise<string | undefined>;
}

export interface ProgramContext {
  pod: KubeObject;
  node: string;
  /** The node's InternalIP. */
  nodeIp: string;
  container: string;
  image: string;
  /** command + args after the kubelet's $(VAR) expansion. */
  argv: string[];
  env: Record<string, string>;
  files: ContainerFiles;
  /** The node's root directory (nodes/<node>): host path P is join(nodeRoot, P). */
  nodeRoot: string;
  api: AgentClient;
  /** Undefined without a data plane (`--dataplane none`): the agent does its control-plane part only. */
  network?: NodeNetwork;
  /**
   * The pod's network namespace (`/run/netns/<name>`) when the data plane built one; a process the program
   * starts there (dataplane/netns/spawn.ts) serves on the pod's address. Undefined without a data plane and for
   * host-network pods.
   */
  netns?: string;
  write(stream: Stream, text: string): void;
  /** Aborted when the container is stopped. */
  signal: AbortSignal;
  /**
   * Resolves when the container is stopped, as `signal` aborts, without making the signal (runProgram gives it: a
   * program that only waits to be stopped costs no AbortSignal, ~10 µs of CPU each, and a restart resumes tens of
   * thousands of them). Undefined where the caller gives a signal only.
   */
  stopped?(): Promise<void>;
  /** The container's readiness as its probe would report it (default: ready once started). */
  setReady(ready: boolean): void;
  /**
   * The program's listeners are exactly these (the backend images): the kubelet's httpGet, tcpSocket and grpc
   * probes are then run against them for real (with a data plane) or judged by them (without one). A program that
   * never calls it has health endpoints aksemu does not serve: its probes answer with its own state (setReady,
   * and alive while it runs). docs/architecture.md §7.
   */
  serves?(listeners: ReadonlyArray<{ proto: 'http' | 'tcp' | 'udp'; port: number; paths?: readonly string[] }>): void;
}

/** What a container's process does: resolves with its exit status, or runs until ctx.signal aborts. */
export type Program = (ctx: ProgramContext) => Promise<number>;

/** A file in an image: one of aksemu's CNI plugins or a reference plugin of the node's set, by type. */
export type ImageFile = { plugin: string };

/** Who built a tool: busybox's applet, or the project whose binary the host (Debian) has. */
export type ToolBuild = 'busybox' | 'curl' | 'bind' | 'iputils' | 'iproute2' | 'openbsd-netcat' | 'gnu-wget' | 'coreutils' | 'traceroute';

/** One image, as data: a CNI project's, a backend's, or a network-tool image's (images/network-tools.ts). */
export interface ImageSpec {
  /** The name docs and messages use (the tool images'). */
  name?: string;
  /** Matches the image reference without tag or digest (`ghcr.io/flannel-io/flannel`). */
  image: RegExp;
  /** Files the image holds that installers copy out (path in the image → what it is). */
  files?: Record<string, ImageFile>;
  /** Programs by argv[0] (full path or basename; a shell script's path counts as its program). */
  programs: Record<string, Program>;
  /** The image's ENTRYPOINT: what runs when the container names no command (calico/cni: /opt/cni/bin/install). */
  entrypoint?: string[];
  /**
   * Its programs that enforce NetworkPolicy on their node while they run (calico-node, cilium-agent): a BYO CNI
   * cluster's node enforces policies exactly while one of them runs there (docs/dataplane.md §13).
   */
  enforcesNetworkPolicy?: readonly Program[];
  /** The network tools it ships (names as run) with whose build each is; a container runs them in its pod's sandbox. */
  tools?: Readonly<Record<string, ToolBuild>>;
  /** Its CMD when the container names neither command nor args (`sh` for busybox). */
  cmd?: readonly string[];
  /**
   * A program its ENTRYPOINT runs when the first argument is an option or no program of the image
   * (curlimages/curl's entrypoint.sh: `set -- curl "$@"`).
   */
  defaultProgram?: string;
  /**
   * Its programs serve for real and say what they listen on (ProgramContext.serves): the kubelet's probes are
   * checked against that. Without it, a program's own state answers its probes (cluster/kubelet/probes.ts).
   */
  listens?: true;
  /**
   * Whether the program this argv runs (the image's ENTRYPOINT when empty) does nothing but wait for its stop when
   * no data plane runs: it writes nothing and serves nothing (nginx, agnhost's subcommands that just run). A restored
   * container of it need not be run again after a restart (docs/performance.md §2.16).
   */
  idle?(argv: readonly string[]): boolean;
}
