// An emulated node's root directory: `<cluster dir>/nodes/<node>/` stands for the node's `/`, so a node path P
// (what a hostPath volume names, what a CNI plugin opens) is join(nodeRoot, P). What lives there:
//   etc/cni/net.d                the CNI conf dir the kubelet watches
//   opt/cni/bin                  the node's CNI plugins: AKS's reference set (below), plus what CNI installers copy
//   run/…, var/run → ../run      runtime state (flannel's subnet.env, agents' sockets), /var/run being /run as on Ubuntu
//   var/lib/cni                  libcni's result cache and host-local's reservations
//   run/aksemu/apiserver.sock    a link to the cluster's API socket (api-socket.ts)
// The image's part (/opt/cni/bin, /var/run, the socket link) is made when the node first runs something (a
// container, a pod sandbox: prepareNodeRoot), not when the node is created: a 5,000-node cluster is created
// without 100,000 symlinks, and no emulated node can tell the difference.
// Containers may write only under WRITABLE_NODE_DIRS (the CNI projects' hostPath dirs); other host paths
// they mount are read where something exists and their writes are ignored.
import { existsSync, lstatSync, mkdirSync, readdirSync, readlinkSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { NODE_API_SOCKET } from '../../cni/plugins/node-api.js';
import { trimTrailingSlashes } from '../../ids/trim.js';

/** The node's plugin dir as the kubelet and every CNI installer name it. */
export const NODE_CNI_BIN = '/opt/cni/bin';

/** Where the machine's containernetworking reference plugins live (Debian's containernetworking-plugins). */
export const SYSTEM_CNI_DIR = '/usr/lib/cni';

/**
 * AKS's reference plugin set in /opt/cni/bin: the node's CSE extracts the containernetworking plugins release
 * tarball (cni-plugins-linux-<arch>-v<version>.tgz, version from parts/common/components.json) into
 * CNI_BIN_DIR=/opt/cni/bin (Azure/AgentBaker parts/linux/cloud-init/artifacts/cse_install.sh, installCNI); see
 * docs/dataplane.md §6. These are the binaries that tarball holds; a node links those the machine has.
 */
export const AKS_REFERENCE_PLUGINS: readonly string[] = [
  'bandwidth',
  'bridge',
  'dhcp',
  'dummy',
  'firewall',
  'host-device',
  'host-local',
  'ipvlan',
  'loopback',
  'macvlan',
  'portmap',
  'ptp',
  'sbr',
  'static',
  'tap',
  'tuning',
  'vlan',
  'vrf',
];

/** Node dirs a container may write through a hostPath volume: the CNI projects' own (flannel, Calico, Cilium). */
export const WRITABLE_NODE_DIRS: readonly string[] = [
  '/etc/cni/net.d',
  '/opt/cni/bin',
  '/run/flannel',
  '/run/cilium',
  '/var/run/cilium',
  '/run/calico',
  '/var/run/calico',
  '/var/lib/calico',
  '/var/log/calico',
  '/var/run/nodeagent',
  '/var/lib/cni',
  '/var/lib/cilium',
];

/** `a/b/../c` → `/a/c`, always absolute, no trailing slash. */
export function nodePath(p: string): string {
  return trimTrailingSlashes(posix.normalize(p.startsWith('/') ? p : `/${p}`)) || '/';
}

/** The part of `path` under `dir` ('' for dir itself), else undefined; both normalised node paths. */
export function underDir(path: string, dir: string): string | undefined {
  if (dir === '/') return path.slice(1);
  if (path === dir) return '';
  return path.startsWith(`${dir}/`) ? path.slice(dir.length + 1) : undefined;
}

/** /var/run/X is /run/X on the node (the link seedNodeRoot makes): one spelling for comparisons. */
function viaRun(p: string): string {
  return p === '/var/run' || p.startsWith('/var/run/') ? p.slice('/var'.length) : p;
}

/** The allow-listed dir a node path is in (or is), else undefined. */
export function writableDirOf(path: string): string | undefined {
  const p = viaRun(nodePath(path));
  return WRITABLE_NODE_DIRS.find((d) => underDir(p, viaRun(d)) !== undefined);
}

/** Is the node path one of the allow-listed dirs itself (never written over or removed as a file)? */
export function isWritableRoot(path: string): boolean {
  const p = viaRun(nodePath(path));
  return WRITABLE_NODE_DIRS.some((d) => viaRun(d) === p);
}

/** The real file for a node path. */
export function onNode(nodeRoot: string, path: string): string {
  return join(
    nodeRoot,
    ...nodePath(path)
      .split('/')
      .filter((s) => s !== ''),
  );
}

let systemPlugins: string[] | undefined;

/** The reference plugins this machine has (read once: the package does not change under a running server). */
function presentReferencePlugins(): string[] {
  if (systemPlugins) return systemPlugins;
  let present: Set<string>;
  try {
    present = new Set(readdirSync(SYSTEM_CNI_DIR));
  } catch {
    present = new Set();
  }
  systemPlugins = AKS_REFERENCE_PLUGINS.filter((p) => present.has(p));
  return systemPlugins;
}

/** Fills a plugin dir with the reference plugins (symlinks to the machine's). */
function linkReferencePlugins(bin: string): void {
  mkdirSync(bin, { recursive: true });
  for (const p of presentReferencePlugins()) symlinkSync(join(SYSTEM_CNI_DIR, p), join(bin, p));
}

/**
 * Gives a node root what AKS's node image has before any CNI is installed: /opt/cni/bin with the reference
 * plugins (symlinks to the machine's) and /var/run as a link to /run. Only what is missing is made, so a node dir
 * of an older aksemu gets it at start and a CNI's own files are never replaced. With `imageBin` (the cluster's
 * one copy of the image's /opt/cni/bin), the node's /opt/cni/bin is a link to it until something writes there
 * (ownCniBin): one link per node instead of eighteen, which is most of what a 5,000-node cluster's first pods cost.
 */
export function seedNodeRoot(nodeRoot: string, imageBin?: string): void {
  const bin = onNode(nodeRoot, NODE_CNI_BIN);
  if (!existsSync(bin)) {
    if (imageBin === undefined) linkReferencePlugins(bin);
    else {
      if (!existsSync(imageBin)) linkReferencePlugins(imageBin);
      mkdirSync(dirname(bin), { recursive: true });
      symlinkSync(imageBin, bin);
    }
  }
  const varRun = onNode(nodeRoot, '/var/run');
  if (!existsSync(varRun)) {
    mkdirSync(onNode(nodeRoot, '/run'), { recursive: true });
    mkdirSync(onNode(nodeRoot, '/var'), { recursive: true });
    try {
      symlinkSync('../run', varRun);
    } catch {
      // made meanwhile
    }
  }
}

/**
 * Before a write under the node's /opt/cni/bin: a node still sharing the image's dir (seedNodeRoot) gets its own,
 * holding the same plugins, so what one node's CNI installer copies there is on that node only.
 */
export function ownCniBin(nodeRoot: string): void {
  const bin = onNode(nodeRoot, NODE_CNI_BIN);
  let shared: string;
  try {
    if (!lstatSync(bin).isSymbolicLink()) return;
    shared = readlinkSync(bin);
  } catch {
    return;
  }
  const tmp = `${bin}.aksemu-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp);
  for (const p of readdirSync(shared)) symlinkSync(readlinkSync(join(shared, p)), join(tmp, p));
  rmSync(bin);
  renameSync(tmp, bin);
}

/** Points the node's /run/aksemu/apiserver.sock at the cluster's socket (replacing an earlier run's link). */
export function linkApiSocket(nodeRoot: string, socket: string): void {
  const link = onNode(nodeRoot, NODE_API_SOCKET);
  // After a restart the link is usually there already: a read instead of four writes per node.
  try {
    if (readlinkSync(link) === socket) return;
  } catch {
    // no link yet
  }
  mkdirSync(dirname(link), { recursive: true });
  try {
    // No link yet (a new node): made in one call.
    symlinkSync(socket, link);
    return;
  } catch {
    // an earlier run's link: replaced below
  }
  const tmp = `${link}.aksemu-${process.pid}`;
  rmSync(tmp, { force: true });
  symlinkSync(socket, tmp);
  renameSync(tmp, link);
}

/** A message naming real files under the node root, as the node would name them (`/opt/cni/bin`, not the host's). */
export function asNodePaths(text: string, nodeRoot: string): string {
  return text.split(`${nodeRoot}/`).join('/');
}

/** A pod uid as the apiserver makes it; anything else never becomes a path. */
export const POD_UID = /^[0-9a-zA-Z-]{1,64}$/;

export function podDir(nodeRoot: string, podUid: string): string {
  if (!POD_UID.test(podUid)) throw new Error(`not a pod uid: ${JSON.stringify(podUid)}`);
  return onNode(nodeRoot, `/var/lib/kubelet/pods/${podUid}`);
}

/** The pod's resolv.conf on its node (exec bind-mounts it as /etc/resolv.conf). */
export function podResolvConfPath(nodeRoot: string, podUid: string): string {
  return join(podDir(nodeRoot, podUid), 'resolv.conf');
}

/** The pod's hosts file on its node, named as the kubelet names it (exec bind-mounts it as /etc/hosts). */
export function podHostsPath(nodeRoot: string, podUid: string): string {
  return join(podDir(nodeRoot, podUid), 'etc-hosts');
}

/** A container name as the apiserver validates one (a DNS label); anything else never becomes a path. */
const CONTAINER_NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/**
 * A container's own filesystem on its node (kubelet/container-rootfs.ts): what `kubectl cp` writes into the
 * container and reads back, kept in the pod's directory so it goes with the pod.
 */
export function containerRootfsDir(nodeRoot: string, podUid: string, container: string): string {
  if (!CONTAINER_NAME.test(container)) throw new Error(`not a container name: ${JSON.stringify(container)}`);
  return join(podDir(nodeRoot, podUid), 'aksemu-rootfs', container);
}
