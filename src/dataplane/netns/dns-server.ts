// A DNS server run in one of aksemu's namespaces (`nsenter --net=… setpriv … node dns-server.js PORT [options]`,
// spawn.ts): UDP and TCP on PORT (53), answers from the zone its parent writes on stdin as one JSON line per change,
// prints `serving` once both sockets listen, and exits when stdin closes (its parent is gone). Two kinds:
//   - the cluster DNS, in the coredns pod's namespace (`[--forward IP]`): the cluster.local zone
//     (dataplane/dns-zone.ts, answered by dns-answer.ts); a name outside it is relayed to the upstream over UDP,
//     as CoreDNS's `forward . /etc/resolv.conf`, SERVFAIL when none is given or none answers in time;
//   - Azure DNS, in a VNet router's namespace (`--azure --bind 168.63.129.16`): the VNet's names
//     (dataplane/azure-dns-zone.ts, answered by azure-dns-answer.ts).
// Bounded: a zone line, the TCP connections at once, their idle time, each message's size, and the queries being
// forwarded at once.
import { createSocket } from 'node:dgram';
import { createServer, type Socket } from 'node:net';
import type { AzureDnsZone } from '../azure-dns-zone.js';
import { DNS_ZONE_LIMITS, type DnsZone } from '../dns-zone.js';
import { type LoadedAzureZone, loadAzureZone, resolveAzure } from './azure-dns-answer.js';
import { answerMessage, answerWith, empty, type LoadedZone, loadZone, RCODE, servfail } from './dns-answer.js';

const MAX_TCP_CONNECTIONS = 128;
const TCP_IDLE_MS = 10_000;
/** A TCP message is at most 65,535 bytes (its 2-byte length); a connection holds at most one and its prefix. */
const MAX_TCP_BUFFER = 65_537;

/** How long a forwarded query waits for the upstream (CoreDNS's forward plugin gives up after a few seconds). */
const FORWARD_TIMEOUT_MS = 2000;
const MAX_FORWARDS = 512;

const argv = process.argv.slice(2);
const port = Number(argv[0] ?? 53);
const option = (name: string): string | undefined => {
  const i = argv.indexOf(name);
  return i > 0 ? argv[i + 1] : undefined;
};
const azure = argv.includes('--azure');
const bind = option('--bind') ?? '0.0.0.0';
const upstream = option('--forward');
let zone: LoadedZone | undefined;
let azureZone: LoadedAzureZone | undefined;
let forwarding = 0;

/** Relays a query to the upstream over UDP; its answer as it came, or SERVFAIL when none came in time. */
function forward(message: Buffer): Promise<Buffer | undefined> {
  if (!upstream || forwarding >= MAX_FORWARDS) return Promise.resolve(servfail(message));
  forwarding++;
  return new Promise((resolve) => {
    const socket = createSocket('udp4');
    let done = false;
    const finish = (out: Buffer | undefined): void => {
      if (done) return;
      done = true;
      forwarding--;
      clearTimeout(timer);
      socket.close();
      resolve(out);
    };
    const timer = setTimeout(() => finish(servfail(message)), FORWARD_TIMEOUT_MS);
    socket.on('error', () => finish(servfail(message)));
    socket.on('message', (reply, from) => {
      // Only the upstream's answer to this query (its id) counts.
      if (from.address === upstream && reply.length >= 12 && reply.readUInt16BE(0) === message.readUInt16BE(0)) finish(reply);
    });
    socket.send(message, 53, upstream);
  });
}

/** The answer, or nothing when anything about the message throws (a hostile packet never ends the server). */
async function answer(message: Buffer, udp: boolean): Promise<Buffer | undefined> {
  try {
    if (azure) {
      const z = azureZone;
      const out = answerWith(message, udp, (name, type, klass) => (z ? resolveAzure(z, name, type, klass) : empty(RCODE.SERVFAIL, false)), false);
      return out === 'forward' ? undefined : out;
    }
    const out = answerMessage(zone, message, udp, true);
    return out === 'forward' ? await forward(message) : out;
  } catch {
    return undefined;
  }
}

function isAzureZone(v: unknown): v is AzureDnsZone {
  const z = v as AzureDnsZone;
  return !!z && Array.isArray(z.records) && z.records.length <= DNS_ZONE_LIMITS.names;
}

function isZone(v: unknown): v is DnsZone {
  const z = v as DnsZone;
  return (
    !!z &&
    typeof z.domain === 'string' &&
    typeof z.ttl === 'number' &&
    typeof z.serial === 'number' &&
    Array.isArray(z.namespaces) &&
    Array.isArray(z.records) &&
    z.records.length <= DNS_ZONE_LIMITS.names
  );
}

function readZones(): void {
  let pending = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => {
    pending += chunk;
    if (pending.length > DNS_ZONE_LIMITS.lineBytes) {
      process.stderr.write('zone line too long: dropped\n');
      pending = pending.slice(pending.lastIndexOf('\n') + 1);
      if (pending.length > DNS_ZONE_LIMITS.lineBytes) pending = '';
    }
    for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      try {
        const parsed: unknown = JSON.parse(line);
        if (azure && isAzureZone(parsed)) azureZone = loadAzureZone(parsed);
        else if (!azure && isZone(parsed)) zone = loadZone(parsed);
        else process.stderr.write('not a zone: ignored\n');
      } catch (e) {
        process.stderr.write(`bad zone line: ${(e as Error).message}\n`);
      }
    }
  });
  process.stdin.on('end', () => process.exit(0));
}

function serveTcp(socket: Socket): void {
  let buffer = Buffer.alloc(0);
  socket.setTimeout(TCP_IDLE_MS, () => socket.destroy());
  socket.on('error', () => socket.destroy());
  socket.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    if (buffer.length > MAX_TCP_BUFFER + 2) return void socket.destroy();
    while (buffer.length >= 2) {
      const size = buffer.readUInt16BE(0);
      if (buffer.length < 2 + size) break;
      const message = Buffer.from(buffer.subarray(2, 2 + size));
      buffer = buffer.subarray(2 + size);
      void answer(message, false).then((out) => {
        if (!out || socket.destroyed) return;
        const prefix = Buffer.alloc(2);
        prefix.writeUInt16BE(out.length);
        socket.write(Buffer.concat([prefix, out]));
      });
    }
  });
}

function main(): void {
  readZones();
  let listening = 0;
  const ready = (): void => {
    if (++listening === 2) process.stdout.write('serving\n');
  };
  const fail = (e: Error): void => {
    process.stderr.write(`${e.message}\n`);
    process.exit(1);
  };
  const udp = createSocket('udp4');
  udp.on('error', fail);
  udp.on('message', (message, from) => {
    void answer(message, true).then((out) => {
      if (out) udp.send(out, from.port, from.address);
    });
  });
  udp.bind(port, bind, ready);
  const tcp = createServer(serveTcp);
  tcp.maxConnections = MAX_TCP_CONNECTIONS;
  tcp.on('error', fail);
  tcp.listen(port, bind, ready);
}

main();
