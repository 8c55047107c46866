// The kubelet's prober on one node: node-prober.js running in the node's namespace (spawnInNetns, as nobody),
// started on the first probe and kept for the next ones (a probe every few seconds per container would otherwise
// cost a Node.js start each). Requests and answers are JSON lines matched by id; a request the process cannot
// answer (it died, or it did not answer in time) resolves with `error` and the kubelet throws the result away,
// as it does a prober error. Stopped (SIGKILL, and its stdin closed) by close().
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { spawnInNetns } from './spawn.js';

export interface NodeProbeRequest {
  id: number;
  kind: 'http' | 'tcp' | 'grpc';
  host: string;
  port: number;
  timeoutMs: number;
  /** http: scheme, path (with its query) and headers (name, value), as the probe's spec says. */
  scheme?: 'http' | 'https';
  path?: string;
  headers?: Array<[string, string]>;
  /** The User-Agent the kubelet sends (kube-probe/1.MINOR) unless a header sets it. */
  userAgent?: string;
  /** grpc: the service name asked (empty: the server's overall health). */
  service?: string;
}

export interface NodeProbeAnswer {
  id: number;
  result: 'success' | 'warning' | 'failure';
  output: string;
}

/** What one probe came to: an answer, or why none came (the kubelet's prober error). */
export type NodeProbeOutcome = Omit<NodeProbeAnswer, 'id'> | { error: string };

const SCRIPT = fileURLToPath(new URL('./node-prober.js', import.meta.url));
/** How long past its own timeout a probe may take before the kubelet gives up on the answer. */
const GRACE_MS = 15_000;
/** A prober process with nothing to do for this long ends (the next probe starts another). */
const IDLE_MS = 60_000;

export class NodeProber {
  private child: ChildProcess | undefined;
  private next = 1;
  private readonly waiting = new Map<number, { resolve: (o: NodeProbeOutcome) => void; timer: NodeJS.Timeout }>();
  private closed = false;
  private idle: NodeJS.Timeout | undefined;

  /** `netns`: the node's namespace (/run/netns/…). */
  constructor(private readonly netns: string) {}

  probe(request: Omit<NodeProbeRequest, 'id'>): Promise<NodeProbeOutcome> {
    if (this.closed) return Promise.resolve({ error: "the node's prober is stopped" });
    const child = this.started();
    clearTimeout(this.idle);
    this.idle = undefined;
    const id = this.next++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.settle(id, { error: 'the probe did not complete' }), request.timeoutMs + GRACE_MS);
      timer.unref();
      this.waiting.set(id, { resolve, timer });
      child.stdin?.write(`${JSON.stringify({ ...request, id })}\n`);
    });
  }

  private settle(id: number, outcome: NodeProbeOutcome): void {
    const w = this.waiting.get(id);
    if (!w) return;
    this.waiting.delete(id);
    clearTimeout(w.timer);
    w.resolve(outcome);
    if (this.waiting.size === 0 && this.child && !this.closed) {
      clearTimeout(this.idle);
      this.idle = setTimeout(() => this.stopChild(), IDLE_MS);
      this.idle.unref();
    }
  }

  private stopChild(): void {
    this.idle = undefined;
    const child = this.child;
    if (!child || this.waiting.size > 0) return;
    this.child = undefined;
    child.stdin?.end();
    child.kill('SIGKILL');
  }

  private started(): ChildProcess {
    if (this.child) return this.child;
    const child = spawnInNetns(this.netns, [process.execPath, SCRIPT], { user: 'nobody', stdio: ['pipe', 'pipe', 'ignore'] });
    this.child = child;
    let pending = '';
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (d: string) => {
      pending += d;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        if (!line.startsWith('{')) continue;
        try {
          const a = JSON.parse(line) as NodeProbeAnswer;
          this.settle(a.id, { result: a.result, output: String(a.output ?? '') });
        } catch {
          // not an answer
        }
      }
    });
    child.stdin?.on('error', () => undefined);
    child.on('error', () => undefined);
    child.on('close', () => {
      if (this.child === child) this.child = undefined;
      for (const id of [...this.waiting.keys()]) this.settle(id, { error: "the node's prober exited" });
    });
    return child;
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.idle);
    const child = this.child;
    this.child = undefined;
    child?.stdin?.end();
    child?.kill('SIGKILL');
    for (const id of [...this.waiting.keys()]) this.settle(id, { error: "the node's prober is stopped" });
  }
}
