import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RATE_LIMITS, rateLimitGroup } from '../../src/http/plugins/rate-limits.js';
import { removeDataDir, startTestExchange, type TestExchange } from '../helpers/test-exchange.js';

describe('rate limits', () => {
  let t: TestExchange;
  beforeAll(async () => {
    t = await startTestExchange({ env: { RATE_LIMITS: '1' } });
  });
  afterAll(async () => {
    await t.close();
    removeDataDir(t.dataDir);
  });

  it('groups routes as the legacy table does', () => {
    expect(rateLimitGroup('POST', '/orders-v3')).toBe('orderWrites');
    expect(rateLimitGroup('DELETE', '/orders-v3/all')).toBe('orderWrites');
    expect(rateLimitGroup('GET', '/orders-v3/odds/best')).toBe('orderReads');
    expect(rateLimitGroup('GET', '/trades-v3')).toBe('history');
    expect(rateLimitGroup('GET', '/fills-v3')).toBe('history');
    expect(rateLimitGroup('GET', '/markets/active')).toBe('base');
    expect(rateLimitGroup('POST', '/admin/api-keys')).toBeNull();
  });

  it('answers 429 in the common shape with Retry-After once a key exceeds its group, per key', async () => {
    const user = await t.createUser();
    const other = await t.createUser();
    const call = (headers: Record<string, string>) =>
      t.app.inject({ method: 'GET', url: '/trades-v3', headers });
    for (let i = 0; i < RATE_LIMITS.history.max; i++) expect((await call(user.headers)).statusCode).toBe(200);
    const limited = await call(user.headers);
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({
      error: 'Too Many Requests',
      statusCode: 429,
      message: expect.stringMatching(/RATE_LIMITED/),
    });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // Fills share the history bucket; another key and another group are unaffected.
    expect((await t.app.inject({ method: 'GET', url: '/fills-v3', headers: user.headers })).statusCode).toBe(
      429,
    );
    expect((await call(other.headers)).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/orders-v3', headers: user.headers })).statusCode).toBe(
      200,
    );
  });
});
