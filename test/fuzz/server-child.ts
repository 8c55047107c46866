// The fuzzers' server: startServer() in a process of its own, so a server that stalls, runs out of memory
// or dies cannot take the fuzzer down with it. Over IPC it reports its URL, forwards the log lines that
// name internal failures, and answers probes: which keys appeared on the built-in prototypes since it
// started (prototype pollution shows up here even when no response reveals it).
import { writeHeapSnapshot } from 'node:v8';
import { startServer } from '../../src/server/server.js';

const home = process.argv[2];
// `node --test dist/test/` runs every file under test/, this one too, with no arguments: nothing to serve then.
if (!home) process.exit(0);

const PROTOTYPES: Record<string, object> = { Object: Object.prototype, Array: Array.prototype, Function: Function.prototype, String: String.prototype };
const baseline = new Map(Object.entries(PROTOTYPES).map(([name, proto]) => [name, new Set(Reflect.ownKeys(proto).map(String))]));

function polluted(): string[] {
  const out: string[] = [];
  for (const [name, proto] of Object.entries(PROTOTYPES)) {
    for (const key of Reflect.ownKeys(proto).map(String)) if (!baseline.get(name)!.has(key)) out.push(`${name}.prototype.${key}`);
  }
  return out;
}

const send = (message: unknown) => process.send?.(message);
const server = await startServer({
  home,
  port: 0,
  log: (line) => {
    if (/ failed: /.test(line)) send({ type: 'log', line: line.slice(0, 4000) });
  },
});
// Server-side time of every fuzz request (x-fuzz-index), so a request that blocks the event loop is told
// apart from the requests that merely waited behind it.
const timed = (httpServer: { on(e: 'request', f: (req: any, res: any) => void): unknown }) =>
  httpServer.on('request', (req, res) => {
    const index = req.headers['x-fuzz-index'];
    if (index === undefined) return;
    const started = performance.now();
    const done = () => {
      const ms = performance.now() - started;
      if (ms >= 1000) send({ type: 'timing', index: Number(index), ms });
    };
    res.once('close', done);
  });
timed(server.app.server);
timed((server.clusterApis as unknown as { tlsServer: Parameters<typeof timed>[0] }).tlsServer);
send({ type: 'ready', url: server.url, caPem: server.caPem, identity: server.identity });

process.on('message', (m: { type: string; id: number }) => {
  if (m.type === 'probe') {
    const mem = process.memoryUsage();
    send({ type: 'probe', id: m.id, polluted: polluted(), rss: mem.rss, heap: mem.heapUsed, external: mem.external + mem.arrayBuffers });
  }
  // AKSEMU_FUZZ_HEAP_SNAPSHOTS (the soak's diagnosis): a heap snapshot where the soak asks for one.
  if (m.type === 'snapshot') send({ type: 'snapshot', id: m.id, file: writeHeapSnapshot() });
  if (m.type === 'close') void server.close().then(() => process.exit(0));
});
// The fuzzer went away: so do we.
process.on('disconnect', () => void server.close().finally(() => process.exit(0)));
