// Starts and watches the fuzzers' server process (server-child.ts): ready within a deadline, alive and
// answering probes within HANG_MS, killed for good when it stalls. Memory is capped so a runaway server
// dies quickly instead of taking the machine with it.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Identity } from '../../src/arm/identity.js';
import { HANG_MS, loopbackOnly, type Target } from './client.js';

const CHILD = fileURLToPath(new URL('./server-child.js', import.meta.url));
const START_MS = 30_000;

export interface Probe {
  polluted: string[];
  rss: number;
  /** V8's heap in use, and memory outside it (Buffers), in bytes. */
  heap: number;
  external: number;
}

export class ServerProcess implements Target {
  private nextProbe = 0;
  private readonly probes = new Map<number, (p: Probe) => void>();
  readonly snapshots = new Map<number, (file: string) => void>();
  /** Stacks of internal failures the server logged (request id or path in the line). */
  readonly failureLog: string[] = [];
  exitCode: number | null | undefined;
  signal: string | null | undefined;
  /** Server-side milliseconds of fuzz requests that took 1 s or more, by request index. */
  readonly timings = new Map<number, number>();
  /** The end of its stderr (a fatal error's message). */
  stderrTail = '';

  private constructor(
    readonly proc: ChildProcess,
    readonly home: string,
    readonly url: string,
    readonly caPem: string,
    readonly identity: Identity,
  ) {}

  static start(home: string, memoryMb = 768): Promise<ServerProcess> {
    const proc = fork(CHILD, [home], { execArgv: [`--max-old-space-size=${memoryMb}`], stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    let stderr = '';
    let server: ServerProcess | undefined;
    proc.stderr!.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-4000);
      if (server) server.stderrTail = stderr;
    });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        proc.kill('SIGKILL');
        reject(new Error(`server did not start within ${START_MS} ms: ${stderr}`));
      }, START_MS);
      proc.on('message', (m: any) => {
        if (m.type === 'ready') {
          clearTimeout(timer);
          loopbackOnly(m.url);
          server = new ServerProcess(proc, home, m.url, m.caPem, m.identity);
          resolve(server);
        } else if (m.type === 'log') server?.failureLog.push(m.line);
        else if (m.type === 'probe') server?.probes.get(m.id)?.(m);
        else if (m.type === 'snapshot') server?.snapshots.get(m.id)?.(m.file);
        else if (m.type === 'timing') server?.timings.set(m.index, m.ms);
      });
      proc.on('exit', (code, signal) => {
        clearTimeout(timer);
        if (server) {
          server.exitCode = code;
          server.signal = signal;
        } else reject(new Error(`server exited (${code ?? signal}) before it was ready: ${stderr}`));
      });
    });
  }

  get alive(): boolean {
    return this.exitCode === undefined;
  }

  /** Asks the server for its pollution probe; undefined when it does not answer within HANG_MS. */
  probe(timeoutMs = HANG_MS): Promise<Probe | undefined> {
    if (!this.alive) return Promise.resolve(undefined);
    const id = ++this.nextProbe;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.probes.delete(id);
        resolve(undefined);
      }, timeoutMs);
      this.probes.set(id, (p) => {
        clearTimeout(timer);
        this.probes.delete(id);
        resolve(p);
      });
      this.proc.send({ type: 'probe', id });
    });
  }

  /** Has the server write a V8 heap snapshot (in its working directory); its file name. */
  heapSnapshot(): Promise<string> {
    const id = ++this.nextProbe;
    return new Promise((resolve) => {
      this.snapshots.set(id, (file) => {
        this.snapshots.delete(id);
        resolve(file);
      });
      this.proc.send({ type: 'snapshot', id });
    });
  }

  /** The logged stack of the request with this id (ARM logs `request <id> failed: …`), if any. */
  stackOf(needle: string): string | undefined {
    return this.failureLog.find((l) => l.includes(needle));
  }

  /** Graceful stop; SIGKILL when it does not stop in time. */
  async stop(timeoutMs = 10_000): Promise<void> {
    if (!this.alive) return;
    const exited = new Promise<void>((resolve) => this.proc.once('exit', () => resolve()));
    this.proc.send({ type: 'close' });
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), timeoutMs);
    await exited;
    clearTimeout(timer);
  }

  async kill(): Promise<void> {
    if (!this.alive) return;
    const exited = new Promise<void>((resolve) => this.proc.once('exit', () => resolve()));
    this.proc.kill('SIGKILL');
    await exited;
  }
}
