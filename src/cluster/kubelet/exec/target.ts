// What a pods/exec or pods/portforward request names, checked before any upgrade, as the apiserver and the
// kubelet check it: the pod (`pods "x" not found`), its node (pkg/registry/core/pod/strategy.go streamLocation:
// `pod x does not have a host assigned`), the container (the same defaulting and words as pods/log:
// `container c is not valid for pod x`), the streams asked for (kubelet pkg/kubelet/cri/streaming/remotecommand
// httpstream.go NewOptions: `you must specify at least 1 of stdin, stdout, stderr`), and a running container
// (kubelet GetExec: `container not found ("c")`). Then where it runs: the pod's network namespace, which only the
// data plane builds.
import type { KubeObject } from '../../apimachinery/object.js';
import type { Pod } from '../../apimachinery/types.js';
import { type ObjectStore, containerOf } from '../../apiserver/index.js';
import type { PodSandboxes } from '../sandbox.js';
import type { ContainerRootfs } from '../container-rootfs.js';
import { fileCommand } from './file-commands.js';
import { PODS } from '../../apimachinery/resources.js';
import { badRequest, KubeError, notFound } from '../../apimachinery/status.js';

/** The streams a pods/exec or pods/attach request asks for (the kubelet's remotecommand Options). */
export interface StreamOptions {
  container: string;
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

export interface ExecOptions extends StreamOptions {
  command: string[];
}

/** Where a command or a forwarded connection runs. */
export interface PodTarget {
  pod: KubeObject & Pod;
  container: string;
  /** The pod's network namespace (/run/netns/…). */
  netns: string;
}

/**
 * A `kubectl exec` target: the pod's /etc/resolv.conf and /etc/hosts too, as its kubelet wrote them, and its
 * service-account files (token, ca.crt, namespace) unless the pod opts out.
 */
export interface ExecTarget extends PodTarget {
  etc: { resolvConf: string; hosts: string; serviceAccount?: ReadonlyMap<string, string> };
  /** The container's filesystem and working directory, for the file commands (file-commands.ts: kubectl cp). */
  files?: { rootfs: ContainerRootfs; cwd: string };
}

/** A command line's bounds: far past any network check, well inside execve's. */
const MAX_ARGS = 1024;
const MAX_ARGV_BYTES = 128 * 1024;

/**
 * A boolean query parameter as the apiserver converts one into PodExecOptions (apimachinery
 * pkg/runtime/conversion.go Convert_Slice_string_To_bool): absent, "0" or "false" (any case) is false, any
 * other value true.
 */
function flag(query: URLSearchParams, name: string): boolean {
  const v = query.get(name);
  return v !== null && v !== '0' && v.toLowerCase() !== 'false';
}

/** streamLocation: the pod, its named (or only) container, and its node. */
function podAndContainer(
  objects: ObjectStore,
  namespace: string,
  name: string,
  asked: (pod: Pod) => string | undefined,
): { pod: KubeObject & Pod; container: string } {
  const pod = objects.get(PODS, namespace, name) as (KubeObject & Pod) | undefined;
  if (!pod) throw notFound('pods', '', name);
  const container = containerOf(pod, asked(pod)) ?? '';
  if (!pod.spec?.nodeName) throw badRequest(`pod ${name} does not have a host assigned`);
  return { pod, container };
}

/** The kubelet's side: the container must be running (its status says so). */
function mustRun(pod: KubeObject & Pod, container: string): void {
  const status = [
    ...(pod.status?.containerStatuses ?? []),
    ...(pod.status?.initContainerStatuses ?? []),
    ...(pod.status?.ephemeralContainerStatuses ?? []),
  ].find((c) => c.name === container);
  if (!status?.state?.running) throw containerNotFound(container);
}

/** The kubelet's answer for a container it does not run (GetExec, GetAttach). */
export function containerNotFound(container: string): KubeError {
  return new KubeError(404, 'NotFound', `container not found (${JSON.stringify(container)})`);
}

/**
 * A running container in a pod with a network namespace of its own. Without a data plane there is none:
 * refused in the kubelet's words, with why.
 */
function running(sandboxes: PodSandboxes, pod: KubeObject & Pod, container: string, needsNetwork = true): string {
  mustRun(pod, container);
  const { namespace, name } = pod.metadata;
  // The file commands (kubectl cp) run on the container's filesystem, in the kubelet: no namespace needed.
  if (!needsNetwork) return (!pod.spec?.hostNetwork && sandboxes.netnsOf?.(namespace ?? 'default', name)) || '';
  if (pod.spec?.hostNetwork)
    throw badRequest(
      `container not found (${JSON.stringify(container)}): aksemu runs kubectl exec and port-forward only in pods with a network of their own, not in host-network pods`,
    );
  const netns = sandboxes.netnsOf?.(namespace ?? 'default', name);
  if (!netns)
    throw badRequest(
      `container not found (${JSON.stringify(container)}): pod ${name} has no network namespace: aksemu runs kubectl exec and port-forward only with a data plane (aksemu start --dataplane netns, as root)`,
    );
  return netns;
}

/** The streams of a pods/exec or pods/attach query (NewOptions: a terminal has no separate stderr). */
function streamOptions(query: URLSearchParams, container: string): StreamOptions {
  const tty = flag(query, 'tty');
  const stdin = flag(query, 'stdin');
  const stdout = flag(query, 'stdout');
  const stderr = flag(query, 'stderr') && !tty;
  if (!stdin && !stdout && !stderr) throw badRequest('you must specify at least 1 of stdin, stdout, stderr');
  return { container, stdin, stdout, stderr, tty };
}

/**
 * GET/POST pods/NAME/attach: the streams and the running container they join (any pod: attach reaches the
 * container's process, which runs with or without a data plane).
 */
export function attachTarget(
  objects: ObjectStore,
  namespace: string,
  name: string,
  query: URLSearchParams,
): { options: StreamOptions; pod: KubeObject & Pod; container: string } {
  const { pod, container } = podAndContainer(objects, namespace, name, () => query.get('container') || undefined);
  const options = streamOptions(query, container);
  mustRun(pod, container);
  return { options, pod, container };
}

/** GET/POST pods/NAME/exec: the options and the pod they run in, or the apiserver's / kubelet's error. */
export function execTarget(
  objects: ObjectStore,
  sandboxes: PodSandboxes,
  namespace: string,
  name: string,
  query: URLSearchParams,
): { options: ExecOptions; target: PodTarget } {
  const command = query.getAll('command');
  const { pod, container } = podAndContainer(objects, namespace, name, () => query.get('container') || undefined);
  const streams = streamOptions(query, container);
  if (command.length === 0) throw badRequest('you must specify at least one command for the container');
  if (command.length > MAX_ARGS || command.reduce((n, a) => n + Buffer.byteLength(a) + 1, 0) > MAX_ARGV_BYTES)
    throw badRequest(`the command is too long (at most ${MAX_ARGS} arguments and ${MAX_ARGV_BYTES} bytes)`);
  if (command.some((a) => a.includes('\u0000'))) throw badRequest('the command contains a NUL byte');
  const netns = running(sandboxes, pod, container, fileCommand(command[0] ?? '') === undefined);
  return { options: { ...streams, command }, target: { pod, container, netns } };
}

/** GET/POST pods/NAME/portforward: the pod (forwarding is per pod: its first container stands for it), or the error. */
export function portForwardTarget(objects: ObjectStore, sandboxes: PodSandboxes, namespace: string, name: string): PodTarget {
  const { pod, container } = podAndContainer(objects, namespace, name, (p) => p.spec?.containers?.[0]?.name);
  return { pod, container, netns: running(sandboxes, pod, container) };
}
