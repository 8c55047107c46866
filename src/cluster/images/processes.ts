// What an emulated container's process does. Nothing is executed on the host: the container's command is read
// as the image's shell would run it. `sh -c SCRIPT` (init-shell.ts parses it) and plain argv run the programs
// busybox gives small images: echo, printf, true, false, `:`, exit N, sleep N, cat (of files the container has
// mounted from ConfigMaps and Secrets), env / printenv; `$VAR` is expanded from the container's environment. A
// script that ends is a process that exits with its status. Any other program (an image's own entrypoint:
// nginx, calico-node…) is not emulated: it runs until it is stopped and prints nothing, unless the caller says
// such programs exit at once (the CNI installers of init-containers.ts).
import { basename } from 'node:path';
import { parseScript, runList, ShellSyntaxError } from './init-shell.js';

export type Stream = 'stdout' | 'stderr';

export interface ProcessIo {
  /** What the process prints. */
  write(stream: Stream, text: string): void;
  /** A file as the container sees it: its content, undefined when missing, null when it is in the image (unknown). */
  read(path: string): string | undefined | null;
  /** Commands the caller emulates itself (the CNI installers' cp, mkdir); undefined when argv is not one. */
  command?(argv: string[], io: ProcessIo): Promise<number> | undefined;
  /** What a program aksemu cannot emulate does: run until stopped (an app) or exit 0 at once (an installer). */
  unknown: 'runs' | 'exits';
}

export interface Process {
  /** The exit status, once the process ends (never, for a program that runs until stopped). */
  readonly exited: Promise<number>;
  /** What the runtime reports as the termination message when it could not run the process as asked. */
  readonly message?: string;
  /** Kills the process (SIGKILL: status 137). */
  stop(): void;
}

export const SHELLS = new Set(['sh', 'bash', 'ash', 'dash']);

/** The status of a process killed by SIGKILL, as the runtime reports it. */
export const KILLED = 137;

class Stopped extends Error {}

/** `sleep`'s operand: seconds with an optional s/m/h/d suffix; infinity runs forever. */
function sleepMs(arg: string | undefined): number | undefined {
  if (arg === 'infinity' || arg === 'inf') return Number.POSITIVE_INFINITY;
  const m = /^(\d+(?:\.\d*)?|\.\d+)([smhd]?)$/.exec(arg ?? '');
  if (!m) return undefined;
  const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[m[2] as '' | 's' | 'm' | 'h' | 'd'];
  return Number(m[1]) * unit * 1000;
}

/** Backslash escapes as echo -e and printf read them. */
function escapes(s: string): string {
  return s.replace(/\\([\\abfnrtv0]|x[0-9a-fA-F]{1,2})/g, (_, e: string) => {
    if (e.startsWith('x')) return String.fromCharCode(parseInt(e.slice(1), 16));
    return { '\\': '\\', a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '0': '\0' }[e] ?? e;
  });
}

/** printf FORMAT ARGS…: %s %d %i %c %x %%, the format reused while arguments remain. */
function printf(format: string, args: string[]): string {
  let out = '';
  let rest = [...args];
  do {
    let used = 0;
    out += escapes(format).replace(/%(-?\d*)([sdicx%])/g, (_, width: string, conv: string) => {
      if (conv === '%') return '%';
      used++;
      const arg = rest.shift() ?? '';
      let v = arg;
      if (conv === 'd' || conv === 'i') v = String(Number.parseInt(arg, 10) || 0);
      else if (conv === 'x') v = (Number.parseInt(arg, 10) || 0).toString(16);
      else if (conv === 'c') v = arg.slice(0, 1);
      const w = Number(width.replace('-', '')) || 0;
      return width.startsWith('-') ? v.padEnd(w) : v.padStart(w);
    });
    if (used === 0) rest = [];
  } while (rest.length > 0);
  return out;
}

class Runner implements Process {
  readonly exited: Promise<number>;
  private stopped = false;
  private wake: (() => void) | undefined;
  private commands = 0;

  constructor(
    argv: string[],
    private readonly env: Record<string, string>,
    private readonly io: ProcessIo,
  ) {
    this.exited = this.main(argv).catch((e) => {
      if (e instanceof Stopped) return KILLED;
      throw e;
    });
  }

  stop(): void {
    this.stopped = true;
    this.wake?.();
  }

  /** Waits ms (forever when infinite) unless the process is stopped first. */
  private pause(ms: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = Number.isFinite(ms) ? setTimeout(resolve, ms) : undefined;
      timer?.unref();
      this.wake = () => {
        clearTimeout(timer);
        reject(new Stopped());
      };
      if (this.stopped) this.wake();
    });
  }

  private async main(argv: string[]): Promise<number> {
    const program = basename(argv[0] ?? '');
    const flagAt = argv.findIndex((a, i) => i > 0 && /^-[a-z]*c[a-z]*$/.test(a));
    if (SHELLS.has(program) && flagAt > 0) {
      try {
        const commands = parseScript(argv[flagAt + 1] ?? '', this.env);
        return await runList(commands, (cmd) => this.simple(cmd), argv[flagAt]!.includes('e'));
      } catch (e) {
        if (!(e instanceof ShellSyntaxError)) throw e;
        this.io.write('stderr', `${program}: syntax error: ${e.message}\n`);
        return 2;
      }
    }
    if (argv.length === 0) return this.unknown();
    return this.simple(argv);
  }

  /** A program that is not emulated. */
  private async unknown(): Promise<number> {
    if (this.io.unknown === 'exits') return 0;
    await this.pause(Number.POSITIVE_INFINITY);
    return 0;
  }

  /** One simple command; returns its status. */
  private async simple(words: string[]): Promise<number> {
    if (this.stopped) throw new Stopped();
    // A busy loop must not starve the server: every command yields, and every fiftieth rests 20 ms (at most
    // 2,500 commands a second per container).
    if (++this.commands % 50 === 0) await this.pause(20);
    else await new Promise<void>((resolve) => setImmediate(resolve));
    // Redirections of the standard streams: `>&2` sends stdout to stderr, `>/dev/null` drops it.
    let toStderr = false;
    let silent = false;
    const argv: string[] = [];
    for (const w of words) {
      if (w === '>&2' || w === '1>&2') toStderr = true;
      else if (w === '>/dev/null' || w === '1>/dev/null' || w === '&>/dev/null') silent = true;
      else if (!/^2>(&1|\/dev\/null)$/.test(w)) argv.push(w);
    }
    const io: ProcessIo = {
      ...this.io,
      write: (stream, text) => {
        if (stream === 'stdout' && silent) return;
        this.io.write(stream === 'stdout' && toStderr ? 'stderr' : stream, text);
      },
    };
    const own = this.io.command?.(argv, io);
    if (own) return own;
    const [name = '', ...args] = argv;
    switch (basename(name)) {
      case 'true':
      case ':':
        return 0;
      case 'false':
        return 1;
      case 'echo': {
        let newline = true;
        let interpret = false;
        while (/^-[neE]+$/.test(args[0] ?? '')) {
          const flags = args.shift()!;
          if (flags.includes('n')) newline = false;
          if (flags.includes('e')) interpret = true;
        }
        const text = args.join(' ');
        io.write('stdout', `${interpret ? escapes(text) : text}${newline ? '\n' : ''}`);
        return 0;
      }
      case 'printf':
        if (args.length === 0) {
          io.write('stderr', 'printf: usage: printf FORMAT [ARGUMENT...]\n');
          return 1;
        }
        io.write('stdout', printf(args[0]!, args.slice(1)));
        return 0;
      case 'sleep': {
        const ms = sleepMs(args[0]);
        if (ms === undefined) {
          io.write('stderr', `sleep: invalid number '${args[0] ?? ''}'\n`);
          return 1;
        }
        await this.pause(ms);
        return 0;
      }
      case 'cat': {
        let status = 0;
        for (const file of args.filter((a) => a !== '-')) {
          const content = io.read(file);
          if (content === undefined) {
            io.write('stderr', `cat: can't open '${file}': No such file or directory\n`);
            status = 1;
          } else if (content !== null) io.write('stdout', content);
        }
        return status;
      }
      case 'env':
      case 'printenv': {
        if (args.length === 0) {
          io.write(
            'stdout',
            Object.entries(this.env)
              .map(([k, v]) => `${k}=${v}\n`)
              .join(''),
          );
          return 0;
        }
        // `env PROGRAM…` runs a program with a changed environment: not emulated.
        if (basename(name) === 'env') return this.unknown();
        const found = args.filter((a) => Object.hasOwn(this.env, a));
        io.write('stdout', found.map((a) => `${this.env[a]}\n`).join(''));
        return found.length === args.length ? 0 : 1;
      }
      default:
        return this.unknown();
    }
  }
}

/** Starts a container's process: argv is its command and args, already `$(VAR)`-expanded. */
export function startProcess(argv: string[], env: Record<string, string>, io: ProcessIo): Process {
  return new Runner(argv, env, io);
}
