// The kubelet's network probes, run in a node's namespace (`nsenter --net=… node node-prober.js`, as nobody):
// from the node's side to a pod's address, as the kubelet dials them, so NetworkPolicy (which filters only
// forwarded traffic) never blocks them (docs/dataplane.md §13.3). One long-lived process per node: each line on
// stdin is a request `{id, kind: 'http'|'tcp'|'grpc', host, port, timeoutMs, …}`, each answer a line
// `{id, result: 'success'|'warning'|'failure', output}` whose output is the text kubernetes pkg/probe gives
// (Go's error strings: `dial tcp 10.244.0.5:8080: connect: connection refused`). Bounded: 10 s per probe at most
// past its own timeout, 10 KiB of body read, 64 probes at once; it exits when its stdin closes.
import { connect as http2Connect } from 'node:http2';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect } from 'node:net';
import type { NodeProbeAnswer, NodeProbeRequest } from './node-prober-process.js';

/** pkg/probe/http: the body read at most. */
const MAX_BODY = 10 * 1024;
const MAX_REDIRECTS = 10;
const MAX_INFLIGHT = 64;

/** Go's dial error texts for Node's error codes. */
function dialError(code: string | undefined, addr: string): string {
  const why: Record<string, string> = {
    ECONNREFUSED: 'connect: connection refused',
    EHOSTUNREACH: 'connect: no route to host',
    ENETUNREACH: 'connect: network is unreachable',
    ECONNRESET: 'read: connection reset by peer',
    EADDRNOTAVAIL: 'connect: cannot assign requested address',
  };
  return `dial tcp ${addr}: ${why[code ?? ''] ?? code ?? 'error'}`;
}

const hostPort = (host: string, port: number): string => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);

/** Go's Duration text for whole seconds and below: 1s, 500ms, 1m30s. */
function goSeconds(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const s = ms / 1000;
  return s >= 60 ? `${Math.floor(s / 60)}m${s % 60}s` : `${s}s`;
}

function tcp(req: NodeProbeRequest): Promise<NodeProbeAnswer> {
  const addr = hostPort(req.host, req.port);
  return new Promise((resolve) => {
    const socket = connect({ host: req.host, port: req.port });
    const done = (result: NodeProbeAnswer['result'], output: string): void => {
      socket.destroy();
      resolve({ id: req.id, result, output });
    };
    const timer = setTimeout(() => done('failure', `dial tcp ${addr}: i/o timeout`), req.timeoutMs);
    socket.on('connect', () => {
      clearTimeout(timer);
      done('success', '');
    });
    socket.on('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      done('failure', dialError(e.code, addr));
    });
  });
}

/** pkg/probe/http DoHTTPProbe: 200–399 succeed (a redirect it does not follow is a warning), others fail. */
function http(req: NodeProbeRequest): Promise<NodeProbeAnswer> {
  const scheme = req.scheme ?? 'http';
  const first = new URL(`${scheme}://${hostPort(req.host, req.port)}`);
  // formatURL: the path's own path and query on the probe's host and port, whatever host the path names.
  let parsed: URL;
  try {
    parsed = new URL(req.path ?? '', 'http://probe/');
  } catch {
    parsed = new URL('http://probe/');
  }
  const target = new URL(first);
  target.pathname = parsed.pathname;
  target.search = parsed.search;
  const deadline = Date.now() + req.timeoutMs;
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of req.headers ?? []) {
    const old = headers[name];
    headers[name] = old === undefined ? value : [...(Array.isArray(old) ? old : [old]), value];
  }
  const lower = new Set(Object.keys(headers).map((h) => h.toLowerCase()));
  if (!lower.has('user-agent')) headers['User-Agent'] = req.userAgent ?? 'kube-probe/1.33';
  if (!lower.has('accept')) headers['Accept'] = '*/*';
  if (!lower.has('connection')) headers['Connection'] = 'close';
  const quoted = (u: URL) => `Get "${u.href}"`;
  return new Promise((resolve) => {
    let settled = false;
    const done = (result: NodeProbeAnswer['result'], output: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ id: req.id, result, output });
    };
    let current = target;
    const timer = setTimeout(
      () => done('failure', `${quoted(current)}: context deadline exceeded (Client.Timeout exceeded while awaiting headers)`),
      Math.max(1, deadline - Date.now()),
    );
    const get = (url: URL, hops: number): void => {
      current = url;
      const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
      const r = send(
        url,
        { method: 'GET', headers, agent: false, rejectUnauthorized: false, timeout: Math.max(1, deadline - Date.now()) },
        (res: IncomingMessage) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => {
            if (body.length < MAX_BODY) body += d.slice(0, MAX_BODY - body.length);
          });
          res.on('error', () => undefined);
          res.on('end', () => {
            const code = res.statusCode ?? 0;
            const location = res.headers.location;
            if (code >= 300 && code < 400 && location && hops < MAX_REDIRECTS) {
              // The kubelet's client follows redirects to the same host, and stops at one to another (a warning).
              let next: URL | undefined;
              try {
                next = new URL(location, url);
              } catch {
                next = undefined;
              }
              if (next && next.hostname === url.hostname && (next.protocol === 'http:' || next.protocol === 'https:')) return get(next, hops + 1);
            }
            if (code >= 200 && code < 400) {
              if (code >= 300) done('warning', `Probe terminated redirects, Response body: ${body}`);
              else done('success', body);
            } else done('failure', `HTTP probe failed with statuscode: ${code}`);
          });
        },
      );
      r.on('timeout', () => r.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
      r.on('error', (e: NodeJS.ErrnoException) => {
        if (e.code === 'ETIMEDOUT') done('failure', `${quoted(url)}: context deadline exceeded (Client.Timeout exceeded while awaiting headers)`);
        else if (e.code === 'EPROTO' || /SSL|TLS/i.test(e.message)) done('failure', `${quoted(url)}: ${e.message}`);
        else
          done(
            'failure',
            `${quoted(url)}: ${dialError(e.code, hostPort(url.hostname.replace(/^\[|\]$/g, ''), Number(url.port) || (url.protocol === 'https:' ? 443 : 80)))}`,
          );
      });
      r.end();
    };
    get(target, 0);
  });
}

/** The protobuf of grpc.health.v1.HealthCheckRequest{service}, in a gRPC message frame. */
function healthRequest(service: string): Buffer {
  const name = Buffer.from(service, 'utf8');
  const body = name.length ? Buffer.concat([Buffer.from([0x0a]), varint(name.length), name]) : Buffer.alloc(0);
  const frame = Buffer.alloc(5);
  frame.writeUInt32BE(body.length, 1);
  return Buffer.concat([frame, body]);
}

function varint(n: number): Buffer {
  const out: number[] = [];
  let v = n;
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
  return Buffer.from(out);
}

/** HealthCheckResponse.ServingStatus names. */
const SERVING_STATUS = ['UNKNOWN', 'SERVING', 'NOT_SERVING', 'SERVICE_UNKNOWN'];

/** pkg/probe/grpc: the grpc.health.v1 Check over h2c; SERVING succeeds. */
function grpc(req: NodeProbeRequest): Promise<NodeProbeAnswer> {
  const addr = hostPort(req.host, req.port);
  const within = goSeconds(req.timeoutMs);
  return new Promise((resolve) => {
    let settled = false;
    const session = http2Connect(`http://${addr}`);
    const done = (result: NodeProbeAnswer['result'], output: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      session.destroy();
      resolve({ id: req.id, result, output });
    };
    let connected = false;
    const timer = setTimeout(
      () =>
        done(
          'failure',
          connected
            ? `timeout: health rpc did not complete within ${within}`
            : `timeout: failed to connect service "${addr}" within ${within}: context deadline exceeded`,
        ),
      req.timeoutMs,
    );
    // grpc-go's blocking dial retries a refused connection until the deadline: the timeout's text, as it says.
    session.on('error', () => undefined);
    session.on('connect', () => {
      connected = true;
      const stream = session.request({
        ':method': 'POST',
        ':path': '/grpc.health.v1.Health/Check',
        'content-type': 'application/grpc',
        te: 'trailers',
        'user-agent': `${req.userAgent ?? 'kube-probe/1.33'} grpc-go`,
      });
      let data = Buffer.alloc(0);
      let status: string | undefined;
      let message = '';
      stream.on('response', (h) => {
        if (h['grpc-status'] !== undefined) {
          status = String(h['grpc-status']);
          message = decodeURIComponent(String(h['grpc-message'] ?? ''));
        }
      });
      stream.on('trailers', (t) => {
        status = String(t['grpc-status'] ?? status ?? '');
        message = decodeURIComponent(String(t['grpc-message'] ?? message));
      });
      stream.on('data', (d: Buffer) => {
        if (data.length < MAX_BODY) data = Buffer.concat([data, d]);
      });
      stream.on('error', (e) => done('failure', `error: health rpc probe failed: rpc error: code = Unavailable desc = ${e.message}`));
      stream.on('end', () => {
        if (status === '12')
          return done(
            'failure',
            `error: this server does not implement the grpc health protocol (grpc.health.v1.Health): ${message || 'unknown service grpc.health.v1.Health'}`,
          );
        if (status !== '0') return done('failure', `error: health rpc probe failed: rpc error: code = ${grpcCode(status)} desc = ${message}`);
        // One message: HealthCheckResponse{status = 1: enum}.
        const body = data.subarray(5);
        const value = body[0] === 0x08 ? (body[1] ?? 0) : 0;
        const name = SERVING_STATUS[value] ?? String(value);
        if (value === 1) done('success', 'service healthy');
        else done('failure', `service unhealthy (responded with "${name}")`);
      });
      stream.end(healthRequest(req.service ?? ''));
    });
  });
}

const GRPC_CODES = [
  'OK',
  'Canceled',
  'Unknown',
  'InvalidArgument',
  'DeadlineExceeded',
  'NotFound',
  'AlreadyExists',
  'PermissionDenied',
  'ResourceExhausted',
  'FailedPrecondition',
  'Aborted',
  'OutOfRange',
  'Unimplemented',
  'Internal',
  'Unavailable',
  'DataLoss',
  'Unauthenticated',
];

function grpcCode(status: string | undefined): string {
  const n = Number(status);
  return Number.isInteger(n) && GRPC_CODES[n] ? GRPC_CODES[n]! : `Code(${status ?? ''})`;
}

/** One request, bounded past its own timeout whatever happens. */
async function answer(req: NodeProbeRequest): Promise<NodeProbeAnswer> {
  const run = req.kind === 'tcp' ? tcp : req.kind === 'grpc' ? grpc : http;
  let guard: NodeJS.Timeout | undefined;
  const bound = new Promise<NodeProbeAnswer>((resolve) => {
    guard = setTimeout(() => resolve({ id: req.id, result: 'failure', output: 'probe did not complete' }), req.timeoutMs + 10_000);
  });
  try {
    return await Promise.race([run(req), bound]);
  } finally {
    clearTimeout(guard);
  }
}

function valid(v: unknown): v is NodeProbeRequest {
  const r = v as NodeProbeRequest;
  return (
    typeof r === 'object' &&
    r !== null &&
    Number.isInteger(r.id) &&
    (r.kind === 'http' || r.kind === 'tcp' || r.kind === 'grpc') &&
    typeof r.host === 'string' &&
    Number.isInteger(r.port) &&
    r.port > 0 &&
    r.port < 65536 &&
    Number.isFinite(r.timeoutMs) &&
    r.timeoutMs > 0
  );
}

function main(): void {
  let pending = '';
  let inflight = 0;
  const reply = (a: NodeProbeAnswer): void => void process.stdout.write(`${JSON.stringify(a)}\n`);
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (d: string) => {
    pending += d;
    if (pending.length > 1024 * 1024) pending = pending.slice(pending.lastIndexOf('\n') + 1);
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      let req: unknown;
      try {
        req = JSON.parse(line);
      } catch {
        continue;
      }
      if (!valid(req)) continue;
      if (inflight >= MAX_INFLIGHT) {
        reply({ id: req.id, result: 'failure', output: 'too many probes at once on this node' });
        continue;
      }
      inflight++;
      void answer(req).then((a) => {
        inflight--;
        reply(a);
      });
    }
  });
  process.stdin.on('end', () => process.exit(0));
  process.stdin.on('close', () => process.exit(0));
  process.stdout.write('ready\n');
}

main();
