// busybox's wget as aksemu runs it (src/cluster/images/applets/busybox-wget.ts): the option parsing of busybox 1.36's
// getopt32 string, its URL parsing and progress line, and the program itself run as a pod's sandbox runs it
// (`node busybox-wget.js ARGS`) against HTTP servers on 127.0.0.1: busybox's messages and exit codes for a page,
// a 404, a refused connection, a server that never answers (`wget: download timed out` after -T, one try), a
// name that does not resolve, a redirect, --spider, files saved (and not overwritten) without -O, and usage errors.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { parseUrl, parseWgetArgs, progressLine, UsageError } from '../../../src/cluster/images/applets/busybox-wget.js';

const PROGRAM = fileURLToPath(new URL('../../../src/cluster/images/applets/busybox-wget.js', import.meta.url));

describe('busybox wget: options, URLs and the progress line', () => {
  it('reads short clusters, long options with = or a separate value, and permuted arguments', () => {
    const a = parseWgetArgs(['-qO-', '--timeout=2', 'http://web']);
    assert.deepEqual([a.quiet, a.output, a.timeoutSec, a.urls], [true, '-', 2, ['http://web']]);
    const b = parseWgetArgs(['http://a', '-T', '7', '-O', 'out.html', '--time', '9', '-nv', '-t', '3', '--spider', '--header', 'X-A: 1']);
    assert.deepEqual([b.timeoutSec, b.output, b.spider, b.headers, b.urls, b.quiet], [9, 'out.html', true, ['X-A: 1'], ['http://a'], false]);
    assert.equal(parseWgetArgs(['-T5', 'x']).timeoutSec, 5);
    assert.equal(parseWgetArgs(['x']).timeoutSec, 900, "busybox's default timeout");
    assert.deepEqual(parseWgetArgs(['--', '-x']).urls, ['-x']);
  });

  it('refuses what getopt refuses, in its words', () => {
    assert.throws(() => parseWgetArgs(['-z', 'x']), new UsageError("invalid option -- 'z'"));
    assert.throws(() => parseWgetArgs(['--tries-not', 'x']), new UsageError("unrecognized option '--tries-not'"));
    assert.throws(() => parseWgetArgs(['--no', 'x']), /option '--no' is ambiguous/);
    assert.throws(() => parseWgetArgs(['-O']), new UsageError("option requires an argument -- 'O'"));
    assert.throws(() => parseWgetArgs(['-T', 'soon', 'x']), /invalid number 'soon'/);
    assert.throws(() => parseWgetArgs(['--spider=yes', 'x']), /doesn't allow an argument/);
  });

  it('parses URLs as parse_url does', () => {
    assert.deepEqual(parseUrl('web'), { protocol: 'http', hostPort: 'web', host: 'web', port: 80, path: '' });
    assert.deepEqual(parseUrl('http://web:8080/a/b?c=d'), { protocol: 'http', hostPort: 'web:8080', host: 'web', port: 8080, path: 'a/b?c=d' });
    assert.deepEqual(parseUrl('https://u:p@web'), { protocol: 'https', hostPort: 'web', host: 'web', port: 443, path: '', user: 'u:p' });
    assert.deepEqual(parseUrl('http://[fd00::1]:81/x'), { protocol: 'http', hostPort: '[fd00::1]:81', host: 'fd00::1', port: 81, path: 'x' });
    assert.equal(parseUrl('gopher://x'), 'not an http or ftp url: gopher://x');
  });

  it('prints the final progress line as busybox does when stderr is not a terminal', () => {
    assert.equal(progressLine('-', 615, 300), `-                    100% |${'*'.repeat(32)}|   615  0:00:00 ETA\n`);
    assert.equal(progressLine('index.html', 2_000_000, 61_000), `index.html           100% |${'*'.repeat(32)}|  1953k 0:01:01 ETA\n`);
  });
});

describe('busybox wget: the program against servers on 127.0.0.1', () => {
  let server: Server;
  let port = 0;
  let cwd = '';
  const seen: string[] = [];

  before(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'aksemu-bbwget-'));
    server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers['user-agent']} ${req.headers.connection}`);
      if (req.url === '/missing') {
        res.writeHead(404, 'Not Found');
        res.end('gone');
      } else if (req.url === '/hang') {
        // Never answers: only the client's timeout ends it.
      } else if (req.url === '/moved') {
        res.writeHead(302, { Location: '/page' });
        res.end();
      } else res.end('the page\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
    rmSync(cwd, { recursive: true, force: true });
  });

  const wget = (...args: string[]): Promise<{ code: number; stdout: string; stderr: string; ms: number }> =>
    new Promise((resolve) => {
      const started = Date.now();
      const child = spawn(process.execPath, [PROGRAM, ...args], { cwd });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr, ms: Date.now() - started }));
    });

  it('-qO- prints the page alone; one HTTP/1.1 GET with User-Agent Wget and Connection: close', async () => {
    const r = await wget('-qO-', `http://127.0.0.1:${port}/`);
    assert.deepEqual([r.code, r.stdout, r.stderr], [0, 'the page\n', '']);
    assert.equal(seen.at(-1), 'GET / Wget close');
  });

  it('without -q: Connecting to, writing to stdout, the progress line, written to stdout', async () => {
    const r = await wget('-O-', `http://127.0.0.1:${port}/page`);
    assert.equal(r.code, 0);
    assert.equal(r.stdout, 'the page\n');
    assert.equal(
      r.stderr,
      `Connecting to 127.0.0.1:${port} (127.0.0.1:${port})\nwriting to stdout\n-                    100% |${'*'.repeat(32)}|     9  0:00:00 ETA\nwritten to stdout\n`,
    );
  });

  it('a 404: server returned error, exit 1', async () => {
    const r = await wget('-qO-', `http://127.0.0.1:${port}/missing`);
    assert.deepEqual([r.code, r.stdout, r.stderr], [1, '', 'wget: server returned error: HTTP/1.1 404 Not Found\n']);
  });

  it("a refused connection: can't connect to remote host, exit 1", async () => {
    const r = await wget('-qO-', 'http://127.0.0.1:1/');
    assert.deepEqual([r.code, r.stderr], [1, "wget: can't connect to remote host (127.0.0.1): Connection refused\n"]);
  });

  it('a server that never answers: download timed out after -T seconds, one try, exit 1', async () => {
    const r = await wget('-q', '-O', '-', '--timeout=1', `http://127.0.0.1:${port}/hang`);
    assert.deepEqual([r.code, r.stderr], [1, 'wget: download timed out\n']);
    assert.ok(r.ms >= 900 && r.ms < 5000, `took ${r.ms} ms`);
    assert.equal(seen.filter((s) => s.startsWith('GET /hang')).length, 1, 'no retries');
  });

  it("a name that does not resolve: bad address 'HOST:PORT'", async () => {
    const r = await wget('-qO-', 'http://no-such-host.invalid:8080/');
    assert.deepEqual([r.code, r.stderr], [1, "wget: bad address 'no-such-host.invalid:8080'\n"]);
  });

  it('follows a redirect on the same server without connecting anew; --spider fetches nothing', async () => {
    const r = await wget('-O-', `http://127.0.0.1:${port}/moved`);
    assert.equal(r.stdout, 'the page\n');
    assert.equal(r.stderr.match(/Connecting to/g)?.length, 1);
    const s = await wget('--spider', `http://127.0.0.1:${port}/page`);
    assert.deepEqual([s.code, s.stdout, s.stderr], [0, '', `Connecting to 127.0.0.1:${port} (127.0.0.1:${port})\nremote file exists\n`]);
  });

  it("saves to the URL's last path part, and will not overwrite it without -O", async () => {
    const r = await wget(`http://127.0.0.1:${port}/page`);
    assert.equal(r.code, 0);
    assert.match(r.stderr, /\nsaving to 'page'\npage {17}100% .*\n'page' saved\n$/);
    assert.equal(readFileSync(join(cwd, 'page'), 'utf8'), 'the page\n');
    const again = await wget('-q', `http://127.0.0.1:${port}/page`);
    assert.deepEqual([again.code, again.stderr], [1, "wget: can't open 'page': File exists\n"]);
  });

  it('usage errors print the usage and exit 1', async () => {
    const none = await wget();
    assert.equal(none.code, 1);
    assert.match(none.stderr, /^BusyBox v1\.36\.1 multi-call binary\.\n\nUsage: wget \[-cqS\]/);
    const bad = await wget('-z', 'http://x');
    assert.match(bad.stderr, /^wget: invalid option -- 'z'\nBusyBox/);
  });
});
