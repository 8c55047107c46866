// The SPDY/3 session kubectl exec and port-forward speak (src/cluster/kubelet/exec/spdy.ts), driven by a client built
// on node's zlib (a real deflater with the SPDY/3 dictionary, as Go's framer): the dictionary's bytes, stream
// opening and SYN_REPLY, data and FIN, PING, and what a hostile client gets (GOAWAY, RST_STREAM, bounds).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { constants, createDeflate, createInflate, inflateSync } from 'node:zlib';
import { SPDY3_DICTIONARY } from '../../src/cluster/kubelet/exec/spdy-dictionary.js';
import { decodeHeaderBlock, encodeHeaderBlock, FRAME, RST, SpdySession, type SpdyStream, StoredZlib } from '../../src/cluster/kubelet/exec/spdy.js';
import { eventually } from './harness.js';

function control(type: number, flags: number, payload: Buffer): Buffer {
  const h = Buffer.alloc(8);
  h.writeUInt16BE(0x8003, 0);
  h.writeUInt16BE(type, 2);
  h.writeUInt32BE(((flags << 24) | payload.length) >>> 0, 4);
  return Buffer.concat([h, payload]);
}

function data(id: number, flags: number, body: Buffer): Buffer {
  const h = Buffer.alloc(8);
  h.writeUInt32BE(id, 0);
  h.writeUInt32BE(((flags << 24) | body.length) >>> 0, 4);
  return Buffer.concat([h, body]);
}

/** A client: its own zlib stream for the header blocks it sends, and an inflater for the server's. */
class Client {
  private readonly deflate = createDeflate({ dictionary: SPDY3_DICTIONARY });
  readonly out: Buffer[] = [];
  ended = false;
  readonly streams: SpdyStream[] = [];
  readonly errors: string[] = [];
  readonly session = new SpdySession(
    { write: (b) => this.out.push(b), end: () => (this.ended = true), pause: () => undefined, resume: () => undefined },
    { maxStreams: 4, onStream: (s) => this.streams.push(s), onError: (why) => this.errors.push(why) },
  );

  compress(raw: Buffer): Promise<Buffer> {
    return new Promise((resolve) => {
      const parts: Buffer[] = [];
      const on = (d: Buffer) => parts.push(d);
      this.deflate.on('data', on);
      this.deflate.write(raw);
      this.deflate.flush(constants.Z_SYNC_FLUSH, () => {
        this.deflate.off('data', on);
        resolve(Buffer.concat(parts));
      });
    });
  }

  async open(id: number, headers: Array<[string, string]>, flags = 0): Promise<void> {
    const block = await this.compress(encodeHeaderBlock(headers));
    const head = Buffer.alloc(10);
    head.writeUInt32BE(id, 0);
    const before = this.out.length;
    this.session.receive(control(FRAME.synStream, flags, Buffer.concat([head, block])));
    await until(() => this.out.length > before || this.ended, `the answer to SYN_STREAM ${id}`);
  }

  /** The frames the server sent: [type or 'data', stream id, flags, payload]. */
  frames(): Array<[number | 'data', number, number, Buffer]> {
    return this.out.map((f) =>
      (f[0]! & 0x80) !== 0 ? [f.readUInt16BE(2), f.readUInt32BE(8) & 0x7fffffff, f[4]!, f.subarray(8)] : ['data', f.readUInt32BE(0), f[4]!, f.subarray(8)],
    );
  }
}

/** Waits for what the session does asynchronously (header blocks inflate on zlib's thread pool), not a fixed time. */
const until = (done: () => boolean, what: string): Promise<void> => eventually(done, 10_000, what);

describe('the SPDY/3 session (kubectl exec and port-forward)', () => {
  it('the dictionary is the 1,423 bytes of the SPDY/3 spec', () => {
    assert.equal(SPDY3_DICTIONARY.length, 1423);
    assert.equal(createHash('sha256').update(SPDY3_DICTIONARY).digest('hex'), '51d27341373f923f3cd88e1eb7162aeaa3723d7585ff2399201dc06498407f02');
  });

  it('our header blocks are one zlib stream any inflater reads with the dictionary, each ending in a sync flush', () => {
    const z = new StoredZlib();
    const a = z.compress(encodeHeaderBlock([['streamtype', 'error']]));
    const b = z.compress(encodeHeaderBlock([]));
    const inflated = inflateSync(Buffer.concat([a, b]), { dictionary: SPDY3_DICTIONARY, finishFlush: constants.Z_SYNC_FLUSH });
    assert.deepEqual([...decodeHeaderBlock(inflated.subarray(0, inflated.length - 4))], [['streamtype', 'error']]);
    assert.deepEqual(b.subarray(-5), Buffer.from([0, 0, 0, 0xff, 0xff]));
  });

  it('a SYN_STREAM opens a stream with its headers and gets a SYN_REPLY; data, FIN and PING', async () => {
    const c = new Client();
    await c.open(1, [
      ['streamtype', 'data'],
      ['port', '80'],
    ]);
    assert.equal(c.streams.length, 1);
    assert.deepEqual(
      [...c.streams[0]!.headers],
      [
        ['streamtype', 'data'],
        ['port', '80'],
      ],
    );
    const [reply] = c.frames();
    assert.deepEqual(reply!.slice(0, 2), [FRAME.synReply, 1]);
    const inflate = createInflate({ dictionary: SPDY3_DICTIONARY });
    const got = await new Promise<Buffer>((resolve) => {
      inflate.once('data', resolve);
      inflate.write(reply![3].subarray(4));
    });
    assert.deepEqual(decodeHeaderBlock(got).size, 0);
    const seen: string[] = [];
    c.streams[0]!.on('data', (d: Buffer) => seen.push(d.toString()));
    c.streams[0]!.on('end', () => seen.push('FIN'));
    c.session.receive(Buffer.concat([data(1, 0, Buffer.from('hello')), data(1, 1, Buffer.alloc(0))]));
    const ping = Buffer.alloc(4);
    ping.writeUInt32BE(7);
    c.session.receive(control(FRAME.ping, 0, ping));
    await until(() => seen.includes('FIN') && c.out.length >= 2, 'the data, FIN and the PING reply');
    assert.deepEqual(seen, ['hello', 'FIN']);
    c.streams[0]!.end(Buffer.from('bye'));
    const frames = c.frames();
    assert.deepEqual(frames[1]!.slice(0, 2), [FRAME.ping, 7]);
    assert.deepEqual(
      frames.slice(2).map((f) => [f[0], f[1], f[2], f[3].toString()]),
      [
        ['data', 1, 0, 'bye'],
        ['data', 1, 1, ''],
      ],
    );
  });

  it('a stream id out of order is reset; past the stream limit new streams are refused', async () => {
    const c = new Client();
    await c.open(3, [['streamtype', 'error']]);
    await c.open(2, [['streamtype', 'error']]);
    await c.open(1, [['streamtype', 'error']]);
    for (const id of [5, 7, 9, 11]) await c.open(id, [['streamtype', 'error']]);
    const resets = c
      .frames()
      .filter((f) => f[0] === FRAME.rstStream)
      .map((f) => [f[1], f[3].readUInt32BE(4)]);
    assert.deepEqual(resets, [
      [2, RST.protocolError],
      [1, RST.protocolError],
      [11, RST.refusedStream],
    ]);
    assert.equal(c.streams.length, 4);
  });

  for (const [what, frame] of [
    ['a frame past 1 MiB', data(1, 0, Buffer.alloc(0)).fill(0xff, 5, 8)],
    ['another SPDY version', Buffer.from([0x80, 0x02, 0, 1, 0, 0, 0, 0])],
    ['a SYN_STREAM too short', control(FRAME.synStream, 0, Buffer.alloc(4))],
    [
      'a header block that is not zlib',
      control(FRAME.synStream, 0, Buffer.concat([Buffer.from([0, 0, 0, 1, 0, 0, 0, 0, 0, 0]), Buffer.from('not zlib at all')])),
    ],
  ] as const) {
    it(`${what} ends the session with GOAWAY`, async () => {
      const c = new Client();
      c.session.receive(frame);
      await until(() => c.ended, 'the session to end');
      const last = c.frames().at(-1)!;
      assert.equal(last[0], FRAME.goAway);
      assert.equal(last[3].readUInt32BE(4), 1, 'PROTOCOL_ERROR');
      assert.ok(c.ended);
      assert.equal(c.errors.length, 1);
    });
  }

  it('a header block that inflates past 64 KiB (a zlib bomb) or holds upper-case or repeated names ends the session', async () => {
    for (const headers of [
      [['x', 'a'.repeat(200_000)]],
      [['StreamType', 'error']],
      [
        ['a', '1'],
        ['a', '2'],
      ],
    ] as Array<Array<[string, string]>>) {
      const c = new Client();
      const raw = Buffer.alloc(4);
      // encodeHeaderBlock lowercases: write the block by hand.
      raw.writeUInt32BE(headers.length);
      const parts = [raw];
      for (const [n, v] of headers)
        for (const s of [n, v]) {
          const len = Buffer.alloc(4);
          len.writeUInt32BE(s.length);
          parts.push(len, Buffer.from(s));
        }
      const block = await c.compress(Buffer.concat(parts));
      const head = Buffer.alloc(10);
      head.writeUInt32BE(1, 0);
      c.session.receive(control(FRAME.synStream, 0, Buffer.concat([head, block])));
      await until(() => c.ended, 'the session to end');
      assert.equal(c.frames().at(-1)![0], FRAME.goAway, JSON.stringify(headers).slice(0, 60));
      assert.equal(c.streams.length, 0);
    }
  });
});
