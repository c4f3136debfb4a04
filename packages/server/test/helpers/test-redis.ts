import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

/** The Redis the tests use (`TEST_REDIS_URL`; by default the local server .ci/run starts). */
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A fresh key prefix, so that tests sharing the server never see each other's keys. */
export function testRedisPrefix(): string {
  return `oddsbook-test:${randomBytes(6).toString('hex')}:`;
}

/** A client of the test server; fails (never skips) when it does not answer. */
export async function testRedis(): Promise<Redis> {
  const redis = new Redis(TEST_REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    connectTimeout: 3_000,
  });
  redis.on('error', () => {});
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    redis.disconnect();
    throw new Error(
      `Redis at ${TEST_REDIS_URL} is unreachable (${(error as Error).message}): the tests need it (.ci/run starts it)`,
    );
  }
  return redis;
}

/** Deletes every key under `prefix`. */
export async function deleteRedisKeys(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
}
