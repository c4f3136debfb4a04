/** What `@fastify/rate-limit` reads back from a store: over the limit when `current > max`. */
export type RateLimitState = { current: number; ttl: number };
type Callback = (error: Error | null, state: RateLimitState) => void;

type Bucket = { tokens: number; at: number };

/** A limit as `@fastify/rate-limit` states it: `max` requests per `timeWindow` ms. */
export type BucketLimit = { max: number; timeWindow: number };

export type TokenBucketOptions = {
  /** A second bucket every key also draws from (all traffic of a client), or none. */
  overall?: BucketLimit;
  /** Keys kept per bucket set; past it, full buckets are dropped first, then the least recently used. */
  maxKeys?: number;
  now?: () => number;
};

/**
 * Token buckets for every key: `max` tokens, refilled continuously at `max / timeWindow` per ms, one
 * taken per request. Unlike a fixed window, no burst of twice the limit fits across a window boundary:
 * after the bucket is empty, requests pass only at the refill rate.
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly limit: BucketLimit,
    private readonly maxKeys: number,
  ) {}

  get size(): number {
    return this.buckets.size;
  }

  /** The bucket of `key` refilled to now (a new key starts full); touched as most recently used. */
  refill(key: string, now: number): Bucket {
    const rate = this.limit.max / this.limit.timeWindow;
    let bucket = this.buckets.get(key);
    if (bucket) {
      this.buckets.delete(key);
      bucket.tokens = Math.min(this.limit.max, bucket.tokens + (now - bucket.at) * rate);
      bucket.at = now;
    } else {
      if (this.buckets.size >= this.maxKeys) this.evict(now);
      bucket = { tokens: this.limit.max, at: now };
    }
    this.buckets.set(key, bucket);
    return bucket;
  }

  /** Milliseconds until the bucket holds `tokens` again. */
  msUntil(bucket: Bucket, tokens: number): number {
    return Math.max(0, Math.ceil(((tokens - bucket.tokens) * this.limit.timeWindow) / this.limit.max));
  }

  /**
   * Makes room: buckets that have refilled completely say nothing a new bucket would not, so they go
   * first; if that frees less than a tenth, the least recently used tenth goes too (never all at once:
   * wiping every bucket would hand each client a full one).
   */
  private evict(now: number): void {
    const rate = this.limit.max / this.limit.timeWindow;
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + (now - bucket.at) * rate >= this.limit.max) this.buckets.delete(key);
    }
    const target = Math.floor(this.maxKeys * 0.9);
    for (const key of this.buckets.keys()) {
      if (this.buckets.size <= target) break;
      this.buckets.delete(key);
    }
  }
}

type Shared = { overall: TokenBuckets | null; maxKeys: number; now: () => number };

/**
 * A `@fastify/rate-limit` store over token buckets. The plugin builds the root store with `new Store(...)`
 * and one child per limiter (`app.rateLimit(options)`): each child keeps its own buckets (one group of
 * routes) and shares the root's `overall` buckets, so a request passes only with a token from both.
 */
export class TokenBucketStore {
  private buckets: TokenBuckets | null = null;

  constructor(private readonly shared: Shared) {}

  child(): TokenBucketStore {
    return new TokenBucketStore(this.shared);
  }

  incr(key: string, callback: Callback, timeWindow: number, max: number): void {
    callback(null, this.take(key, { max, timeWindow }, true));
  }

  read(key: string, callback: Callback, timeWindow: number, max: number): void {
    callback(null, this.take(key, { max, timeWindow }, false));
  }

  private take(key: string, limit: BucketLimit, consume: boolean): RateLimitState {
    const { overall, maxKeys, now } = this.shared;
    // A limiter's max and window never change, so its buckets are made with the first request.
    this.buckets ??= new TokenBuckets(limit, maxKeys);
    const at = now();
    const own = this.buckets.refill(key, at);
    const shared = overall?.refill(key, at);
    if (own.tokens < 1 || (shared && shared.tokens < 1)) {
      const wait = Math.max(
        own.tokens < 1 ? this.buckets.msUntil(own, 1) : 0,
        shared && overall && shared.tokens < 1 ? overall.msUntil(shared, 1) : 0,
      );
      return { current: limit.max + 1, ttl: wait };
    }
    if (consume) {
      own.tokens -= 1;
      if (shared) shared.tokens -= 1;
    }
    return { current: limit.max - Math.floor(own.tokens), ttl: this.buckets.msUntil(own, limit.max) };
  }
}

/** The store class to give `@fastify/rate-limit` (`store:`), its limiters sharing `options`. */
export function tokenBucketStore(options: TokenBucketOptions = {}): new () => TokenBucketStore {
  const maxKeys = options.maxKeys ?? 100_000;
  const shared: Shared = {
    overall: options.overall ? new TokenBuckets(options.overall, maxKeys) : null,
    maxKeys,
    now: options.now ?? Date.now,
  };
  return class extends TokenBucketStore {
    constructor() {
      super(shared);
    }
  };
}
