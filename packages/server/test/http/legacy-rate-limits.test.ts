import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rateLimitGroup } from '../../src/http/plugins/rate-limits.js';
import { removeDataDir, startTestExchange, type TestExchange } from '../helpers/test-exchange.js';

describe('the legacy rate-limit groups', () => {
  it('put every POST /orders/* in one bucket, every GET /orders/* in another, GET /trades/* in history', () => {
    for (const url of [
      '/orders/new',
      '/orders/fill/v2',
      '/orders/cancel/v2',
      '/orders/cancel/event',
      '/orders/cancel/all',
    ])
      expect(rateLimitGroup('POST', url), url).toBe('orderWrites');
    for (const url of ['/orders', '/orders/odds/best'])
      expect(rateLimitGroup('GET', url), url).toBe('orderReads');
    for (const url of ['/trades', '/trades/orders', '/trades/consolidated'])
      expect(rateLimitGroup('GET', url), url).toBe('history');
    expect(rateLimitGroup('GET', '/metadata')).toBe('base');
  });

  describe('on a server with rate limits', () => {
    let t: TestExchange;
    beforeAll(async () => {
      const start = Math.floor(Date.now() / 1000);
      t = await startTestExchange({
        env: {
          RATE_LIMITS: '1',
          V2_CUTOVER_AT: String(start + 3_600),
          V2_HISTORY_REMOVED_AT: String(start + 7_200),
        },
      });
    });
    afterAll(async () => {
      await t.close();
      removeDataDir(t.dataDir);
    });

    it('answers 429 past 200 GET /trades/* a minute from one client, the three routes together', async () => {
      const urls = [
        '/trades?bettor=0x0000000000000000000000000000000000000001',
        '/trades/consolidated?bettor=0x0000000000000000000000000000000000000001',
      ];
      const statuses: number[] = [];
      // Token buckets refill continuously (200 a minute: one every 0.3 s), so a few more may pass.
      let limited: Awaited<ReturnType<typeof t.app.inject>> | undefined;
      for (let i = 0; i < 220 && !statuses.includes(429); i++) {
        const response = await t.app.inject({ method: 'GET', url: urls[i % 2]! });
        statuses.push(response.statusCode);
        if (response.statusCode === 429) limited = response;
      }
      // As on every route: the common shape with Retry-After (the spec shows no legacy 429 body).
      expect(limited?.json()).toMatchObject({ statusCode: 429, code: 'RATE_LIMITED' });
      expect(Number(limited?.headers['retry-after'])).toBeGreaterThan(0);
      expect(statuses.slice(0, 200).every((s) => s === 200)).toBe(true);
      expect(statuses.at(-1)).toBe(429);
      // Another group is not drawn down.
      expect((await t.app.inject({ method: 'GET', url: '/metadata' })).statusCode).toBe(200);
    });
  });
});
