// A small SPDY/3.1 server session, as much of the protocol as kubectl's side of it (moby/spdystream under
// k8s.io/apimachinery/pkg/util/httpstream/spdy) uses: frames (SPDY Protocol Draft 3, section 2.2: control frames with
// version 3 and a type, data frames by stream id, 24-bit lengths), header blocks (section 2.6.10: a count, then
// length-prefixed names and values, zlib-compressed with the SPDY/3 dictionary, one zlib stream per direction),
// SYN_STREAM answered by SYN_REPLY (spdystream drops data on a stream not yet replied to), DATA with FIN for a
// half-close, RST_STREAM, PING echoed, GOAWAY. spdystream does no flow control (it ignores WINDOW_UPDATE and
// SETTINGS), so neither does this. The client opens every stream (odd ids, rising); the server opens none.
//
// Header blocks we send are compressed as zlib "stored" blocks: a valid zlib stream against the dictionary that
// any inflater (Go's compress/zlib included) reads, with no compressor state to keep. Header blocks we receive go
// through one inflate stream per session, in order, bounded in size (a zlib bomb ends the session).
import { EventEmitter } from 'node:events';
import { createInflate, type Inflate } from 'node:zlib';
import { SPDY3_DICTIONARY } from './spdy-dictionary.js';

const VERSION = 3;
export const FRAME = { synStream: 1, synReply: 2, rstStream: 3, settings: 4, ping: 6, goAway: 7, headers: 8, windowUpdate: 9 } as const;
const FLAG_FIN = 0x01;
/** RST_STREAM status codes (SPDY/3 section 2.4.2). */
export const RST = { protocolError: 1, invalidStream: 2, refusedStream: 3, cancel: 5, internalError: 6 } as const;
const GOAWAY_OK = 0;
const GOAWAY_PROTOCOL_ERROR = 1;

/** A frame's 24-bit length allows 16 MiB; kubectl writes at most 32 KiB at a time. */
const MAX_FRAME_BYTES = 1 << 20;
/** A decompressed header block: kubectl's are a few dozen bytes. */
const MAX_HEADER_BYTES = 64 * 1024;
const MAX_HEADER_PAIRS = 64;
/** Frames waiting for the inflater before the socket is paused. */
const MAX_QUEUED = 256;

export class SpdyProtocolError extends Error {}

export interface SpdyTransport {
  write(data: Buffer): void;
  end(): void;
  pause(): void;
  resume(): void;
}

/** One stream a client opened: 'data' (Buffer), 'end' (the client's FIN), 'reset' (RST_STREAM or session end). */
export class SpdyStream extends EventEmitter {
  private localClosed = false;
  remoteClosed = false;

  constructor(
    private readonly session: SpdySession,
    readonly id: number,
    readonly headers: ReadonlyMap<string, string>,
  ) {
    super();
  }

  write(data: Buffer): void {
    if (this.localClosed) return;
    for (let at = 0; at < data.length; at += MAX_FRAME_BYTES) this.session.sendData(this.id, data.subarray(at, at + MAX_FRAME_BYTES), false);
  }

  /** Half-closes our side (DATA with FIN). */
  end(data?: Buffer): void {
    if (this.localClosed) return;
    if (data?.length) this.write(data);
    this.localClosed = true;
    this.session.sendData(this.id, Buffer.alloc(0), true);
    this.session.settle(this);
  }

  reset(status: number = RST.cancel): void {
    if (this.localClosed && this.remoteClosed) return;
    this.localClosed = true;
    this.remoteClosed = true;
    this.session.sendReset(this.id, status);
    this.session.settle(this);
  }

  get closed(): boolean {
    return this.localClosed && this.remoteClosed;
  }
}

/** Big-endian frame header fields. */
function controlFrame(type: number, flags: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt16BE(0x8000 | VERSION, 0);
  head.writeUInt16BE(type, 2);
  head.writeUInt32BE(((flags & 0xff) << 24) | payload.length, 4);
  return Buffer.concat([head, payload]);
}

function dataFrame(streamId: number, fin: boolean, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(streamId & 0x7fffffff, 0);
  head.writeUInt32BE(((fin ? FLAG_FIN : 0) << 24) | data.length, 4);
  return Buffer.concat([head, data]);
}

/** The uncompressed header block (SPDY/3 section 2.6.10): pair count, then 32-bit length-prefixed names and values. */
export function encodeHeaderBlock(pairs: ReadonlyArray<readonly [string, string]>): Buffer {
  const parts: Buffer[] = [u32(pairs.length)];
  for (const [name, value] of pairs) {
    const n = Buffer.from(name.toLowerCase(), 'utf8');
    const v = Buffer.from(value, 'utf8');
    parts.push(u32(n.length), n, u32(v.length), v);
  }
  return Buffer.concat(parts);
}

/** Names lowercased and unique, as Go's framer requires (its UnlowercasedHeaderName / DuplicateHeaders errors). */
export function decodeHeaderBlock(block: Buffer): Map<string, string> {
  const headers = new Map<string, string>();
  let at = 0;
  const take = (): Buffer => {
    if (at + 4 > block.length) throw new SpdyProtocolError('header block truncated');
    const len = block.readUInt32BE(at);
    at += 4;
    if (at + len > block.length) throw new SpdyProtocolError('header block truncated');
    const out = block.subarray(at, at + len);
    at += len;
    return out;
  };
  if (block.length < 4) throw new SpdyProtocolError('header block truncated');
  const count = block.readUInt32BE(0);
  at = 4;
  if (count > MAX_HEADER_PAIRS) throw new SpdyProtocolError(`too many headers (${count})`);
  for (let i = 0; i < count; i++) {
    const name = take().toString('utf8');
    const value = take().toString('utf8');
    if (name === '' || name !== name.toLowerCase()) throw new SpdyProtocolError('header was not lowercased');
    if (headers.has(name)) throw new SpdyProtocolError('multiple headers with same name');
    headers.set(name, value);
  }
  return headers;
}

/** zlib's checksum (RFC 1950 §8): the id of the preset dictionary in the stream header. */
function adler32(data: Buffer): number {
  let a = 1;
  let b = 0;
  for (const byte of data) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  return ((b << 16) | a) >>> 0;
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
}

/** BFINAL 0, BTYPE 00 (stored), padded to the byte; LEN and its one's complement, little-endian; the bytes. */
function storedBlock(chunk: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt16LE(chunk.length, 1);
  head.writeUInt16LE(~chunk.length & 0xffff, 3);
  return Buffer.concat([head, chunk]);
}

/** Our direction's zlib stream, made of stored blocks: the header (with the dictionary's id) once, then one block per header block. */
export class StoredZlib {
  private started = false;

  compress(raw: Buffer): Buffer {
    const parts: Buffer[] = [];
    if (!this.started) {
      this.started = true;
      // CMF 0x78 (deflate, 32 KiB window); FLG with FDICT set and FCHECK making CMF·256+FLG a multiple of 31.
      const cmf = 0x78;
      let flg = 0x20;
      flg += (31 - ((cmf * 256 + flg) % 31)) % 31;
      parts.push(Buffer.from([cmf, flg]), u32(adler32(SPDY3_DICTIONARY)));
    }
    for (let at = 0; at < raw.length; at += 0xffff) parts.push(storedBlock(raw.subarray(at, at + 0xffff)));
    // The sync-flush marker, an empty stored block, as a deflater's Z_SYNC_FLUSH ends each header block: Go's
    // inflater hands the block's bytes over only once it has read the next block's header, which must be
    // inside this frame.
    parts.push(storedBlock(Buffer.alloc(0)));
    return Buffer.concat(parts);
  }
}

/** The peer's zlib stream: one inflater, fed one header block at a time. */
class HeaderInflater {
  private readonly inflate: Inflate = createInflate({ dictionary: SPDY3_DICTIONARY });
  private out: Buffer[] = [];
  private size = 0;
  private failed: Error | undefined;

  constructor() {
    this.inflate.on('data', (chunk: Buffer) => {
      this.size += chunk.length;
      if (this.size > MAX_HEADER_BYTES) this.failed ??= new SpdyProtocolError('header block too large');
      else this.out.push(chunk);
    });
    this.inflate.on('error', (e) => (this.failed ??= new SpdyProtocolError(`header block: ${e.message}`)));
  }

  block(compressed: Buffer): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      if (this.failed) return reject(this.failed);
      // A stream that is not zlib errors (and is destroyed) instead of calling back.
      const onError = () => reject(this.failed);
      this.inflate.once('error', onError);
      this.inflate.write(compressed);
      this.inflate.flush(2 /* Z_SYNC_FLUSH */, () => {
        this.inflate.off('error', onError);
        const out = Buffer.concat(this.out);
        this.out = [];
        this.size = 0;
        if (this.failed) reject(this.failed);
        else resolve(out);
      });
    });
  }

  close(): void {
    this.inflate.destroy();
  }
}

export interface SpdySessionOptions {
  /** Streams open at once; past it new ones are refused (RST_STREAM REFUSED_STREAM). */
  maxStreams: number;
  onStream(stream: SpdyStream): void;
  /** The session ended (GOAWAY, protocol error, transport closed). */
  onClose?(): void;
  onError?(why: string): void;
}

export class SpdySession {
  private buffer: Buffer = Buffer.alloc(0);
  private readonly streams = new Map<number, SpdyStream>();
  private lastStreamId = 0;
  private readonly deflater = new StoredZlib();
  private readonly inflater = new HeaderInflater();
  private queue: Promise<void> = Promise.resolve();
  private queued = 0;
  private paused = false;
  private closed = false;

  constructor(
    private readonly transport: SpdyTransport,
    private readonly options: SpdySessionOptions,
  ) {}

  /** Bytes from the client. */
  receive(chunk: Buffer): void {
    if (this.closed) return;
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    while (this.buffer.length >= 8) {
      const length = this.buffer.readUInt32BE(4) & 0xffffff;
      if (length > MAX_FRAME_BYTES) return this.fail(`frame of ${length} bytes`);
      if (this.buffer.length < 8 + length) break;
      const frame = this.buffer.subarray(0, 8 + length);
      this.buffer = this.buffer.subarray(8 + length);
      this.enqueue(frame);
    }
  }

  /** Frames are handled one after another: a SYN_STREAM's headers inflate before the stream's data is seen. */
  private enqueue(frame: Buffer): void {
    this.queued++;
    if (this.queued > MAX_QUEUED && !this.paused) {
      this.paused = true;
      this.transport.pause();
    }
    this.queue = this.queue
      .then(() => (this.closed ? undefined : this.handle(frame)))
      .catch((e: unknown) => this.fail(e instanceof SpdyProtocolError ? e.message : String(e)))
      .finally(() => {
        this.queued--;
        if (this.paused && this.queued < MAX_QUEUED / 2) {
          this.paused = false;
          this.transport.resume();
        }
      });
  }

  private async handle(frame: Buffer): Promise<void> {
    const flags = frame[4]!;
    const payload = frame.subarray(8);
    if ((frame[0]! & 0x80) === 0) return this.onData(frame.readUInt32BE(0) & 0x7fffffff, (flags & FLAG_FIN) !== 0, payload);
    const version = frame.readUInt16BE(0) & 0x7fff;
    if (version !== VERSION) throw new SpdyProtocolError(`unsupported SPDY version ${version}`);
    const type = frame.readUInt16BE(2);
    switch (type) {
      case FRAME.synStream: {
        if (payload.length < 10) throw new SpdyProtocolError('invalid control frame');
        const id = payload.readUInt32BE(0) & 0x7fffffff;
        const headers = decodeHeaderBlock(await this.inflater.block(payload.subarray(10)));
        return this.onSynStream(id, (flags & FLAG_FIN) !== 0, headers);
      }
      case FRAME.headers:
        if (payload.length < 4) throw new SpdyProtocolError('invalid control frame');
        // Read to keep the zlib stream in step; kubectl sends none after SYN_STREAM.
        await this.inflater.block(payload.subarray(4));
        if ((flags & FLAG_FIN) !== 0) this.remoteFin(payload.readUInt32BE(0) & 0x7fffffff);
        return;
      case FRAME.rstStream: {
        if (payload.length < 8) throw new SpdyProtocolError('invalid control frame');
        const stream = this.streams.get(payload.readUInt32BE(0) & 0x7fffffff);
        if (stream) {
          this.streams.delete(stream.id);
          stream.remoteClosed = true;
          stream.emit('reset');
        }
        return;
      }
      case FRAME.ping:
        // Echo the client's (odd) pings; spdystream's pings keep kubectl's connection alive.
        if (payload.length >= 4 && (payload.readUInt32BE(0) & 1) === 1) this.send(controlFrame(FRAME.ping, 0, payload.subarray(0, 4)));
        return;
      case FRAME.goAway:
        return this.close();
      default:
        // SETTINGS, WINDOW_UPDATE, SYN_REPLY, unknown types: ignored, as spdystream does.
        return;
    }
  }

  private onSynStream(id: number, fin: boolean, headers: Map<string, string>): void {
    if (id === 0 || id % 2 === 0 || id <= this.lastStreamId) return this.sendReset(id, RST.protocolError);
    this.lastStreamId = id;
    if (this.streams.size >= this.options.maxStreams) return this.sendReset(id, RST.refusedStream);
    const stream = new SpdyStream(this, id, headers);
    this.streams.set(id, stream);
    this.send(controlFrame(FRAME.synReply, 0, Buffer.concat([u32(id), this.deflater.compress(encodeHeaderBlock([]))])));
    if (fin) stream.remoteClosed = true;
    this.options.onStream(stream);
    if (fin) stream.emit('end');
  }

  private onData(id: number, fin: boolean, data: Buffer): void {
    const stream = this.streams.get(id);
    if (!stream || stream.remoteClosed) return;
    if (data.length > 0) stream.emit('data', Buffer.from(data));
    if (fin) this.remoteFin(id);
  }

  private remoteFin(id: number): void {
    const stream = this.streams.get(id);
    if (!stream || stream.remoteClosed) return;
    stream.remoteClosed = true;
    stream.emit('end');
    this.settle(stream);
  }

  /** A stream closed both ways is forgotten. */
  settle(stream: SpdyStream): void {
    if (stream.closed) this.streams.delete(stream.id);
  }

  sendData(id: number, data: Buffer, fin: boolean): void {
    this.send(dataFrame(id, fin, data));
  }

  sendReset(id: number, status: number): void {
    const payload = Buffer.concat([u32(id & 0x7fffffff), u32(status)]);
    this.send(controlFrame(FRAME.rstStream, 0, payload));
  }

  private send(frame: Buffer): void {
    if (!this.closed) this.transport.write(frame);
  }

  /** A client that breaks the protocol loses its session (GOAWAY PROTOCOL_ERROR), with the reason for the log. */
  private fail(why: string): void {
    if (this.closed) return;
    this.options.onError?.(why);
    this.close(GOAWAY_PROTOCOL_ERROR);
  }

  /** Ends the session: GOAWAY, every open stream reset, the transport ended. */
  close(status = GOAWAY_OK): void {
    if (this.closed) return;
    this.send(controlFrame(FRAME.goAway, 0, Buffer.concat([u32(this.lastStreamId), u32(status)])));
    this.closed = true;
    for (const stream of this.streams.values()) {
      stream.remoteClosed = true;
      stream.emit('reset');
    }
    this.streams.clear();
    this.inflater.close();
    this.transport.end();
    this.options.onClose?.();
  }

  /** The transport went away under us. */
  lost(): void {
    if (this.closed) return;
    this.closed = true;
    for (const stream of this.streams.values()) stream.emit('reset');
    this.streams.clear();
    this.inflater.close();
    this.options.onClose?.();
  }
}
