// The cluster DNS server, run in the coredns pod's network namespace (`nsenter --net=… setpriv … node
// dns-server.js [PORT]`, spawn.ts): UDP and TCP on PORT (53), answers from the zone its parent writes on stdin as
// one JSON line per change (dataplane/dns-zone.ts), prints `serving` once both sockets listen, and exits when
// stdin closes (its parent, the coredns program, is gone). What it answers: dns-answer.ts. Bounded: a zone line,
// the TCP connections at once, their idle time and each message's size.
import { createSocket } from 'node:dgram';
import { createServer, type Socket } from 'node:net';
import { DNS_ZONE_LIMITS, type DnsZone } from '../dns-zone.js';
import { answerMessage, type LoadedZone, loadZone } from './dns-answer.js';

const MAX_TCP_CONNECTIONS = 128;
const TCP_IDLE_MS = 10_000;
/** A TCP message is at most 65,535 bytes (its 2-byte length); a connection holds at most one and its prefix. */
const MAX_TCP_BUFFER = 65_537;

const port = Number(process.argv[2] ?? 53);
let zone: LoadedZone | undefined;

/** The answer, or nothing when anything about the message throws (a hostile packet never ends the server). */
function answer(message: Buffer, udp: boolean): Buffer | undefined {
  try {
    return answerMessage(zone, message, udp);
  } catch {
    return undefined;
  }
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
        if (isZone(parsed)) zone = loadZone(parsed);
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
      const message = buffer.subarray(2, 2 + size);
      buffer = buffer.subarray(2 + size);
      const out = answer(message, false);
      if (!out) continue;
      const prefix = Buffer.alloc(2);
      prefix.writeUInt16BE(out.length);
      socket.write(Buffer.concat([prefix, out]));
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
    const out = answer(message, true);
    if (out) udp.send(out, from.port, from.address);
  });
  udp.bind(port, '0.0.0.0', ready);
  const tcp = createServer(serveTcp);
  tcp.maxConnections = MAX_TCP_CONNECTIONS;
  tcp.on('error', fail);
  tcp.listen(port, '0.0.0.0', ready);
}

main();
