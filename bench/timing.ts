// Shared timing for the benchmarks: best of several repetitions, each reporting how many operations it did.
import { performance } from 'node:perf_hooks';

/** Runs `run` `reps` times; each call returns how many operations it did. Best ops/s wins. */
export function best(reps: number, run: () => number): number {
  let bestRate = 0;
  for (let r = 0; r < reps; r++) {
    const t0 = performance.now();
    const ops = run();
    const ms = performance.now() - t0;
    bestRate = Math.max(bestRate, ops / (ms / 1000));
  }
  return bestRate;
}

export function dottedQuad(v: number): string {
  return `${v >>> 24}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`;
}

export interface BenchResult {
  name: string;
  /** Operations per second of aksemu (best repetition). */
  opsPerSec: number;
  /** Operations per second of the naive baseline, measured in the same run. */
  baselineOpsPerSec: number;
  /** What one operation is, and how the baseline was bounded. */
  note: string;
}
