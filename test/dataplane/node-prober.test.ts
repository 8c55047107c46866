// The node's prober script (src/dataplane/netns/node-prober.ts) answers in pkg/probe's words. It is run here as a
// plain child on loopback (the data plane runs it in a node's namespace), against servers on 127.0.0.1: HTTP
// statuses, a same-host redirect followed, one to another host a warning, a path naming another host kept on the
// probe's, a refused port, a server that never answers (the client timeout), TCP, and the gRPC health protocol.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer as createHttp2Server } from 'node:http2';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { NodeProbeAnswer, NodeProbeRequest } from '../../src/dataplane/netns/node-prober-process.js';

const SCRIPT = fileURLToPath(new URL('../../src/dataplane/netns/node-prober.js', import.meta.url));
const port = (s: { address(): unknown }) => (s.address() as AddressInfo).port;

describe('node-prober.js', () => {
  let child: ChildProcess;
  let http: Server;
  let hung: ReturnType<typeof createTcpServer>;
  let grpc: ReturnType<typeof createHttp2Server>;
  let next = 1;
  const waiting = new Map<number, (a: NodeProbeAnswer) => void>();
  const seen: string[] = [];

  function ask(req: Omit<NodeProbeRequest, 'id'>): Promise<NodeProbeAnswer> {
    const id = next++;
    return new Promise((resolve) => {
      waiting.set(id, resolve);
      child.stdin!.write(`${JSON.stringify({ ...req, id })}\n`);
    });
  }

  before(async () => {
    http = createServer((req, res) => {
      seen.push(`${req.url} ${req.headers['user-agent']} ${req.headers['x-probe'] ?? ''}`);
      if (req.url === '/ok') res.end('fine');
      else if (req.url === '/moved') res.writeHead(302, { Location: '/ok' }).end();
      else if (req.url === '/away') res.writeHead(301, { Location: 'http://198.51.100.7/ok' }).end('gone');
      else res.writeHead(404).end();
    });
    hung = createTcpServer(() => undefined);
    grpc = createHttp2Server();
    grpc.on('stream', (stream, headers) => {
      let body = Buffer.alloc(0);
      stream.on('data', (d: Buffer) => (body = Buffer.concat([body, d])));
      stream.on('end', () => {
        if (headers[':path'] !== '/grpc.health.v1.Health/Check') {
          stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '12', 'grpc-message': 'unknown service' }, { endStream: true });
          return;
        }
        const service = body.subarray(7).toString();
        const status = service === 'down' ? 2 : 1;
        stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
        stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
        stream.end(Buffer.from([0, 0, 0, 0, 2, 0x08, status]));
      });
    });
    await Promise.all([http, hung, grpc].map((s) => new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()))));
    child = spawn(process.execPath, [SCRIPT], { stdio: ['pipe', 'pipe', 'inherit'] });
    let pending = '';
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (d: string) => {
      pending += d;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        if (!line.startsWith('{')) continue;
        const a = JSON.parse(line) as NodeProbeAnswer;
        waiting.get(a.id)?.(a);
        waiting.delete(a.id);
      }
    });
  });
  after(() => {
    child.stdin!.end();
    child.kill('SIGKILL');
    for (const s of [http, hung, grpc]) s.close();
  });

  const base = { host: '127.0.0.1', timeoutMs: 1000 };

  it('httpGet: statuses, redirects, headers and the kubelet user agent', async () => {
    const p = port(http);
    assert.deepEqual(await ask({ ...base, kind: 'http', port: p, path: '/ok', userAgent: 'kube-probe/1.32', headers: [['X-Probe', 'yes']] }), {
      id: 1,
      result: 'success',
      output: 'fine',
    });
    assert.ok(seen.includes('/ok kube-probe/1.32 yes'), seen.join('\n'));
    assert.equal((await ask({ ...base, kind: 'http', port: p, path: '/nope' })).output, 'HTTP probe failed with statuscode: 404');
    assert.equal((await ask({ ...base, kind: 'http', port: p, path: '/moved' })).result, 'success');
    const away = await ask({ ...base, kind: 'http', port: p, path: '/away' });
    assert.deepEqual([away.result, away.output], ['warning', 'Probe terminated redirects, Response body: gone']);
    // A path naming a host stays on the probe's host and port.
    assert.equal((await ask({ ...base, kind: 'http', port: p, path: '//198.51.100.7/ok' })).output, 'fine');
    const refused = await ask({ ...base, kind: 'http', port: 1, path: '/healthz' });
    assert.deepEqual([refused.result, refused.output], ['failure', 'Get "http://127.0.0.1:1/healthz": dial tcp 127.0.0.1:1: connect: connection refused']);
    const slow = await ask({ ...base, kind: 'http', port: port(hung), path: '/' });
    assert.equal(slow.output, `Get "http://127.0.0.1:${port(hung)}/": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`);
  });

  it('tcpSocket and grpc', async () => {
    assert.deepEqual(await ask({ ...base, kind: 'tcp', port: port(http) }), { id: next - 1, result: 'success', output: '' });
    assert.equal((await ask({ ...base, kind: 'tcp', port: 1 })).output, 'dial tcp 127.0.0.1:1: connect: connection refused');
    const g = port(grpc);
    assert.deepEqual((({ result, output }) => ({ result, output }))(await ask({ ...base, kind: 'grpc', port: g })), {
      result: 'success',
      output: 'service healthy',
    });
    assert.equal((await ask({ ...base, kind: 'grpc', port: g, service: 'down' })).output, 'service unhealthy (responded with "NOT_SERVING")');
    assert.equal(
      (await ask({ ...base, kind: 'grpc', port: 1 })).output,
      'timeout: failed to connect service "127.0.0.1:1" within 1s: context deadline exceeded',
    );
  });
});
