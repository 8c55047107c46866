// One `kubectl exec` command, whatever carries its streams (websocket channels or SPDY streams): the allow-list
// check, the sandboxed process in the pod's network namespace (dataplane/netns/exec-sandbox.ts), its bounds, and
// the Status the kubelet writes on the error stream when it ends (kubelet pkg/kubelet/cri/streaming/
// remotecommand/exec.go ServeExec: Success, or Failure with reason NonZeroExitCode and an ExitCode cause, which
// client-go's errorDecoderV4 turns into `command terminated with exit code N`; anything else InternalError).
import { EXEC_LIMITS, EXEC_TOOLS, execTool, spawnSandboxed } from '../../../dataplane/netns/exec-sandbox.js';
import { imageSpecOf } from '../../images/catalogue.js';
import { toolRun } from '../../images/network-tools.js';
import { fileCommand, startFileCommand } from './file-commands.js';
import type { ExecOptions, ExecTarget } from './target.js';

/** Where a command's output and its final Status go. */
export interface CommandIO {
  stdout(data: Buffer): void;
  stderr(data: Buffer): void;
  /** The error stream's Status; then the session closes. */
  finish(status: Record<string, unknown>): void;
}

export interface RunningCommand {
  /** Data for the command's stdin; false when the caller should wait for onDrain before sending more. */
  stdin(data: Buffer): boolean;
  endStdin(): void;
  onDrain(listener: () => void): void;
  /** The client went away: the command is killed. */
  abort(): void;
}

export const SUCCESS: Record<string, unknown> = { metadata: {}, status: 'Success' };

/** The kubelet's Status for a command that exited with `code` (remotecommand's NonZeroExitCode / ExitCode). */
export function exitStatus(command: readonly string[], code: number): Record<string, unknown> {
  return {
    metadata: {},
    status: 'Failure',
    message: `command terminated with non-zero exit code: command '${command.join(' ')}' exited with ${code}`,
    reason: 'NonZeroExitCode',
    details: { causes: [{ reason: 'ExitCode', message: String(code) }] },
  };
}

/** A command that could not be run at all (kubectl prints `error: Internal error occurred: …`). */
export function internalStatus(why: string): Record<string, unknown> {
  return {
    metadata: {},
    status: 'Failure',
    message: `Internal error occurred: error executing command in container: ${why}`,
    reason: 'InternalError',
    details: { causes: [{ message: `error executing command in container: ${why}` }] },
    code: 500,
  };
}

/** 127, as a container runtime answers for a command its image does not have: aksemu's pods "have" only the allow-list. */
const NOT_FOUND = 127;
/** 128 + SIGKILL, as containerd reports a command killed (aksemu's bounds kill it). */
const KILLED = 137;

const SIGNALS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGPIPE: 13, SIGTERM: 15 };

export function startCommand(target: ExecTarget, options: ExecOptions, io: CommandIO): RunningCommand {
  const [argv0 = ''] = options.command;
  const tool = execTool(argv0);
  const noop: RunningCommand = { stdin: () => true, endStdin: () => undefined, onDrain: () => undefined, abort: () => undefined };
  const tell = (text: string) => (options.stderr ? io.stderr : io.stdout)(Buffer.from(text));
  // tar and test (kubectl cp) work on the container's filesystem, in the kubelet (file-commands.ts).
  const file = fileCommand(argv0);
  if (file && target.files) {
    const exit = (end: number | Error) =>
      io.finish(end instanceof Error ? internalStatus(end.message) : end === 0 ? SUCCESS : exitStatus(options.command, end));
    return startFileCommand(file, target.files.rootfs, target.files.cwd, options, { stdout: io.stdout, stderr: io.stderr, exit });
  }
  if (!tool) {
    tell(
      `aksemu: kubectl exec runs only network tools in a pod (${EXEC_TOOLS.join(', ')}); ${JSON.stringify(argv0)} is not one of them (docs/clients.md §5.18)\n`,
    );
    io.finish(exitStatus(options.command, NOT_FOUND));
    return noop;
  }
  // The image's build of the tool (busybox's wget in a busybox pod); one the image lacks is not found.
  const spec = target.pod.spec;
  const image =
    [...(spec?.containers ?? []), ...(spec?.initContainers ?? []), ...(spec?.ephemeralContainers ?? [])].find((c) => c.name === target.container)?.image ?? '';
  const run = toolRun(imageSpecOf(String(image)), options.command);
  if (run.kind === 'missing') {
    tell(`aksemu: image ${image} has no ${run.name} (docs/clients.md §5.18)\n`);
    io.finish(exitStatus(options.command, NOT_FOUND));
    return noop;
  }
  const child = spawnSandboxed(
    {
      netns: target.netns,
      hostname: target.pod.metadata.name,
      resolvConf: target.etc.resolvConf,
      hosts: target.etc.hosts,
      ...(target.etc.serviceAccount ? { serviceAccount: target.etc.serviceAccount } : {}),
      tty: options.tty,
      ...(run.kind === 'emulated' ? { program: run.program } : {}),
      // What kubectl cp put in the container's /tmp is there to read (container-rootfs.ts).
      ...(target.files ? { tmpLower: target.files.rootfs.real('/tmp') } : {}),
    },
    run.argv,
  );
  let output = 0;
  let killedWhy: string | undefined;
  const kill = (why: string) => {
    killedWhy ??= why;
    child.kill('SIGKILL');
  };
  const timer = setTimeout(() => kill(`ran past ${EXEC_LIMITS.maxDurationMs / 60_000} minutes`), EXEC_LIMITS.maxDurationMs);
  timer.unref();
  const forward = (write: (d: Buffer) => void) => (data: Buffer) => {
    output += data.length;
    if (output > EXEC_LIMITS.maxOutputBytes) return kill(`wrote more than ${EXEC_LIMITS.maxOutputBytes / (1024 * 1024)} MiB`);
    write(data);
  };
  child.stdout?.on('data', forward(io.stdout));
  child.stderr?.on('data', forward(options.stderr ? io.stderr : io.stdout));
  child.stdin?.on('error', () => undefined);
  if (!options.stdin) child.stdin?.end();
  let done = false;
  const finish = (status: Record<string, unknown>) => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    io.finish(status);
  };
  child.on('error', (e) => finish(internalStatus(e.message)));
  child.on('close', (code, signal) => {
    if (done) return;
    if (killedWhy) tell(`aksemu: ${argv0} was stopped: it ${killedWhy} (docs/clients.md §5.18)\n`);
    const rc = signal ? 128 + (SIGNALS[signal] ?? 9) : (code ?? KILLED);
    finish(rc === 0 ? SUCCESS : exitStatus(options.command, rc));
  });
  return {
    stdin: (data) => {
      if (!child.stdin || child.stdin.writableEnded) return true;
      // A client that keeps sending to a command that does not read: bounded like the output.
      if (child.stdin.writableLength > EXEC_LIMITS.maxOutputBytes) {
        kill('was sent more input than it read');
        return true;
      }
      return child.stdin.write(data);
    },
    endStdin: () => child.stdin?.end(),
    onDrain: (listener) => child.stdin?.on('drain', listener),
    abort: () => {
      if (!done) kill('lost its client');
      done = true;
    },
  };
}
