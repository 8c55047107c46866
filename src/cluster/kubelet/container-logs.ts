// The containers' log files, as the kubelet and containerd keep them: one file per container run under the
// node's /var/log/pods/NAMESPACE_POD_UID/CONTAINER/RESTART.log, each line in the CRI logging format
// (`TIMESTAMP STREAM P|F TEXT`: RFC 3339 with nanoseconds, stdout/stderr, partial or full line). The kubelet
// keeps the current and the previous run of each container; a file is rotated when it passes MAX_LOG_BYTES
// (the kubelet's containerLogMaxSize, smaller here: the emulator's disk is the user's), and the pod's directory
// goes with the pod. Readers following a log hear each new line and the container's end.
import { appendFileSync, mkdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import type { Stream } from '../images/processes.js';
import type { LogLine, LogListener, LogReader, LogRef } from '../apiserver/index.js';

/** One file's bound; the rotated file (`N.log.1`) keeps the one before. */
export const MAX_LOG_BYTES = 1024 * 1024;

/** RFC 3339 with nanoseconds, as containerd writes it. */
function criTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000000Z');
}

/** A name as one path segment: names the apiserver validated stay as they are; anything else is hashed. */
function segment(name: string): string {
  return /^[A-Za-z0-9][-A-Za-z0-9_.]{0,252}$/.test(name) && !name.includes('..') ? name : `_${createHash('sha256').update(name).digest('hex').slice(0, 32)}`;
}

function parseLine(raw: string): LogLine | undefined {
  const m = /^(\S+) (stdout|stderr) ([PF]) (.*)$/.exec(raw);
  if (!m) return undefined;
  return { time: Date.parse(m[1]!), timestamp: m[1]!, stream: m[2] as Stream, partial: m[3] === 'P', text: m[4]! };
}

export class ContainerLogs implements LogReader {
  private readonly listeners = new Map<string, Set<LogListener>>();
  /** The runs whose process is alive (their followers wait for more), by pod uid: `container/restart`. */
  private readonly live = new Map<string, Set<string>>();
  /** Pods (by uid) that may have a log directory: only theirs are removed from disk (a deleted bomb costs no syscalls). */
  private readonly written = new Set<string>();
  /** Nodes (by their path segment) whose var/log/pods this process made or found: a pod's first line makes two directories. */
  private readonly podsDirs = new Set<string>();
  /** The cluster's runtime stopped: nothing more is written (its home may be removed next). */
  private closed = false;

  /** root(node) is the node's directory (nodes/NODE under the cluster's). */
  constructor(private readonly root: (node: string) => string) {}

  private podDir(ref: LogRef): string {
    return join(this.root(segment(ref.node)), 'var', 'log', 'pods', segment(`${ref.namespace}_${ref.pod}_${ref.uid}`));
  }

  file(ref: LogRef, container: string, restart: number): string {
    return join(this.podDir(ref), segment(container), `${Math.max(0, Math.trunc(restart))}.log`);
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
    return this.live.get(ref.uid)?.has(`${container}/${restart}`) ?? false;
  }

  private setLive(ref: LogRef, container: string, restart: number, alive: boolean): void {
    let runs = this.live.get(ref.uid);
    if (alive) {
      if (!runs) this.live.set(ref.uid, (runs = new Set()));
      runs.add(`${container}/${restart}`);
    } else if (runs) {
      runs.delete(`${container}/${restart}`);
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
    const pieces = text.split('\n');
    const lines: LogLine[] = pieces.map((piece, i) => ({ time: now, timestamp: criTime(now), stream, text: piece, partial: i === pieces.length - 1 }));
    if (lines.at(-1)!.text === '') lines.pop();
    const file = this.file(ref, container, restart);
    const data = lines.map((l) => `${l.timestamp} ${l.stream} ${l.partial ? 'P' : 'F'} ${l.text}\n`).join('');
    if (!this.written.has(ref.uid)) {
      // The pod's first line (an add-on's "not emulated" notice on each of 5,000 nodes): its directory is made
      // without first asking for a file that cannot be there yet.
      this.written.add(ref.uid);
      this.makeRunDir(ref, dirname(file));
      appendFileSync(file, data);
    } else {
      try {
        if (statSync(file).size > MAX_LOG_BYTES) renameSync(file, `${file}.1`);
      } catch {
        // Not there yet.
      }
      try {
        appendFileSync(file, data);
      } catch {
        // The run's first line: its directory is made.
        mkdirSync(dirname(file), { recursive: true });
        appendFileSync(file, data);
      }
    }
    for (const listener of this.listeners.get(this.key(ref, container, restart)) ?? []) for (const l of lines) listener.line(l);
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
    for (const run of runs ?? []) {
      const key = `${ref.uid}/${run}`;
      const set = this.listeners.get(key);
      this.listeners.delete(key);
      for (const listener of set ?? []) listener.end();
    }
    if (!known || this.written.delete(ref.uid)) rmSync(this.podDir(ref), { recursive: true, force: true });
  }
}
