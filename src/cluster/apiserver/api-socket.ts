// A cluster's API on a unix socket, for what runs on its nodes (src/cni/plugins/node-api.ts says why and how
// clients find it): one plain-HTTP server per cluster, at <cluster dir>/apiserver.sock (bound through
// unix-socket-path.ts when that is past sun_path's 107 bytes); each node's /run/aksemu/apiserver.sock is a symlink to it,
// made when the node first runs something (node-root.ts prepareNodeRoot), so a cluster of 5,000 nodes holds one
// socket, not 5,000. The socket is 0600: only aksemu's own user (the one running the plugins) connects.
import { chmodSync, mkdirSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { dirname, join } from 'node:path';
import { shortSocketPath } from '../../cni/unix-socket-path.js';
import { KubeError } from '../apimachinery/status.js';
import { MAX_HEADER_BYTES } from './validation/limits.js';

/** Where a cluster's socket listens. */
export function apiSocketOf(clusterDir: string): string {
  return join(clusterDir, 'apiserver.sock');
}

export class ApiSocket {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private listening: Promise<void> = Promise.resolve();

  constructor(
    readonly path: string,
    handler: (req: IncomingMessage, res: ServerResponse) => void,
    onClientError: (err: NodeJS.ErrnoException, socket: Socket) => void,
    private readonly log: (line: string) => void,
    onUpgrade?: (req: IncomingMessage, socket: Duplex, head: Buffer) => void,
  ) {
    this.server = createServer({ maxHeaderSize: MAX_HEADER_BYTES }, handler);
    if (onUpgrade) this.server.on('upgrade', onUpgrade);
    this.server.on('clientError', onClientError);
    this.server.on('connect', refuseConnect);
    this.server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
  }

  /** Starts listening (replacing a socket file an earlier run left); a failure is logged, and nodes then have no socket. */
  start(): void {
    this.listening = this.listen();
  }

  private async listen(): Promise<void> {
    try {
      mkdirSync(dirname(this.path), { recursive: true });
      rmSync(this.path, { force: true });
      const short = shortSocketPath(this.path);
      try {
        await new Promise<void>((resolve, reject) => {
          this.server.once('error', reject);
          this.server.listen(short.path, () => {
            this.server.off('error', reject);
            resolve();
          });
        });
      } finally {
        short.release();
      }
      chmodSync(this.path, 0o600);
    } catch (e) {
      this.log(`the cluster API socket ${this.path}: ${(e as Error).message}`);
    }
  }

  async close(): Promise<void> {
    await this.listening;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const s of this.sockets) s.destroy();
    rmSync(this.path, { force: true });
    return closed;
  }
}

/**
 * A CONNECT (Node hands it to 'connect' listeners and resets the connection when there are none): the
 * apiserver tunnels nothing through CONNECT, so it is answered as a method the resource does not allow.
 */
export function refuseConnect(_req: IncomingMessage, socket: Duplex): void {
  const text = JSON.stringify(new KubeError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource').toStatus());
  socket.on('error', () => socket.destroy());
  socket.end(
    `HTTP/1.1 405 Method Not Allowed\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
  );
}
