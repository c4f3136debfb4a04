import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config.js';
import { connectRedis, redisBucketStore } from '../../src/http/plugins/redis-bucket-store.js';
import type { RateLimitState } from '../../src/http/plugins/token-bucket-store.js';
import { deleteRedisKeys, testRedis, testRedisPrefix } from '../helpers/test-redis.js';
import { sleep } from '../realtime/helpers.js';

let redis: Redis;
const prefixes: string[] = [];

beforeAll(async () => {
  redis = await testRedis();
});

afterAll(async () => {
  for (const prefix of prefixes) await deleteRedisKeys(redis, prefix);
  await redis.quit();
});

/** Two stores over one Redis, as two API nodes hold them: `take(node, group, key, max, window)`. */
function nodes(options: { overall?: { max: number; timeWindow: number } } = {}) {
  const prefix = testRedisPrefix();
  prefixes.push(prefix);
  const outages: (Error | null)[] = [];
  const make = () => {
    const Store = redisBucketStore({ redis, prefix, ...options, onOutage: (e) => outages.push(e) });
    const root = new Store();
    const groups = new Map<string, ReturnType<typeof root.child>>();
    return (group: string) => {
      const child = groups.get(group) ?? root.child({ groupId: group });
      groups.set(group, child);
      return child;
    };
  };
  const a = make();
  const b = make();
  const take = (node: typeof a, group: string, key: string, max: number, timeWindow: number) =>
    new Promise<RateLimitState>((resolve, reject) =>
      node(group).incr(key, (error, state) => (error ? reject(error) : resolve(state)), timeWindow, max),
    );
  return { a, b, take, prefix, outages };
}

describe('token buckets in Redis', () => {
  it('limits a key spread over two nodes as one, tells the wait, and keeps nothing past the refill', async () => {
    const { a, b, take, prefix, outages } = nodes();
    const states: RateLimitState[] = [];
    for (let i = 0; i < 6; i++) states.push(await take(i % 2 ? a : b, 'history', 'ip:1.2.3.4', 6, 3_600_000));
    expect(states.map((s) => s.current)).toEqual([1, 2, 3, 4, 5, 6]);
    const over = await take(a, 'history', 'ip:1.2.3.4', 6, 3_600_000);
    expect(over.current).toBeGreaterThan(6);
    // One token comes back every 10 minutes.
    expect(over.ttl).toBeGreaterThan(0);
    expect(over.ttl).toBeLessThanOrEqual(600_000);
    // Another key and another group have buckets of their own.
    expect((await take(b, 'history', 'ip:5.6.7.8', 6, 3_600_000)).current).toBe(1);
    expect((await take(b, 'base', 'ip:1.2.3.4', 6, 3_600_000)).current).toBe(1);
    const ttl = await redis.pttl(`${prefix}history:ip:1.2.3.4`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(3_600_000);
    expect(outages).toEqual([]);
  });

  it('refills: an empty bucket lets requests through again at its rate', async () => {
    const { a, b, take } = nodes();
    for (let i = 0; i < 3; i++) expect((await take(a, 'g', 'k', 3, 3_000)).current).toBeLessThanOrEqual(3);
    const over = await take(b, 'g', 'k', 3, 3_000);
    expect(over.current).toBe(4);
    await sleep(over.ttl + 50);
    expect((await take(b, 'g', 'k', 3, 3_000)).current).toBeLessThanOrEqual(3);
  });

  it('draws every group from the all-traffic bucket of the key too', async () => {
    const { a, b, take } = nodes({ overall: { max: 4, timeWindow: 3_600_000 } });
    expect((await take(a, 'one', 'k', 100, 60_000)).current).toBe(1);
    expect((await take(b, 'two', 'k', 100, 60_000)).current).toBe(1);
    expect((await take(a, 'three', 'k', 100, 60_000)).current).toBe(1);
    expect((await take(b, 'one', 'k', 100, 60_000)).current).toBe(2);
    const over = await take(a, 'two', 'k', 100, 60_000);
    expect(over.current).toBe(101);
    expect(over.ttl).toBeGreaterThan(0);
    // A refused request takes no token from its group.
    expect((await take(b, 'four', 'other', 100, 60_000)).current).toBe(1);
  });

  it('counts in the node alone while Redis fails, and says so once', async () => {
    const prefix = testRedisPrefix();
    const { Redis } = await import('ioredis');
    // A server that is not there: every command fails at once.
    const dead = new Redis('redis://127.0.0.1:1', {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    dead.on('error', () => {});
    const outages: (Error | null)[] = [];
    const Store = redisBucketStore({ redis: dead, prefix, onOutage: (e) => outages.push(e) });
    const group = new Store().child({ groupId: 'g' });
    const take = () =>
      new Promise<RateLimitState>((resolve, reject) =>
        group.incr('k', (error, state) => (error ? reject(error) : resolve(state)), 60_000, 2),
      );
    expect((await take()).current).toBe(1);
    expect((await take()).current).toBe(2);
    expect((await take()).current).toBe(3);
    expect(outages).toHaveLength(1);
    expect(outages[0]).toBeInstanceOf(Error);
    dead.disconnect();
  });

  it('names REDIS_URL when the Redis it gives cannot be reached at start (exit 2)', async () => {
    const refused = connectRedis('redis://127.0.0.1:1', 'REDIS_URL');
    await expect(refused).rejects.toBeInstanceOf(ConfigError);
    await expect(refused).rejects.toThrow(/^REDIS_URL redis:\/\/127\.0\.0\.1:1/);
  });
});
