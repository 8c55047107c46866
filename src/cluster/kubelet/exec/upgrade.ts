// The upgraded requests of a cluster's API: pods/exec, pods/attach and pods/portforward (docs/clients.md §5.18
// and docs/clients.md §5.20). The request is
// authenticated by the server first, like every other; then the target is checked (target.ts: the apiserver's
// and the kubelet's errors, as a Status, before any upgrade), and the connection is switched to what the client
// asked for: a websocket (`Upgrade: websocket`, subprotocols v5/v4.channel.k8s.io for exec and attach,
// SPDY/3.1+portforward.k8s.io for port-forward) or SPDY/3.1 (`Upgrade: SPDY/3.1` with X-Stream-Protocol-Version,
// negotiated as k8s.io/apimachinery/pkg/util/httpstream Handshake does; the 101 reply as httpstream/spdy
// upgrade.go writes it).
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { ClusterRecord } from '../../../model/cluster-records.js';
import { type ObjectStore, projectedServiceAccount, type ServiceAccountIssuer } from '../../apiserver/index.js';
import type { PodSandboxes } from '../sandbox.js';
import { badRequest, KubeError, methodNotSupported, pathNotFound } from '../../apimachinery/status.js';
import { EXEC_SPDY_PROTOCOLS, streamsOverSpdy } from './exec-spdy.js';
import { aksKubeletDns, podEtcFiles } from '../pod-files.js';
import { EXEC_WEBSOCKET_PROTOCOLS, serveChannels } from './exec-websocket.js';
import { startAttach } from './attach.js';
import { startCommand, type CommandIO, type RunningCommand } from './command.js';
import type { ContainerIo } from '../container-io.js';
import { PORT_FORWARD_PROTOCOL, PORT_FORWARD_TUNNEL_PROTOCOL, portForwardStreams } from './port-forward.js';
import { SpdySession, type SpdyStream, type SpdyTransport } from './spdy.js';
import { attachTarget, containerNotFound, execTarget, portForwardTarget, type StreamOptions } from './target.js';
import { containerFiles } from '../container-rootfs.js';

/** Exec and port-forward sessions open at once in this process; more are answered 429. */
const MAX_SESSIONS = 64;
/** SPDY streams open at once in one session (a port-forward holds two per connection). */
const MAX_STREAMS = 128;
/** One websocket message: kubectl's are at most 32 KiB (plus a SPDY frame header when tunneled). */
const MAX_MESSAGE_BYTES = 1024 * 1024;

let sessions = 0;

type Kind = 'exec' | 'attach' | 'portforward';

/** /api/v1/namespaces/NS/pods/NAME/(exec|attach|portforward) → its parts. */
function streamPath(path: string): { namespace: string; name: string; kind: Kind } | undefined {
  const m = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/(exec|attach|portforward)\/?$/.exec(path);
  if (!m) return undefined;
  try {
    return { namespace: decodeURIComponent(m[1]!), name: decodeURIComponent(m[2]!), kind: m[3] as Kind };
  } catch {
    return undefined;
  }
}

/** Is this a pods/exec, pods/attach or pods/portforward path (for the plain-HTTP request: `Upgrade request required`)? */
export function isStreamPath(path: string): boolean {
  return streamPath(path) !== undefined;
}

/** An error before the upgrade: the Status as the HTTP reply on the raw socket. */
export function refuseUpgrade(socket: Duplex, error: KubeError): void {
  const body = JSON.stringify(error.toStatus());
  socket.end(
    `HTTP/1.1 ${error.code} ${STATUS_CODES[error.code] ?? 'Error'}\r\nContent-Type: application/json\r\nCache-Control: no-cache, private\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** The client's protocols from its repeated (or comma-joined) X-Stream-Protocol-Version headers, in its order. */
function clientProtocols(req: IncomingMessage): string[] {
  return (req.headersDistinct['x-stream-protocol-version'] ?? []).flatMap((v) => v.split(',').map((p) => p.trim())).filter((p) => p !== '');
}

/** What the streaming server needs of its cluster (the runtime, cluster.ts, is one). */
export interface StreamingHost {
  readonly objects: ObjectStore;
  /** The kubelets' node roots, where containers' filesystems live (kubectl cp: container-rootfs.ts). */
  readonly kubelets?: { nodeRoot(node: string): string; prepare?(node: string): void };
  readonly sandboxes: PodSandboxes;
  readonly serviceAccounts: ServiceAccountIssuer;
  readonly record: ClusterRecord;
  /** The running containers' streams (kubelet/container-io.ts), for attach. */
  readonly workloads: { attach(namespace: string, name: string, container: string): ContainerIo | undefined };
}

export interface UpgradeContext {
  runtime: StreamingHost;
  path: string;
  query: URLSearchParams;
  log: (line: string) => void;
}

/** Serves one authenticated upgrade request on its socket. */
export function serveUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, ctx: UpgradeContext): void {
  socket.on('error', () => socket.destroy());
  try {
    const what = streamPath(ctx.path);
    if (!what) throw pathNotFound();
    const method = req.method ?? 'GET';
    if (method !== 'GET' && method !== 'POST') throw methodNotSupported(method, `pods/${what.kind}`);
    const { objects, sandboxes } = ctx.runtime;
    // A remote command: its streams, and what runs behind them (exec: a command; attach: the container's process).
    let remote: { options: StreamOptions; start: (io: CommandIO) => RunningCommand } | undefined;
    if (what.kind === 'attach') {
      const { options, container } = attachTarget(objects, what.namespace, what.name, ctx.query);
      const streams = ctx.runtime.workloads.attach(what.namespace, what.name, container);
      if (!streams) throw containerNotFound(container);
      remote = { options, start: (io) => startAttach(streams, options, io) };
    }
    const exec = what.kind === 'exec' ? execTarget(objects, sandboxes, what.namespace, what.name, ctx.query) : undefined;
    const target = exec?.target ?? (what.kind === 'portforward' ? portForwardTarget(objects, sandboxes, what.namespace, what.name) : undefined);
    // The tool sees the pod's /etc/resolv.conf and /etc/hosts as the pod's kubelet wrote them (kubelet/pod-files.ts).
    const serviceAccount = exec && projectedServiceAccount(ctx.runtime.serviceAccounts, exec.target.pod, exec.target.pod.spec?.nodeName ?? '');
    const etc = exec
      ? {
          ...podEtcFiles(
            exec.target.pod,
            aksKubeletDns(ctx.runtime.record),
            (exec.target.pod.status?.podIPs ?? []).map((p) => p.ip),
          ),
          ...(serviceAccount ? { serviceAccount } : {}),
        }
      : undefined;
    const node = exec?.target.pod.spec?.nodeName;
    // The container's filesystem, for the file commands kubectl cp runs (container-rootfs.ts).
    // A container resumed after a restart may not have had its node's root prepared yet (init-containers.ts).
    if (exec && node) ctx.runtime.kubelets?.prepare?.(node);
    const files =
      exec && etc && node && ctx.runtime.kubelets
        ? containerFiles(ctx.runtime.kubelets.nodeRoot(node), exec.target.pod, exec.target.container, etc)
        : undefined;
    if (exec && etc) remote = { options: exec.options, start: (io) => startCommand({ ...exec.target, etc, ...(files ? { files } : {}) }, exec.options, io) };
    if (sessions >= MAX_SESSIONS)
      throw new KubeError(429, 'TooManyRequests', `too many exec, attach and port-forward sessions (at most ${MAX_SESSIONS} at once)`);
    const upgrade = String(req.headers.upgrade ?? '').toLowerCase();
    const started = () => {
      sessions++;
      let ended = false;
      return () => {
        if (!ended) sessions--;
        ended = true;
      };
    };
    if (upgrade === 'websocket') {
      const offered = String(req.headers['sec-websocket-protocol'] ?? '')
        .split(',')
        .map((p) => p.trim());
      const supported: readonly string[] = remote ? EXEC_WEBSOCKET_PROTOCOLS : [PORT_FORWARD_TUNNEL_PROTOCOL];
      const protocol = offered.find((p) => supported.includes(p));
      if (!protocol) throw badRequest(`requested protocol(s) are not supported: [${offered.join(' ')}]; supports [${supported.join(' ')}]`);
      const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: MAX_MESSAGE_BYTES, handleProtocols: () => protocol });
      wss.handleUpgrade(req, socket, head, (ws: WebSocket) => {
        const done = started();
        ws.on('close', done);
        if (remote) return serveChannels(ws, remote.options, remote.start);
        const forward = target!;
        const session = new SpdySession(websocketTransport(ws), {
          maxStreams: MAX_STREAMS,
          onStream: portForwardStreams(forward),
          onClose: done,
          onError: ctx.log,
        });
        ws.on('message', (data: Buffer | ArrayBuffer | Buffer[]) =>
          session.receive(Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data)),
        );
        ws.on('close', () => session.lost());
      });
      return;
    }
    if (upgrade === 'spdy/3.1') {
      const offered = clientProtocols(req);
      const supported: readonly string[] = remote ? EXEC_SPDY_PROTOCOLS : [PORT_FORWARD_PROTOCOL];
      const protocol = offered.find((p) => supported.includes(p));
      if (!protocol)
        throw new KubeError(
          403,
          'Forbidden',
          `unable to upgrade: unable to negotiate protocol: client supports [${offered.join(' ')}], server accepts [${supported.join(' ')}]`,
        );
      socket.write(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: ${protocol}\r\n\r\n`);
      const done = started();
      let session: SpdySession | undefined;
      const onStream: (s: SpdyStream) => void = remote ? streamsOverSpdy(() => session!, remote.options, remote.start) : portForwardStreams(target!);
      session = new SpdySession(socketTransport(socket), { maxStreams: MAX_STREAMS, onStream, onClose: done, onError: ctx.log });
      socket.on('data', (d: Buffer) => session.receive(d));
      socket.on('close', () => {
        session.lost();
        done();
      });
      if (head.length > 0) session.receive(head);
      return;
    }
    // kubelet server.go: a plain request to a streaming endpoint.
    throw badRequest('Upgrade request required');
  } catch (e) {
    if (e instanceof KubeError) return refuseUpgrade(socket, e);
    ctx.log(`cluster API upgrade ${req.method} ${JSON.stringify(req.url)} failed: ${(e as Error).stack ?? String(e)}`);
    refuseUpgrade(socket, badRequest('the upgrade could not be served'));
  }
}

function websocketTransport(ws: WebSocket): SpdyTransport {
  return {
    write: (data) => {
      if (ws.readyState === ws.OPEN) ws.send(data, { binary: true });
    },
    end: () => ws.close(1000),
    pause: () => ws.pause(),
    resume: () => ws.resume(),
  };
}

function socketTransport(socket: Duplex): SpdyTransport {
  return {
    write: (data) => {
      if (socket.writable) socket.write(data);
    },
    end: () => socket.end(),
    pause: () => socket.pause(),
    resume: () => socket.resume(),
  };
}
