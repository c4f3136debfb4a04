import { describe, expect, it } from 'vitest';
import { ExchangeApiError, ExchangeNetworkError } from '../errors.js';
import { DEFAULT_RETRY, isTransient, retryDelay, retryPolicy } from './retry.js';

const api = (status: number, retryAfterMs?: number) =>
  new ExchangeApiError(status, { message: 'x' }, null, retryAfterMs === undefined ? {} : { retryAfterMs });
const network = new ExchangeNetworkError('POST', 'http://x/orders-v3', true);

describe('the retry rules', () => {
  it('retries no answer and 502-504 only on idempotent routes, 429 on every route, nothing else', () => {
    expect(isTransient(network, true)).toBe(true);
    expect(isTransient(network, false)).toBe(false);
    for (const status of [502, 503, 504]) {
      expect(isTransient(api(status), true)).toBe(true);
      expect(isTransient(api(status), false)).toBe(false);
    }
    expect(isTransient(api(429), false)).toBe(true);
    expect(isTransient(api(408), false)).toBe(true);
    for (const status of [400, 401, 403, 404, 409, 500]) expect(isTransient(api(status), true)).toBe(false);
    expect(isTransient(new Error('boom'), true)).toBe(false);
  });

  it('waits what Retry-After asks (giving up past the cap), else a jittered backoff that doubles', () => {
    expect(retryDelay(api(429, 2000), 1, DEFAULT_RETRY)).toBe(2000);
    expect(retryDelay(api(429, 120_000), 1, DEFAULT_RETRY)).toBeUndefined();
    const top = () => 1;
    const bottom = () => 0;
    expect(retryDelay(network, 1, DEFAULT_RETRY, top)).toBe(500);
    expect(retryDelay(network, 1, DEFAULT_RETRY, bottom)).toBe(250);
    expect(retryDelay(network, 2, DEFAULT_RETRY, top)).toBe(1000);
    expect(retryDelay(network, 10, DEFAULT_RETRY, top)).toBe(5000);
  });

  it('turns retries off with false, and keeps the defaults for what is not given', () => {
    expect(retryPolicy(false).attempts).toBe(1);
    expect(retryPolicy({ attempts: 2 })).toEqual({ ...DEFAULT_RETRY, attempts: 2 });
  });
});
