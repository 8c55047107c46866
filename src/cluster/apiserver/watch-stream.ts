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
 * The lines of the changes being told, UTF-8 encoded once: stored objects do not change, and a hundred watchers of
 * one kind send every change a hundred times, all while the store tells its listeners. A line is the same bytes for
 * every watcher it goes to (no per-watcher string to build, measure and encode). Kept until the tick's work is done,
 * not for the objects' life (that would hold each object's JSON beside it).
 */
const EVENT_TYPES = ['ADDED', 'MODIFIED', 'DELETED'] as const;
let lines = new Map<string, WeakMap<object, Buffer>>();
/** The last batch joined this tick: watchers of one kind and scope send the same lines each tick. */
let joined: { parts: Buffer[]; bytes: Buffer } | undefined;
let forgetting = false;

function forgetAtTickEnd(): void {
  if (forgetting) return;
  forgetting = true;
  setImmediate(() => {
    lines = new Map();
    joined = undefined;
    last = undefined;
    forgetting = false;
  });
}

/** The last line asked for: the watchers of a kind ask for one event's line one after another. */
let last: { type: string; object: object; bytes: Buffer } | undefined;

function line(event: WatchEvent, json: string | undefined): Buffer {
  const obj = event.object;
  if (last !== undefined && last.object === obj && last.type === event.type) return last.bytes;
  if (typeof obj !== 'object' || obj === null || !(EVENT_TYPES as readonly string[]).includes(event.type)) return Buffer.from(`${JSON.stringify(event)}\n`);
  let byObject = lines.get(event.type);
  if (!byObject) lines.set(event.type, (byObject = new WeakMap()));
  let bytes = byObject.get(obj);
  if (bytes === undefined) {
    // The store's JSON of the change it tells, when there is one: the object is not serialized a second time.
    byObject.set(obj, (bytes = Buffer.from(`{"type":"${event.type}","object":${json ?? JSON.stringify(obj)}}\n`)));
    forgetAtTickEnd();
  }
  last = { type: event.type, object: obj, bytes };
  return bytes;
}

/** A buffer written holds at most about this much of a batch (the initial events of a big list are many). */
const WRITE_BYTES = 256 * 1024;

/**
 * A watcher's lines of a tick as few buffers (each one chunk and one TLS record); a batch of one buffer is shared
 * with the watcher before when its lines are the same.
 */
function joinLines(parts: Buffer[]): Buffer[] {
  if (parts.length === 1) return parts;
  if (joined && joined.parts.length === parts.length && joined.parts.every((p, i) => p === parts[i])) return [joined.bytes];
  const out: Buffer[] = [];
  let from = 0;
  let bytes = 0;
  for (let i = 0; i < parts.length; i++) {
    bytes += parts[i]!.length;
    if (bytes < WRITE_BYTES && i < parts.length - 1) continue;
    out.push(i === from ? parts[i]! : Buffer.concat(parts.slice(from, i + 1), bytes));
    from = i + 1;
    bytes = 0;
  }
  if (out.length === 1) {
    joined = { parts, bytes: out[0]! };
    forgetAtTickEnd();
  }
  return out;
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
  // Events of one burst of writes go out together, once the burst is told: one chunk and one TLS record
  // instead of one per event. What waits counts against the bound as if written.
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const flush = () => {
    if (pending.length === 0) return;
    const parts = pending;
    pending = [];
    pendingBytes = 0;
    if (res.writableEnded || res.destroyed) return;
    const out = joinLines(parts);
    if (out.length === 1) return void res.write(out[0]);
    res.cork();
    for (const bytes of out) res.write(bytes);
    res.uncork();
  };
  watch = response.watch({
    send: (event, json) => {
      if (!open) return;
      if (pending.length === 0) process.nextTick(flush);
      const bytes = line(event, json);
      pending.push(bytes);
      pendingBytes += bytes.length;
      if (!initial && res.writableLength + pendingBytes > limit + allowance) {
        flush();
        cutOff();
      }
    },
    close: () => {
      flush();
      if (open) res.end();
      open = false;
    },
  });
  initial = false;
  flush();
  allowance = res.writableLength;
  if (allowance > 0) res.once('drain', () => (allowance = 0));
  res.on('close', () => {
    open = false;
    watch.stop();
  });
  if (!open) watch.stop();
}
