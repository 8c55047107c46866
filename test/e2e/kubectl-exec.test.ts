// `kubectl exec` and `kubectl port-forward` with the real kubectl against a kubenet cluster on the netns data
// plane (docs/clients.md §5.18): the websocket protocol kubectl 1.32 speaks first and SPDY (forced with
// KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false / KUBECTL_PORT_FORWARD_WEBSOCKETS=false): the pod's address in
// `ip addr`, exit codes, stdin, a refused command, and port-forward to a listener in the pod's namespace. Root only.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { spawnInNetns } from '../../src/dataplane/netns/spawn.js';
import { apiEndpoint, KUBECTL, type KubectlResult } from '../cluster/harness.js';
import { DataplaneWorld, skipReason } from './dataplane-harness.js';

type Obj = any;
const CLUSTER = 'x1';
const SPDY_EXEC = { KUBECTL_REMOTE_COMMAND_WEBSOCKETS: 'false' };
const SPDY_FORWARD = { KUBECTL_PORT_FORWARD_WEBSOCKETS: 'false' };

describe('kubectl exec and port-forward on the netns data plane', { skip: skipReason() }, () => {
  let world: DataplaneWorld;
  let pods: Obj[];
  let netns: string;
  const listeners: ChildProcess[] = [];
  let calls = 0;

  /** kubectl with stdin (and extra environment). */
  function kubectl(args: string[], options: { input?: string; env?: Record<string, string> } = {}): Promise<KubectlResult> {
    return new Promise((resolve) => {
      const child = spawn(KUBECTL, [`--cache-dir=${join(world.scratch, `cache-x${++calls}`)}`, ...args], {
        env: { ...process.env, KUBECONFIG: world.kubeconfig, HOME: world.scratch, ...options.env },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code: code ?? 1, stdout, stderr });
      });
      child.stdin.end(options.input ?? '');
    });
  }

  /** `kubectl port-forward pod/web-0 :PORT` until it prints its local port. */
  async function portForward(port: number, env: Record<string, string> = {}): Promise<{ local: number; stop: () => void; output: () => string }> {
    const child = spawn(KUBECTL, [`--cache-dir=${join(world.scratch, `cache-x${++calls}`)}`, 'port-forward', 'pod/web-0', `:${port}`], {
      env: { ...process.env, KUBECONFIG: world.kubeconfig, HOME: world.scratch, ...env },
    });
    let out = '';
    child.stderr.on('data', (d) => (out += d));
    const local = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`port-forward did not start: ${out}`)), 30_000);
      child.stdout.on('data', (d) => {
        out += d;
        const m = /Forwarding from 127\.0\.0\.1:(\d+) -> (\d+)/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(Number(m[1]));
        }
      });
      child.on('close', () => reject(new Error(`port-forward exited: ${out}`)));
    });
    return { local, stop: () => child.kill('SIGTERM'), output: () => out };
  }

  /** A shell command run by util-linux script(1), so that kubectl's stdin and stdout are a terminal. */
  function runUnderTerminal(command: string): Promise<KubectlResult> {
    return new Promise((resolve) => {
      const child = spawn('script', ['--quiet', '--return', '--command', command, '/dev/null'], {
        env: { ...process.env, KUBECONFIG: world.kubeconfig, HOME: world.scratch },
      });
      let stdout = '';
      child.stdout.on('data', (d) => (stdout += d));
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code: code ?? 1, stdout, stderr: '' });
      });
      child.stdin.end();
    });
  }

  /** Connects to 127.0.0.1:port, sends `send`, half-closes, and returns everything read. */
  function exchange(port: number, send: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port });
      let got = '';
      socket.on('data', (d) => (got += d));
      socket.on('end', () => resolve(got));
      socket.on('error', reject);
      socket.setTimeout(20_000, () => socket.destroy(new Error(`no answer; got ${JSON.stringify(got)}`)));
      socket.end(send);
    });
  }

  before(async () => {
    world = new DataplaneWorld();
    await world.start();
    await world.network();
    const created = await world.cluster(CLUSTER, ['--network-plugin', 'kubenet', '--pod-cidr', '10.244.0.0/16']);
    pods = await world.podsOnEachNode();
    netns = world.server.clusterApis.runtimeOf(created.id)!.sandboxes.netnsOf!('default', 'web-0')!;
    assert.ok(netns, 'web-0 has a network namespace');
    // An echo server on 127.0.0.1:9090 in web-0's namespace: answers "pod says: " and what it was sent.
    const server = spawnInNetns(netns, [
      process.execPath,
      '-e',
      `require('net').createServer((s) => { let b = ''; s.on('data', (d) => (b += d)); s.on('end', () => s.end('pod says: ' + b)); }).listen(9090, '127.0.0.1', () => console.log('up'))`,
    ]);
    listeners.push(server);
    await new Promise<void>((resolve) => server.stdout!.once('data', () => resolve()));
  });
  after(async () => {
    for (const l of listeners) l.kill('SIGKILL');
    await world?.close();
    world?.assertClean();
  });

  for (const [protocol, env] of [
    ['websocket', {}],
    ['SPDY', SPDY_EXEC],
  ] as const) {
    it(`${protocol}: ip addr shows the pod's address; exit 0`, async () => {
      const r = await kubectl(['exec', 'web-0', '--', 'ip', '-4', 'addr'], { env });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, new RegExp(`inet ${pods[0].status.podIP.replaceAll('.', '\\.')}/`));
    });

    it(`${protocol}: exit codes come back as kubectl's "command terminated with exit code N"`, async () => {
      const f = await kubectl(['exec', 'web-0', '--', 'false'], { env });
      assert.equal(f.code, 1);
      assert.match(f.stderr, /command terminated with exit code 1/);
      const c = await kubectl(['exec', 'web-0', '--', 'curl', '-sS', '--max-time', '5', 'http://127.0.0.1:1/'], { env });
      assert.equal(c.code, 7, c.stderr);
      assert.match(c.stderr, /Failed to connect|Couldn't connect/);
      assert.match(c.stderr, /command terminated with exit code 7/);
    });

    it(`${protocol}: stdin is piped to the command (kubectl exec -i)`, async () => {
      const r = await kubectl(['exec', '-i', 'web-0', '--', 'cat'], { input: 'hello\nfrom stdin\n', env });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, 'hello\nfrom stdin\n');
    });

    it(`${protocol}: a command off the allow-list is refused with exit code 127`, async () => {
      const r = await kubectl(['exec', 'web-0', '--', 'sh', '-c', 'id'], { env });
      assert.equal(r.code, 127);
      assert.match(r.stderr, /kubectl exec runs only network tools in a pod \(curl, wget, nc/);
      assert.match(r.stderr, /"sh" is not one of them/);
      assert.match(r.stderr, /command terminated with exit code 127/);
    });
  }

  it('the command runs as nobody, sees the pod as its host, and a /etc of the pod', async () => {
    const r = await kubectl(['exec', 'web-0', '--', 'hostname']);
    assert.deepEqual([r.code, r.stdout], [0, 'web-0\n']);
    const resolv = await kubectl(['exec', 'web-0', '--', 'cat', '/etc/resolv.conf']);
    assert.match(resolv.stdout, /search default\.svc\.cluster\.local svc\.cluster\.local cluster\.local/);
    assert.match(resolv.stdout, /options ndots:5/);
    const shadow = await kubectl(['exec', 'web-0', '--', 'cat', '/etc/shadow']);
    assert.equal(shadow.code, 1);
    const listening = await kubectl(['exec', 'web-0', '--', 'ss', '-Htln']);
    assert.match(listening.stdout, /127\.0\.0\.1:9090/);
  });

  it('kubectl exec -t: the command runs on a terminal of its own (kubectl itself under script(1), as from a shell)', async () => {
    const r = await runUnderTerminal(`${KUBECTL} --cache-dir=${join(world.scratch, 'cache-tty')} exec -t web-0 -- echo on a tty`);
    assert.match(r.stdout, /on a tty\r?\n/);
    assert.equal(r.code, 0, r.stdout);
    const f = await runUnderTerminal(`${KUBECTL} --cache-dir=${join(world.scratch, 'cache-tty')} exec -t web-0 -- false`);
    assert.equal(f.code, 1, f.stdout);
  });

  it("port-forward to a port nothing listens on: kubectl reports the kubelet's error and drops the session", async () => {
    const pf = await portForward(9191);
    const got = await exchange(pf.local, 'hello').catch((e: Error) => e.message);
    assert.ok(got === '' || /ECONNRESET/.test(got), got);
    await new Promise((r) => setTimeout(r, 500));
    pf.stop();
    assert.match(pf.output(), /error forwarding port 9191 to pod web-0, uid [0-9a-f-]+: failed to execute portforward in network namespace/);
    assert.match(pf.output(), /failed to connect to localhost:9191 inside namespace/);
  });

  it('a client that sends garbage after the SPDY upgrade gets GOAWAY and a closed connection; the server carries on', async () => {
    const endpoint = apiEndpoint({ kubeconfigYaml: readFileSync(world.kubeconfig, 'utf8') });
    const url = new URL(endpoint.url);
    const got = await new Promise<Buffer>((resolve, reject) => {
      const socket = tlsConnect({ host: url.hostname, port: Number(url.port), ca: endpoint.caPem, servername: url.hostname }, () => {
        socket.write(
          'POST /api/v1/namespaces/default/pods/web-0/exec?command=cat&stdin=true&stdout=true HTTP/1.1\r\n' +
            `Host: ${url.host}\r\nAuthorization: Bearer ${endpoint.token}\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n` +
            'X-Stream-Protocol-Version: v4.channel.k8s.io\r\nContent-Length: 0\r\n\r\n',
        );
      });
      const chunks: Buffer[] = [];
      socket.on('data', (d: Buffer) => {
        chunks.push(d);
        if (Buffer.concat(chunks).includes('\r\n\r\n') && chunks.length === 1)
          socket.write(Buffer.from('\x80\x03\x00\x01\x00\x00\x00\x0aabcdefghij', 'latin1'));
      });
      socket.on('end', () => resolve(Buffer.concat(chunks)));
      socket.on('error', reject);
      socket.setTimeout(10_000, () => socket.destroy(new Error('not closed')));
    });
    const text = got.toString('latin1');
    assert.match(text, /^HTTP\/1\.1 101 Switching Protocols\r\n/);
    const frames = got.subarray(text.indexOf('\r\n\r\n') + 4);
    // GOAWAY (type 7) with PROTOCOL_ERROR (1).
    assert.deepEqual([frames.readUInt16BE(2), frames.readUInt32BE(12)], [7, 1]);
    const r = await kubectl(['exec', 'web-0', '--', 'echo', 'still here'], { env: SPDY_EXEC });
    assert.deepEqual([r.code, r.stdout], [0, 'still here\n']);
  });

  for (const [protocol, env] of [
    ['websocket tunnel', {}],
    ['SPDY', SPDY_FORWARD],
  ] as const) {
    it(`${protocol}: port-forward reaches a listener on 127.0.0.1 in the pod, connection after connection`, async () => {
      const pf = await portForward(9090, env);
      try {
        assert.equal(await exchange(pf.local, 'one'), 'pod says: one');
        assert.equal(await exchange(pf.local, 'two'), 'pod says: two');
        const big = 'x'.repeat(200_000);
        assert.equal(await exchange(pf.local, big), `pod says: ${big}`);
      } finally {
        pf.stop();
      }
    });
  }
});
