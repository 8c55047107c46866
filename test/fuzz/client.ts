// The fuzzers' HTTPS client: keep-alive sockets to 127.0.0.1 only, a hard deadline on every request (a
// request still unanswered at the deadline is a hang, not something to wait for), and the raw outcome —
// status, headers and text, or how the connection failed — so the oracle can judge it.
import type { IncomingMessage } from 'node:http';
import { Agent, request } from 'node:https';
import type { Duplex } from 'node:stream';
import { checkServerIdentity } from 'node:tls';

export const LOOPBACK = '127.0.0.1';
export const HANG_MS = 5_000;

export interface Target {
  /** https://127.0.0.1:port */
  url: string;
  caPem: string;
}

export interface WireRequest {
  method: string;
  /** Path and query, sent as is (already percent-encoded where it must be). */
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  /** A watch: the answer is its status and the first STREAM_MS of events, then the client hangs up. */
  stream?: boolean;
}

const STREAM_MS = 300;

export type Outcome = 'response' | 'timeout' | 'reset';

export interface WireResponse {
  outcome: Outcome;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  ms: number;
  /** For reset: the socket error. */
  error?: string;
}

/** Refuses anything but https://127.0.0.1:port: the fuzzers never leave the loopback. */
export function loopbackOnly(url: string): URL {
  const u = new URL(url);
  if (u.protocol !== 'https:' || u.hostname !== LOOPBACK) throw new Error(`fuzz target must be https://${LOOPBACK}:port, got ${url}`);
  return u;
}

export class FuzzClient {
  private readonly agent: Agent;
  private readonly base: URL;

  constructor(
    readonly target: Target,
    private readonly options: { maxSockets: number; timeoutMs?: number; cert?: { certPem: string; keyPem: string } },
  ) {
    this.base = loopbackOnly(target.url);
    this.agent = new Agent({ keepAlive: true, maxSockets: options.maxSockets, ca: target.caPem });
  }

  /** One request; a reset on a reused keep-alive socket is retried once on a fresh one (the server may have closed it idle). */
  async send(req: WireRequest): Promise<WireResponse> {
    const first = await this.once(req, this.agent);
    if (first.outcome === 'reset' && first.reused) return this.once(req, false);
    return first;
  }

  private once(req: WireRequest, agent: Agent | false): Promise<WireResponse & { reused?: boolean }> {
    const timeoutMs = this.options.timeoutMs ?? HANG_MS;
    const started = performance.now();
    return new Promise((resolve) => {
      let settled = false;
      const finish = (r: Omit<WireResponse, 'ms'> & { reused?: boolean }) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ ...r, ms: performance.now() - started });
      };
      let r: ReturnType<typeof request>;
      try {
        r = request(
          {
            host: LOOPBACK,
            port: Number(this.base.port),
            method: req.method,
            path: req.path,
            headers: req.body === undefined ? req.headers : { ...req.headers, 'content-length': String(Buffer.byteLength(req.body)) },
            agent,
            ca: this.target.caPem,
            // A forged Host header must not change which name the certificate is checked against.
            checkServerIdentity: (_host: string, cert) => checkServerIdentity(LOOPBACK, cert),
            ...(this.options.cert ? { cert: this.options.cert.certPem, key: this.options.cert.keyPem } : {}),
          },
          (res) => {
            const chunks: Buffer[] = [];
            if (req.stream && res.statusCode === 200) {
              setTimeout(() => {
                finish({ outcome: 'response', status: 200, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') });
                r.destroy();
              }, STREAM_MS);
            }
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () =>
              finish({ outcome: 'response', status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
            );
            res.on('error', (e) =>
              finish({ outcome: 'reset', status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8'), error: e.message }),
            );
          },
        );
      } catch (e) {
        // Node refused to send it (an illegal header or path): the generator's bug, not the server's.
        throw new Error(`fuzzer built an unsendable request ${req.method} ${req.path}: ${(e as Error).message}`);
      }
      const timer = setTimeout(() => {
        r.destroy();
        finish({ outcome: 'timeout', status: 0, headers: {}, text: '' });
      }, timeoutMs);
      // A CONNECT's answer arrives as 'connect' (Node hands the socket over): read the rest of it from there.
      r.on('connect', (res: IncomingMessage, socket: Duplex, head: Buffer) => {
        const chunks = [head];
        socket.on('data', (c: Buffer) => chunks.push(c));
        const done = () => finish({ outcome: 'response', status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') });
        socket.on('end', done);
        socket.on('close', done);
        socket.on('error', done);
      });
      r.on('error', (e: NodeJS.ErrnoException) =>
        finish({ outcome: 'reset', status: 0, headers: {}, text: '', error: e.code ?? e.message, reused: r.reusedSocket }),
      );
      if (req.body !== undefined) r.write(req.body);
      r.end();
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
