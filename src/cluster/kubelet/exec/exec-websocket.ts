// `kubectl exec` and `kubectl attach` over a websocket (kubectl ≥1.30's first choice; client-go
// tools/remotecommand/websocket.go): the
// channel protocol of k8s.io/apimachinery/pkg/util/remotecommand (v4.channel.k8s.io, v5.channel.k8s.io). Every
// binary message starts with its channel: 0 stdin, 1 stdout, 2 stderr, 3 the error channel (the Status, once),
// 4 terminal resizes; v5 adds the CLOSE signal, [255, channel], with which the client ends its stdin. The
// server ends with the Status on channel 3 and a normal close, which the client reads as EOF on every stream.
// What runs behind the channels (a command, or the container's process for attach) is the caller's `start`.
import type { WebSocket } from 'ws';
import type { CommandIO, RunningCommand } from './command.js';
import type { StreamOptions } from './target.js';

export const EXEC_WEBSOCKET_PROTOCOLS = ['v5.channel.k8s.io', 'v4.channel.k8s.io'] as const;

const STDIN = 0;
const STDOUT = 1;
const STDERR = 2;
const ERROR = 3;
const CLOSE = 255;

export function serveChannels(ws: WebSocket, options: StreamOptions, start: (io: CommandIO) => RunningCommand): void {
  const send = (channel: number, data: Buffer) => {
    if (ws.readyState === ws.OPEN) ws.send(Buffer.concat([Buffer.from([channel]), data]), { binary: true });
  };
  const v5 = ws.protocol === 'v5.channel.k8s.io';
  const command = start({
    stdout: (d) => send(STDOUT, d),
    stderr: (d) => send(STDERR, d),
    finish: (status) => {
      send(ERROR, Buffer.from(JSON.stringify(status)));
      if (ws.readyState === ws.OPEN) ws.close(1000);
    },
  });
  command.onDrain(() => ws.resume());
  ws.on('message', (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => {
    const message = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
    if (!isBinary || message.length === 0) return;
    const channel = message[0];
    if (channel === STDIN && options.stdin) {
      if (!command.stdin(message.subarray(1))) ws.pause();
    } else if (channel === CLOSE && v5 && message[1] === STDIN) command.endStdin();
    // Resizes (channel 4) are read and dropped: the pty keeps its size (docs/clients.md §5.18).
  });
  ws.on('close', () => command.abort());
  ws.on('error', () => command.abort());
}
