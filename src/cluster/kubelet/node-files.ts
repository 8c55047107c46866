// The files a container sees through its volume mounts (program.ts's ContainerFiles): ConfigMap, Secret and
// projected volumes as read-only files; hostPath volumes as the node's own files (node-root.ts: host path P is
// join(nodeRoot, P)), writable only under the node dirs the CNI projects use; everything else is the container's
// image, whose writable layer is kept in memory for the container's life.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, posix } from 'node:path';
import { installPluginWrapper } from '../../cni/plugins/install.js';
import { PLUGINS } from '../../cni/plugins/registry.js';
import type { ContainerFiles, ImageSpec } from '../images/program.js';
import { isWritableRoot, NODE_CNI_BIN, nodePath, onNode, ownCniBin, SYSTEM_CNI_DIR, underDir, writableDirOf } from '../nodefs/node-root.js';

/** A failure the container would print before exiting non-zero. */
export class ContainerError extends Error {}

export interface Mount {
  path: string;
  /** ConfigMap, Secret or projected volume: its files by relative path (already resolved through `items`). */
  files?: Map<string, string>;
  /** hostPath volume: the node path it shows. */
  hostPath?: string;
  subPath?: string;
}

/** Where a container path lands. */
export type Target = { kind: 'configmap'; files: Map<string, string>; rel: string } | { kind: 'host'; path: string } | { kind: 'image'; path: string };

const CNI_CONF_DIR = '/etc/cni/net.d';

export class ContainerFs implements ContainerFiles {
  /** The container's writable layer over its image (what it wrote outside its volumes). */
  private readonly layer = new Map<string, string>();

  constructor(
    private readonly mounts: Mount[],
    readonly nodeRoot: string,
    private readonly image?: ImageSpec,
  ) {}

  resolve(path: string): Target {
    const p = nodePath(path);
    // The deepest mount wins, as in the container's mount table.
    const mount = this.mounts.filter((m) => underDir(p, nodePath(m.path)) !== undefined).sort((a, b) => nodePath(b.path).length - nodePath(a.path).length)[0];
    if (!mount) return { kind: 'image', path: p };
    const rest = underDir(p, nodePath(mount.path))!;
    const rel = mount.subPath ? posix.join(mount.subPath, rest).replace(/\/$/, '') : rest;
    if (mount.files) return { kind: 'configmap', files: mount.files, rel };
    return { kind: 'host', path: nodePath(posix.join(mount.hostPath!, rel)) };
  }

  /** The real file for a node path the container may write, else undefined. */
  private writable(host: string): string | undefined {
    return writableDirOf(host) === undefined ? undefined : onNode(this.nodeRoot, host);
  }

  /** writable(), for a change: a node still sharing the image's /opt/cni/bin gets its own first. */
  private changeable(host: string): string | undefined {
    const file = this.writable(host);
    if (file !== undefined && underDir(nodePath(host), NODE_CNI_BIN) !== undefined) ownCniBin(this.nodeRoot);
    return file;
  }

  host(path: string): string | undefined {
    const t = this.resolve(path);
    return t.kind === 'host' ? onNode(this.nodeRoot, t.path) : undefined;
  }

  /** Does the word name something in the node's CNI conf dir (through a mount, or literally)? */
  touchesConfDir(word: string): boolean {
    if (word.includes(CNI_CONF_DIR)) return true;
    if (!word.startsWith('/')) return false;
    const t = this.resolve(word);
    return t.kind === 'host' && underDir(t.path, CNI_CONF_DIR) !== undefined;
  }

  /** Files of the image under a directory, by their path in the image. */
  private imageFilesUnder(dir: string): string[] {
    return Object.keys(this.image?.files ?? {}).filter((f) => underDir(nodePath(f), dir));
  }

  isDir(path: string): boolean {
    const t = this.resolve(path);
    if (t.kind === 'configmap') return t.rel === '' || [...t.files.keys()].some((k) => k.startsWith(`${t.rel}/`));
    if (t.kind === 'image') return this.imageFilesUnder(t.path).length > 0;
    try {
      return statSync(onNode(this.nodeRoot, t.path)).isDirectory();
    } catch {
      return false;
    }
  }

  read(path: string): string | undefined | null {
    const t = this.resolve(path);
    if (t.kind === 'configmap') return t.files.get(t.rel);
    if (t.kind === 'image') return this.layer.get(t.path) ?? null;
    try {
      return readFileSync(onNode(this.nodeRoot, t.path), 'utf8');
    } catch {
      // Missing where the CNI projects write: really missing. Elsewhere the node has more than aksemu knows.
      return this.writable(t.path) !== undefined ? undefined : null;
    }
  }

  /** The image's binary at an image path, if the catalogue says it holds one. */
  imageFile(path: string): { plugin: string } | undefined {
    const files = this.image?.files;
    const p = nodePath(path);
    return files && Object.hasOwn(files, p) ? files[p] : undefined;
  }

  /** Files under a directory source (`cp -r DIR …`), relative to it; image binaries as null. */
  readDir(path: string): Map<string, string | null> {
    const t = this.resolve(path);
    const out = new Map<string, string | null>();
    if (t.kind === 'configmap') {
      for (const [k, v] of t.files) {
        const rel = t.rel === '' ? k : underDir(`/${k}`, `/${t.rel}`);
        if (rel) out.set(rel, v);
      }
    } else if (t.kind === 'image') {
      for (const f of this.imageFilesUnder(t.path)) out.set(underDir(nodePath(f), t.path)!, null);
    }
    return out;
  }

  list(path: string): string[] {
    const t = this.resolve(path);
    if (t.kind === 'configmap') {
      const names = new Set<string>();
      for (const k of t.files.keys()) {
        const rel = t.rel === '' ? k : underDir(`/${k}`, `/${t.rel}`);
        if (rel) names.add(rel.split('/')[0]!);
      }
      return [...names];
    }
    if (t.kind === 'image') return [...new Set(this.imageFilesUnder(t.path).map((f) => underDir(nodePath(f), t.path)!.split('/')[0]!))];
    try {
      return readdirSync(onNode(this.nodeRoot, t.path));
    } catch {
      return [];
    }
  }

  write(path: string, content: string, mode = 0o644): void {
    const t = this.resolve(path);
    if (t.kind === 'configmap') throw new ContainerError(`can't create '${path}': Read-only file system`);
    if (t.kind === 'image') {
      this.layer.set(t.path, content);
      return;
    }
    const file = this.changeable(t.path);
    // Elsewhere on the node nothing is written; an allow-listed dir itself is not a file.
    if (file === undefined || isWritableRoot(t.path)) return;
    mkdirSync(dirname(file), { recursive: true });
    // Write + rename: the kubelet's watcher must never load half a file.
    const tmp = join(dirname(file), `.${basename(file)}.aksemu-${process.pid}`);
    writeFileSync(tmp, content, { mode });
    renameSync(tmp, file);
  }

  mkdir(path: string): void {
    const t = this.resolve(path);
    const file = t.kind === 'host' ? this.changeable(t.path) : undefined;
    if (file) mkdirSync(file, { recursive: true });
  }

  remove(path: string): void {
    const t = this.resolve(path);
    if (t.kind === 'image') {
      this.layer.delete(t.path);
      return;
    }
    if (t.kind !== 'host') return;
    const file = this.changeable(t.path);
    if (file && !isWritableRoot(t.path)) rmSync(file, { recursive: true, force: true });
  }

  installImageFile(imagePath: string, path: string): void {
    const what = this.imageFile(imagePath);
    if (!what) throw new ContainerError(`can't stat '${imagePath}': No such file or directory`);
    const t = this.resolve(path);
    if (t.kind === 'configmap') throw new ContainerError(`can't create '${path}': Read-only file system`);
    if (t.kind === 'image') return;
    const file = this.changeable(t.path);
    if (file === undefined || isWritableRoot(t.path)) return;
    if (Object.hasOwn(PLUGINS, what.plugin)) {
      installPluginWrapper(file, this.nodeRoot, what.plugin);
      return;
    }
    // A reference plugin the image carries (flannel's and Calico's images bundle some): the machine's binary.
    mkdirSync(dirname(file), { recursive: true });
    const tmp = join(dirname(file), `.${basename(file)}.aksemu-${process.pid}`);
    rmSync(tmp, { force: true });
    symlinkSync(join(SYSTEM_CNI_DIR, what.plugin), tmp);
    renameSync(tmp, file);
  }
}
