// A container's filesystem as `kubectl cp` (tar over exec: exec/busybox-tar.ts) sees it. A container here has no
// image layers on disk: its filesystem is one directory on its node, the pod's
// /var/lib/kubelet/pods/<uid>/aksemu-rootfs/<container>/ (nodefs/node-root.ts containerRootfsDir), standing for
// the container's `/`. It starts with the top-level directories of a busybox image and the files the kubelet
// gives every container (/etc/hosts, /etc/resolv.conf, /etc/hostname); everything under it is writable, as a
// container's writable layer is to its root user, up to ROOTFS_LIMITS. It goes with the pod (the pod's directory
// is removed when its sandbox is torn down). docs/clients.md §5.21.
import { lstat, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import type { KubeObject } from '../apimachinery/object.js';
import type { Pod } from '../apimachinery/types.js';
import { containerRootfsDir, POD_UID, podDir } from '../nodefs/node-root.js';

/** The bounds of one container's filesystem: what `kubectl cp` may put in it. */
export const ROOTFS_LIMITS = {
  /** File contents together. */
  maxBytes: 64 * 1024 * 1024,
  /** Files and directories together. */
  maxEntries: 10_000,
  /** Directory depth below `/`. */
  maxDepth: 64,
} as const;

/** The top-level directories of the busybox image (and of alpine's, which has more). */
const IMAGE_DIRS = ['bin', 'dev', 'etc', 'home', 'lib', 'proc', 'root', 'sys', 'tmp', 'usr', 'var'];

/** A container path normalised (absolute, `..` resolved at `/`, no trailing slash), relative to `cwd`. */
export function containerPath(path: string, cwd = '/'): string {
  const abs = posix.normalize(path.startsWith('/') ? path : `${cwd}/${path}`);
  return abs.length > 1 ? abs.replace(/\/+$/, '') : '/';
}

export interface RootfsUsage {
  bytes: number;
  entries: number;
}

export class ContainerRootfs {
  /**
   * @param dir  the directory that is the container's `/`
   * @param etc  the files the kubelet gives the container, by container path (written once, when the filesystem is made)
   */
  constructor(
    readonly dir: string,
    private readonly etc: Readonly<Record<string, string>>,
  ) {}

  /** The real path of a container path. No symbolic link is ever made under `dir`, so none can lead out of it. */
  real(path: string): string {
    return join(
      this.dir,
      ...containerPath(path)
        .split('/')
        .filter((s) => s !== ''),
    );
  }

  /** Makes the filesystem on first use. */
  async ensure(): Promise<void> {
    try {
      await lstat(this.dir);
      return;
    } catch {
      // first use
    }
    for (const d of IMAGE_DIRS) await mkdir(join(this.dir, d), { recursive: true, mode: d === 'tmp' ? 0o1777 : 0o755 });
    for (const [path, text] of Object.entries(this.etc)) await writeFile(this.real(path), text, { mode: 0o644 });
  }

  /** What the filesystem holds now (walked: it is bounded by ROOTFS_LIMITS.maxEntries). */
  async usage(): Promise<RootfsUsage> {
    const usage: RootfsUsage = { bytes: 0, entries: 0 };
    const walk = async (dir: string): Promise<void> => {
      for (const e of await readdir(dir, { withFileTypes: true })) {
        usage.entries++;
        const p = join(dir, e.name);
        if (e.isDirectory()) await walk(p);
        else if (e.isFile()) usage.bytes += (await lstat(p)).size;
      }
    };
    await walk(this.dir);
    return usage;
  }
}

/**
 * The filesystem of a pod's container on its node, with the files its kubelet wrote for the pod, and the
 * container's working directory (its spec's workingDir; `/` as busybox's image has it).
 */
export function containerFiles(
  nodeRoot: string,
  pod: KubeObject & Pod,
  container: string,
  etc: { resolvConf: string; hosts: string },
): { rootfs: ContainerRootfs; cwd: string } {
  const spec = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? []), ...(pod.spec?.ephemeralContainers ?? [])].find(
    (c) => c.name === container,
  );
  const files = { '/etc/hosts': etc.hosts, '/etc/resolv.conf': etc.resolvConf, '/etc/hostname': `${pod.metadata.name}\n` };
  const workingDir = typeof spec?.workingDir === 'string' && spec.workingDir.startsWith('/') ? spec.workingDir : '/';
  return { rootfs: new ContainerRootfs(containerRootfsDir(nodeRoot, String(pod.metadata.uid ?? ''), container), files), cwd: containerPath(workingDir) };
}

/** Removes the filesystems of a pod's containers (its sandbox is torn down: they go with it). */
export async function removeContainerFilesystems(nodeRoot: string, podUid: string): Promise<void> {
  if (!POD_UID.test(podUid)) return;
  await rm(join(podDir(nodeRoot, podUid), 'aksemu-rootfs'), { recursive: true, force: true });
}
