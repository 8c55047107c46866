// `kubectl port-forward` (client-go tools/portforward/portforward.go handleConnection): over one SPDY session
// (direct, `portforward.k8s.io`, or tunneled in a websocket, `SPDY/3.1+portforward.k8s.io`, kubectl ≥1.31), each
// local connection opens an error stream and a data stream with the same `requestid` and `port` headers. As the
// kubelet does (pkg/kubelet/cri/streaming/portforward/httpstream.go), a complete pair is forwarded to
// 127.0.0.1:PORT inside the pod's network namespace — by a relay process there (dataplane/netns/relay.ts) — and
// ends with the error stream closed, empty on success, else holding the kubelet's `error forwarding port …`
// words (kubectl then logs them and drops the whole session, as it does against a real kubelet).
import { spawnRelay } from '../../../dataplane/netns/exec-sandbox.js';
import { STREAM_CREATION_TIMEOUT_MS } from './exec-spdy.js';
import { RST, type SpdyStream } from './spdy.js';
import type { PodTarget } from './target.js';

export const PORT_FORWARD_PROTOCOL = 'portforward.k8s.io';
/** kubectl ≥1.31's websocket subprotocol that carries the SPDY session (constants.WebsocketsSPDYTunnelingPrefix). */
export const PORT_FORWARD_TUNNEL_PROTOCOL = 'SPDY/3.1+portforward.k8s.io';

const MAX_BUFFERED = 16 * 1024 * 1024;

interface Pair {
  error?: SpdyStream;
  data?: SpdyStream;
  timer: NodeJS.Timeout;
}

/** Handles the streams of one port-forward session; returns the session's onStream. */
export function portForwardStreams(target: PodTarget): (stream: SpdyStream) => void {
  const pairs = new Map<string, Pair>();
  const uid = String(target.pod.metadata.uid ?? '');
  const forward = (id: string, pair: Required<Omit<Pair, 'timer'>>) => {
    clearTimeout(pairs.get(id)?.timer);
    pairs.delete(id);
    const { error, data } = pair;
    const portText = data.headers.get('port') ?? '';
    const port = /^\d{1,5}$/.test(portText) ? Number(portText) : NaN;
    const fail = (why: string) => {
      error.end(Buffer.from(`error forwarding port ${portText} to pod ${target.pod.metadata.name}, uid ${uid}: ${why}`));
      data.end();
    };
    // The kubelet's parsing of the port header.
    if (!Number.isInteger(port) || port > 65535) return fail(`unable to parse ${JSON.stringify(portText)} as a port: invalid syntax`);
    if (port === 0) return fail(`port ${JSON.stringify(portText)} must be > 0`);
    const relay = spawnRelay(target.netns, port);
    let stderr = '';
    relay.stderr?.on('data', (d: Buffer) => {
      if (stderr.length < 4096) stderr += d.toString();
    });
    relay.stdout?.on('data', (d: Buffer) => data.write(d));
    relay.stdin?.on('error', () => undefined);
    data.on('data', (d: Buffer) => {
      // A peer in the pod that stops reading: the connection is dropped rather than buffered without end.
      if ((relay.stdin?.writableLength ?? 0) > MAX_BUFFERED) relay.kill('SIGKILL');
      else relay.stdin?.write(d);
    });
    data.on('end', () => relay.stdin?.end());
    data.on('reset', () => relay.kill('SIGKILL'));
    error.on('reset', () => relay.kill('SIGKILL'));
    relay.on('error', (e) => fail(`failed to execute portforward in network namespace ${JSON.stringify(target.netns)}: ${e.message}`));
    relay.on('close', (code) => {
      if (code !== 0 && stderr) return fail(`failed to execute portforward in network namespace ${JSON.stringify(target.netns)}: ${stderr.trim()}`);
      data.end();
      error.end();
    });
  };
  return (stream) => {
    const type = stream.headers.get('streamtype');
    // kubelet requestID(): clients before the requestID header are paired by stream id.
    const id = stream.headers.get('requestid') ?? String(type === 'data' ? stream.id - 2 : stream.id);
    if (type !== 'error' && type !== 'data') return stream.reset(RST.protocolError);
    let pair = pairs.get(id);
    if (!pair) {
      const timer = setTimeout(() => {
        pairs.delete(id);
        pair?.error?.reset();
        pair?.data?.reset();
      }, STREAM_CREATION_TIMEOUT_MS);
      timer.unref();
      pair = { timer };
      pairs.set(id, pair);
    }
    if (pair[type]) return stream.reset(RST.protocolError);
    pair[type] = stream;
    if (pair.error && pair.data) forward(id, { error: pair.error, data: pair.data });
  };
}
