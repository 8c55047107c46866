// A small seeded PRNG (mulberry32) so every fuzz run is reproducible from one number. Each request gets
// its own generator derived from (seed, index): request i is the same whatever the responses were, so a
// failure reproduces from the seed and the index alone, even with several requests in flight.
import { randomInt } from 'node:crypto';

export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A uint32. */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  float(): number {
    return this.next() / 4294967296;
  }

  /** An integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.float() * (hi - lo + 1));
  }

  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from nothing');
    return items[Math.floor(this.float() * items.length)]!;
  }

  /** Picks by weight: [[weight, value], …]. */
  weighted<T>(table: ReadonlyArray<readonly [number, T]>): T {
    const total = table.reduce((sum, [w]) => sum + w, 0);
    let x = this.float() * total;
    for (const [w, v] of table) {
      x -= w;
      if (x < 0) return v;
    }
    return table[table.length - 1]![1];
  }

  /** The generator of sub-stream `index` of this seed. */
  static derive(seed: number, index: number): Rng {
    return new Rng(Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(index + 1, 0xc2b2ae35));
  }
}

/** AKSEMU_FUZZ_SEED (a number, or `random`), else the fallback; the caller prints it so a failure can be replayed. */
export function seedFromEnv(fallback: number | 'random', env: NodeJS.ProcessEnv = process.env): number {
  const raw = env['AKSEMU_FUZZ_SEED'] || String(fallback);
  if (raw === 'random') return randomInt(0, 0xffffffff);
  const seed = Number(raw);
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) throw new Error(`AKSEMU_FUZZ_SEED must be an integer in [0, 2^32) or 'random': ${raw}`);
  return seed;
}

/** A positive integer from the environment, or the default. */
export function countFromEnv(name: string, fallback: number, env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer: ${raw}`);
  return n;
}
