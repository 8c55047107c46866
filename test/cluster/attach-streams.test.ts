// The pieces of pods/attach below kubectl (docs/clients.md §5.20): the channel framing of the websocket protocols
// (v5 and v4.channel.k8s.io) and the SPDY streams shared with exec, the container's streams (what an attached
// session hears and sends, the terminal's line discipline, stdinOnce), and a shell reading its stdin line by line.
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import type { WebSocket } from 'ws';
import { startProcess, type ProcessIo } from '../../src/cluster/images/processes.js';
import { startAttach } from '../../src/cluster/kubelet/exec/attach.js';
import type { CommandIO, RunningCommand } from '../../src/cluster/kubelet/exec/command.js';
import { streamsOverSpdy } from '../../src/cluster/kubelet/exec/exec-spdy.js';
import { serveChannels } from '../../src/cluster/kubelet/exec/exec-websocket.js';
import type { SpdySession, SpdyStream } from '../../src/cluster/kubelet/exec/spdy.js';
import type { StreamOptions } from '../../src/cluster/kubelet/exec/target.js';
import { ContainerIo, LineInput, MAX_PENDING_INPUT } from '../../src/cluster/kubelet/container-io.js';
import { eventually } from './harness.js';

const OPTIONS: StreamOptions = { container: 'c', stdin: true, stdout: true, stderr: true, tty: false };

/** A websocket as `ws` gives the server one: binary messages in, sends and the close recorded. */
class FakeSocket extends EventEmitter {
  readonly OPEN = 1;
  readyState = 1;
  readonly sent: Buffer[] = [];
  closed: number | undefined;
  constructor(readonly protocol: string) {
    super();
  }
  send(data: Buffer): void {
    this.sent.push(data);
  }
  close(code: number): void {
    this.closed = code;
    this.readyState = 3;
  }
  pause(): void {}
  resume(): void {}
  /** The client sends a binary message on a channel. */
  receive(...bytes: Array<number | string>): void {
    this.emit('message', Buffer.concat(bytes.map((b) => (typeof b === 'number' ? Buffer.from([b]) : Buffer.from(b)))), true);
  }
}

/** What runs behind the streams, recorded. */
function recorder(): { start: (io: CommandIO) => RunningCommand; io: () => CommandIO; input: string[]; ended: () => boolean; aborted: () => boolean } {
  let io: CommandIO | undefined;
  const input: string[] = [];
  let ended = false;
  let aborted = false;
  return {
    start: (given) => {
      io = given;
      return {
        stdin: (d) => (input.push(d.toString()), true),
        endStdin: () => (ended = true),
        onDrain: () => undefined,
        abort: () => (aborted = true),
      };
    },
    io: () => io!,
    input,
    ended: () => ended,
    aborted: () => aborted,
  };
}

describe('the websocket channels (v5/v4.channel.k8s.io)', () => {
  it('stdin on channel 0, output on 1 and 2, the Status on 3, then a normal close', () => {
    const ws = new FakeSocket('v5.channel.k8s.io');
    const r = recorder();
    serveChannels(ws as unknown as WebSocket, OPTIONS, r.start);
    ws.receive(0, 'echo hi\n');
    ws.receive(4, '{"Width":80,"Height":24}');
    assert.deepEqual(r.input, ['echo hi\n']);
    r.io().stdout(Buffer.from('hi\n'));
    r.io().stderr(Buffer.from('oops\n'));
    r.io().finish({ metadata: {}, status: 'Success' });
    assert.deepEqual(
      ws.sent.map((m) => [m[0], m.subarray(1).toString()]),
      [
        [1, 'hi\n'],
        [2, 'oops\n'],
        [3, '{"metadata":{},"status":"Success"}'],
      ],
    );
    assert.equal(ws.closed, 1000);
  });

  it('v5 ends stdin with the CLOSE signal [255, 0]; v4 has no such signal', () => {
    const v5 = new FakeSocket('v5.channel.k8s.io');
    const a = recorder();
    serveChannels(v5 as unknown as WebSocket, OPTIONS, a.start);
    v5.receive(255, 0);
    assert.equal(a.ended(), true);
    const v4 = new FakeSocket('v4.channel.k8s.io');
    const b = recorder();
    serveChannels(v4 as unknown as WebSocket, OPTIONS, b.start);
    v4.receive(255, 0);
    assert.equal(b.ended(), false);
  });

  it('stdin not asked for, empty and text messages are dropped; the client leaving aborts', () => {
    const ws = new FakeSocket('v5.channel.k8s.io');
    const r = recorder();
    serveChannels(ws as unknown as WebSocket, { ...OPTIONS, stdin: false }, r.start);
    ws.receive(0, 'ignored');
    ws.emit('message', Buffer.alloc(0), true);
    ws.emit('message', Buffer.from('\u0000text'), false);
    assert.deepEqual(r.input, []);
    ws.emit('close');
    assert.equal(r.aborted(), true);
  });
});

/** A SPDY stream as the session hands it over. */
class FakeStream extends EventEmitter {
  readonly written: Buffer[] = [];
  ended = false;
  resetWith: number | undefined;
  readonly headers: Map<string, string>;
  constructor(type: string) {
    super();
    this.headers = new Map([['streamtype', type]]);
  }
  write(d: Buffer): void {
    this.written.push(d);
  }
  end(d?: Buffer): void {
    if (d) this.written.push(d);
    this.ended = true;
  }
  reset(status: number): void {
    this.resetWith = status;
  }
}

describe('the SPDY streams (exec and attach)', () => {
  it('starts once every stream asked for is open, holding early stdin; a second stream of a type is refused', () => {
    let closed = false;
    const session = { close: () => (closed = true) } as unknown as SpdySession;
    const r = recorder();
    const onStream = streamsOverSpdy(() => session, { ...OPTIONS, stderr: false }, r.start);
    const error = new FakeStream('error');
    const stdin = new FakeStream('stdin');
    const stdout = new FakeStream('stdout');
    onStream(error as unknown as SpdyStream);
    onStream(stdin as unknown as SpdyStream);
    stdin.emit('data', Buffer.from('early\n'));
    assert.equal(r.input.length, 0, 'not started before stdout is open');
    onStream(stdout as unknown as SpdyStream);
    assert.deepEqual(r.input, ['early\n']);
    const again = new FakeStream('stdout');
    onStream(again as unknown as SpdyStream);
    assert.equal(again.resetWith, 3, 'REFUSED_STREAM');
    r.io().stdout(Buffer.from('out'));
    r.io().finish({ metadata: {}, status: 'Success' });
    assert.deepEqual(stdout.written.map(String), ['out']);
    assert.equal(stdout.ended, true);
    assert.deepEqual(error.written.map(String), ['{"metadata":{},"status":"Success"}']);
    assert.equal(closed, true);
  });
});

describe("the container's streams (what attach joins)", () => {
  const streams = (tty: boolean, stdinOnce = false) => {
    const log: string[] = [];
    return { log, io: new ContainerIo({ tty, stdin: true, stdinOnce, log: (s, t) => log.push(`${s}:${t}`) }) };
  };

  it('a session hears output from the moment it attaches (the log has all of it) and the end of the run', () => {
    const { log, io } = streams(false);
    io.write('stdout', 'before\n');
    const heard: string[] = [];
    let ended = false;
    io.attach(false, { output: (s, t) => heard.push(`${s}:${t}`), ended: () => (ended = true) });
    io.write('stdout', 'after\n');
    io.write('stderr', 'err\n');
    io.close();
    assert.deepEqual(heard, ['stdout:after\n', 'stderr:err\n']);
    assert.deepEqual(log, ['stdout:before\n', 'stdout:after\n', 'stderr:err\n']);
    assert.equal(ended, true);
  });

  it('on a terminal: one stream, NL sent as CR NL, input echoed, DEL erases, CR ends the line, ^C interrupts, ^D ends', async () => {
    const { io } = streams(true);
    const heard: string[] = [];
    const session = io.attach(true, { output: (_s, t) => heard.push(t), ended: () => undefined });
    io.write('stderr', '/ # ');
    session.stdin(Buffer.from('echo xy\u007f\r'));
    const never = new AbortController().signal;
    assert.equal(await io.input!.line(never), 'echo x');
    io.write('stdout', 'x\n');
    assert.equal(heard.join(''), '/ # echo xy\b \b\r\nx\r\n');
    const waiting = io.input!.line(never);
    session.stdin(Buffer.from('abc\u0003'));
    assert.equal(await waiting, null, 'the reader gets the interrupt');
    assert.match(heard.join(''), /abc\^C$/);
    session.stdin(Buffer.from('\u001b[A\u0004'));
    assert.equal(await io.input!.line(never), undefined, 'an arrow key is dropped, ^D on an empty line is the end');
  });

  it('stdinOnce: the container stdin closes when the first session with stdin ends; without it, it stays open', async () => {
    const once = streams(false, true).io;
    const a = once.attach(true, { output: () => undefined, ended: () => undefined });
    a.stdin(Buffer.from('one\ntw'));
    a.endStdin();
    const never = new AbortController().signal;
    assert.deepEqual([await once.input!.line(never), await once.input!.line(never), await once.input!.line(never)], ['one', 'tw', undefined]);
    const open = streams(false).io;
    const b = open.attach(true, { output: () => undefined, ended: () => undefined });
    b.stdin(Buffer.from('x\n'));
    b.detach();
    assert.equal(open.input!.closed, false);
  });

  it("aksemu's notices (a program it does not emulate) are told again to each session that attaches", () => {
    const { log, io } = streams(false);
    io.notice('aksemu: not emulated\n');
    io.write('stdout', 'lost\n');
    const heard: string[] = [];
    io.attach(false, { output: (s, t) => heard.push(`${s}:${t}`), ended: () => undefined });
    assert.deepEqual(heard, ['stderr:aksemu: not emulated\n']);
    assert.deepEqual(log, ['stderr:aksemu: not emulated\n', 'stdout:lost\n']);
  });

  it('input past the bound is dropped, not buffered', () => {
    const input = new LineInput(false);
    assert.equal(input.push('a'.repeat(MAX_PENDING_INPUT)), true);
    assert.equal(input.push('more'), false);
  });

  it('startAttach: stdout and stderr as asked, Success when the run ends, stdin to the container', async () => {
    const { io } = streams(false);
    const got: string[] = [];
    let status: Record<string, unknown> | undefined;
    const running = startAttach(
      io,
      { ...OPTIONS, stderr: false },
      { stdout: (d) => got.push(`out:${d}`), stderr: (d) => got.push(`err:${d}`), finish: (s) => (status = s) },
    );
    running.stdin(Buffer.from('hello\n'));
    assert.equal(await io.input!.line(new AbortController().signal), 'hello');
    io.write('stdout', 'a');
    io.write('stderr', 'b');
    io.close();
    assert.deepEqual(got, ['out:a']);
    assert.deepEqual(status, { metadata: {}, status: 'Success' });
  });
});

describe('a shell reading its stdin', () => {
  const shell = (tty: boolean) => {
    const out: string[] = [];
    const io = new ContainerIo({ tty, stdin: true, stdinOnce: true, log: () => undefined });
    const session = io.attach(true, { output: (_s, t) => out.push(t), ended: () => undefined });
    const pio: ProcessIo = { write: (s, t) => io.write(s, t), read: () => undefined, unknown: 'runs', stdin: io.input! };
    return { out, session, process: startProcess(['sh'], {}, pio) };
  };

  it('runs line after line with the rules of sh -c: an open block waits for its end, $? is the last status, exit N ends it', async () => {
    const { out, session, process } = shell(false);
    session.stdin(Buffer.from('false\necho "was $?"\nif true; then\necho yes\nfi\nurl=http://web\necho "to $url"\nexit 5\necho never\n'));
    assert.equal(await process.exited, 5);
    assert.equal(out.join(''), 'was 1\nyes\nto http://web\n');
  });

  it('ends with the last status at the end of its input; a syntax error or a program not emulated is reported and the shell goes on', async () => {
    const { out, session, process } = shell(false);
    session.stdin(Buffer.from('echo ${x\nls /tmp\ntrue\n'));
    session.endStdin();
    assert.equal(await process.exited, 0);
    // A program aksemu does not emulate fails (127) with why, instead of holding the shell.
    assert.equal(out.join(''), 'sh: syntax error: bad substitution\nsh: ls: aksemu does not emulate this program (docs/clients.md §5.20)\n');
  });

  it('on a terminal: the prompt `/ # `, PS2 inside a block, ^C interrupts a sleep with status 130', async () => {
    const { out, session, process } = shell(true);
    await eventually(() => out.join('') === '/ # ', 5_000, 'the first prompt');
    session.stdin(Buffer.from('while false\r'));
    await eventually(() => out.join('').endsWith('> '), 5_000, 'PS2');
    session.stdin(Buffer.from('do :; done\r'));
    await eventually(() => out.join('').endsWith('/ # '), 5_000, 'the prompt again');
    session.stdin(Buffer.from('sleep 100\r'));
    await new Promise((r) => setTimeout(r, 50));
    session.stdin(Buffer.from('\u0003'));
    await eventually(() => out.join('').endsWith('^C\r\n/ # '), 5_000, 'the interrupted sleep and a new prompt');
    // A bare exit ends with the last status, the interrupted command's.
    session.stdin(Buffer.from('exit\r'));
    assert.equal(await process.exited, 130);
    assert.match(out.join(''), /\^C\r\n\/ # exit\r\n$/);
  });
});
