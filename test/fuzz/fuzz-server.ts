// One fuzz target: a server process on a temp home with a keep-alive client and a token, restarted on the
// same home when it dies or stalls (and on a fresh home when its store no longer lets it start).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FuzzClient } from './client.js';
import type { Health } from './driver.js';
import { armToken } from './arm-session.js';
import { ServerProcess } from './server-process.js';

export class FuzzServer {
  private homes: string[] = [];
  /** RSS of the server process at each health check (bytes), and the pid each was taken from. */
  readonly rss: Array<{ pid: number; bytes: number; heap: number; external: number }> = [];

  private constructor(
    public server: ServerProcess,
    public client: FuzzClient,
    public token: string,
    private readonly concurrency: number,
  ) {}

  static async start(concurrency: number): Promise<FuzzServer> {
    const home = mkdtempSync(join(tmpdir(), 'aksemu-fuzz-'));
    const server = await ServerProcess.start(home);
    const client = new FuzzClient(server, { maxSockets: concurrency });
    const fs = new FuzzServer(server, client, await armToken(client, server.identity), concurrency);
    fs.homes.push(home);
    return fs;
  }

  get home(): string {
    return this.server.home;
  }

  get sub(): string {
    return this.server.identity.subscriptionId;
  }

  /** ARM answers an unauthenticated metadata request, and the process's prototypes are clean. */
  private died(): Health {
    const fatal = /FATAL ERROR: [^\n]*|Error: [^\n]*/.exec(this.server.stderrTail)?.[0] ?? '';
    return { ok: false, kind: 'crash', detail: `server process died (${this.server.signal ?? `exit ${this.server.exitCode}`}) ${fatal}`.trim() };
  }

  async health(): Promise<Health> {
    if (!this.server.alive) return this.died();
    const res = await this.client.send({ method: 'GET', path: '/metadata/endpoints?api-version=2022-09-01', headers: {} });
    if (res.outcome === 'timeout') return { ok: false, kind: 'hang', detail: 'server stopped answering (health request hung)' };
    if (res.outcome !== 'response' || res.status !== 200) {
      if (!this.server.alive) return this.died();
      return { ok: false, kind: 'crash', detail: `health request failed: ${res.outcome} ${res.status}` };
    }
    const probe = await this.server.probe();
    if (!probe) return { ok: false, kind: 'hang', detail: 'server stopped answering (probe hung)' };
    this.rss.push({ pid: this.server.proc.pid ?? 0, bytes: probe.rss, heap: probe.heap, external: probe.external });
    if (probe.polluted.length > 0) return { ok: false, kind: 'pollution', detail: `prototype polluted: ${probe.polluted.join(', ')}` };
    return { ok: true };
  }

  /** Kills the server and starts it again on the same home; false when it does not come back healthy. */
  async restart(graceful = false): Promise<boolean> {
    await (graceful ? this.server.stop() : this.server.kill());
    this.client.close();
    try {
      this.server = await ServerProcess.start(this.home);
      this.client = new FuzzClient(this.server, { maxSockets: this.concurrency });
      this.token = await armToken(this.client, this.server.identity);
      return (await this.health()).ok;
    } catch {
      return false;
    }
  }

  /** A new server on a new home (the old store would not start). */
  async fresh(): Promise<void> {
    await this.server.kill();
    this.client.close();
    const home = mkdtempSync(join(tmpdir(), 'aksemu-fuzz-'));
    this.homes.push(home);
    this.server = await ServerProcess.start(home);
    this.client = new FuzzClient(this.server, { maxSockets: this.concurrency });
    this.token = await armToken(this.client, this.server.identity);
  }

  async close(): Promise<void> {
    await this.server.stop();
    this.client.close();
    for (const h of this.homes) rmSync(h, { recursive: true, force: true });
  }
}
