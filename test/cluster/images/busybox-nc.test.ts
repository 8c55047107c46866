// busybox's nc as aksemu runs it (src/cluster/images/applets/busybox-nc.ts): getopt32's options, and the program run as a
// pod's sandbox runs it against listeners on 127.0.0.1: `-zv` says `HOST (IP:PORT) open`, a refusal is silent at
// -v and said at -vv (nc 1.10's rule), exit 1; stdin goes to the peer and the answer to stdout, `sent N, rcvd M`
// at -vv; a silent peer ends the run after 2 × -w once stdin ended; -l -p listens for one connection; what it
// does not do (UDP, -e) is said, exit 1.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { type AddressInfo, connect, createServer, type Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { parseNcArgs } from '../../../src/cluster/images/applets/busybox-nc.js';

const PROGRAM = fileURLToPath(new URL('../../../src/cluster/images/applets/busybox-nc.js', import.meta.url));

type Run = { code: number; stdout: string; stderr: string; ms: number };
const nc = (args: string[], input = '', onStart?: () => void): Promise<Run> =>
  new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, [PROGRAM, ...args]);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
      onStart?.();
    });
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr, ms: Date.now() - started }));
    child.stdin.end(input);
  });

describe('busybox nc', () => {
  let echo: Server;
  let mute: Server;
  let echoPort = 0;
  let mutePort = 0;

  before(async () => {
    echo = createServer((s) => {
      let got = '';
      s.on('data', (d) => (got += d));
      s.on('end', () => s.end(`got: ${got}`));
    });
    mute = createServer({ allowHalfOpen: true }, () => undefined);
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
    await new Promise<void>((r) => mute.listen(0, '127.0.0.1', r));
    echoPort = (echo.address() as AddressInfo).port;
    mutePort = (mute.address() as AddressInfo).port;
  });
  after(() => {
    echo.close();
    mute.close();
  });

  it('parses options as getopt32 does: clusters, -v counted, -w a number, at most two operands', () => {
    assert.deepEqual(parseNcArgs(['-zvw', '2', 'web', '80']), { verbose: 1, waitSec: 2, listen: false, zero: true, numeric: false, operands: ['web', '80'] });
    assert.equal(parseNcArgs(['-vv', 'web', '80']).verbose, 2);
    assert.equal(parseNcArgs(['-lp', '8080']).localPort, '8080');
    assert.equal(parseNcArgs(['-u', 'dns', '53']).unsupported, 'UDP (-u)');
    assert.equal(parseNcArgs(['web', '80', '-e', '/bin/sh']).unsupported, '-e PROG');
    assert.throws(() => parseNcArgs(['a', 'b', 'c']));
    assert.throws(() => parseNcArgs(['-x', 'a']), /invalid option -- 'x'/);
  });

  it('-zv: open, exit 0; a refusal: silent at -v, said at -vv, exit 1', async () => {
    assert.deepEqual(await nc(['-zv', '127.0.0.1', String(echoPort)]).then((r) => [r.code, r.stderr]), [0, `127.0.0.1 (127.0.0.1:${echoPort}) open\n`]);
    assert.deepEqual(await nc(['-zv', '127.0.0.1', '1']).then((r) => [r.code, r.stderr]), [1, '']);
    assert.deepEqual(await nc(['-zvv', '127.0.0.1', '1']).then((r) => [r.code, r.stderr]), [1, 'nc: 127.0.0.1 (127.0.0.1:1): Connection refused\n']);
    assert.deepEqual(await nc(['-zv', 'no-such-host.invalid', '80']).then((r) => [r.code, r.stderr]), [1, "nc: bad address 'no-such-host.invalid'\n"]);
  });

  it('stdin to the peer, its answer to stdout; -vv counts both', async () => {
    const r = await nc(['-vv', '127.0.0.1', String(echoPort)], 'hello\n');
    assert.equal(r.code, 0);
    assert.equal(r.stdout, 'got: hello\n');
    assert.equal(r.stderr, `127.0.0.1 (127.0.0.1:${echoPort}) open\nsent 6, rcvd 11\n`);
  });

  it('a peer that stays silent after stdin ended: done after 2 × -w, exit 0', async () => {
    const r = await nc(['-w', '1', '127.0.0.1', String(mutePort)]);
    assert.equal(r.code, 0);
    assert.ok(r.ms >= 1800 && r.ms < 6000, `took ${r.ms} ms`);
  });

  it('-l -p PORT listens for one connection and prints what it got', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    probe.close();
    let sent = false;
    const r = await nc(['-lv', '-p', String(port)], '', () => {
      if (sent) return;
      sent = true;
      const c = connect({ host: '127.0.0.1', port }, () => c.end('from a client\n'));
    });
    assert.equal(r.code, 0);
    assert.equal(r.stdout, 'from a client\n');
    assert.match(r.stderr, new RegExp(`^listening on \\[::\\]:${port} \\.\\.\\.\\nconnect to \\[::ffff:127\\.0\\.0\\.1\\]:${port} from `));
  });

  it('says what it does not do, and prints the usage without a host', async () => {
    assert.deepEqual(await nc(['-u', '127.0.0.1', '53']).then((r) => [r.code, r.stderr]), [
      1,
      "nc: aksemu's busybox nc does not do UDP (-u) (docs/clients.md §5.16)\n",
    ]);
    const usage = await nc([]);
    assert.equal(usage.code, 1);
    assert.match(usage.stderr, /^BusyBox v1\.36\.1 multi-call binary\.\n\nUsage: nc \[OPTIONS\] HOST PORT {2}- connect\n/);
  });
});
