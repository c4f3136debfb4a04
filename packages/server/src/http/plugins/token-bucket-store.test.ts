import { describe, expect, it } from 'vitest';
import { type RateLimitState, tokenBucketStore } from './token-bucket-store.js';

function harness(options: { overall?: { max: number; timeWindow: number }; maxKeys?: number } = {}) {
  let now = 1_000_000;
  const Store = tokenBucketStore({ ...options, now: () => now });
  const root = new Store();
  const take = (store: ReturnType<typeof root.child>, key: string, max: number, timeWindow: number) => {
    let state: RateLimitState | undefined;
    store.incr(key, (_error, s) => (state = s), timeWindow, max);
    return state!;
  };
  return { root, take, advance: (ms: number) => (now += ms) };
}

describe('token bucket store', () => {
  it('lets a full bucket through, then only the refill rate: never twice the limit across a boundary', () => {
    const { root, take, advance } = harness();
    const group = root.child();
    const passed = (n: number) => {
      let count = 0;
      for (let i = 0; i < n; i++) if (take(group, 'k', 10, 1_000).current <= 10) count++;
      return count;
    };
    expect(passed(15)).toBe(10);
    // A fixed window would reset here and let 10 more through at once; the bucket has refilled 1.
    advance(100);
    expect(passed(15)).toBe(1);
    advance(1_000);
    expect(passed(15)).toBe(10);
  });

  it('says how long until the next token when over the limit', () => {
    const { root, take } = harness();
    const group = root.child();
    for (let i = 0; i < 5; i++) take(group, 'k', 5, 60_000);
    const over = take(group, 'k', 5, 60_000);
    expect(over.current).toBeGreaterThan(5);
    expect(over.ttl).toBeGreaterThan(0);
    expect(over.ttl).toBeLessThanOrEqual(12_000);
  });

  it('keeps keys and groups apart, and draws every group from the shared overall bucket', () => {
    const { root, take } = harness({ overall: { max: 6, timeWindow: 60_000 } });
    const a = root.child();
    const b = root.child();
    for (let i = 0; i < 4; i++) expect(take(a, 'k', 4, 60_000).current).toBeLessThanOrEqual(4);
    expect(take(a, 'k', 4, 60_000).current).toBeGreaterThan(4);
    expect(take(a, 'other', 4, 60_000).current).toBeLessThanOrEqual(4);
    // Group b has its own bucket, but the key's overall bucket (6) has 2 tokens left.
    expect(take(b, 'k', 4, 60_000).current).toBeLessThanOrEqual(4);
    expect(take(b, 'k', 4, 60_000).current).toBeLessThanOrEqual(4);
    expect(take(b, 'k', 4, 60_000).current).toBeGreaterThan(4);
  });

  it('bounds its keys without handing an active client a fresh bucket', () => {
    const { root, take } = harness({ maxKeys: 100 });
    const group = root.child();
    for (let i = 0; i < 3; i++) take(group, 'busy', 3, 60_000);
    for (let i = 0; i < 1_000; i++) {
      take(group, `drive-by-${i}`, 3, 60_000);
      // The busy client keeps asking: it stays among the most recently used and stays empty.
      if (i % 50 === 0) expect(take(group, 'busy', 3, 60_000).current).toBeGreaterThan(3);
    }
  });
});
