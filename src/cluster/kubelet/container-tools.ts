// The network tools a container's process calls (wget, curl, nc, nslookup, …: the ones `kubectl exec` runs),
// run for real in the pod's network namespace inside the same sandbox as exec (dataplane/netns/exec-sandbox.ts),
// each as the image's build of it (images/network-tools.ts): their output is the container's log and their exit
// status the command's. Without a network namespace (no data plane, a host-network pod) nothing can be reached:
// the log and a Warning event say why, and the tool exits 1. docs/clients.md §5.16.
import type { ChildProcess } from 'node:child_process';
import { EXEC_TOOLS, spawnSandboxed } from '../../dataplane/netns/exec-sandbox.js';
import { aksKubeletDns, podEtcFiles } from './pod-files.js';
import { toolName, toolRun } from '../images/network-tools.js';
import type { ClusterRecord } from '../../model/cluster-records.js';
import type { ImageSpec } from '../images/program.js';
import type { KubeObject } from '../apimachinery/object.js';
import type { Pod } from '../apimachinery/types.js';
import type { CommandContext, ProcessIo, ProcessStdin } from '../images/processes.js';

/** What processes.ts emulates itself (cat of mounted files, echo…): never sent to the sandbox. */
const BUILTINS = new Set(['cat', 'echo', 'sleep', 'true', 'false']);

/** The tools a container's command runs in the sandbox. */
export const CONTAINER_TOOLS: readonly string[] = EXEC_TOOLS.filter((t) => !BUILTINS.has(t));

/** A loop calling a tool rests this long between runs (each run builds a sandbox). */
const MIN_SPACING_MS = 100;

const SIGNALS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGPIPE: 13, SIGTERM: 15 };

export interface ToolHost {
  pod: KubeObject & Pod;
  image: string;
  /** The image's catalogue entry (its tools and their builds), if any. */
  spec: ImageSpec | undefined;
  record: () => ClusterRecord | undefined;
  /** The pod's projected service-account files (token, ca.crt, namespace), unless it opts out: made when a tool runs. */
  serviceAccount?: (() => ReadonlyMap<string, string>) | undefined;
  /** The pod's network namespace once attached; undefined without one. */
  netns: () => Promise<string | undefined>;
  /** A Warning event on the pod (for this container). */
  warn(reason: string, message: string): void;
}

/** Whether argv[0] names a network tool the `command` hook below runs (in the sandbox, or tells why it cannot). */
export function runsTool(argv0: string): boolean {
  return CONTAINER_TOOLS.includes(toolName(argv0));
}

/** The `command` hook of processes.ts that runs network tools for one container run. */
export function toolCommands(host: ToolHost): (argv: string[], io: ProcessIo, ctx: CommandContext) => Promise<number> | undefined {
  let last = 0;
  const warned = new Set<string>();
  const warnOnce = (reason: string, message: string) => {
    if (warned.has(message)) return;
    warned.add(message);
    host.warn(reason, message);
  };
  return (argv, io, ctx) => {
    if (!runsTool(argv[0] ?? '')) return undefined;
    const name = toolName(argv[0] ?? '');
    return (async () => {
      const run = toolRun(host.spec, argv);
      if (run.kind === 'missing') {
        io.write('stderr', ctx.shell ? `${ctx.shell}: ${name}: not found\n` : `exec: "${name}": executable file not found in $PATH\n`);
        return 127;
      }
      const netns = host.pod.spec?.hostNetwork ? undefined : await host.netns();
      if (!netns) {
        const why = host.pod.spec?.hostNetwork
          ? `pod ${host.pod.metadata.name} uses the host's network, where aksemu runs no tools`
          : `pod ${host.pod.metadata.name} has no network namespace: aksemu runs network tools only with a data plane (aksemu start --dataplane netns, as root)`;
        io.write('stderr', `aksemu: ${name} cannot reach anything: ${why} (docs/clients.md §5.16)\n`);
        warnOnce('NoPodNetwork', `${name} cannot reach anything: ${why}`);
        return 1;
      }
      if (run.kind === 'other-build')
        warnOnce(
          'ToolBuildNotEmulated',
          `aksemu runs the host's ${name} (${run.hostBuild}) for the ${run.build} ${name} of image ${host.image}: its options, messages and exit codes may differ`,
        );
      const wait = last + MIN_SPACING_MS - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      last = Date.now();
      if (ctx.signal.aborted) return 137;
      const pod = host.pod;
      const record = host.record();
      const ips = (pod.status?.podIPs ?? []).map((p) => p.ip).filter(Boolean);
      const etc = record
        ? podEtcFiles(pod, aksKubeletDns(record), ips.length > 0 ? ips : pod.status?.podIP ? [pod.status.podIP] : [])
        : { resolvConf: '', hosts: '' };
      const child = spawnSandboxed(
        {
          netns,
          hostname: pod.metadata.name,
          ...etc,
          ...(host.serviceAccount ? { serviceAccount: host.serviceAccount() } : {}),
          ...(run.kind === 'emulated' ? { program: run.program } : {}),
        },
        run.argv,
      );
      return finished(child, io, ctx.signal, ctx.input ?? ctx.stdin);
    })();
  };
}

/**
 * The child's output into the log; its status (128 + N for a signal) once it ends; killed on abort. Its stdin is
 * a pipeline's text, or the container's stdin line by line as it comes (what `kubectl attach` sends), or none.
 */
function finished(child: ChildProcess, io: ProcessIo, signal: AbortSignal, stdin: string | ProcessStdin = ''): Promise<number> {
  return new Promise((resolve) => {
    const kill = () => child.kill('SIGKILL');
    signal.addEventListener('abort', kill, { once: true });
    child.stdin?.on('error', () => undefined);
    if (typeof stdin === 'string') child.stdin?.end(stdin);
    else void pump(stdin, child, signal);
    child.stdout?.setEncoding('utf8').on('data', (d: string) => io.write('stdout', d));
    child.stderr?.setEncoding('utf8').on('data', (d: string) => io.write('stderr', d));
    child.on('error', (e) => {
      io.write('stderr', `aksemu: could not start the tool: ${e.message}\n`);
      signal.removeEventListener('abort', kill);
      resolve(126);
    });
    child.on('close', (code, sig) => {
      signal.removeEventListener('abort', kill);
      resolve(sig ? 128 + (SIGNALS[sig] ?? 9) : (code ?? 137));
    });
  });
}

/** The container's stdin into the tool's, until either ends (a ^C line, null, is the terminal's: dropped). */
async function pump(input: ProcessStdin, child: ChildProcess, signal: AbortSignal): Promise<void> {
  const done = new AbortController();
  child.on('close', () => done.abort());
  const stop = AbortSignal.any([signal, done.signal]);
  for (;;) {
    const line = await input.line(stop).catch(() => undefined);
    if (line === undefined || !child.stdin || child.stdin.writableEnded) break;
    if (line !== null && !child.stdin.write(`${line}\n`))
      await new Promise((resolve) => {
        child.stdin!.once('drain', resolve);
        child.once('close', resolve);
      });
  }
  child.stdin?.end();
}
