// A per-client token bucket in front of everything the server answers: a client (a remote address)
// may send `burst` requests at once, then `perSecond` more each second. The default is far above
// what one Node process serves, so tests, benches and fuzzers never meet it; it exists so a runaway
// client is answered 429 with Retry-After, cheaply, before any token is verified or body parsed.
// On loopback every client is 127.0.0.1, so the bucket is in effect the server's.

export interface RateLimit {
  burst: number;
  perSecond: number;
}

export const DEFAULT_RATE_LIMIT: RateLimit = { burst: 20_000, perSecond: 10_000 };

interface Bucket {
  tokens: number;
  at: number;
}

/** Clients tracked at most; past it, buckets that have refilled are forgotten (they hold nothing). */
const MAX_CLIENTS = 10_000;

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    readonly limit: RateLimit,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Takes one request's token: undefined when allowed, else the seconds until one is available. */
  take(client: string): number | undefined {
    const now = this.now();
    const bucket = this.refilled(this.buckets.get(client), now);
    if (bucket.tokens < 1) {
      this.buckets.set(client, bucket);
      return Math.max(1, Math.ceil((1 - bucket.tokens) / this.limit.perSecond));
    }
    this.buckets.set(client, { tokens: bucket.tokens - 1, at: now });
    if (this.buckets.size > MAX_CLIENTS) this.forgetFull(now);
    return undefined;
  }

  private refilled(bucket: Bucket | undefined, now: number): Bucket {
    if (!bucket) return { tokens: this.limit.burst, at: now };
    return { tokens: Math.min(this.limit.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.limit.perSecond), at: now };
  }

  private forgetFull(now: number): void {
    for (const [client, bucket] of this.buckets) {
      if (this.refilled(bucket, now).tokens >= this.limit.burst) this.buckets.delete(client);
    }
  }
}
