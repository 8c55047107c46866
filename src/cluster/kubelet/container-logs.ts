// The containers' log files, as the kubelet and containerd keep them: one file per container run under the
// node's /var/log/pods/NAMESPACE_POD_UID/CONTAINER/RESTART.log, each line in the CRI logging format
// (`TIMESTAMP STREAM P|F TEXT`: RFC 3339 with nanoseconds, stdout/stderr, partial or full line). The kubelet
// keeps the current and the previous run of each container; a file is rotated when it passes MAX_LOG_BYTES
// (the kubelet's containerLogMaxSize, smaller here: the emulator's disk is the user's), and the pod's directory
// goes with the pod. Readers following a log hear each new line and the container's end.
import { appendFileSync, closeSync, fstatSync, mkdirSync, openSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import type { Stream } from '../images/processes.js';
import type { LogLine, LogListener, LogReader, LogRef } from '../apiserver/index.js';

/** One file's bound; the rotated file (`N.log.1`) keeps the one before. */
export const MAX_LOG_BYTES = 1024 * 1024;
/** Nodes whose log root is kept joined; past it the table starts again (a cluster has at most a few thousand). */
const MAX_LOG_ROOTS = 65_536;

/** The second criTime formatted last, as its text up to the fraction: a restart's pods print thousands a second. */
let criSecond = Number.NaN;
let criPrefix = '';

/** RFC 3339 with nanoseconds, as containerd writes it. */
function criTime(ms: number): string {
  if (!Number.isSafeInteger(ms) || ms < 0) return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000000Z');
  const second = Math.floor(ms / 1000);
  if (second !== criSecond) {
    criPrefix = new Date(second * 1000).toISOString().slice(0, -'.000Z'.length);
    criSecond = second;
  }
  const fraction = ms - second * 1000;
  return `${criPrefix}.${fraction < 10 ? '00' : fraction < 100 ? '0' : ''}${fraction}000000Z`;
}

/** The CRI lines of what a process printed: one per line of text, a last unterminated piece partial (P). */
function criLines(text: string, timestamp: string, stream: Stream): string {
  let data = '';
  let from = 0;
  for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', from)) {
    data += `${timestamp} ${stream} F ${text.slice(from, nl)}\n`;
    from = nl + 1;
  }
  return from < text.length ? `${data}${timestamp} ${stream} P ${text.slice(from)}\n` : data;
}

/** A name as one path segment: names the apiserver validated stay as they are; anything else is hashed. */
function segment(name: string): string {
  return /^[A-Za-z0-9][-A-Za-z0-9_.]{0,252}$/.test(name) && !name.includes('..') ? name : `_${createHash('sha256').update(name).digest('hex').slice(0, 32)}`;
}

/**
 * Appends to a run's file through one open of it (a restart's resumed containers each print a line into a file that
 * is there already): the size for the rotation is the open file's, the run's directory made when it is missing.
 */
function appendRotating(file: string, data: string): void {
  let fd = openToAppend(file);
  try {
    if (fstatSync(fd).size > MAX_LOG_BYTES && rotated(file)) {
      // The open file is the rotated one now: the run goes on in a new one.
      const old = fd;
      fd = -1;
      closeSync(old);
      fd = openToAppend(file);
    }
    appendFileSync(fd, data);
  } finally {
    if (fd >= 0) closeSync(fd);
  }
}

function openToAppend(file: string): number {
  try {
    return openSync(file, 'a');
  } catch {
    // The run's first line: its directory is made.
    mkdirSync(dirname(file), { recursive: true });
    return openSync(file, 'a');
  }
}

/** The file moved to `.1`, the one before it gone; false when it could not be (it grows on, as before). */
function rotated(file: string): boolean {
  try {
    renameSync(file, `${file}.1`);
    return true;
  } catch {
    return false;
  }
}

function parseLine(raw: string): LogLine | undefined {
  const m = /^(\S+) (stdout|stderr) ([PF]) (.*)$/.exec(raw);
  if (!m) return undefined;
  return { time: Date.parse(m[1]!), timestamp: m[1]!, stream: m[2] as Stream, partial: m[3] === 'P', text: m[4]! };
}

export class ContainerLogs implements LogReader {
  private readonly listeners = new Map<string, Set<LogListener>>();
  /**
   * The runs whose process is alive (their followers wait for more), by pod uid: `container/restart`, or a set of them
   * when the pod has more than one (most have one: a restart resumes tens of thousands, docs/performance.md §2.22).
   */
  private readonly live = new Map<string, string | Set<string>>();
  /** Pods (by uid) that may have a log directory: only theirs are removed from disk (a deleted bomb costs no syscalls). */
  private readonly written = new Set<string>();
  /** Nodes (by their path segment) whose var/log/pods this process made or found: a pod's first line makes two directories. */
  private readonly podsDirs = new Set<string>();
  /** The cluster's runtime stopped: nothing more is written (its home may be removed next). */
  private closed = false;

  /** root(node) is the node's directory (nodes/NODE under the cluster's). */
  /** Each node's var/log/pods, by node name: joined once (every line of every container asks). */
  private readonly logRoots = new Map<string, string>();

  constructor(private readonly root: (node: string) => string) {}

  private podDir(ref: LogRef): string {
    let logRoot = this.logRoots.get(ref.node);
    if (logRoot === undefined) {
      if (this.logRoots.size >= MAX_LOG_ROOTS) this.logRoots.clear();
      logRoot = join(this.root(segment(ref.node)), 'var', 'log', 'pods');
      this.logRoots.set(ref.node, logRoot);
    }
    // A segment is one plain name (no separator, no dot first): put after the root as join would.
    return `${logRoot}/${segment(`${ref.namespace}_${ref.pod}_${ref.uid}`)}`;
  }

  file(ref: LogRef, container: string, restart: number): string {
    return `${this.podDir(ref)}/${segment(container)}/${Math.max(0, Math.trunc(restart))}.log`;
  }

  private key(ref: LogRef, container: string, restart: number): string {
    return `${ref.uid}/${container}/${restart}`;
  }

  /**
   * A new run of the container: runs older than the previous one are removed. Nothing is written until the
   * process prints (most never do: pod start must not cost a file).
   */
  begin(ref: LogRef, container: string, restart: number): void {
    for (let r = restart - 2; r >= 0 && r >= restart - 3; r--) {
      rmSync(this.file(ref, container, r), { force: true });
      rmSync(`${this.file(ref, container, r)}.1`, { force: true });
    }
    this.setLive(ref, container, restart, true);
  }

  private isLive(ref: LogRef, container: string, restart: number): boolean {
    const runs = this.live.get(ref.uid);
    const run = `${container}/${restart}`;
    return typeof runs === 'string' ? runs === run : (runs?.has(run) ?? false);
  }

  private setLive(ref: LogRef, container: string, restart: number, alive: boolean): void {
    const runs = this.live.get(ref.uid);
    const run = `${container}/${restart}`;
    if (alive) {
      if (runs === undefined) this.live.set(ref.uid, run);
      else if (typeof runs !== 'string') runs.add(run);
      else if (runs !== run) this.live.set(ref.uid, new Set([runs, run]));
    } else if (typeof runs === 'string') {
      if (runs === run) this.live.delete(ref.uid);
    } else if (runs) {
      runs.delete(run);
      if (runs.size === 0) this.live.delete(ref.uid);
    }
  }

  /** A run found alive after a restart of the server: its file is kept and appended to. */
  resume(ref: LogRef, container: string, restart: number): void {
    this.written.add(ref.uid);
    this.setLive(ref, container, restart, true);
  }

  /** Appends what the process printed, one CRI line per line of text (a last unterminated piece is partial). */
  append(ref: LogRef, container: string, restart: number, stream: Stream, text: string, now = Date.now()): void {
    // Only a live run writes (a stopped process of a deleted pod must not bring its directory back), and only
    // while the runtime runs (a container started as the server closed must not bring a removed home back).
    if (text === '' || this.closed || !this.isLive(ref, container, restart)) return;
    const timestamp = criTime(now);
    const file = this.file(ref, container, restart);
    const data = criLines(text, timestamp, stream);
    if (!this.written.has(ref.uid)) {
      // The pod's first line (an add-on's "not emulated" notice on each of 5,000 nodes): its directory is made
      // without first asking for a file that cannot be there yet.
      this.written.add(ref.uid);
      this.makeRunDir(ref, dirname(file));
      appendFileSync(file, data);
    } else appendRotating(file, data);
    const followers = this.listeners.get(this.key(ref, container, restart));
    if (!followers) return;
    // Lines as objects only for who follows the run (kubectl logs -f): most lines have no one.
    const ended = text.endsWith('\n');
    const pieces = (ended ? text.slice(0, -1) : text).split('\n');
    const lines: LogLine[] = pieces.map((piece, i) => ({ time: now, timestamp, stream, text: piece, partial: !ended && i === pieces.length - 1 }));
    for (const listener of followers) for (const l of lines) listener.line(l);
  }

  /**
   * The run's directory, on the pod's first line. A recursive mkdir tries each missing level from the deepest up
   * (on a new node five failed calls before four that make it): once the node's var/log/pods is known, the pod's
   * and the container's directories are made as themselves; anything unexpected (the node's directory was
   * removed) takes the recursive way again.
   */
  private makeRunDir(ref: LogRef, dir: string): void {
    const node = segment(ref.node);
    if (this.podsDirs.has(node)) {
      try {
        for (const d of [dirname(dir), dir]) {
          try {
            mkdirSync(d);
          } catch (e) {
            if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
          }
        }
        return;
      } catch {
        this.podsDirs.delete(node);
      }
    }
    mkdirSync(dir, { recursive: true });
    this.podsDirs.add(node);
  }

  /** The runtime stopped: later lines are dropped; what was written stays for the next start. */
  close(): void {
    this.closed = true;
  }

  /** The run's lines, oldest first (the rotated file's, then the current one's); undefined when there is no file. */
  read(ref: LogRef, container: string, restart: number): LogLine[] | undefined {
    const file = this.file(ref, container, restart);
    const out: LogLine[] = [];
    let found = false;
    for (const f of [`${file}.1`, file]) {
      let raw: string;
      try {
        raw = readFileSync(f, 'utf8');
      } catch {
        continue;
      }
      found = true;
      for (const l of raw.split('\n')) {
        const line = parseLine(l);
        if (line) out.push(line);
      }
    }
    return found ? out : undefined;
  }

  /** Hears the run's new lines until it ends; returns the unsubscribe. */
  follow(ref: LogRef, container: string, restart: number, listener: LogListener): () => void {
    const key = this.key(ref, container, restart);
    if (!this.isLive(ref, container, restart)) {
      listener.end();
      return () => {};
    }
    let set = this.listeners.get(key);
    if (!set) this.listeners.set(key, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(key) === set) this.listeners.delete(key);
    };
  }

  /** The run ended: its followers are told. */
  end(ref: LogRef, container: string, restart: number): void {
    const key = this.key(ref, container, restart);
    const set = this.listeners.get(key);
    this.listeners.delete(key);
    this.setLive(ref, container, restart, false);
    for (const listener of set ?? []) listener.end();
  }

  /** The pod went: its logs go, its followers are told. `known` false: a pod from before a restart, maybe with logs. */
  remove(ref: LogRef, known = true): void {
    // Per pod: a deleted ReplicaSet of thousands of pods must not cost the square of their number.
    const runs = this.live.get(ref.uid);
    this.live.delete(ref.uid);
    for (const run of typeof runs === 'string' ? [runs] : (runs ?? [])) {
      const key = `${ref.uid}/${run}`;
      const set = this.listeners.get(key);
      this.listeners.delete(key);
      for (const listener of set ?? []) listener.end();
    }
    if (!known || this.written.delete(ref.uid)) rmSync(this.podDir(ref), { recursive: true, force: true });
  }
}
