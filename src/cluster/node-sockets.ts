// The per-node unix socket serving the cluster's API (src/cni/plugins/node-api.ts says why and how clients find
// it): one plain-HTTP server per node of a cluster, opened when the node's kubelet starts and closed when the
// node goes (its file with it), the cluster stops or aksemu stops. The socket is 0600: only aksemu's own user
// (the one running the plugins) connects.
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { NODE_API_SOCKET, SUN_PATH_MAX } from '../cni/plugins/node-api.js';
import { MAX_HEADER_BYTES } from './validation/limits.js';

interface Open {
  server: Server;
  sockets: Set<Socket>;
  /** Where it listens. */
  path: string;
  /** The node's path, when it is a symlink to `path`. */
  link?: string;
}

const fits = (p: string) => Buffer.byteLength(p) <= SUN_PATH_MAX;

export class NodeSockets {
  private readonly open = new Map<string, Open>();
  private closed = false;

  constructor(
    private readonly clusterDir: string,
    private readonly handler: (req: IncomingMessage, res: ServerResponse) => void,
    private readonly onClientError: (err: NodeJS.ErrnoException, socket: Socket) => void,
    private readonly log: (line: string) => void,
  ) {}

  /** Opens a socket for each node not served yet and closes those of nodes that are gone. */
  reconcile(nodes: ReadonlyArray<{ name: string; root: string }>): void {
    if (this.closed) return;
    const wanted = new Set(nodes.map((n) => n.name));
    for (const name of [...this.open.keys()]) if (!wanted.has(name)) void this.stop(name);
    for (const n of nodes) if (!this.open.has(n.name)) this.start(n.name, n.root);
  }

  /** Where a node's socket listens: its own path, or a short one when that is too long for a unix socket. */
  private placeOf(name: string, root: string): { path: string; link?: string } {
    const primary = join(root, NODE_API_SOCKET);
    if (fits(primary)) return { path: primary };
    const id = createHash('sha256').update(`${this.clusterDir}\0${name}`).digest('hex').slice(0, 16);
    const short = join(this.clusterDir, 'sockets', `${id}.sock`);
    return { path: fits(short) ? short : join(tmpdir(), `aksemu-api-${id}.sock`), link: primary };
  }

  private start(name: string, root: string): void {
    const { path, link } = this.placeOf(name, root);
    const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES }, this.handler);
    server.on('clientError', this.onClientError);
    const entry: Open = { server, sockets: new Set(), path, ...(link ? { link } : {}) };
    server.on('connection', (s: Socket) => {
      entry.sockets.add(s);
      s.on('close', () => entry.sockets.delete(s));
    });
    this.open.set(name, entry);
    try {
      mkdirSync(dirname(path), { recursive: true });
      // A socket file left by an earlier run would make listen fail with EADDRINUSE.
      rmSync(path, { force: true });
      if (link) {
        mkdirSync(dirname(link), { recursive: true });
        rmSync(link, { force: true });
        symlinkSync(path, link);
      }
    } catch (e) {
      this.log(`node ${name}: cannot place the API socket: ${(e as Error).message}`);
      this.open.delete(name);
      return;
    }
    server.once('error', (e) => {
      this.log(`node ${name}: the API socket ${path}: ${e.message}`);
      if (this.open.get(name) === entry) this.open.delete(name);
    });
    server.listen(path, () => {
      try {
        chmodSync(path, 0o600);
      } catch {
        // removed meanwhile (node gone)
      }
    });
  }

  private stop(name: string): Promise<void> {
    const entry = this.open.get(name);
    if (!entry) return Promise.resolve();
    this.open.delete(name);
    const closed = new Promise<void>((resolve) => entry.server.close(() => resolve()));
    for (const s of entry.sockets) s.destroy();
    // The node's dir may be gone already (with the node); the short path is ours to remove.
    rmSync(entry.path, { force: true });
    if (entry.link) rmSync(entry.link, { force: true });
    return closed;
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.open.keys()].map((n) => this.stop(n)));
  }
}
