// The node's container runtime as aksemu emulates it: each container's process is processes.ts's, given the
// container's environment (env, envFrom, the downward API, as the kubelet builds it) and the files it mounts from
// ConfigMap and Secret volumes. Init containers of the CNI DaemonSet pattern (kube-flannel.yml, calico.yaml), interpreted instead of run: what
// those containers do to the node is copy a network config from a ConfigMap volume into the hostPath
// /etc/cni/net.d, and that is what matters to the emulated kubelet (the node turns Ready when the file lands in
// its conf dir). Supported:
//   - `cp [-f…] SRC… DST` as the command, or inside `sh -c '…'` (with `&&`, `||`, `;`, `mkdir -p`, `true`, `echo`,
//     `set -e`, `exit`); SRC under a ConfigMap volume (files are its keys, `items` and `subPath` honoured) or the
//     node's conf dir; DST under a hostPath volume of /etc/cni/net.d or /etc/cni
//   - Calico's install-cni (`/opt/cni/bin/install` with CNI_NETWORK_CONFIG in its env, usually a configMapKeyRef):
//     writes CNI_CONF_NAME (10-calico.conflist) with install-cni's substitutions
// Copies to /opt/cni/bin are accepted and ignored (plugin binaries are not emulated). Any other command is ignored
// unless it touches /etc/cni/net.d, which fails the container: the node must not look configured when it is not.
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, posix } from 'node:path';
import { CONFIGMAPS, NODES, SECRETS, SERVICES } from '../resources.js';
import type { KubeObject } from '../objects/object.js';
import type { ObjectStore } from '../objects/store.js';
import { dict, own } from '../../http/own.js';
import type { ContainerRunner, ContainerStart } from './sandbox.js';
import { startProcess, type Process, type ProcessIo } from './processes.js';
import type { Container } from '../objects/types.js';
import { calicoNetconf } from '../cni-agents/calico-install.js';

/** What the runner needs of a cluster's runtime (ClusterRuntime has both). */
export interface InitHost {
  readonly objects: ObjectStore;
  readonly kubelets: { confDir(node: string): string };
}

const CNI_CONF_HOST_DIR = '/etc/cni/net.d';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.map(obj) : []);
const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** A failure the container would print before exiting non-zero. */
class ContainerError extends Error {}

interface Mount {
  path: string;
  /** ConfigMap or Secret volume: its files by relative path (already resolved through `items`). */
  files?: Map<string, string>;
  /** hostPath volume: the host directory (or file) it shows. */
  hostPath?: string;
  subPath?: string;
}

/** Where a container path lands. */
type Target = { kind: 'configmap'; files: Map<string, string>; rel: string } | { kind: 'host'; path: string } | { kind: 'image' };

/** `a/b/../c` → `a/c`, always absolute. */
function normalize(p: string): string {
  return posix.normalize(p.startsWith('/') ? p : `/${p}`).replace(/\/+$/, '') || '/';
}

function under(path: string, dir: string): string | undefined {
  if (dir === '/') return path.slice(1);
  if (path === dir) return '';
  return path.startsWith(`${dir}/`) ? path.slice(dir.length + 1) : undefined;
}

class ContainerFs {
  constructor(
    private readonly mounts: Mount[],
    private readonly confDir: string,
  ) {}

  resolve(path: string): Target {
    const p = normalize(path);
    // The deepest mount wins, as in the container's mount table.
    const mount = this.mounts.filter((m) => under(p, normalize(m.path)) !== undefined).sort((a, b) => normalize(b.path).length - normalize(a.path).length)[0];
    if (!mount) return { kind: 'image' };
    const rest = under(p, normalize(mount.path))!;
    const rel = mount.subPath ? posix.join(mount.subPath, rest).replace(/\/$/, '') : rest;
    if (mount.files) return { kind: 'configmap', files: mount.files, rel };
    return { kind: 'host', path: normalize(posix.join(mount.hostPath!, rel)) };
  }

  /** The node's file for a host path inside /etc/cni/net.d, else undefined. */
  confFile(host: string): string | undefined {
    const rel = under(host, CNI_CONF_HOST_DIR);
    return rel === undefined ? undefined : rel === '' ? this.confDir : join(this.confDir, ...rel.split('/'));
  }

  /** Does the word name something in the node's CNI config dir (through a mount, or literally)? */
  touchesConfDir(word: string): boolean {
    if (word.includes(CNI_CONF_HOST_DIR)) return true;
    if (!word.startsWith('/')) return false;
    const t = this.resolve(word);
    return t.kind === 'host' && this.confFile(t.path) !== undefined;
  }

  isDir(path: string): boolean {
    const t = this.resolve(path);
    if (t.kind === 'configmap') return t.rel === '' || [...t.files.keys()].some((k) => k.startsWith(`${t.rel}/`));
    if (t.kind === 'host') {
      const file = this.confFile(t.path);
      // Elsewhere on the host nothing is written, so whether it is a directory does not matter.
      if (file === undefined) return false;
      try {
        return statSync(file).isDirectory();
      } catch {
        return false;
      }
    }
    return false;
  }

  /** A source file's content; undefined when it does not exist; null when it lives in the image (unknown to us). */
  read(path: string): string | undefined | null {
    const t = this.resolve(path);
    if (t.kind === 'configmap') return t.files.get(t.rel);
    if (t.kind === 'host') {
      const file = this.confFile(t.path);
      if (file === undefined) return null;
      try {
        return readFileSync(file, 'utf8');
      } catch {
        return undefined;
      }
    }
    return null;
  }

  /** Files under a directory source (`cp -r DIR …`), relative to it. */
  readDir(path: string): Map<string, string> {
    const t = this.resolve(path);
    const out = new Map<string, string>();
    if (t.kind === 'configmap') {
      for (const [k, v] of t.files) {
        const rel = t.rel === '' ? k : under(`/${k}`, `/${t.rel}`);
        if (rel) out.set(rel, v);
      }
    }
    return out;
  }

  /** Writes a file the container created: into the node's conf dir, or nowhere that matters. */
  write(path: string, content: string, mode = 0o644): 'conf' | 'ignored' {
    const t = this.resolve(path);
    if (t.kind !== 'host') {
      if (t.kind === 'configmap') throw new ContainerError(`cp: can't create '${path}': Read-only file system`);
      return 'ignored';
    }
    const file = this.confFile(t.path);
    if (file === undefined || file === this.confDir) return 'ignored';
    mkdirSync(dirname(file), { recursive: true });
    // Write + rename: the kubelet's watcher must never load half a file.
    const tmp = join(dirname(file), `.${basename(file)}.aksemu-${process.pid}`);
    writeFileSync(tmp, content, { mode });
    renameSync(tmp, file);
    return 'conf';
  }

  mkdir(path: string): void {
    const t = this.resolve(path);
    const file = t.kind === 'host' ? this.confFile(t.path) : undefined;
    if (file) mkdirSync(file, { recursive: true });
  }

  remove(path: string): void {
    const t = this.resolve(path);
    const file = t.kind === 'host' ? this.confFile(t.path) : undefined;
    if (file && file !== this.confDir) rmSync(file, { force: true });
  }
}

/** The kubelet's `$(VAR)` expansion of command, args and env values (`$$` is a literal `$`). */
function expandRefs(s: string, env: Record<string, string>): string {
  return s.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (m, name: string | undefined) =>
    m === '$$' ? '$' : name !== undefined && name in env ? env[name]! : m,
  );
}

class Runner implements ContainerRunner {
  constructor(private readonly host: InitHost) {}

  /** A ConfigMap or Secret volume's files, as the kubelet projects them (items: only those keys, at their paths). */
  private volumeFiles(namespace: string, volume: Obj): Map<string, string> {
    const secret = volume['secret'] !== undefined;
    const source = obj(secret ? volume['secret'] : volume['configMap']);
    const name = text(secret ? source['secretName'] : source['name']) ?? '';
    const o = this.host.objects.get(secret ? SECRETS : CONFIGMAPS, namespace, name);
    const kind = secret ? 'secret' : 'configmap';
    const files = new Map<string, string>();
    if (!o) {
      if (source['optional'] === true) return files;
      throw new ContainerError(`MountVolume.SetUp failed for volume "${text(volume['name'])}" : ${kind} "${name}" not found`);
    }
    const data = dict<string>();
    const decoded = (v: string) => Buffer.from(v, 'base64').toString('utf8');
    for (const [k, v] of Object.entries(obj(o['data']))) if (typeof v === 'string') data[k] = secret ? decoded(v) : v;
    for (const [k, v] of Object.entries(obj(o['binaryData']))) if (typeof v === 'string') data[k] = decoded(v);
    const items = list(source['items']);
    if (items.length === 0) {
      for (const [k, v] of Object.entries(data)) files.set(k, v);
      return files;
    }
    for (const item of items) {
      const key = text(item['key']) ?? '';
      if (!(key in data)) {
        if (source['optional'] === true) continue;
        throw new ContainerError(
          `MountVolume.SetUp failed for volume "${text(volume['name'])}" : ${kind} references non-existent ${secret ? 'secret' : 'config'} key: ${key}`,
        );
      }
      files.set(normalize(text(item['path']) ?? key).slice(1), data[key]!);
    }
    return files;
  }

  private mounts(pod: KubeObject, container: Obj): Mount[] {
    const namespace = pod.metadata.namespace ?? 'default';
    const volumes = new Map(list(obj(pod['spec'])['volumes']).map((v) => [text(v['name']) ?? '', v]));
    const mounts: Mount[] = [];
    for (const m of list(container['volumeMounts'])) {
      const volume = volumes.get(text(m['name']) ?? '');
      const path = text(m['mountPath']);
      if (!volume || !path) continue;
      const subPath = text(m['subPath']);
      const base = { path, ...(subPath ? { subPath: normalize(subPath).slice(1) } : {}) };
      if (volume['configMap'] || volume['secret']) mounts.push({ ...base, files: this.volumeFiles(namespace, volume) });
      else if (volume['hostPath']) mounts.push({ ...base, hostPath: normalize(text(obj(volume['hostPath'])['path']) ?? '/') });
      // Other volume kinds (emptyDir, projected…) hold nothing the node's CNI config can come from.
    }
    return mounts;
  }

  private nodeIp(node: string): string {
    const addresses = list(obj(this.host.objects.get(NODES, undefined, node)?.['status'])['addresses']);
    return text(addresses.find((a) => a['type'] === 'InternalIP')?.['address']) ?? '';
  }

  /** The container's environment as the kubelet builds it; throws CreateContainerConfigError's message. */
  private env(pod: KubeObject, node: string, container: Obj): Record<string, string> {
    const namespace = pod.metadata.namespace ?? 'default';
    const env = dict<string>();
    const kubernetes = this.host.objects.get(SERVICES, 'default', 'kubernetes');
    const spec = obj(kubernetes?.['spec']);
    if (typeof spec['clusterIP'] === 'string') {
      env['KUBERNETES_SERVICE_HOST'] = spec['clusterIP'];
      env['KUBERNETES_SERVICE_PORT'] = String(list(spec['ports'])[0]?.['port'] ?? 443);
    }
    const keyOf = (kind: 'ConfigMap' | 'Secret', ref: Obj): string | undefined => {
      const name = text(ref['name']) ?? '';
      const key = text(ref['key']) ?? '';
      const o = this.host.objects.get(kind === 'ConfigMap' ? CONFIGMAPS : SECRETS, namespace, name);
      if (!o) {
        if (ref['optional'] === true) return undefined;
        throw new ContainerError(`${kind.toLowerCase()} "${name}" not found`);
      }
      const v = obj(o['data'])[key];
      if (typeof v !== 'string') {
        if (ref['optional'] === true) return undefined;
        throw new ContainerError(`couldn't find key ${key} in ${kind} ${namespace}/${name}`);
      }
      return kind === 'Secret' ? Buffer.from(v, 'base64').toString('utf8') : v;
    };
    for (const from of list(container['envFrom'])) {
      const prefix = text(from['prefix']) ?? '';
      const ref = obj(from['configMapRef'] ?? from['secretRef']);
      const kind = from['configMapRef'] ? 'ConfigMap' : 'Secret';
      const o = this.host.objects.get(kind === 'ConfigMap' ? CONFIGMAPS : SECRETS, namespace, text(ref['name']) ?? '');
      if (!o && ref['optional'] !== true) throw new ContainerError(`${kind.toLowerCase()} "${text(ref['name'])}" not found`);
      for (const [k, v] of Object.entries(obj(o?.['data']))) {
        if (typeof v === 'string') env[prefix + k] = kind === 'Secret' ? Buffer.from(v, 'base64').toString('utf8') : v;
      }
    }
    const fields: Record<string, string> = {
      'metadata.name': pod.metadata.name,
      'metadata.namespace': namespace,
      'metadata.uid': pod.metadata.uid ?? '',
      'spec.nodeName': node,
      'spec.serviceAccountName': text(obj(pod['spec'])['serviceAccountName']) ?? 'default',
      'status.hostIP': this.nodeIp(node),
      'status.podIP': text(obj(pod['status'])['podIP']) ?? '',
    };
    for (const e of list(container['env'])) {
      const name = text(e['name']);
      if (!name) continue;
      const from = obj(e['valueFrom']);
      let value: string | undefined;
      if (typeof e['value'] === 'string') value = expandRefs(e['value'], env);
      else if (from['configMapKeyRef']) value = keyOf('ConfigMap', obj(from['configMapKeyRef']));
      else if (from['secretKeyRef']) value = keyOf('Secret', obj(from['secretKeyRef']));
      else if (from['fieldRef']) {
        const path = text(obj(from['fieldRef'])['fieldPath']) ?? '';
        const m = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(path);
        value = m ? (own<string>(pod.metadata[m[1] as 'labels' | 'annotations'], m[2]!) ?? '') : own<string>(fields, path);
      } else value = '';
      if (value !== undefined) env[name] = value;
    }
    return env;
  }

  /** Starts one of the pod's containers: its process (processes.ts) with its environment and mounted files. */
  start({ pod, node, container: spec, init, write }: ContainerStart): Process {
    const container = spec as Obj;
    const confDir = this.host.kubelets.confDir(node);
    let fs: ContainerFs;
    let env: Record<string, string>;
    try {
      fs = new ContainerFs(this.mounts(pod, container), confDir);
      env = this.env(pod, node, container);
    } catch (e) {
      if (!(e instanceof ContainerError)) throw e;
      // Init containers (installers) must not look done when their input is missing; an app starts with what exists.
      if (init) return failed(e.message);
      fs = new ContainerFs([], confDir);
      env = dict<string>();
    }
    const argv = [...(Array.isArray(container['command']) ? container['command'] : []), ...(Array.isArray(container['args']) ? container['args'] : [])].map(
      (a) => expandRefs(String(a), env),
    );
    if (init && 'CNI_NETWORK_CONFIG' in env && (argv.length === 0 || basename(argv[0] ?? '') === 'install')) {
      try {
        this.calicoInstall(env, fs, node);
        return exited(0);
      } catch (e) {
        if (e instanceof ContainerError) return failed(e.message);
        throw e;
      }
    }
    return startProcess(argv, env, {
      write,
      read: (path) => fs.read(path),
      ...(init ? { command: (argv: string[], io: ProcessIo) => this.cniCommand(argv, fs, io) } : {}),
      unknown: init ? 'exits' : 'runs',
    });
  }

  /** Runs the pod's init containers one after the other; the first failure's text (stderr, or its status). */
  async run(pod: KubeObject, node: string): Promise<string | undefined> {
    for (const container of list(obj(pod['spec'])['initContainers'])) {
      let stderr = '';
      const p = this.start({ pod, node, container: container as Container, init: true, write: (stream, t) => void (stream === 'stderr' && (stderr += t)) });
      const code = await p.exited;
      if (code !== 0) return p.message ?? (stderr.trim() || `init container "${text(container['name'])}" exited with code ${code}`);
    }
    return undefined;
  }

  /** The installers' commands that change the node's CNI config; undefined for the others (processes.ts runs them). */
  private cniCommand(argv: string[], fs: ContainerFs, io: ProcessIo): Promise<number> | undefined {
    const [name = '', ...args] = argv;
    const out = { stderr: '' };
    const done = (code: number) => {
      if (out.stderr) io.write('stderr', out.stderr);
      return Promise.resolve(code);
    };
    switch (basename(name)) {
      case 'cp':
        return done(this.cp(args, fs, out));
      case 'mkdir':
        for (const a of args.filter((x) => !x.startsWith('-'))) fs.mkdir(a);
        return done(0);
      case 'true':
      case ':':
      case 'false':
      case 'echo':
      case 'printf':
      case 'sleep':
      case 'cat':
      case 'env':
      case 'printenv':
        return undefined;
      default:
        if (argv.some((a) => fs.touchesConfDir(a))) {
          out.stderr += `${basename(name)}: aksemu cannot emulate this command, and it changes the node's /etc/cni/net.d (supported: cp, mkdir -p, true, echo)\n`;
          return done(127);
        }
        return undefined;
    }
  }

  /** cp as busybox does it (the flannel image's cp): SRC… DST, DST a directory when it is one or ends in `/`. */
  private cp(args: string[], fs: ContainerFs, out: { stderr: string }): number {
    const operands: string[] = [];
    let options = true;
    for (const a of args) {
      if (options && a === '--') options = false;
      else if (options && a.startsWith('-') && a.length > 1) continue;
      else operands.push(a);
    }
    if (operands.length < 2) {
      out.stderr += 'cp: missing file operand\n';
      return 1;
    }
    const dst = operands.pop()!;
    const dstIsDir = dst.endsWith('/') || fs.isDir(dst);
    if (operands.length > 1 && !dstIsDir) {
      out.stderr += `cp: '${dst}' is not a directory\n`;
      return 1;
    }
    let status = 0;
    for (const src of operands) {
      const target = dstIsDir ? posix.join(dst, basename(normalize(src))) : dst;
      if (fs.isDir(src)) {
        const files = fs.readDir(src);
        // `cp -r DIR/. DEST` copies the contents; `cp -r DIR DEST` makes DEST/DIR.
        const into = src.endsWith('/.') || !dstIsDir ? dst : target;
        for (const [rel, content] of files) fs.write(posix.join(into, rel), content);
        continue;
      }
      const content = fs.read(src);
      if (content === undefined) {
        out.stderr += `cp: can't stat '${src}': No such file or directory\n`;
        status = 1;
      } else if (content === null) {
        // A file from the image (a plugin binary, say): fine wherever it goes but the conf dir, whose content we must know.
        if (fs.touchesConfDir(target)) {
          out.stderr += `cp: aksemu cannot read '${src}' (it is in the container image, not in a ConfigMap volume) to write it to '${target}'\n`;
          status = 1;
        }
      } else {
        fs.write(target, content);
      }
    }
    return status;
  }

  /** Calico's install-cni (cni-plugin/pkg/install): the config template from CNI_NETWORK_CONFIG, substituted. */
  private calicoInstall(env: Record<string, string>, fs: ContainerFs, node: string): void {
    const get = (k: string, d: string) => env[k] ?? d;
    // The service account token is not emulated here (the catalogue's install-cni, cni-agents/calico-install.ts, has it).
    const netconf = calicoNetconf(env['CNI_NETWORK_CONFIG']!, { env, node }, '');
    try {
      const parsed: unknown = JSON.parse(netconf);
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
        throw new Error('json: cannot unmarshal into Go value of type map[string]interface {}');
    } catch (e) {
      throw new ContainerError(`${netconf} is not a valid json object\nerror: ${(e as Error).message}`);
    }
    const name = get('CNI_CONF_NAME', '10-calico.conflist');
    fs.write(`/host/etc/cni/net.d/${name}`, netconf);
    const oldName = get('CNI_OLD_CONF_NAME', '10-calico.conflist');
    if (name !== oldName) fs.remove(`/host/etc/cni/net.d/${oldName}`);
  }
}

/** A process that has already ended with that status. */
function exited(code: number, message?: string): Process {
  return { exited: Promise.resolve(code), stop: () => {}, ...(message !== undefined ? { message } : {}) };
}

/** A container the runtime could not start as asked: it ends at once with the kubelet's reason as its message. */
function failed(message: string): Process {
  return exited(1, message);
}

export function createContainerRunner(runtime: InitHost): ContainerRunner & { run(pod: KubeObject, node: string): Promise<string | undefined> } {
  return new Runner(runtime);
}
