// The probe's two ends, run by the data plane inside namespaces (`nsenter --net=… node whoami.js …`):
//   serve PORT LIFETIME_MS   listen on every address of the namespace, tell the first client the address it
//                            came from, then exit (or exit when the lifetime is over)
//   ask IP PORT TIMEOUT_MS [http]
//                            connect, print {"connected":…,"seen":…,"error":…} as one JSON line; with http, send
//                            an HTTP/1.0 GET first, and a server that answers HTTP (an agnhost or nginx backend)
//                            gives its body (up to 1 KiB) as "answer" instead of "seen"
import { connect, createServer } from 'node:net';

const [mode, a, b, c] = process.argv.slice(2);

function serve(port: number, lifetimeMs: number): void {
  const server = createServer((socket) => {
    socket.end(`${socket.remoteAddress ?? ''}\n`);
    process.stdout.write(`seen ${socket.remoteAddress ?? ''}\n`);
    server.close();
  });
  server.on('error', (e) => {
    process.stderr.write(`${e.message}\n`);
    process.exit(1);
  });
  server.listen(port, '0.0.0.0', () => process.stdout.write('listening\n'));
  setTimeout(() => process.exit(0), lifetimeMs).unref();
}

const MAX_REPLY = 4096;

function ask(ip: string, port: number, timeoutMs: number, http: boolean): void {
  let connected = false;
  let data = '';
  const done = (error?: string): void => {
    const body = http && data.startsWith('HTTP/') ? data.slice(data.indexOf('\r\n\r\n') + 4) : undefined;
    const first = data.split('\n')[0]?.trim().slice(0, 253);
    const answer = body === undefined ? (first ? { seen: first } : {}) : body.trim() ? { answer: body.trim().slice(0, 1024) } : {};
    process.stdout.write(`${JSON.stringify({ connected, ...answer, ...(error ? { error } : {}) })}\n`);
    process.exit(0);
  };
  const socket = connect({ host: ip, port });
  socket.setTimeout(timeoutMs, () => done(connected ? undefined : `timed out after ${timeoutMs} ms`));
  socket.on('connect', () => {
    connected = true;
    if (http) socket.write(`GET / HTTP/1.0\r\nHost: ${ip}:${port}\r\nUser-Agent: aksemu-probe\r\n\r\n`);
  });
  socket.on('data', (d) => {
    if (data.length < MAX_REPLY) data += d.toString();
  });
  socket.on('end', () => done());
  socket.on('error', (e: NodeJS.ErrnoException) => done(e.code ?? e.message));
}

if (mode === 'serve') serve(Number(a), Number(b ?? 10_000));
else if (mode === 'ask' && a) ask(a, Number(b), Number(c ?? 3000), process.argv[6] === 'http');
else {
  process.stderr.write('usage: whoami.js serve PORT [LIFETIME_MS] | ask IP PORT [TIMEOUT_MS [http]]\n');
  process.exit(2);
}
