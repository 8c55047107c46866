// A container's standard streams as the runtime holds them for one run (containerd's container IO): what the
// process prints goes to its log and to every session attached at that moment (`kubectl attach`, `kubectl run
// -i`: nothing printed before a session attached is replayed to it, as containerd replays nothing; the log has
// it); with `stdin: true` the process reads what attached sessions send; with `tty: true` a terminal sits between
// them (the pty containerd allocates, its line discipline in canonical mode: input echoed, erased with DEL/^H
// and ^U, ended by CR or LF as NL, ^C an interrupt, ^D the end of input; output's NL sent as CR NL; stdout and
// stderr one stream). `stdinOnce`: the container's stdin closes when the first session that wrote to it ends,
// as the runtime closes it (the shell of `kubectl run -i` then exits). aksemu's own notices about the run (a
// program it does not emulate) are told to each session as it attaches, so no session waits on silence.
// docs/clients.md §5.20.
import { StringDecoder } from 'node:string_decoder';
import type { ProcessStdin, StdinLine, Stream } from '../images/processes.js';

/** Input not yet read by the process (lines queued and the one being typed): past it, more is dropped. */
export const MAX_PENDING_INPUT = 1024 * 1024;
/** aksemu's notices kept for later sessions. */
const MAX_NOTICES = 4096;
/** A terminal line's length (N_TTY's buffer: 4095 characters and the newline); past it typing is ignored. */
const MAX_TTY_LINE = 4095;

const CTRL_C = '\u0003';
const CTRL_D = '\u0004';
const CTRL_U = '\u0015';
const ESC = '\u001b';

/** The process's stdin: complete lines in order, then its end. */
export class LineInput implements ProcessStdin {
  private readonly lines: StdinLine[] = [];
  private partial = '';
  private size = 0;
  private ended = false;
  private reader: ((line: StdinLine) => void) | undefined;
  private readonly interrupts: Array<() => void> = [];

  constructor(readonly tty: boolean) {}

  line(signal: AbortSignal): Promise<StdinLine> {
    if (this.lines.length > 0) {
      const line = this.lines.shift()!;
      this.size -= line?.length ?? 0;
      return Promise.resolve(line);
    }
    if (this.ended) return Promise.resolve(this.partial ? this.takePartial() : undefined);
    return new Promise((resolve, reject) => {
      const abort = () => {
        this.reader = undefined;
        reject(new Error('stopped'));
      };
      if (signal.aborted) return abort();
      signal.addEventListener('abort', abort, { once: true });
      this.reader = (line) => {
        signal.removeEventListener('abort', abort);
        this.reader = undefined;
        resolve(line);
      };
    });
  }

  onInterrupt(listener: () => void): void {
    this.interrupts.push(listener);
  }

  private takePartial(): string {
    const line = this.partial;
    this.size -= line.length;
    this.partial = '';
    return line;
  }

  private deliver(line: StdinLine): void {
    if (this.reader) return this.reader(line);
    this.size += line?.length ?? 0;
    this.lines.push(line);
  }

  /** Text for the process: split into lines at LF. False when it was dropped (past the bound, or after the end). */
  push(text: string): boolean {
    if (this.ended || this.size + text.length > MAX_PENDING_INPUT) return false;
    const pieces = (this.partial + text).split('\n');
    this.size += text.length;
    this.partial = pieces.pop()!;
    for (const line of pieces) {
      this.size -= line.length + 1;
      this.deliver(line);
    }
    return true;
  }

  /** ^C: a process waiting for a line gets the interrupt (null); one running something is interrupted. */
  interrupt(): void {
    if (this.reader) return this.reader(null);
    for (const listener of this.interrupts) listener();
  }

  /** The end of input: the process reads what is left, then the end. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.reader) this.reader(this.partial ? this.takePartial() : undefined);
  }

  get closed(): boolean {
    return this.ended;
  }

  /** Characters queued or being typed (the terminal's bound). */
  get pending(): number {
    return this.size;
  }
}

/**
 * The terminal's line discipline between what a session types and the process: returns what the terminal echoes.
 * Escape sequences (arrow keys) are dropped: there is no line editing or history beyond erasing.
 */
export class TerminalInput {
  private line = '';
  private escape = false;
  private readonly decoder = new StringDecoder('utf8');

  constructor(private readonly input: LineInput) {}

  type(data: Buffer): string {
    let echo = '';
    for (const c of this.decoder.write(data)) {
      if (this.escape) {
        // ESC [ params final: the sequence ends with a letter or `~`.
        if (/[A-Za-z~]/.test(c)) this.escape = false;
        continue;
      }
      if (c === '\r' || c === '\n') {
        echo += '\r\n';
        this.input.push(`${this.line}\n`);
        this.line = '';
      } else if (c === '\u007f' || c === '\b') {
        if (this.line) {
          this.line = [...this.line].slice(0, -1).join('');
          echo += '\b \b';
        }
      } else if (c === CTRL_U) {
        echo += '\b \b'.repeat([...this.line].length);
        this.line = '';
      } else if (c === CTRL_C) {
        echo += '^C';
        this.line = '';
        this.input.interrupt();
      } else if (c === CTRL_D) {
        if (this.line) {
          this.input.push(this.line);
          this.line = '';
        } else this.input.end();
      } else if (c === ESC) this.escape = true;
      else if (c === '\t' || c >= ' ') {
        if (this.line.length >= MAX_TTY_LINE || this.input.pending + this.line.length >= MAX_PENDING_INPUT) continue;
        this.line += c;
        echo += c;
      }
    }
    return echo;
  }
}

/** What an attached session hears: the process's output, and the end of the run. */
export interface AttachListener {
  output(stream: Stream, text: string): void;
  ended(): void;
}

export interface ContainerStreams {
  tty: boolean;
  stdin: boolean;
  stdinOnce: boolean;
  /** The container's log (container-logs.ts). */
  log(stream: Stream, text: string): void;
}

/** One session attached to the container's streams. */
export interface Attachment {
  /** What the session sends to the container's stdin (dropped when the container has none). */
  stdin(data: Buffer): void;
  /** The session's stdin ended. */
  endStdin(): void;
  /** The session went away. */
  detach(): void;
}

export class ContainerIo {
  readonly input: LineInput | undefined;
  private readonly terminal: TerminalInput | undefined;
  // Made when a session first attaches or writes: most runs never have one (a restart starts tens of thousands).
  private listeners: Set<AttachListener> | undefined;
  private decoder: StringDecoder | undefined;
  private closed = false;
  /** aksemu's lines about this run (what it does not emulate), told again to each session that attaches. */
  private notices = '';
  /** The line told by this container's run before a restart (in its log already), made when a session attaches. */
  private earlier: (() => string) | undefined;

  constructor(private readonly options: ContainerStreams) {
    this.input = options.stdin ? new LineInput(options.tty) : undefined;
    this.terminal = this.input && options.tty ? new TerminalInput(this.input) : undefined;
  }

  get tty(): boolean {
    return this.options.tty;
  }

  /** What the process prints: on a terminal one stream, each NL as CR NL. */
  write(stream: Stream, text: string): void {
    if (this.options.tty) this.emit('stdout', text.replaceAll('\n', '\r\n'));
    else this.emit(stream, text);
  }

  /** aksemu's own line about the run (on stderr): in the log now, and to every session that attaches later. */
  notice(text: string): void {
    if (this.notices.length < MAX_NOTICES) this.notices += text;
    this.write('stderr', text);
  }

  /** aksemu's line about the run, in the log already (told before a restart): to every session that attaches. */
  told(text: () => string): void {
    this.earlier = text;
  }

  private emit(stream: Stream, text: string): void {
    if (text === '') return;
    this.options.log(stream, text);
    if (this.listeners) for (const l of this.listeners) l.output(stream, text);
  }

  /** A session attaches: it hears the output from now on; with `stdin`, it writes to the container's stdin. */
  attach(stdin: boolean, listener: AttachListener): Attachment {
    if (this.closed) {
      listener.ended();
      return { stdin: () => undefined, endStdin: () => undefined, detach: () => undefined };
    }
    (this.listeners ??= new Set()).add(listener);
    const notices = this.earlier ? this.earlier() + this.notices : this.notices;
    if (notices) listener.output(this.options.tty ? 'stdout' : 'stderr', this.options.tty ? notices.replaceAll('\n', '\r\n') : notices);
    const writes = stdin && this.input !== undefined;
    let done = false;
    // stdinOnce: the first session with stdin closes the container's stdin when it ends.
    const closeOnce = () => {
      if (writes && this.options.stdinOnce) this.input!.end();
    };
    return {
      stdin: (data) => {
        if (!writes || this.input!.closed) return;
        if (this.terminal) this.emit('stdout', this.terminal.type(data));
        else this.input!.push((this.decoder ??= new StringDecoder('utf8')).write(data));
      },
      endStdin: closeOnce,
      detach: () => {
        if (done) return;
        done = true;
        this.listeners?.delete(listener);
        closeOnce();
      },
    };
  }

  /** The run ended: every session is told, and the stdin is closed. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.input?.end();
    for (const l of this.listeners ?? []) l.ended();
    this.listeners?.clear();
  }
}
