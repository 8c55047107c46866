// The probe's two ends, run by the data plane inside namespaces (`nsenter --net=… node whoami.js …`):
//   serve PORT LIFETIME_MS   listen on every address of the namespace, tell the first client the address it
//                            came from, then exit (or exit when the lifetime is over)
//   ask IP PORT TIMEOUT_MS   connect, print {"connected":…,"seen":…,"error":…} as one JSON line
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

function ask(ip: string, port: number, timeoutMs: number): void {
  let connected = false;
  let data = '';
  const done = (error?: string): void => {
    const seen = data.split('\n')[0]?.trim();
    process.stdout.write(`${JSON.stringify({ connected, ...(seen ? { seen } : {}), ...(error ? { error } : {}) })}\n`);
    process.exit(0);
  };
  const socket = connect({ host: ip, port });
  socket.setTimeout(timeoutMs, () => done(connected ? undefined : `timed out after ${timeoutMs} ms`));
  socket.on('connect', () => (connected = true));
  socket.on('data', (d) => (data += d.toString()));
  socket.on('end', () => done());
  socket.on('error', (e: NodeJS.ErrnoException) => done(e.code ?? e.message));
}

if (mode === 'serve') serve(Number(a), Number(b ?? 10_000));
else if (mode === 'ask' && a) ask(a, Number(b), Number(c ?? 3000));
else {
  process.stderr.write('usage: whoami.js serve PORT [LIFETIME_MS] | ask IP PORT [TIMEOUT_MS]\n');
  process.exit(2);
}
