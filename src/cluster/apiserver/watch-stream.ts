// A watch on the wire: one JSON event per line on a chunked response, and what becomes of a client that reads
// slower than its events come. The apiserver gives each watcher a bounded queue and, when it is full, closes the
// watch instead of holding on (cacheWatcher.add: "Forcing <resource> watcher close due to unresponsiveness",
// counted in apiserver_terminated_watchers_total); the client's reflector then watches again from the last
// resourceVersion it saw, or relists when that is too old (410 Expired). Here the queue is what the response
// holds unsent (after the initial events): past WATCH_BUFFER_BYTES the watch stops, the response ends after what it holds, and a client that
// does not read even that within ABANDON_MS is disconnected, so a stalled client never holds more than the bound.
import type { ServerResponse } from 'node:http';
import type { WatchEvent, WatchSink } from './watch.js';

export const WATCH_BUFFER_BYTES = 8 * 1024 * 1024;
const ABANDON_MS = 30_000;

/** Watchers closed for not reading, by `group/resource` (the apiserver's metric of that name). */
export class WatchMetrics {
  readonly terminated = new Map<string, number>();

  /** The Prometheus text of the metrics kept, as the apiserver's /metrics writes them. */
  text(): string {
    const lines = [
      '# HELP apiserver_terminated_watchers_total [STABLE] Counter of watchers closed due to unresponsiveness broken by resource type.',
      '# TYPE apiserver_terminated_watchers_total counter',
    ];
    for (const [key, n] of [...this.terminated].sort(([a], [b]) => a.localeCompare(b))) {
      const [group, resource] = key.split('/');
      lines.push(`apiserver_terminated_watchers_total{group="${group}",resource="${resource}"} ${n}`);
    }
    return `${lines.join('\n')}\n`;
  }
}

/**
 * The serialized objects of the changes being told: stored objects do not change, and a hundred watchers of one
 * kind send every change a hundred times, all while the store tells its listeners. Kept until the tick's work is
 * done, not for the objects' life (that would hold each object's JSON beside it).
 */
let serialized = new WeakMap<object, string>();
let forgetting = false;

function line(event: WatchEvent): string {
  const obj = event.object;
  if (typeof obj !== 'object' || obj === null) return `${JSON.stringify(event)}\n`;
  let text = serialized.get(obj);
  if (text === undefined) {
    serialized.set(obj, (text = JSON.stringify(obj)));
    if (!forgetting) {
      forgetting = true;
      setImmediate(() => {
        serialized = new WeakMap();
        forgetting = false;
      });
    }
  }
  return `{"type":${JSON.stringify(event.type)},"object":${text}}\n`;
}

export interface WatchResponse {
  watch: (sink: WatchSink) => { stop(): void };
  contentType: string;
  /** `group/resource` of what is watched. */
  resource: string;
}

/** Serves one watch on res until it ends, the client goes away, or the client falls WATCH_BUFFER_BYTES behind. */
export function serveWatch(res: ServerResponse, response: WatchResponse, metrics: WatchMetrics, log: (line: string) => void, limit = WATCH_BUFFER_BYTES): void {
  res.writeHead(200, { 'Content-Type': response.contentType, 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
  res.flushHeaders();
  let open = true;
  let watch: { stop(): void } | undefined;
  // The initial events (what exists, for a watch from "0") are the state the client asked for, sent whole as the
  // apiserver sends them; only what comes after counts against the bound, until the client has read them.
  let initial = true;
  let allowance = 0;
  const cutOff = () => {
    open = false;
    watch?.stop();
    const n = (metrics.terminated.get(response.resource) ?? 0) + 1;
    metrics.terminated.set(response.resource, n);
    log(`Forcing ${response.resource} watcher close due to unresponsiveness: ${res.writableLength} bytes unsent (limit ${limit})`);
    res.end();
    const abandon = setTimeout(() => res.destroy(), ABANDON_MS).unref();
    res.once('close', () => clearTimeout(abandon));
  };
  watch = response.watch({
    send: (event) => {
      if (!open) return;
      // Events of one burst of writes go out together: one chunk and one TLS record instead of one per event.
      if (res.writableCorked === 0) {
        res.cork();
        process.nextTick(() => res.uncork());
      }
      res.write(line(event));
      if (!initial && res.writableLength > limit + allowance) cutOff();
    },
    close: () => {
      if (open) res.end();
      open = false;
    },
  });
  initial = false;
  allowance = res.writableLength;
  if (allowance > 0) res.once('drain', () => (allowance = 0));
  res.on('close', () => {
    open = false;
    watch.stop();
  });
  if (!open) watch.stop();
}
