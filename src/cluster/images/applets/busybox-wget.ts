// busybox's wget applet (networking/wget.c of busybox 1.36, the build in the busybox, alpine and curlimages/curl
// images) as a program of its own: `node busybox-wget.js ARGS…`. The host has GNU wget, which is another program
// (20 tries, its own messages); pods whose image ships busybox run this one in their sandbox instead
// (../network-tools.ts says which images, docs/clients.md §5.16). What it keeps of busybox's:
//   - options as getopt32 reads "cqSO:o:P:Y:U:T:+t:n::" and the long ones (--quiet, --output-document,
//     --timeout, --header, --post-data, --post-file, --spider, --no-check-certificate …; -t and -n… ignored),
//     arguments permuted as getopt_long does, unique prefixes of long names accepted;
//   - one try, no retries; -T SEC (default 900) bounds the connect and each wait for data: past it
//     `wget: download timed out`, exit 1 (the DNS lookup is not bounded, as in busybox);
//   - its messages: `Connecting to HOST (IP:PORT)`, `writing to stdout` / `saving to 'F'`, the progress line
//     (the final one, as busybox prints it when stderr is not a terminal), `written to stdout` / `'F' saved`,
//     `bad address 'HOST'`, `can't connect to remote host (IP): Connection refused`, `server returned error:
//     HTTP/1.1 404 Not Found`, `error getting response`, `too many redirections`, `remote file exists`;
//     every failure exits 1;
//   - HTTP/1.1 with `Connection: close`, User-Agent `Wget`, chunked bodies, up to 5 redirects, https without
//     certificate checks (and busybox's note saying so).
// Not kept: FTP, proxies, -c's ranges, progress lines during long transfers.
import { lookup } from 'node:dns/promises';
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { runAsProgram, strerror } from './applet.js';
import { isIP, type Socket, connect as tcpConnect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

const USAGE = `BusyBox v1.36.1 multi-call binary.

Usage: wget [-cqS] [--spider] [-O FILE] [-o LOGFILE] [--header STR]
	[--post-data STR | --post-file FILE] [-Y on/off]
	[--no-check-certificate] [-P DIR] [-U AGENT] [-T SEC] URL...

Retrieve files via HTTP or FTP

	--spider	Only check URL existence: $? is 0 if exists
	--header STR	Add STR (of form 'header: value') to headers
	--post-data STR	Send STR using POST method
	--post-file FILE	Send FILE using POST method
	--no-check-certificate	Don't validate the server's certificate
	-c		Continue retrieval of aborted transfer
	-q		Quiet
	-P DIR		Save to DIR (default .)
	-S    		Show server response
	-T SEC		Network read timeout is SEC seconds
	-O FILE		Save to FILE ('-' for stdout)
	-o LOGFILE	Log messages to FILE
	-U STR		Use STR for User-Agent header
	-Y on/off	Use proxy
`;

/** Short options: the letter and whether it takes an argument ('optional' for -n[ARG]). */
const SHORT: Record<string, boolean | 'optional'> = {
  c: false,
  q: false,
  S: false,
  O: true,
  o: true,
  P: true,
  Y: true,
  U: true,
  T: true,
  t: true,
  n: 'optional',
};

/** Long options: the short letter they stand for (or their own name) and whether they take an argument. */
const LONG: Record<string, [string, boolean]> = {
  continue: ['c', false],
  quiet: ['q', false],
  'server-response': ['S', false],
  'output-document': ['O', true],
  'output-file': ['o', true],
  'directory-prefix': ['P', true],
  proxy: ['Y', true],
  'user-agent': ['U', true],
  timeout: ['T', true],
  tries: ['t', true],
  header: ['header', true],
  'post-data': ['post-data', true],
  'post-file': ['post-file', true],
  spider: ['spider', false],
  'no-check-certificate': ['no-check-certificate', false],
  'passive-ftp': ['ignored', false],
  'no-cache': ['ignored', false],
  'no-verbose': ['ignored', false],
  'no-clobber': ['ignored', false],
  'no-host-directories': ['ignored', false],
  'no-parent': ['ignored', false],
};

export interface WgetOptions {
  quiet: boolean;
  serverResponse: boolean;
  output?: string;
  log?: string;
  prefix?: string;
  userAgent: string;
  timeoutSec: number;
  headers: string[];
  postData?: string;
  postFile?: string;
  spider: boolean;
  noCheckCertificate: boolean;
  urls: string[];
}

/** A command-line error: getopt's words (glibc's), then the usage. */
export class UsageError extends Error {}

/** getopt32 with getopt_long's permutation: options anywhere, `--` ends them. */
export function parseWgetArgs(args: readonly string[]): WgetOptions {
  const o: WgetOptions = {
    quiet: false,
    serverResponse: false,
    userAgent: 'Wget',
    timeoutSec: 900,
    headers: [],
    spider: false,
    noCheckCertificate: false,
    urls: [],
  };
  const set = (key: string, value: string | undefined): void => {
    switch (key) {
      case 'q':
        o.quiet = true;
        break;
      case 'S':
        o.serverResponse = true;
        break;
      case 'O':
        o.output = value;
        break;
      case 'o':
        o.log = value;
        break;
      case 'P':
        o.prefix = value;
        break;
      case 'U':
        o.userAgent = value ?? '';
        break;
      case 'T': {
        // getopt32's "+": xatou, a decimal number.
        if (!/^\d+$/.test(value ?? '') || Number(value) > 0xffffffff) throw new UsageError(`invalid number '${value}'`, { cause: 'number' });
        o.timeoutSec = Number(value);
        break;
      }
      case 'header':
        o.headers.push(value ?? '');
        break;
      case 'post-data':
        o.postData = value;
        break;
      case 'post-file':
        o.postFile = value;
        break;
      case 'spider':
        o.spider = true;
        break;
      case 'no-check-certificate':
        o.noCheckCertificate = true;
        break;
      // c, Y, t, n…: accepted and ignored here (no ranges, no proxies, one try).
    }
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      o.urls.push(...args.slice(i + 1));
      break;
    }
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const name = a.slice(2, eq < 0 ? undefined : eq);
      const matches = Object.hasOwn(LONG, name) ? [name] : Object.keys(LONG).filter((k) => k.startsWith(name));
      if (matches.length === 0) throw new UsageError(`unrecognized option '${a}'`);
      if (matches.length > 1) throw new UsageError(`option '${a}' is ambiguous`);
      const [key, takes] = LONG[matches[0]!]!;
      if (!takes && eq >= 0) throw new UsageError(`option '--${matches[0]}' doesn't allow an argument`);
      let value: string | undefined;
      if (takes) {
        value = eq >= 0 ? a.slice(eq + 1) : args[++i];
        if (value === undefined) throw new UsageError(`option '--${matches[0]}' requires an argument`);
      }
      set(key, value);
      continue;
    }
    if (a.startsWith('-') && a.length > 1) {
      for (let j = 1; j < a.length; j++) {
        const c = a[j]!;
        const takes = Object.hasOwn(SHORT, c) ? SHORT[c] : undefined;
        if (takes === undefined) throw new UsageError(`invalid option -- '${c}'`);
        if (takes === false) {
          set(c, undefined);
          continue;
        }
        let value: string | undefined = a.slice(j + 1);
        if (value === '' && takes === true) value = args[++i];
        if (value === undefined) throw new UsageError(`option requires an argument -- '${c}'`);
        set(c, value === '' ? undefined : value);
        break;
      }
      continue;
    }
    o.urls.push(a);
  }
  return o;
}

export interface Target {
  protocol: 'http' | 'https';
  /** As written in the URL, with its port when it names one (the Host header). */
  hostPort: string;
  host: string;
  port: number;
  /** Without its leading `/`. */
  path: string;
  user?: string;
}

/** parse_url: `http://`, `https://`, none (http); anything else is not a URL busybox fetches. */
export function parseUrl(url: string): Target | string {
  const sep = url.indexOf('://');
  let protocol: 'http' | 'https' = 'http';
  let rest = url;
  if (sep >= 0) {
    const scheme = url.slice(0, sep);
    if (scheme === 'https') protocol = 'https';
    else if (scheme === 'ftp' || scheme === 'ftps') return `aksemu's busybox wget does not fetch ftp: ${url}`;
    else if (scheme !== 'http') return `not an http or ftp url: ${url}`;
    rest = url.slice(sep + 3);
  }
  const cut = [rest.indexOf('/'), rest.indexOf('?'), rest.indexOf('#')].filter((n) => n >= 0);
  const end = cut.length > 0 ? Math.min(...cut) : -1;
  let hostPort = end < 0 ? rest : rest.slice(0, end);
  const path = end < 0 ? '' : rest[end] === '/' ? rest.slice(end + 1) : rest.slice(end + 1);
  let user: string | undefined;
  const at = hostPort.lastIndexOf('@');
  if (at >= 0) {
    user = decodeURIComponent(hostPort.slice(0, at));
    hostPort = hostPort.slice(at + 1);
  }
  let host = hostPort;
  let port = protocol === 'https' ? 443 : 80;
  const v6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(hostPort);
  if (v6) {
    host = v6[1]!;
    if (v6[2]) port = Number(v6[2]);
  } else {
    const colon = hostPort.lastIndexOf(':');
    if (colon >= 0 && /^\d*$/.test(hostPort.slice(colon + 1))) {
      host = hostPort.slice(0, colon);
      port = Number(hostPort.slice(colon + 1) || port);
    }
  }
  return { protocol, hostPort, host, port, path, ...(user !== undefined ? { user } : {}) };
}

/** strerror(3)'s words for the errors a connect and a read meet. */
/** busybox's progress line as it prints it when stderr is not a terminal: name, percent, bar, size, time. */
export function progressLine(name: string, bytes: number, elapsedMs: number): string {
  let size = bytes;
  let unit = 0;
  while (size >= 100000) {
    size = Math.floor(size / 1024);
    unit++;
  }
  const s = Math.floor(elapsedMs / 1000);
  const time = `${Math.floor(s / 3600)}:${String(Math.floor(s / 60) % 60).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
  return `${name.slice(0, 20).padEnd(20)} 100% |${'*'.repeat(32)}|${String(size).padStart(6)}${' kMGTPEZY'[unit]} ${time} ETA\n`;
}

/** A failure: busybox's bb_error_msg_and_die, exit 1. */
class Die extends Error {}

/** Reads a socket as busybox's stdio does: lines, counted bytes, to EOF; each wait bounded by the timeout. */
class Reader {
  private buffered: Buffer = Buffer.alloc(0);
  private ended = false;
  private error: Error | undefined;
  private wake: (() => void) | undefined;

  constructor(
    private readonly socket: Socket,
    private readonly timeoutSec: number,
  ) {
    socket.on('data', (d: Buffer) => {
      this.buffered = this.buffered.length === 0 ? d : Buffer.concat([this.buffered, d]);
      this.wake?.();
    });
    socket.on('end', () => {
      this.ended = true;
      this.wake?.();
    });
    socket.on('error', (e) => {
      this.error = e;
      this.wake?.();
    });
  }

  /** Waits for more data; false at EOF. Throws Die on the timeout or a read error. */
  private async more(what: string): Promise<boolean> {
    if (this.error) throw new Die(`${what}: ${strerror(this.error)}`);
    if (this.ended) return false;
    await new Promise<void>((resolve, reject) => {
      const timer = this.timeoutSec > 0 ? setTimeout(() => reject(new Die('download timed out')), this.timeoutSec * 1000) : undefined;
      this.wake = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
    });
    if (this.error) throw new Die(`${what}: ${strerror(this.error)}`);
    return true;
  }

  /** A line without its end (fgets, trimmed at the first control character); Die at EOF before any byte. */
  async line(): Promise<string> {
    for (;;) {
      const nl = this.buffered.indexOf(10);
      if (nl >= 0) {
        const line = this.buffered.subarray(0, nl).toString('latin1');
        this.buffered = this.buffered.subarray(nl + 1);
        return sanitize(line);
      }
      if (!(await this.more('error getting response'))) {
        if (this.buffered.length === 0) throw new Die('error getting response');
        const line = this.buffered.toString('latin1');
        this.buffered = Buffer.alloc(0);
        return sanitize(line);
      }
    }
  }

  /** Up to `max` bytes (any available), or undefined at EOF. */
  async chunk(max: number): Promise<Buffer | undefined> {
    while (this.buffered.length === 0) if (!(await this.more('read error'))) return undefined;
    const n = Math.min(max, this.buffered.length);
    const out = this.buffered.subarray(0, n);
    this.buffered = this.buffered.subarray(n);
    return out;
  }
}

/** sanitize_string: the line up to its first control character (a tab is a space). */
function sanitize(s: string): string {
  let out = '';
  for (const ch of s) {
    if (ch < ' ') {
      if (ch !== '\t') break;
      out += ' ';
    } else out += ch;
  }
  return out;
}

interface Out {
  /** Messages (stderr, or -o LOGFILE). */
  say(text: string): void;
}

/** Connects within the timeout: busybox's alarm around xconnect. */
function open(ip: string, port: number, target: Target, o: WgetOptions, out: Out): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = tcpConnect({ host: ip, port });
    const timer = o.timeoutSec > 0 ? setTimeout(() => (socket.destroy(), reject(new Die('download timed out'))), o.timeoutSec * 1000) : undefined;
    socket.once('error', (e) => {
      clearTimeout(timer);
      reject(new Die(`can't connect to remote host (${ip}): ${strerror(e)}`));
    });
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      if (target.protocol !== 'https') return resolve(socket);
      if (!o.noCheckCertificate) out.say('wget: note: TLS certificate validation not implemented\n');
      const tls = tlsConnect({ socket, rejectUnauthorized: false, ...(isIP(target.host) ? {} : { servername: target.host }) });
      tls.once('secureConnect', () => resolve(tls));
      tls.once('error', (e) => reject(new Die(`TLS error: ${e.message}`)));
    });
  });
}

/** download_one_url: one URL to its file (or stdout), following redirects. */
async function downloadOne(url: string, o: WgetOptions, out: Out, output: { fd: number | undefined }): Promise<void> {
  let target = parseUrl(url);
  if (typeof target === 'string') throw new Die(target);
  let fname = o.output;
  if (fname === undefined) {
    const last = target.path.slice(target.path.lastIndexOf('/') + 1);
    fname = last === '' ? 'index.html' : last;
    if (o.prefix) fname = `${o.prefix.replace(/\/+$/, '')}/${fname}`;
  }
  let redirects = 5;
  let ip = '';
  // A redirect to a path on the same server reconnects without a new lookup (busybox's establish_session).
  let resolve = true;
  for (;;) {
    if (resolve) {
      try {
        ip = isIP(target.host) ? target.host : (await lookup(target.host, { family: 4 })).address;
      } catch {
        throw new Die(`bad address '${target.hostPort}'`);
      }
      if (!o.quiet) out.say(`Connecting to ${target.hostPort} (${ip}:${target.port})\n`);
    }
    const socket = await open(ip, target.port, target, o, out);
    try {
      const post = o.postData ?? (o.postFile !== undefined ? readPostFile(o.postFile) : undefined);
      const userHeaders = o.headers.map((h) => h.toLowerCase());
      const has = (name: string) => userHeaders.some((h) => h.startsWith(`${name}:`));
      let request = `${post !== undefined ? 'POST' : 'GET'} /${target.path} HTTP/1.1\r\n`;
      if (!has('host')) request += `Host: ${target.hostPort}\r\n`;
      if (!has('user-agent')) request += `User-Agent: ${o.userAgent}\r\n`;
      request += 'Connection: close\r\n';
      if (target.user !== undefined && !has('authorization')) request += `Authorization: Basic ${Buffer.from(target.user).toString('base64')}\r\n`;
      for (const h of o.headers) request += `${h}\r\n`;
      if (post !== undefined) request += `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${Buffer.byteLength(post)}\r\n\r\n${post}`;
      else request += '\r\n';
      socket.write(request);
      const reader = new Reader(socket, o.timeoutSec);
      let statusLine: string;
      let status: number;
      for (;;) {
        statusLine = await reader.line();
        if (o.serverResponse) out.say(`  ${statusLine}\n`);
        status = Number.parseInt(statusLine.replace(/^\S*\s*/, ''), 10) || 0;
        if (status !== 0 && status !== 100) break;
        while ((await header(reader, o, out)) !== undefined);
      }
      if (!((status >= 200 && status <= 204) || (status >= 300 && status <= 303))) throw new Die(`server returned error: ${statusLine}`);
      let length: number | undefined;
      let chunked = false;
      let location: string | undefined;
      for (;;) {
        const h = await header(reader, o, out);
        if (h === undefined) break;
        const [name, value] = h;
        if (name === 'content-length') {
          if (!/^\d+$/.test(value)) throw new Die(`content-length ${value} is garbage`);
          length = Number(value);
        } else if (name === 'transfer-encoding') {
          if (value.toLowerCase() !== 'chunked') throw new Die(`transfer encoding '${value}' is not supported`);
          chunked = true;
        } else if (name === 'location' && status >= 300) location = value;
      }
      if (location !== undefined) {
        if (--redirects === 0) throw new Die('too many redirections');
        socket.destroy();
        resolve = !location.startsWith('/');
        if (!resolve) target = { ...target, path: location.slice(1) };
        else {
          const next = parseUrl(location);
          if (typeof next === 'string') throw new Die(next);
          target = next;
        }
        continue;
      }
      if (o.spider) {
        if (!o.quiet) out.say('remote file exists\n');
        return;
      }
      if (output.fd === undefined) output.fd = openOutput(fname, o.output !== undefined);
      await retrieve(reader, o, out, output.fd, fname, { length, chunked });
      if (o.output === undefined) {
        closeSync(output.fd);
        output.fd = undefined;
      }
      return;
    } finally {
      socket.destroy();
    }
  }
}

function readPostFile(path: string): string {
  try {
    return readFileSync(path === '-' ? 0 : path, 'utf8');
  } catch (e) {
    throw new Die(`can't open '${path}': ${strerror(e)}`);
  }
}

/** A header line as busybox reads it: [lower-case name, value], or undefined at the blank line that ends them. */
async function header(reader: Reader, o: WgetOptions, out: Out): Promise<[string, string] | undefined> {
  const line = await reader.line();
  if (o.serverResponse && line !== '') out.say(`  ${line}\n`);
  if (line === '') return undefined;
  const m = /^([A-Za-z0-9._-]*)/.exec(line)!;
  if (line[m[1]!.length] !== ':') throw new Die(`bad header line: ${line}`);
  return [m[1]!.toLowerCase(), line.slice(m[1]!.length + 1).trim()];
}

/** xopen of the output: `-O -` is stdout; without -O the file must not exist yet (O_EXCL). */
function openOutput(fname: string, named: boolean): number {
  if (named && fname === '-') return 1;
  try {
    return openSync(fname, named ? 'w' : 'wx', 0o666);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? '';
    const why =
      { EEXIST: 'File exists', ENOENT: 'No such file or directory', EACCES: 'Permission denied', EROFS: 'Read-only file system' }[code] ?? strerror(e);
    throw new Die(`can't open '${fname}': ${why}`);
  }
}

/** retrieve_file_data: the body (counted, chunked or to EOF) into fd, with busybox's messages around it. */
async function retrieve(
  reader: Reader,
  o: WgetOptions,
  out: Out,
  fd: number,
  fname: string,
  body: { length?: number | undefined; chunked: boolean },
): Promise<void> {
  const started = Date.now();
  if (!o.quiet) out.say(fd === 1 ? 'writing to stdout\n' : `saving to '${fname}'\n`);
  const name = fname.slice(fname.lastIndexOf('/') + 1);
  let transferred = 0;
  const copy = async (limit: number | undefined): Promise<number | undefined> => {
    let left = limit;
    while (left === undefined || left > 0) {
      let data: Buffer | undefined;
      try {
        data = await reader.chunk(left ?? 64 * 1024);
      } catch (e) {
        if (!o.quiet) out.say(progressLine(name, transferred, Date.now() - started));
        throw e;
      }
      if (data === undefined) break;
      writeAll(fd, data);
      transferred += data.length;
      if (left !== undefined) left -= data.length;
    }
    return left;
  };
  let left: number | undefined = 0;
  if (body.chunked) {
    for (;;) {
      const size = Number.parseInt((await reader.line()).trim(), 16);
      if (!Number.isFinite(size) || size < 0) throw new Die('bad chunk length');
      if (size === 0) break;
      left = await copy(size);
      if (left) break;
      await reader.line();
    }
  } else left = await copy(body.length);
  if (!o.quiet) out.say(progressLine(name, transferred, Date.now() - started));
  if (left) throw new Die('connection closed prematurely');
  if (!o.quiet) out.say(fd === 1 ? 'written to stdout\n' : `'${fname}' saved\n`);
}

function writeAll(fd: number, data: Buffer): void {
  let done = 0;
  while (done < data.length) done += writeSync(fd, data, done);
}

/** The applet: returns its exit status. */
export async function wget(args: readonly string[]): Promise<number> {
  let o: WgetOptions;
  try {
    o = parseWgetArgs(args);
    if (o.urls.length === 0) throw new UsageError('');
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    if (e.cause === 'number') {
      process.stderr.write(`wget: ${e.message}\n`);
      return 1;
    }
    process.stderr.write(`${e.message ? `wget: ${e.message}\n` : ''}${USAGE}`);
    return 1;
  }
  let logFd: number | undefined;
  if (o.log !== undefined) {
    try {
      logFd = o.log === '-' ? 1 : openSync(o.log, 'w', 0o666);
    } catch (e) {
      process.stderr.write(`wget: can't open '${o.log}': ${strerror(e)}\n`);
      return 1;
    }
  }
  const out: Out = { say: (text) => (logFd !== undefined ? writeAll(logFd, Buffer.from(text)) : process.stderr.write(text)) };
  const output: { fd: number | undefined } = { fd: undefined };
  try {
    for (const url of o.urls) await downloadOne(url, o, out, output);
    return 0;
  } catch (e) {
    if (!(e instanceof Die)) throw e;
    out.say(`wget: ${e.message}\n`);
    return 1;
  }
}

runAsProgram(import.meta.url, 'wget', wget);
