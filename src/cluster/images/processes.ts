// What an emulated container's process does. Nothing is executed on the host: the container's command is read
// as the image's shell would run it. `sh -c SCRIPT` (init-shell.ts parses it) and plain argv run the programs
// busybox gives small images: echo, printf, true, false, `:`, exit N, sleep N, cat (of files the container has
// mounted from ConfigMaps and Secrets, or its stdin), env / printenv, and grep / head / tail / wc over a
// pipeline's input; `$VAR` is expanded from the container's environment. A
// script that ends is a process that exits with its status. The caller may run commands itself (the network
// tools, for real in the pod's sandbox: kubelet/container-tools.ts; the CNI installers' cp). A shell with no
// script and no stdin (an image's CMD `sh`) exits at once, as sh reading /dev/null does; with stdin (`stdin:
// true`, what `kubectl attach` and `kubectl run -i` write into) it reads command lines from it with the same
// rules, prompting `/ # ` on a terminal as busybox's sh does, until `exit` or the end of its input. Any other program (an
// image's own entrypoint) is not emulated: the caller is told (a log line and a Warning) and it runs until it
// is stopped, unless the caller says such programs exit at once (the CNI installers of init-containers.ts).
import { basename } from 'node:path';
import { parseScript, runList, runScript, ShellSyntaxError } from './init-shell.js';

export type Stream = 'stdout' | 'stderr';

export interface ProcessIo {
  /** What the process prints. */
  write(stream: Stream, text: string): void;
  /** A file as the container sees it: its content, undefined when missing, null when it is in the image (unknown). */
  read(path: string): string | undefined | null;
  /**
   * Commands the caller runs itself (network tools, the CNI installers' cp, mkdir); undefined when argv is not
   * one. `shell` is the shell running it (undefined for the container's own argv); `signal` aborts on stop.
   */
  command?(argv: string[], io: ProcessIo, ctx: CommandContext): Promise<number> | undefined;
  /** What a program aksemu cannot emulate does: run until stopped (an app) or exit 0 at once (an installer). */
  unknown: 'runs' | 'exits';
  /** Told once per process when it meets a program aksemu cannot emulate (argv empty: the image's own entrypoint). */
  unemulated?(argv: string[]): void;
  /** The container's stdin (`stdin: true`): a shell without a script reads its commands from it instead of exiting. */
  stdin?: ProcessStdin;
}

/** A line of the container's stdin, the end of it (undefined), or an interrupt typed at the terminal (null: ^C). */
export type StdinLine = string | undefined | null;

/** The container's stdin as its process reads it (the runtime keeps it: kubelet/container-io.ts). */
export interface ProcessStdin {
  /** The stdin is a terminal (`tty: true`): a shell prompts, and ^C interrupts what it runs. */
  readonly tty: boolean;
  /** The next line, without its newline; rejects when `signal` aborts. */
  line(signal: AbortSignal): Promise<StdinLine>;
  /** ^C typed while the process is not reading: what it runs is interrupted. */
  onInterrupt(listener: () => void): void;
}

export interface CommandContext {
  signal: AbortSignal;
  shell?: string;
  /** What a pipeline's previous stage printed: the command's stdin (none: /dev/null). */
  stdin?: string;
  /** The container's own stdin, when the command is the container's process (`kubectl run -i -- nc …`). */
  input?: ProcessStdin;
}

/** A pipeline stage's input and where its stdout goes (the next stage's input). */
interface Pipe {
  stdin?: string;
  /** The container's stdin, read as it comes. */
  input?: ProcessStdin;
  stdout?: (text: string) => void;
}

/** What a pipeline stage may hand the next one (the rest is dropped, as a full pipe would block). */
const MAX_PIPE_BYTES = 4 * 1024 * 1024;

export interface Process {
  /** The exit status, once the process ends (never, for a program that runs until stopped). */
  readonly exited: Promise<number>;
  /** What the runtime reports as the termination message when it could not run the process as asked. */
  readonly message?: string;
  /** Kills the process (SIGKILL: status 137). */
  stop(): void;
}

export const SHELLS = new Set(['sh', 'bash', 'ash', 'dash', 'zsh']);

/**
 * The programs `simple` runs itself (`env` with a program is not emulated): its switch answers these and no other,
 * so meetsUnemulatedAtOnce and the runner read one list.
 */
const EMULATED = new Set(['true', ':', 'false', 'echo', 'printf', 'sleep', 'grep', 'head', 'tail', 'wc', 'cat', 'env', 'printenv']);

/** Each shell's prompt as root in `/` (busybox's and alpine's sh and ash: PS1 `\w \$ `; bash's default `\s-\v\$ `). */
const PROMPTS: Readonly<Record<string, string>> = { sh: '/ # ', ash: '/ # ', bash: 'bash-5.2# ', dash: '# ', zsh: '# ' };
/** The continuation prompt (PS2), while a quote or a block is still open. */
const PS2 = '> ';
/** The status of a command line an interactive shell could not run (sh's for a program it cannot execute). */
const NOT_EMULATED = 127;
/** What ^C leaves as a command's status (128 + SIGINT). */
const INTERRUPTED = 130;

/** The status of a process killed by SIGKILL, as the runtime reports it. */
export const KILLED = 137;

class Stopped extends Error {}
/** ^C on the terminal: the command line being run is abandoned. */
class Interrupted extends Error {}

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
  private readonly abort = new AbortController();
  /**
   * Aborts the command line being run when ^C is typed (interactive shells: only those read it, so only they make its
   * signal; an app's process never does, and a restart starts tens of thousands).
   */
  private line = new AbortController();
  private shell: string | undefined;
  private warned = false;
  /** An interactive shell: its commands come from its stdin. */
  private reading = false;

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
    this.abort.abort();
    this.wake?.();
  }

  /** ^C interrupted the command line being run (only a shell reading its stdin is interrupted). */
  private interrupted(): boolean {
    return this.reading && this.line.signal.aborted;
  }

  /** Waits ms (forever when infinite) unless the process is stopped (or its command line interrupted) first. */
  private pause(ms: number): Promise<void> {
    const line = this.reading ? this.line.signal : undefined;
    let interrupted = () => {};
    return new Promise<void>((resolve, reject) => {
      const timer = Number.isFinite(ms) ? setTimeout(resolve, ms) : undefined;
      timer?.unref();
      interrupted = () => {
        clearTimeout(timer);
        reject(new Interrupted());
      };
      line?.addEventListener('abort', interrupted, { once: true });
      this.wake = () => {
        clearTimeout(timer);
        reject(new Stopped());
      };
      if (this.stopped) this.wake();
    }).finally(() => line?.removeEventListener('abort', interrupted));
  }

  private async main(argv: string[]): Promise<number> {
    const program = basename(argv[0] ?? '');
    const flagAt = argv.findIndex((a, i) => i > 0 && /^-[a-z]*c[a-z]*$/.test(a));
    if (SHELLS.has(program) && flagAt > 0) {
      this.shell = program;
      try {
        const commands = parseScript(argv[flagAt + 1] ?? '', this.env);
        return await runList(
          commands,
          (cmd) => this.simple(cmd),
          argv[flagAt]!.includes('e'),
          (stages) => this.pipeline(stages),
        );
      } catch (e) {
        if (!(e instanceof ShellSyntaxError)) throw e;
        this.io.write('stderr', `${program}: syntax error: ${e.message}\n`);
        return 2;
      }
    }
    // `sh` alone (or with options only: `sh -i`, `bash -l`) reads its commands from stdin: /dev/null unless the
    // container keeps stdin open.
    if (SHELLS.has(program) && argv.slice(1).every((a) => /^-[a-z]+$/.test(a))) return this.io.stdin ? this.interactive(program, this.io.stdin) : 0;
    if (argv.length === 0) return this.unknown([]);
    return this.simple(argv, this.io.stdin ? { input: this.io.stdin } : {});
  }

  /**
   * The shell reading its stdin, line by line with the rules of `sh -c`: a line that leaves a quote or a block
   * open waits for the next (PS2 on a terminal); `$?` is the last status; `exit` or the end of the input ends
   * it with that status. On a terminal it prompts (on stderr, as ash does) and ^C abandons the line being
   * typed or the command running (status 130).
   */
  private async interactive(program: string, stdin: ProcessStdin): Promise<number> {
    this.shell = program;
    this.reading = true;
    stdin.onInterrupt(() => this.line.abort());
    let status = 0;
    let script = '';
    for (;;) {
      if (stdin.tty) this.io.write('stderr', script ? PS2 : (PROMPTS[program] ?? '$ '));
      let line: StdinLine;
      try {
        line = await stdin.line(this.abort.signal);
      } catch {
        throw new Stopped();
      }
      if (line === undefined) return status;
      if (line === null) {
        script = '';
        this.io.write('stdout', '\n');
        continue;
      }
      script += `${line}\n`;
      this.line = new AbortController();
      try {
        const run = await runScript(
          parseScript(script, { ...this.env, '?': String(status) }),
          (cmd) => this.simple(cmd),
          false,
          (stages) => this.pipeline(stages),
          status,
        );
        script = '';
        status = run.status;
        if (run.exited) return status;
      } catch (e) {
        if (e instanceof Interrupted) {
          script = '';
          status = INTERRUPTED;
          this.io.write('stdout', '\n');
        } else if (e instanceof ShellSyntaxError) {
          // An open quote or block: the next line continues it.
          if (/^(unexpected end of file|unterminated quoted string)/.test(e.message)) continue;
          this.io.write('stderr', `${program}: syntax error: ${e.message}\n`);
          script = '';
          status = 2;
        } else throw e;
      }
    }
  }

  /** A program that is not emulated: the caller is told once. */
  private async unknown(argv: string[]): Promise<number> {
    // A line typed at a shell is not the container's program: it fails visibly, and the shell reads the next.
    if (this.reading) {
      this.io.write('stderr', `${this.shell}: ${argv[0]}: aksemu does not emulate this program (docs/clients.md §5.20)\n`);
      return NOT_EMULATED;
    }
    if (!this.warned) this.io.unemulated?.(argv);
    this.warned = true;
    if (this.io.unknown === 'exits') return 0;
    await this.pause(Number.POSITIVE_INFINITY);
    return 0;
  }

  /**
   * `a | b | c`: each stage runs once the one before ended, reading what it printed (no stage runs beside
   * another: a stage that never ends holds the rest). The status is the last stage's.
   */
  private async pipeline(stages: string[][]): Promise<number> {
    let input: string | undefined;
    let status = 0;
    for (const [i, stage] of stages.entries()) {
      let out = '';
      const last = i === stages.length - 1;
      const pipe: Pipe = { ...(input !== undefined ? { stdin: input } : { stdin: '' }) };
      if (!last) pipe.stdout = (text) => void (out.length < MAX_PIPE_BYTES && (out += text));
      status = await this.simple(stage, pipe);
      input = out;
    }
    return status;
  }

  /** One simple command; returns its status. */
  private async simple(words: string[], pipe: Pipe = {}): Promise<number> {
    if (this.stopped) throw new Stopped();
    if (this.interrupted()) throw new Interrupted();
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
    // `NAME=value` words before the program: alone they set shell variables (seen by the lines a shell reads
    // later: a script is expanded as a whole when it starts); before a program, they are its environment,
    // which the programs here do not read.
    const assignments = argv.findIndex((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w));
    if (assignments !== 0) {
      const words = argv.splice(0, assignments < 0 ? argv.length : assignments);
      if (argv.length === 0) {
        for (const w of words) this.env[w.slice(0, w.indexOf('='))] = w.slice(w.indexOf('=') + 1);
        return 0;
      }
    }
    const io: ProcessIo = {
      ...this.io,
      write: (stream, text) => {
        if (stream === 'stdout' && silent) return;
        const to = stream === 'stdout' && toStderr ? 'stderr' : stream;
        if (to === 'stdout' && pipe.stdout) pipe.stdout(text);
        else this.io.write(to, text);
      },
    };
    const stdin = pipe.stdin;
    // The command's signal, made when a command the caller runs asks for it: most commands are none of its (an
    // app's own entrypoint), and AbortSignal.any is dear (a restart starts tens of thousands of processes).
    const { abort, line } = this;
    let signal: AbortSignal | undefined;
    const own = this.io.command?.(argv, io, {
      get signal() {
        return (signal ??= AbortSignal.any([abort.signal, line.signal]));
      },
      ...(this.shell ? { shell: this.shell } : {}),
      ...(stdin !== undefined ? { stdin } : {}),
      ...(pipe.input ? { input: pipe.input } : {}),
    });
    if (own) {
      const status = await own;
      if (this.stopped) throw new Stopped();
      if (this.interrupted()) throw new Interrupted();
      return status;
    }
    const [name = '', ...args] = argv;
    if (!EMULATED.has(basename(name))) return this.unknown(argv);
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
      case 'grep':
      case 'head':
      case 'tail':
      case 'wc':
        return filter(basename(name), args, stdin ?? '', io);
      case 'cat': {
        let status = 0;
        if (args.length === 0 || args.includes('-')) io.write('stdout', stdin ?? '');
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
        if (basename(name) === 'env') return this.unknown(argv);
        const found = args.filter((a) => Object.hasOwn(this.env, a));
        io.write('stdout', found.map((a) => `${this.env[a]}\n`).join(''));
        return found.length === args.length ? 0 : 1;
      }
      default:
        return this.unknown(argv);
    }
  }
}

/**
 * The text filters scripts pipe a tool's output into, over their stdin: `grep [-qvicFE] PATTERN`,
 * `head`/`tail [-n] N` (or -N), `wc [-lcw]`. Files as operands are not read (they are the image's).
 */
function filter(name: string, args: string[], input: string, io: ProcessIo): number {
  const flags = new Set<string>();
  const operands: string[] = [];
  for (const a of args) {
    if (/^-[a-zA-Z]+$/.test(a) && operands.length === 0) for (const f of a.slice(1)) flags.add(f);
    else if (/^-\d+$/.test(a)) operands.push(a.slice(1));
    else operands.push(a);
  }
  const lines = input === '' ? [] : input.replace(/\n$/, '').split('\n');
  const print = (out: string[]) => io.write('stdout', out.map((l) => `${l}\n`).join(''));
  if (name === 'grep') {
    const pattern = operands[0];
    if (pattern === undefined) {
      io.write('stderr', 'grep: no pattern\n');
      return 2;
    }
    let re: RegExp;
    try {
      const source = flags.has('F') ? pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') : flags.has('E') ? pattern : basicRegex(pattern);
      re = new RegExp(source, flags.has('i') ? 'i' : '');
    } catch {
      io.write('stderr', `grep: bad regex '${pattern}'\n`);
      return 2;
    }
    const found = lines.filter((l) => re.test(l) !== flags.has('v'));
    if (flags.has('c')) io.write('stdout', `${found.length}\n`);
    else if (!flags.has('q')) print(found);
    return found.length > 0 ? 0 : 1;
  }
  if (name === 'head' || name === 'tail') {
    const n = Number(operands[0] ?? 10);
    if (!Number.isInteger(n) || n < 0) {
      io.write('stderr', `${name}: invalid number '${operands[0]}'\n`);
      return 1;
    }
    print(name === 'head' ? lines.slice(0, n) : n === 0 ? [] : lines.slice(-n));
    return 0;
  }
  const counts = { l: input.split('\n').length - 1, w: input.split(/\s+/).filter(Boolean).length, c: Buffer.byteLength(input) };
  const asked = (['l', 'w', 'c'] as const).filter((f) => flags.has(f));
  const shown = asked.length > 0 ? asked : (['l', 'w', 'c'] as const);
  io.write('stdout', `${shown.map((f) => (shown.length > 1 ? String(counts[f]).padStart(7) : String(counts[f]))).join(' ')}\n`);
  return 0;
}

/** A basic regular expression as JavaScript's: `+ ? ( ) { } |` are literal unless escaped (GNU's BRE). */
function basicRegex(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    const next = pattern[i + 1];
    if (c === '\\' && next !== undefined && '+?(){}|'.includes(next)) {
      out += next;
      i++;
    } else if (c === '\\' && next !== undefined) {
      out += c + next;
      i++;
    } else out += '+?(){}|'.includes(c) ? `\\${c}` : c;
  }
  return out;
}

/**
 * Whether the process of argv does nothing but meet a program aksemu does not emulate, at once (the image's own
 * entrypoint, or a program named directly: not a shell, a variable's assignment, a redirection or a program
 * emulated here). `command(argv0)` says whether the caller runs that program itself (a network tool). Such a
 * process tells `unemulated` first and writes nothing else: an app's then runs until it is stopped.
 */
export function meetsUnemulatedAtOnce(argv: readonly string[], command: (argv0: string) => boolean): boolean {
  const first = argv[0];
  if (first === undefined) return true;
  const program = basename(first);
  if (SHELLS.has(program) || EMULATED.has(program) || command(first) || !/^[^=<>&|;$`'"\\\s]+$/.test(first)) return false;
  // A word the shell would read as a redirection is taken out of the program's arguments.
  return !argv.some((w) => /^[12&]?>/.test(w));
}

/** Starts a container's process: argv is its command and args, already `$(VAR)`-expanded. */
export function startProcess(argv: string[], env: Record<string, string>, io: ProcessIo): Process {
  return new Runner(argv, env, io);
}
