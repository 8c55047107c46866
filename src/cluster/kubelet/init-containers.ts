// The node's container runtime as aksemu emulates it. Each container gets the environment the kubelet builds (env,
// envFrom, the downward API) and the files it mounts (node-files.ts: ConfigMap and Secret volumes, hostPath
// volumes onto the node's root, the projected service-account token). A container of an image in the CNI agent
// catalogue (images/catalogue.ts) runs the agent's program (images/runner.ts); any other runs as
// processes.ts reads its command. Init containers of the CNI DaemonSet pattern (kube-flannel.yml, calico.yaml) are
// interpreted: what they do to the node is copy a network config from a ConfigMap volume into the hostPath
// /etc/cni/net.d (the node turns Ready when the file lands in its conf dir), and plugin binaries into
// /opt/cni/bin. Supported:
//   - `cp [-f…] SRC… DST` as the command, or inside `sh -c '…'` (with `&&`, `||`, `;`, `mkdir -p`, `true`, `echo`,
//     `set -e`, `exit`); SRC under a ConfigMap volume (files are its keys, `items` and `subPath` honoured), the
//     node's files, or a binary the catalogue says the image holds (installed into the node's /opt/cni/bin)
// Any other command is ignored unless it touches /etc/cni/net.d, which fails the container: the node must not
// look configured when it is not.
import { basename, posix } from 'node:path';
import { CONFIGMAPS, NODES, SECRETS, SERVICES } from '../apimachinery/resources.js';
import type { KubeObject } from '../apimachinery/object.js';
import { type ObjectStore, projectedServiceAccountWhenRead, SERVICE_ACCOUNT_DIR, type ServiceAccountIssuer } from '../apiserver/index.js';
import { dict, own } from '../../http/own.js';
import { agentClient, type ApiHandler } from '../client/agent-client.js';
import { imageSpecOf, programFor, programOf } from '../images/catalogue.js';
import type { ImageSpec, NodeNetwork, Program } from '../images/program.js';
import { runProgram } from '../images/runner.js';
import { ContainerError, ContainerFs, type Mount } from './node-files.js';
import { nodePath } from '../nodefs/node-root.js';
import type { ContainerRunner, ContainerStart, ExecProbeResult } from './sandbox.js';
import { meetsUnemulatedAtOnce, startProcess, type Process, type ProcessIo, KILLED } from '../images/processes.js';
import type { Container, Pod } from '../apimachinery/types.js';
import type { ClusterRecord } from '../../model/cluster-records.js';
import { runsTool, toolCommands } from '../kubelet/container-tools.js';
import { asToolImage, toolImageArgv } from '../images/network-tools.js';

/** What the runner needs of a cluster's runtime (ClusterRuntime has it all). */
export interface InitHost {
  readonly objects: ObjectStore;
  readonly kubelets: { nodeRoot(node: string): string; prepare?(node: string): void };
  /** The cluster's API, once the server made it (agents' clients call it). */
  readonly api?: ApiHandler | undefined;
  /** The data plane's node networking; undefined without one. */
  readonly network?: NodeNetwork | undefined;
  /** What projected service-account tokens are signed with. */
  readonly serviceAccounts: ServiceAccountIssuer;
  /** The cluster (its DNS settings: the pods' resolv.conf for the tools they run). */
  readonly record?: ClusterRecord;
}

type Obj = Record<string, unknown>;
/** The pod's projected service-account files, made when first read; undefined when it opts out. */
type Projected = (() => Map<string, string>) | undefined;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.map(obj) : []);
const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const normalize = nodePath;

/** The kubelet's `$(VAR)` expansion of command, args and env values (`$$` is a literal `$`). */
function expandRefs(s: string, env: Record<string, string>): string {
  return s.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (m, name: string | undefined) =>
    m === '$$' ? '$' : name !== undefined && name in env ? env[name]! : m,
  );
}

/** The commands of processes.ts an exec probe may run (the rest it does not emulate: the probe is not run). */
const PROBE_PROGRAMS = new Set(['true', ':', 'false', 'echo', 'printf', 'sleep', 'cat', 'env', 'printenv']);
/** The output of an exec probe kept for its event. */
const PROBE_OUTPUT_MAX = 10 * 1024;

class Runner implements ContainerRunner {
  /** resumesIdle's answers without a data plane for containers that name no command, args or lifecycle, by image. */
  private readonly idleImages = new Map<string, boolean>();

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

  /**
   * The kubelet's projected service-account volume (the ServiceAccount admission plugin's kube-api-access-*):
   * token, ca.crt and namespace, unless the pod opts out with automountServiceAccountToken: false.
   */
  private serviceAccountMount(projected: Projected): Mount[] {
    // Its files are made when the container first looks under the mount.
    return projected
      ? [
          {
            path: SERVICE_ACCOUNT_DIR,
            get files() {
              return projected();
            },
          },
        ]
      : [];
  }

  private mounts(pod: KubeObject, container: Obj, projected: Projected): Mount[] {
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
    // Last: a volume the container mounts at the same path wins.
    return [...mounts, ...this.serviceAccountMount(projected)];
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
    // The pod's fields a fieldRef names, made at the first one (most containers have none: no node read for them).
    let fields: Record<string, string> | undefined;
    const field = (path: string) =>
      own<string>(
        (fields ??= {
          'metadata.name': pod.metadata.name,
          'metadata.namespace': namespace,
          'metadata.uid': pod.metadata.uid ?? '',
          'spec.nodeName': node,
          'spec.serviceAccountName': text(obj(pod['spec'])['serviceAccountName']) ?? 'default',
          'status.hostIP': this.nodeIp(node),
          'status.podIP': text(obj(pod['status'])['podIP']) ?? '',
        }),
        path,
      );
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
        value = m ? (own<string>(pod.metadata[m[1] as 'labels' | 'annotations'], m[2]!) ?? '') : field(path);
      } else value = '';
      if (value !== undefined) env[name] = value;
    }
    return env;
  }

  /**
   * The container's files (its mounts) and environment as the kubelet makes them; a ContainerError's message when
   * an init container's are missing (an app starts with what exists).
   */
  private filesAndEnv(
    pod: KubeObject,
    node: string,
    container: Obj,
    nodeRoot: string,
    init: boolean,
    projected: Projected,
    catalogued = imageSpecOf(text(container['image']) ?? ''),
  ): { fs: ContainerFs; env: Record<string, string> } | string {
    try {
      return { fs: new ContainerFs(this.mounts(pod, container, projected), nodeRoot, catalogued), env: this.env(pod, node, container) };
    } catch (e) {
      if (!(e instanceof ContainerError)) throw e;
      if (init) return e.message;
      return { fs: new ContainerFs(this.serviceAccountMount(projected), nodeRoot, catalogued), env: dict<string>() };
    }
  }

  resumesIdle({ container }: Pick<ContainerStart, 'pod' | 'node' | 'container'>): boolean {
    const spec = container as Obj;
    const image = text(spec['image']) ?? '';
    // What idleArgv reads is the image alone for a container that names no command, args or lifecycle: a restart asks
    // it of tens of thousands of containers of a few images (docs/performance.md §2.26).
    const byImage = spec['command'] === undefined && spec['args'] === undefined && spec['lifecycle'] === undefined;
    if (!byImage || this.host.network) return this.idleWhenResumed(spec, imageSpecOf(image));
    let idle = this.idleImages.get(image);
    if (idle === undefined) this.idleImages.set(image, (idle = this.idleWhenResumed(spec, imageSpecOf(image))));
    return idle;
  }

  /** A resumed app container nothing observes runs nothing when its program only waits without a data plane (ImageSpec.idle). */
  private idleWhenResumed(container: Obj, catalogued: ImageSpec | undefined): boolean {
    return !this.host.network && catalogued !== undefined && idleArgv(catalogued, container);
  }

  /** Starts one of the pod's containers: its catalogued program, or its process (processes.ts), with its environment and files. */
  start({
    pod,
    node,
    container: spec,
    init,
    write,
    notice,
    told,
    stdin,
    setReady,
    netns,
    event,
    probeTarget,
    resumedUnobserved,
    resumed,
  }: ContainerStart): Process {
    const container = spec as Obj;
    const image = text(container['image']) ?? '';
    const catalogued = imageSpecOf(image);
    // A resumed run that goes on as it was (below) reads nothing of the node's root: prepared when something first
    // does (a start, an exec, a plugin), not for every node just after a restart (docs/performance.md §2.18).
    if (resumedUnobserved && !init && this.idleWhenResumed(container, catalogued)) return waitsForStop();
    const command = Array.isArray(container['command']) ? container['command'] : [];
    const args = Array.isArray(container['args']) ? container['args'] : [];
    if (resumed && told && !init && !catalogued && meetsUnemulatedAtOnce([...command, ...args].map(String), runsTool)) {
      // The same container, still running its program that aksemu does not emulate: its run told so (the line in its
      // log, the Warning) and did nothing else, so it is not run again (docs/performance.md §2.18). A session that
      // attaches hears the line again, as it would have.
      told(() => {
        this.host.kubelets.prepare?.(node);
        const projected = projectedServiceAccountWhenRead(this.host.serviceAccounts, pod, node);
        const made = this.filesAndEnv(pod, node, container, this.host.kubelets.nodeRoot(node), false, projected);
        const argv = [...command, ...args].map((a) => expandRefs(String(a), typeof made === 'string' ? {} : made.env));
        return unemulatedNotice(argv, argv, image, text(container['name']) ?? '', false, command.length === 0).line;
      });
      return waitsForStop();
    }
    this.host.kubelets.prepare?.(node);
    const nodeRoot = this.host.kubelets.nodeRoot(node);
    const projected = projectedServiceAccountWhenRead(this.host.serviceAccounts, pod, node);
    const tools = asToolImage(catalogued);
    const made = this.filesAndEnv(pod, node, container, nodeRoot, init, projected, catalogued);
    // Init containers (installers) must not look done when their input is missing.
    if (typeof made === 'string') return failed(made);
    const { fs, env } = made;
    const argv = (tools ? toolImageArgv(tools, command.map(String), args.map(String)) : commandLine(catalogued, command, args)).map((a) =>
      expandRefs(String(a), env),
    );
    const name = text(container['name']) ?? '';
    const found = catalogued ? programFor(catalogued, argv, env) : undefined;
    if (found) {
      // A server answers probes with what it binds (nothing yet); any other program with its own state.
      probeTarget?.(catalogued?.listens ? { kind: 'listeners', listeners: [] } : { kind: 'program' });
      // A pod restored after a restart is attached in the background: its program starts once its namespace is there.
      const podNetns = netns?.();
      const program: Program = async (ctx) => {
        const path = await podNetns;
        return found.program(path ? { ...ctx, netns: path } : ctx);
      };
      return runProgram(program, {
        pod,
        node,
        nodeIp: this.nodeIp(node),
        container: name,
        image,
        argv: found.argv,
        env,
        files: fs,
        nodeRoot,
        api: agentClient(() => this.host.api, `${basename(found.argv[0] ?? name)}/aksemu (linux/amd64) kubernetes/${name}`),
        ...(this.host.network ? { network: this.host.network } : {}),
        write,
        setReady: setReady ?? (() => undefined),
        ...(catalogued?.listens ? { serves: (listeners) => probeTarget?.({ kind: 'listeners', listeners: [...listeners] }) } : {}),
      });
    }
    const warn = (reason: string, message: string) => event?.('Warning', reason, message);
    const runTool = toolCommands({
      pod: pod as KubeObject & Pod,
      image,
      spec: catalogued,
      record: () => this.host.record,
      serviceAccount: projected,
      netns: async () => (await netns?.()) ?? undefined,
      warn,
    });
    return startProcess(argv, env, {
      write,
      read: (path) => fs.read(path),
      command: (argv, io, ctx) => runTool(argv, io, ctx) ?? (init ? this.cniCommand(argv, fs, io) : undefined),
      unknown: init ? 'exits' : 'runs',
      ...(stdin ? { stdin } : {}),
      unemulated: (what) => {
        const { line, message } = unemulatedNotice(what, argv, image, name, init, command.length === 0 && !tools);
        if (notice) notice(line);
        else write('stderr', line);
        warn('NotEmulated', message);
      },
    });
  }

  /**
   * An exec probe's command, read as the container's shell would run it (processes.ts) with its environment and
   * files. A command naming a program aksemu does not emulate, or reading a file of the image (whose content
   * aksemu does not know), is not run: the kubelet is told why instead of a result.
   */
  async execProbe(
    { pod, node, container: spec }: Pick<ContainerStart, 'pod' | 'node' | 'container'>,
    argv: string[],
    timeoutMs: number,
  ): Promise<ExecProbeResult> {
    this.host.kubelets.prepare?.(node);
    const made = this.filesAndEnv(
      pod,
      node,
      spec as Obj,
      this.host.kubelets.nodeRoot(node),
      false,
      projectedServiceAccountWhenRead(this.host.serviceAccounts, pod, node),
    );
    if (typeof made === 'string') return { unsupported: made };
    const { fs, env } = made;
    const image = text((spec as Obj)['image']) ?? '';
    let output = '';
    let unsupported: string | undefined;
    const process = startProcess(argv, env, {
      write: (_stream, t) => {
        if (output.length < PROBE_OUTPUT_MAX) output += t.slice(0, PROBE_OUTPUT_MAX - output.length);
      },
      read: (path) => {
        const content = fs.read(path);
        if (content === null) unsupported ??= `${path} is a file of the image ${image}, whose content aksemu does not know`;
        return content;
      },
      command: (words) => {
        const name = basename(words[0] ?? '');
        if (!PROBE_PROGRAMS.has(name) || (name === 'env' && words.length > 1)) {
          unsupported ??= `aksemu does not emulate ${JSON.stringify(words[0] ?? '')} of the image ${image}`;
          return Promise.resolve(127);
        }
        return undefined;
      },
      unknown: 'exits',
    });
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    const code = await Promise.race([process.exited, timedOut]);
    clearTimeout(timer);
    if (code === 'timeout') process.stop();
    if (unsupported) return { unsupported };
    // pkg/probe/exec: a command past its timeout fails the probe (ExecProbeTimeout), in the runtime's words.
    if (code === 'timeout') return { code: KILLED, output: `command timed out: ${JSON.stringify(argv.join(' '))} timed out after ${timeoutMs / 1000}s` };
    return { code, output };
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
      try {
        status = Math.max(status, this.cpOne(src, dstIsDir ? posix.join(dst, basename(normalize(src))) : dst, dst, dstIsDir, fs, out));
      } catch (e) {
        if (!(e instanceof ContainerError)) throw e;
        out.stderr += `cp: ${e.message}\n`;
        status = 1;
      }
    }
    return status;
  }

  /** One source of cp to its target; returns its status. */
  private cpOne(src: string, target: string, dst: string, dstIsDir: boolean, fs: ContainerFs, out: { stderr: string }): number {
    if (fs.isDir(src)) {
      // `cp -r DIR/. DEST` copies the contents; `cp -r DIR DEST` makes DEST/DIR.
      const into = src.endsWith('/.') || !dstIsDir ? dst : target;
      for (const [rel, content] of fs.readDir(src)) {
        if (content === null) fs.installImageFile(posix.join(normalize(src), rel), posix.join(into, rel));
        else fs.write(posix.join(into, rel), content);
      }
      return 0;
    }
    const content = fs.read(src);
    if (content === undefined) {
      out.stderr += `cp: can't stat '${src}': No such file or directory\n`;
      return 1;
    }
    if (content !== null) {
      fs.write(target, content);
      return 0;
    }
    // A binary the catalogue knows the image holds (a CNI plugin) is installed for real; another file from the
    // image is fine wherever it goes but the conf dir, whose content we must know.
    if (fs.imageFile(src)) fs.installImageFile(src, target);
    else if (fs.touchesConfDir(target)) {
      out.stderr += `cp: aksemu cannot read '${src}' (it is in the container image, not in a ConfigMap volume) to write it to '${target}'\n`;
      return 1;
    }
    return 0;
  }
}

/**
 * aksemu's line (into the container's log, and to sessions that attach) and its Warning's message when the process
 * of argv meets `what`, a program aksemu does not emulate. `byEntrypoint`: no command, so args go to the image's
 * ENTRYPOINT, which aksemu does not know.
 */
function unemulatedNotice(
  what: string[],
  argv: string[],
  image: string,
  name: string,
  init: boolean,
  byEntrypoint: boolean,
): { line: string; message: string } {
  const quoted = (words: string[]) => JSON.stringify(words.join(' ').slice(0, 200));
  const entrypointArgs = byEntrypoint && what.length > 0 && what.length === argv.length && what.every((w, i) => w === argv[i]);
  const program = what.length === 0 ? 'its entrypoint' : entrypointArgs ? `its entrypoint with the arguments ${quoted(what)}` : quoted(what);
  const instead = init ? 'the init container exits 0 at once' : 'the container runs idle until it is stopped';
  return {
    line: `aksemu: image ${image} runs ${program}, which aksemu does not emulate: ${instead} (docs/clients.md §5.16)\n`,
    message: `aksemu does not emulate ${program} of image ${image} (container ${name}): ${instead}`,
  };
}

/** A process that has already ended with that status. */
function exited(code: number, message?: string): Process {
  return { exited: Promise.resolve(code), stop: () => {}, ...(message !== undefined ? { message } : {}) };
}

/**
 * The container's command and args as the runtime runs them, before `$(VAR)` expansion: args without a command are
 * the image's ENTRYPOINT's arguments (coredns: `-conf /etc/coredns/Corefile`).
 */
function commandLine(catalogued: ImageSpec | undefined, command: unknown[], args: unknown[]): unknown[] {
  return [...(command.length === 0 && args.length > 0 && catalogued?.entrypoint ? catalogued.entrypoint : command), ...args];
}

/**
 * Whether the container's program, as its command and args name it, is one its image says only waits when no data
 * plane runs (ImageSpec.idle): argv as start() makes it, known without the environment (no `$(VAR)` in it).
 */
function idleArgv(spec: ImageSpec, container: Obj): boolean {
  if (!spec.idle || asToolImage(spec) || container['lifecycle'] !== undefined) return false;
  const command = Array.isArray(container['command']) ? container['command'].map(String) : [];
  const args = Array.isArray(container['args']) ? container['args'].map(String) : [];
  if ([...command, ...args].some((a) => a.includes('$('))) return false;
  const argv = commandLine(spec, command, args).map(String);
  const words = argv.length > 0 ? argv : (spec.entrypoint ?? []);
  // Only a program of the image named directly: a shell's script is read with the environment (programFor).
  return programOf(spec, words[0] ?? '') !== undefined && spec.idle(words);
}

/** A process that does nothing until it is stopped, then ends as a killed one does (137). */
function waitsForStop(): Process {
  let stop = () => {};
  const exited = new Promise<number>((resolve) => {
    stop = () => resolve(KILLED);
  });
  return { exited, stop: () => stop() };
}

/** A container the runtime could not start as asked: it ends at once with the kubelet's reason as its message. */
function failed(message: string): Process {
  return exited(1, message);
}

export function createContainerRunner(
  runtime: InitHost,
): ContainerRunner & Required<Pick<ContainerRunner, 'execProbe'>> & { run(pod: KubeObject, node: string): Promise<string | undefined> } {
  return new Runner(runtime);
}
