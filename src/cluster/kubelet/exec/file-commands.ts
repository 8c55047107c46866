// The exec commands that work on the container's filesystem rather than the network: `tar` and `test`, what
// `kubectl cp` runs (`test -d DEST`, then `tar -xmf - -C DIR` with the archive on stdin; `tar cf - PATH` the other
// way). They are busybox's applets (busybox-tar.ts), run by the kubelet itself over the container's filesystem
// (container-rootfs.ts), so they need no network namespace: `kubectl cp` works with or without a data plane.
// docs/clients.md §5.21.
import { lstat } from 'node:fs/promises';
import { PassThrough } from 'node:stream';
import { EXEC_LIMITS } from '../../../dataplane/netns/exec-sandbox.js';
import { busyboxTar } from './busybox-tar.js';
import { type ContainerRootfs, containerPath } from '../container-rootfs.js';

/** The commands served here, by argv[0] (`/bin/tar` is tar). */
export const FILE_COMMANDS: readonly string[] = ['tar', 'test'];

const BIN_DIRS = ['/bin', '/sbin', '/usr/bin', '/usr/sbin', '/usr/local/bin', '/usr/local/sbin'];

/** The file command argv[0] names, else undefined. */
export function fileCommand(argv0: string): string | undefined {
  const slash = argv0.lastIndexOf('/');
  if (slash >= 0 && !BIN_DIRS.includes(argv0.slice(0, slash))) return undefined;
  const name = argv0.slice(slash + 1);
  return FILE_COMMANDS.includes(name) ? name : undefined;
}

/** stdin a command has not read yet, at most (kubectl's writer waits meanwhile). */
const STDIN_BUFFER_BYTES = 1024 * 1024;

/** busybox's `test` for one path or string: -d -e -f -s -r -w -x -n -z; 0 true, 1 false, 2 a usage it does not serve. */
export async function busyboxTest(args: readonly string[], fs: ContainerRootfs, cwd: string, stderr: (text: string) => void): Promise<number> {
  if (args.length === 0) return 1;
  if (args.length === 1) return args[0] === '' ? 1 : 0;
  const [op, operand] = args as [string, string];
  if (args.length !== 2 || !['-d', '-e', '-f', '-s', '-r', '-w', '-x', '-n', '-z'].includes(op)) {
    stderr(`test: aksemu serves test with one operator of -d -e -f -s -r -w -x -n -z and its operand (docs/clients.md §5.21)\n`);
    return 2;
  }
  if (op === '-n') return operand !== '' ? 0 : 1;
  if (op === '-z') return operand === '' ? 0 : 1;
  await fs.ensure();
  const st = await lstat(fs.real(containerPath(operand, cwd))).catch(() => undefined);
  if (!st) return 1;
  // The container's user is root: whatever exists is readable and writable; -x as the mode says.
  const yes = op === '-d' ? st.isDirectory() : op === '-f' ? st.isFile() : op === '-s' ? st.size > 0 : op === '-x' ? (st.mode & 0o111) !== 0 : true;
  return yes ? 0 : 1;
}

/** Where a file command's output and end go (command.ts turns the end into the kubelet's Status). */
export interface FileCommandIO {
  stdout(data: Buffer): void;
  stderr(data: Buffer): void;
  /** The command's exit status, or why it could not run. */
  exit(code: number | Error): void;
}

/** Runs a file command of the exec, its stdin from the client (command.ts's RunningCommand). */
export function startFileCommand(
  name: string,
  fs: ContainerRootfs,
  cwd: string,
  options: { command: readonly string[]; stdin: boolean; stderr: boolean },
  io: FileCommandIO,
) {
  const stdin = options.stdin ? new PassThrough({ highWaterMark: STDIN_BUFFER_BYTES }) : undefined;
  const stderr = (text: string) => (options.stderr ? io.stderr : io.stdout)(Buffer.from(text));
  const args = options.command.slice(1);
  let done = false;
  const finish = (end: number | Error) => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    io.exit(end);
  };
  // A client that never ends the archive it sends: the bound of every exec (exec-sandbox.ts), then 128 + SIGKILL.
  const timer = setTimeout(() => {
    stderr(`aksemu: ${name} was stopped: it ran past ${EXEC_LIMITS.maxDurationMs / 60_000} minutes (docs/clients.md §5.18)\n`);
    stdin?.destroy();
    finish(137);
  }, EXEC_LIMITS.maxDurationMs);
  timer.unref();
  const run = name === 'tar' ? busyboxTar(args, fs, cwd, { stdout: io.stdout, stderr }, stdin) : busyboxTest(args, fs, cwd, stderr);
  run.then(finish, (e: unknown) => finish(e instanceof Error ? e : new Error(String(e))));
  return {
    stdin: (data: Buffer) => (stdin && !stdin.writableEnded && !done ? stdin.write(data) : true),
    endStdin: () => stdin?.end(),
    onDrain: (listener: () => void) => stdin?.on('drain', listener),
    abort: () => {
      done = true;
      clearTimeout(timer);
      stdin?.destroy();
    },
  };
}
