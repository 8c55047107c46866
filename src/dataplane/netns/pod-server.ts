// The server a catalogued backend image runs in its pod's namespace (agnhost, nginx: cluster/images/backends.ts),
// started with spawnInNetns (`nsenter --net=… node pod-server.js SPEC`). SPEC is one JSON argument: the hostname to
// answer and the listeners, each `{ proto: 'http' | 'tcp' | 'udp', port, answer }`:
//   hostname   the hostname (agnhost serve-hostname: HTTP on any path, or raw over TCP / UDP)
//   netexec    agnhost netexec's HTTP endpoints /hostname, /hostName, /clientip, /echo, /healthz and /, and its UDP
//              commands hostname, echo MSG, clientip
//   page       the `page` text on every GET (nginx's index)
// It binds every listener, prints `listening`, then, if started as root to bind a port below 1024, drops to nobody.
// One line per request on stdout (`HTTP request from ADDR PATH`) is the container's log. Bounded: at most 256
// connections, 10 s per request, 8 KiB of request line and headers; it exits when its stdin closes (the container
// stopped, or aksemu went away), so it never outlives its pod.
import { createSocket } from 'node:dgram';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type Server } from 'node:net';

export type PodServerAnswer = 'hostname' | 'netexec' | 'page';

export interface PodServerListener {
  proto: 'http' | 'tcp' | 'udp';
  port: number;
  answer: PodServerAnswer;
  /** http: the only paths served (404 for the others, nginx's default site); every path when absent. */
  paths?: readonly string[];
}

/** nginx's 404 page (server_tokens off: no version). */
const NOT_FOUND_PAGE =
  '<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n<center><h1>404 Not Found</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';

export interface PodServerSpec {
  hostname: string;
  listeners: PodServerListener[];
  page?: string;
}

const MAX_CONNECTIONS = 256;
const REQUEST_TIMEOUT_MS = 10_000;
const MAX_HEADER_BYTES = 8192;
const NOBODY = 65534;

function log(line: string): void {
  process.stdout.write(`${line.replace(/[^\x20-\x7e]/g, '?').slice(0, 300)}\n`);
}

/** What an HTTP listener answers for one request. */
function answerHttp(spec: PodServerSpec, l: PodServerListener, req: IncomingMessage, res: ServerResponse): void {
  const { answer } = l;
  const url = new URL(req.url ?? '/', 'http://pod');
  const remote = `${req.socket.remoteAddress ?? ''}:${req.socket.remotePort ?? ''}`;
  log(`HTTP request from ${remote} ${req.method ?? ''} ${url.pathname}`);
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  if (l.paths && !l.paths.includes(url.pathname)) {
    res.statusCode = 404;
    res.setHeader('Content-Type', 'text/html');
    res.end(NOT_FOUND_PAGE);
    return;
  }
  if (answer === 'page') {
    res.setHeader('Content-Type', 'text/html');
    res.end(spec.page ?? '');
    return;
  }
  if (answer === 'hostname') {
    res.end(spec.hostname);
    return;
  }
  switch (url.pathname) {
    case '/hostname':
    case '/hostName':
      res.end(spec.hostname);
      return;
    case '/clientip':
      res.end(remote);
      return;
    case '/healthz':
      res.end();
      return;
    case '/echo': {
      const code = url.searchParams.get('code') ?? '';
      const n = Number(code);
      if (code !== '' && (!Number.isInteger(n) || n < 100 || n > 999)) {
        res.end(`argument 'code' must be an integer or empty, got ${JSON.stringify(code)}\n`);
        return;
      }
      if (code !== '') res.statusCode = n;
      res.end(url.searchParams.get('msg') ?? '');
      return;
    }
    default:
      res.end(`NOW: ${new Date().toISOString()}`);
  }
}

/** netexec's UDP commands: `hostname`, `echo MSG`, `clientip`; anything else gets no answer. */
function answerUdpCommand(spec: PodServerSpec, command: string, address: string, port: number): string | undefined {
  if (command === 'hostname') return spec.hostname;
  if (command === 'clientip') return `${address}:${port}`;
  if (command.startsWith('echo ')) return command.slice(5);
  return undefined;
}

function listen(spec: PodServerSpec, l: PodServerListener): Promise<void> {
  return new Promise((resolve, reject) => {
    if (l.proto === 'udp') {
      const socket = createSocket('udp4');
      socket.on('message', (msg, from) => {
        log(`UDP request from ${from.address}:${from.port}`);
        const reply = l.answer === 'netexec' ? answerUdpCommand(spec, msg.toString('utf8', 0, 2048).trim(), from.address, from.port) : spec.hostname;
        if (reply !== undefined) socket.send(reply, from.port, from.address);
      });
      socket.once('error', reject);
      socket.bind(l.port, '0.0.0.0', () => resolve());
      return;
    }
    let server: Server;
    if (l.proto === 'http') {
      const http = createHttpServer({ maxHeaderSize: MAX_HEADER_BYTES, requestTimeout: REQUEST_TIMEOUT_MS }, (req, res) => answerHttp(spec, l, req, res));
      http.headersTimeout = REQUEST_TIMEOUT_MS;
      server = http;
    } else {
      server = createTcpServer((socket) => {
        log(`TCP request from ${socket.remoteAddress ?? ''}:${socket.remotePort ?? ''}`);
        socket.on('error', () => undefined);
        socket.end(spec.hostname);
      });
    }
    server.maxConnections = MAX_CONNECTIONS;
    server.once('error', reject);
    server.listen(l.port, '0.0.0.0', () => resolve());
  });
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? '') as PodServerSpec;
  await Promise.all(spec.listeners.map((l) => listen(spec, l)));
  if (process.getuid?.() === 0) {
    process.setgroups?.([]);
    process.setgid?.(NOBODY);
    process.setuid?.(NOBODY);
  }
  log('listening');
  process.stdin.resume();
  process.stdin.on('end', () => process.exit(0));
  process.stdin.on('close', () => process.exit(0));
}

main().catch((e: NodeJS.ErrnoException) => {
  process.stderr.write(`${e.code === 'EADDRINUSE' ? `address already in use: ${e.message}` : e.message}\n`);
  process.exit(1);
});
