import { Redis } from 'ioredis';
import { ConfigError, shownDatabaseUrl } from '../../config/config.js';
import {
  type BucketLimit,
  type RateLimitState,
  type TokenBucketOptions,
  type TokenBucketStore,
  tokenBucketStore,
} from './token-bucket-store.js';

type Callback = (error: Error | null, state: RateLimitState) => void;

/**
 * One request against a group's bucket (KEYS[1]) and, when given, the client's all-traffic bucket
 * (KEYS[2]), as TokenBucketStore.take does it, in one atomic step on Redis's clock (the same for every
 * node). A bucket is a hash {t: tokens, at: ms}, kept only until it would be full again (PEXPIRE): a full
 * bucket says nothing a missing one does not, so Redis holds nothing for an idle client.
 * ARGV: max, window, overall max, overall window, consume (1/0). Returns {current, ttl} as the store does.
 */
const TAKE = `
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local function refill(key, max, window)
  local bucket = redis.call('HMGET', key, 't', 'at')
  if not bucket[1] then return max end
  return math.min(max, tonumber(bucket[1]) + math.max(0, now - tonumber(bucket[2])) * max / window)
end
local function msUntil(tokens, want, max, window)
  return math.max(0, math.ceil((want - tokens) * window / max))
end
local function keep(key, tokens, max, window)
  redis.call('HSET', key, 't', tokens, 'at', now)
  redis.call('PEXPIRE', key, math.max(1, msUntil(tokens, max, max, window)))
end
local max, window = tonumber(ARGV[1]), tonumber(ARGV[2])
local own = refill(KEYS[1], max, window)
local shared, smax, swindow
if #KEYS > 1 then
  smax, swindow = tonumber(ARGV[3]), tonumber(ARGV[4])
  shared = refill(KEYS[2], smax, swindow)
end
if own < 1 or (shared and shared < 1) then
  local wait = 0
  if own < 1 then wait = msUntil(own, 1, max, window) end
  if shared and shared < 1 then wait = math.max(wait, msUntil(shared, 1, smax, swindow)) end
  return {max + 1, wait}
end
if ARGV[5] == '1' then
  own = own - 1
  keep(KEYS[1], own, max, window)
  if shared then
    shared = shared - 1
    keep(KEYS[2], shared, smax, swindow)
  end
end
return {max - math.floor(own), msUntil(own, max, max, window)}
`;

type TakeCommand = (
  ownKey: string,
  overallKey: string | undefined,
  args: (string | number)[],
) => Promise<[number, number]>;

export type RedisBucketOptions = {
  redis: Redis;
  /** Prepended to every key (tests give each its own). */
  prefix?: string;
  /** The all-traffic bucket every key also draws from, as in the in-memory store. */
  overall?: BucketLimit;
  /** Buckets of the node-local fallback (the in-memory store's bound). */
  maxKeys?: number;
  /** Told when Redis fails a request (and when it answers again): the limits are node-local meanwhile. */
  onOutage?: (error: Error | null) => void;
};

type Shared = {
  take: TakeCommand;
  prefix: string;
  overall: BucketLimit | undefined;
  fallback: TokenBucketStore;
  down: boolean;
  onOutage: (error: Error | null) => void;
};

/**
 * A `@fastify/rate-limit` store with the token-bucket semantics of TokenBucketStore, its buckets in
 * Redis so that every API node draws from the same ones: a client spreading its requests over the
 * nodes is limited as one. Each limiter (`app.rateLimit({ groupId })`) is a child whose buckets are
 * named by its `groupId`; all of them share the `all` buckets. One EVALSHA per request.
 *
 * When Redis fails a request, the request is counted in node-local buckets instead (the in-memory
 * store), so limits hold per node, never none, until Redis answers again (docs/adr/0019).
 */
export class RedisBucketStore {
  private fallback: TokenBucketStore;

  constructor(
    private readonly shared: Shared,
    private readonly group = '',
  ) {
    this.fallback = shared.fallback;
  }

  /** `params`: the limiter's merged options, `groupId` among them. */
  child(params: object): RedisBucketStore {
    const { groupId } = params as { groupId?: unknown };
    const store = new RedisBucketStore(this.shared, typeof groupId === 'string' ? groupId : '');
    store.fallback = this.shared.fallback.child();
    return store;
  }

  incr(key: string, callback: Callback, timeWindow: number, max: number): void {
    this.take(key, { max, timeWindow }, true, callback);
  }

  read(key: string, callback: Callback, timeWindow: number, max: number): void {
    this.take(key, { max, timeWindow }, false, callback);
  }

  private take(key: string, limit: BucketLimit, consume: boolean, callback: Callback): void {
    const { prefix, overall } = this.shared;
    const args = [limit.max, limit.timeWindow, overall?.max ?? 0, overall?.timeWindow ?? 0, consume ? 1 : 0];
    this.shared.take(`${prefix}${this.group}:${key}`, overall ? `${prefix}all:${key}` : undefined, args).then(
      ([current, ttl]) => {
        if (this.shared.down) {
          this.shared.down = false;
          this.shared.onOutage(null);
        }
        callback(null, { current, ttl });
      },
      (error: Error) => {
        if (!this.shared.down) {
          this.shared.down = true;
          this.shared.onOutage(error);
        }
        const method = consume ? 'incr' : 'read';
        this.fallback[method](key, callback, limit.timeWindow, limit.max);
      },
    );
  }
}

/** The store class to give `@fastify/rate-limit` (`store:`), over `options.redis`. */
export function redisBucketStore(options: RedisBucketOptions): new () => RedisBucketStore {
  const redis = options.redis as Redis & {
    oddsbookTakeTokens?: (...args: (string | number)[]) => Promise<[number, number]>;
  };
  if (!redis.oddsbookTakeTokens) redis.defineCommand('oddsbookTakeTokens', { lua: TAKE });
  const fallbackOptions: TokenBucketOptions = {
    ...(options.overall ? { overall: options.overall } : {}),
    ...(options.maxKeys ? { maxKeys: options.maxKeys } : {}),
  };
  const Fallback = tokenBucketStore(fallbackOptions);
  const shared: Shared = {
    // defineCommand without numberOfKeys: the key count is the first argument.
    take: (ownKey, overallKey, args) =>
      overallKey
        ? redis.oddsbookTakeTokens!(2, ownKey, overallKey, ...args)
        : redis.oddsbookTakeTokens!(1, ownKey, ...args),
    prefix: options.prefix ?? 'oddsbook:rate:',
    overall: options.overall,
    fallback: new Fallback(),
    down: false,
    onOutage: options.onOutage ?? (() => {}),
  };
  return class extends RedisBucketStore {
    constructor() {
      super(shared);
    }
  };
}

/**
 * Connects to the Redis at `url` and checks that it answers; one that cannot be reached is a
 * configuration error naming the setting. Commands fail at once while the connection is down (no
 * offline queue), so a request never waits for Redis to come back; the client reconnects by itself.
 */
export async function connectRedis(url: string, setting: string): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: 1_000,
    connectTimeout: 3_000,
  });
  // Errors while running reach the store's requests; without a listener ioredis would print each one.
  redis.on('error', () => {});
  try {
    await redis.connect();
    await redis.ping();
    return redis;
  } catch (error) {
    redis.disconnect();
    throw new ConfigError(
      `${setting} ${shownDatabaseUrl(url)}: ${(error as Error).message || String(error)}`,
      {
        cause: error,
      },
    );
  }
}
