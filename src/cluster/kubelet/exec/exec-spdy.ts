// `kubectl exec` and `kubectl attach` over SPDY/3.1 (kubectl's fallback when the websocket upgrade fails, and its
// only way with KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false; client-go tools/remotecommand/spdy.go and v2.go–v4.go): the client
// opens one stream per channel, told apart by the `streamtype` header (error, stdin, stdout, stderr, resize),
// error first. As the kubelet does (pkg/kubelet/cri/streaming/remotecommand/httpstream.go), the command starts
// once every stream the query asked for is open, and not later than 30 s after the upgrade; at the end the
// Status is written on the error stream and every stream is half-closed, then the session. What runs behind the
// streams (a command, or the container's process for attach) is the caller's `start`.
import type { CommandIO, RunningCommand } from './command.js';
import { RST, type SpdySession, type SpdyStream } from './spdy.js';
import type { StreamOptions } from './target.js';

/** The kubelet's streamCreationTimeout. */
export const STREAM_CREATION_TIMEOUT_MS = 30_000;

/** stdin a client may send before it has opened the streams it asked for. */
const EARLY_STDIN_BYTES = 1024 * 1024;

export const EXEC_SPDY_PROTOCOLS = ['v5.channel.k8s.io', 'v4.channel.k8s.io'] as const;

/** Handles the streams of one exec or attach session; returns the session's onStream. */
export function streamsOverSpdy(session: () => SpdySession, options: StreamOptions, start: (io: CommandIO) => RunningCommand): (stream: SpdyStream) => void {
  const wanted = new Set(['error']);
  if (options.stdin) wanted.add('stdin');
  if (options.stdout) wanted.add('stdout');
  if (options.stderr) wanted.add('stderr');
  if (options.tty) wanted.add('resize');
  const streams = new Map<string, SpdyStream>();
  let command: RunningCommand | undefined;
  const timer = setTimeout(() => session().close(), STREAM_CREATION_TIMEOUT_MS);
  timer.unref();
  // stdin that arrives before the last stream is opened waits for the command.
  const early: Buffer[] = [];
  let earlySize = 0;
  let earlyEnd = false;
  const hold = (d: Buffer) => {
    earlySize += d.length;
    if (earlySize > EARLY_STDIN_BYTES) session().close();
    else early.push(d);
  };
  const begin = () => {
    clearTimeout(timer);
    command = start({
      stdout: (d) => streams.get('stdout')?.write(d),
      stderr: (d) => streams.get('stderr')?.write(d),
      finish: (status) => {
        for (const [type, s] of streams) if (type !== 'error') s.end();
        streams.get('error')?.end(Buffer.from(JSON.stringify(status)));
        session().close();
      },
    });
    for (const d of early.splice(0)) command.stdin(d);
    if (earlyEnd) command.endStdin();
  };
  return (stream) => {
    const type = stream.headers.get('streamtype') ?? '';
    if (!wanted.has(type) || streams.has(type) || command) return stream.reset(RST.refusedStream);
    streams.set(type, stream);
    stream.on('reset', () => command?.abort());
    if (type === 'stdin') {
      stream.on('data', (d: Buffer) => (command ? command.stdin(d) : hold(d)));
      stream.on('end', () => (command ? command.endStdin() : (earlyEnd = true)));
    }
    if (streams.size === wanted.size) begin();
  };
}
