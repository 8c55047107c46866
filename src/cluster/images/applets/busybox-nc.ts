// busybox's nc applet as the busybox, alpine and curlimages/curl images build it (networking/nc_bloaty.c, netcat
// 1.10 compatible: NC_110_COMPAT, NC_SERVER and NC_EXTRA are on in busybox's defconfig), as a program of its
// own: `node busybox-nc.js ARGS…` in the pod's sandbox. The host's nc is OpenBSD's, another program: other
// options and messages (docs/clients.md §5.16). What it keeps of busybox's:
//   - options "np:s:uvw:lki:o:z" (getopt32: clusters, -v counted), at most two operands, HOST PORT;
//   - connect within -w SEC (none by default); `-v` prints `HOST (IP:PORT) open` on stderr, and a failure
//     `nc: HOST (IP:PORT): Connection timed out` — but a refusal only at -vv, as nc 1.10 does; every failure
//     exits 1, silently without -v;
//   - `-z` connects and exits 0; otherwise stdin goes to the peer (its end half-closes the connection) and what
//     the peer sends to stdout, until both are done (with -w, a silent peer after stdin ended: 2 × SEC), exit 0;
//     `-vv` ends with `sent N, rcvd M`;
//   - `-l -p PORT` listens (IPv6 and IPv4) for one connection: `listening on [::]:PORT ...` and `connect to
//     LOCAL from REMOTE (REMOTE)` with -v.
// Not kept: UDP (-u), -e PROG, -s, -i, -o, -k: refused with a line saying so, exit 1.
import { lookup } from 'node:dns/promises';
import { runAsProgram, strerror } from './applet.js';
import { createServer, isIP, type Socket, connect as tcpConnect } from 'node:net';

const USAGE = `BusyBox v1.36.1 multi-call binary.

Usage: nc [OPTIONS] HOST PORT  - connect
nc [OPTIONS] -l -p PORT [HOST] [PORT]  - listen

	-e PROG	Run PROG after connect (must be last)
	-l	Listen mode, for inbound connects
	-lk	With -e, provides persistent server
	-p PORT	Local port
	-s ADDR	Local address
	-w SEC	Timeout for connects and final net reads
	-i SEC	Delay interval for lines sent
	-n	Don't do DNS resolution
	-u	UDP mode
	-b	Allow broadcasts
	-v	Verbose
	-o FILE	Hex dump traffic
	-z	Zero-I/O mode (scanning)
`;

export interface NcOptions {
  verbose: number;
  waitSec: number;
  listen: boolean;
  zero: boolean;
  numeric: boolean;
  localPort?: string;
  /** Options aksemu's nc does not do (UDP, -e…): the first one met. */
  unsupported?: string;
  operands: string[];
}

/** A command-line error: the usage (and getopt's words when there are some). */
export class NcUsageError extends Error {}

const WITH_ARG = new Set(['p', 's', 'w', 'i', 'o']);
const FLAGS = new Set(['n', 'u', 'v', 'l', 'k', 'z']);

export function parseNcArgs(args: readonly string[]): NcOptions {
  const o: NcOptions = { verbose: 0, waitSec: 0, listen: false, zero: false, numeric: false, operands: [] };
  const unsupported = (what: string) => void (o.unsupported ??= what);
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      o.operands.push(...args.slice(i + 1));
      break;
    }
    if (!a.startsWith('-') || a.length === 1) {
      o.operands.push(a);
      continue;
    }
    for (let j = 1; j < a.length; j++) {
      const c = a[j]!;
      if (c === 'e') {
        unsupported('-e PROG');
        i = args.length;
        break;
      }
      if (FLAGS.has(c)) {
        if (c === 'v') o.verbose++;
        else if (c === 'l') o.listen = true;
        else if (c === 'z') o.zero = true;
        else if (c === 'n') o.numeric = true;
        else if (c === 'u') unsupported('UDP (-u)');
        else unsupported('-k');
        continue;
      }
      if (!WITH_ARG.has(c)) throw new NcUsageError(`invalid option -- '${c}'`);
      let value: string | undefined = a.slice(j + 1);
      if (value === '') value = args[++i];
      if (value === undefined) throw new NcUsageError(`option requires an argument -- '${c}'`);
      if (c === 'w') {
        if (!/^\d+$/.test(value)) throw new NcUsageError(`invalid number '${value}'`, { cause: 'number' });
        o.waitSec = Number(value);
      } else if (c === 'p') o.localPort = value;
      else unsupported(`-${c}`);
      break;
    }
  }
  if (o.operands.length > 2) throw new NcUsageError('');
  return o;
}

/** xmalloc_sockaddr2dotted: `IP:PORT`, `[IPv6]:PORT`. */
function dotted(ip: string, port: number): string {
  return isIP(ip) === 6 ? `[${ip}]:${port}` : `${ip}:${port}`;
}

class Die extends Error {}

/** bb_lookup_port: a number, or a few service names; 0 when unknown. */
function portOf(s: string | undefined): number {
  if (s === undefined) return 0;
  if (/^\d+$/.test(s)) return Number(s) <= 65535 ? Number(s) : 0;
  return { http: 80, https: 443, domain: 53, ssh: 22, ftp: 21, smtp: 25 }[s] ?? 0;
}

/** readwrite: stdin to the peer, the peer to stdout, until both ended (or the peer stays silent after stdin ended). */
function shovel(socket: Socket, o: NcOptions, stdin: NodeJS.ReadableStream): Promise<{ sent: number; received: number }> {
  return new Promise((resolve) => {
    let sent = 0;
    let received = 0;
    let stdinOpen = true;
    let netOpen = true;
    let silent: NodeJS.Timeout | undefined;
    const finish = () => {
      clearTimeout(silent);
      socket.destroy();
      resolve({ sent, received });
    };
    // With -w: once stdin ended, a peer silent for two waits is taken as gone (not an error).
    const watch = () => {
      clearTimeout(silent);
      if (o.waitSec > 0 && !stdinOpen && netOpen) silent = setTimeout(finish, 2 * o.waitSec * 1000);
    };
    socket.on('data', (d: Buffer) => {
      received += d.length;
      process.stdout.write(d);
      watch();
    });
    // The peer is gone: what stdin may still bring has nowhere to go.
    const netDone = () => {
      if (!netOpen) return;
      netOpen = false;
      finish();
    };
    socket.on('end', netDone);
    socket.on('close', netDone);
    socket.on('error', netDone);
    stdin.on('data', (d: Buffer) => {
      sent += d.length;
      if (netOpen) socket.write(d);
    });
    stdin.on('end', () => {
      stdinOpen = false;
      if (netOpen) socket.end();
      watch();
    });
    stdin.on('error', () => stdin.emit('end'));
  });
}

async function connectOut(o: NcOptions, say: (line: string) => void): Promise<number> {
  const [host, portArg] = o.operands;
  if (host === undefined) throw new NcUsageError('');
  const port = portOf(portArg);
  let ip: string;
  try {
    ip = isIP(host) ? host : (await lookup(host, { family: 4 })).address;
  } catch {
    throw new Die(`bad address '${host}'`);
  }
  const them = dotted(ip, port);
  const socket = tcpConnect({ host: ip, port });
  const error = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
    const timer = o.waitSec > 0 ? setTimeout(() => resolve(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })), o.waitSec * 1000) : undefined;
    socket.once('connect', () => (clearTimeout(timer), resolve(undefined)));
    socket.once('error', (e) => (clearTimeout(timer), resolve(e)));
  });
  if (error) {
    socket.destroy();
    if (o.verbose > 1 || (o.verbose > 0 && error.code !== 'ECONNREFUSED')) say(`nc: ${host} (${them}): ${strerror(error)}\n`);
    return 1;
  }
  if (o.verbose > 0) say(`${host} (${them}) open\n`);
  if (o.zero) {
    socket.destroy();
    return 0;
  }
  const { sent, received } = await shovel(socket, o, process.stdin);
  if (o.verbose > 1) say(`sent ${sent}, rcvd ${received}\n`);
  return 0;
}

async function listenIn(o: NcOptions, say: (line: string) => void): Promise<number> {
  const port = portOf(o.localPort);
  if (o.localPort !== undefined && port === 0) throw new Die(`bad local port '${o.localPort}'`);
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e) => reject(new Die(`bind: ${strerror(e)}`)));
    server.listen(port, '::', () => resolve());
  });
  const bound = server.address();
  if (o.verbose > 0 && bound && typeof bound === 'object') say(`listening on ${dotted(bound.address, bound.port)} ...\n`);
  const socket = await new Promise<Socket>((resolve, reject) => {
    const timer = o.waitSec > 0 ? setTimeout(() => reject(new Die('timeout')), o.waitSec * 1000) : undefined;
    server.once('connection', (s: Socket) => (clearTimeout(timer), resolve(s)));
  });
  server.close();
  if (o.verbose > 0) {
    const remote = dotted(socket.remoteAddress ?? '', socket.remotePort ?? 0);
    say(`connect to ${dotted(socket.localAddress ?? '', socket.localPort ?? 0)} from ${remote} (${remote})\n`);
  }
  const { sent, received } = await shovel(socket, o, process.stdin);
  if (o.verbose > 1) say(`sent ${sent}, rcvd ${received}\n`);
  return 0;
}

/** The applet: returns its exit status. */
export async function nc(args: readonly string[]): Promise<number> {
  const say = (line: string) => void process.stderr.write(line);
  let o: NcOptions;
  try {
    o = parseNcArgs(args);
    if (o.unsupported) {
      say(`nc: aksemu's busybox nc does not do ${o.unsupported} (docs/clients.md §5.16)\n`);
      return 1;
    }
    return await (o.listen ? listenIn(o, say) : connectOut(o, say));
  } catch (e) {
    if (e instanceof NcUsageError) {
      if (e.cause === 'number') say(`nc: ${e.message}\n`);
      else say(`${e.message ? `nc: ${e.message}\n` : ''}${USAGE}`);
      return 1;
    }
    if (e instanceof Die) {
      say(`nc: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
}

runAsProgram(import.meta.url, 'nc', nc);
