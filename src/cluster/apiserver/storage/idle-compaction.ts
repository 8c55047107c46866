// After a burst of writes, a compacting collection once the server is idle again. A burst promotes what lives to
// the end of its turns (the write-behind's queued JSON, the watch history's versions before) into old-space pages
// shared with the objects that stay; after V8's own full collections those pages are mostly free but stay committed
// (it evacuates only the emptiest few per collection), and its memory reducer, which would compact them, waits for
// a quiet allocation rate and ran 10-30 s later, or not within 45 s, in the bench (docs/performance.md §7.3, §7.5).
// So once writes have stopped and the event loop is idle, the server asks V8 for one full collection that evacuates
// every old-space page: as soon as the burst is over (no write for 100 ms and the loop idle), not seconds later,
// so that RSS falls with the burst's end (docs/performance.md §7.16). Its pause grows with the heap (142-431 ms with
// the bench's 20,000 pods), so it is spent only after writes of at least half the heap held after the last one,
// never while writes go on, and never when the loop is busy: a client whose writes come with gaps gets at most one
// per half the heap written. A heap of more than 256 MB waits for the quiet as before: its pause would be long. V8 shrinks the young generation in a full collection only when it has allocated little
// over the last ~5 s, so after 6 s of quiet one more full collection (without the evacuation) follows.
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { performance } from 'node:perf_hooks';
import { runInNewContext } from 'node:vm';

export interface CompactionOptions {
  /** How often the loop is looked at once armed. */
  checkMs: number;
  /** No write for this long, the loop idle: the burst is over, and the old space is compacted. */
  endMs: number;
  /** No write for this long: the server is quiet, and V8 may shrink the young generation in one more full collection. */
  quietMs: number;
  /**
   * A heap holding more than this is compacted only once the quiet has lasted (quietMs), as before round eleven: its
   * pause (0.5-0.9 s of CPU per 100 MB held: docs/performance.md §7.5) would fall on the client whose burst just ended.
   */
  endMaxHeapBytes: number;
  /** The heap held now (V8's used size, garbage since the last collection included). */
  heapBytes: () => number;
  /** The event loop busier than this over a check: not idle, wait. */
  maxUtilization: number;
  /** Bytes written (the objects' JSON) that arm it at least; else half the heap held after the last compaction. */
  minBytes: number;
  /** The compacting collection; returns the heap held after it. */
  compact: () => number;
  /** A full collection as V8 chooses it (the quiet's), without evacuating every page. */
  collect: () => void;
}

export interface CompactionStats {
  /** Compactions so far, the last one's pause, and the heap held after it. */
  runs: number;
  lastMs: number;
  heldBytes: number;
  /** The quiet's collections so far, and the last one's pause. */
  quietRuns: number;
  quietLastMs: number;
}

/** The `gc` function V8 gives with --expose-gc, got without the flag on the command line, or undefined. */
function collector(): ((options?: unknown) => void) | undefined {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  try {
    // V8 installs `gc` in contexts made while the flag is set; the flag is unset again so no later context gets it.
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as () => void;
  } catch {
    return undefined;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}

let gc: ((options?: unknown) => void) | undefined | null = null;

/** One full collection that evacuates every old-space page (not only V8's choice of the emptiest). */
export function compactHeap(): number {
  if (gc === null) gc = collector();
  if (gc) {
    setFlagsFromString('--compact-on-every-full-gc');
    try {
      gc();
    } finally {
      setFlagsFromString('--no-compact-on-every-full-gc');
    }
  }
  return process.memoryUsage().heapUsed;
}

/** One full collection as V8 makes its own. */
export function collectHeap(): void {
  if (gc === null) gc = collector();
  gc?.();
}

export class IdleCompaction {
  private written = 0;
  private writes = 0;
  private threshold: number;
  private timer: NodeJS.Timeout | undefined;
  private seen = 0;
  private quietFor = 0;
  /** Whether the burst that armed it has been compacted: what is left is the quiet's collection. */
  private compacted = false;
  private elu = performance.eventLoopUtilization();
  private readonly stats: CompactionStats = { runs: 0, lastMs: 0, heldBytes: 0, quietRuns: 0, quietLastMs: 0 };

  constructor(private readonly options: CompactionOptions) {
    this.threshold = options.minBytes;
  }

  /** A write of `bytes` (its JSON's length) was made. */
  noteWrite(bytes: number): void {
    this.written += bytes;
    this.writes++;
    if (this.written < this.threshold) return;
    if (this.timer === undefined) this.arm();
    else this.compacted = false;
  }

  get done(): Readonly<CompactionStats> {
    return this.stats;
  }

  private arm(): void {
    this.seen = this.writes;
    this.quietFor = 0;
    this.compacted = false;
    this.elu = performance.eventLoopUtilization();
    this.timer = setInterval(() => this.check(), this.options.checkMs);
    this.timer.unref();
  }

  /** One look at the loop (the timer's, every checkMs while armed; a test calls it itself). */
  check(): void {
    if (this.timer === undefined) return;
    const elu = performance.eventLoopUtilization(this.elu);
    this.elu = performance.eventLoopUtilization();
    if (this.writes !== this.seen || elu.utilization > this.options.maxUtilization) {
      this.seen = this.writes;
      this.quietFor = 0;
      return;
    }
    this.quietFor += this.options.checkMs;
    if (!this.compacted) {
      if (this.quietFor < this.options.endMs) return;
      if (this.quietFor < this.options.quietMs && this.options.heapBytes() > this.options.endMaxHeapBytes) return;
      const t0 = performance.now();
      const held = this.options.compact();
      this.stats.runs++;
      this.stats.lastMs = performance.now() - t0;
      this.stats.heldBytes = held;
      this.written = 0;
      this.threshold = Math.max(this.options.minBytes, held / 2);
      this.compacted = true;
      // Compacted after the quiet already: that collection was the quiet's too.
      if (this.quietFor < this.options.quietMs) return;
      clearInterval(this.timer);
      this.timer = undefined;
      return;
    }
    if (this.quietFor < this.options.quietMs) return;
    clearInterval(this.timer);
    this.timer = undefined;
    const t0 = performance.now();
    this.options.collect();
    this.stats.quietRuns++;
    this.stats.quietLastMs = performance.now() - t0;
  }

  /** Stops looking (a test's instance). */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}

/** The server's: every cluster's write-behind notes its writes here (persistence.ts). */
export const idleCompaction = new IdleCompaction({
  checkMs: 100,
  endMs: 100,
  quietMs: 6000,
  endMaxHeapBytes: 256 * 1024 * 1024,
  heapBytes: () => getHeapStatistics().used_heap_size,
  maxUtilization: 0.2,
  minBytes: 8 * 1024 * 1024,
  compact: compactHeap,
  collect: collectHeap,
});
