import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { RATE_LIMITS } from '../../src/http/plugins/rate-limits.js';
import { removeDataDir, startTestExchange, type TestExchange } from '../helpers/test-exchange.js';
import { createMarket, createTrader, signOrder, USDC } from '../helpers/trading.js';

function expectSecurityHeaders(response: LightMyRequestResponse): void {
  const csp = String(response.headers['content-security-policy']);
  for (const directive of [
    "default-src 'self'",
    "connect-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "object-src 'none'",
    "form-action 'self'",
  ])
    expect(csp.split(';')).toContain(directive);
  expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
  expect(response.headers['x-content-type-options']).toBe('nosniff');
  expect(response.headers['referrer-policy']).toBe('no-referrer');
  expect(response.headers['x-frame-options']).toBe('DENY');
}

describe('security headers on every answer', () => {
  let t: TestExchange;
  let app: FastifyInstance;
  const webDir = mkdtempSync(join(tmpdir(), 'oddsbook-web-'));
  beforeAll(async () => {
    t = await startTestExchange({ env: { RATE_LIMITS: '1', MAX_PENDING_ORDERS: '10' } });
    writeFileSync(join(webDir, 'index.html'), '<!doctype html><div id="app"></div>');
    mkdirSync(join(webDir, 'assets'));
    writeFileSync(join(webDir, 'assets', 'index-abc.js'), 'console.log(1)');
    app = await buildApp(t.exchange, { logger: false, webDir });
  });
  afterAll(async () => {
    await app.close();
    await t.close();
    removeDataDir(t.dataDir);
    rmSync(webDir, { recursive: true, force: true });
  });

  it('on the pages, API answers, 400s, 401s and 404s', async () => {
    const answers = {
      page: await app.inject({ method: 'GET', url: '/' }),
      script: await app.inject({ method: 'GET', url: '/assets/index-abc.js' }),
      api: await app.inject({ method: 'GET', url: '/sports' }),
      health: await app.inject({ method: 'GET', url: '/health' }),
      invalid: await app.inject({ method: 'GET', url: '/markets/active?leagueId=x' }),
      unauthorized: await app.inject({ method: 'GET', url: '/orders-v3' }),
      missing: await app.inject({ method: 'GET', url: '/no-such-page' }),
    };
    expect(Object.values(answers).map((a) => a.statusCode)).toEqual([200, 200, 200, 200, 400, 401, 404]);
    for (const answer of Object.values(answers)) expectSecurityHeaders(answer);
  });

  it('on 429s of the rate limits', async () => {
    let answer = await app.inject({ method: 'POST', url: '/account/api-keys', remoteAddress: '10.3.0.1' });
    for (let i = 0; i < RATE_LIMITS.apiKeyCreation.max && answer.statusCode !== 429; i++)
      answer = await app.inject({ method: 'POST', url: '/account/api-keys', remoteAddress: '10.3.0.1' });
    expect(answer.statusCode).toBe(429);
    expectSecurityHeaders(answer);
  });

  it('on 503s of the order path', async () => {
    const trader = await createTrader(t, 0n);
    const { marketHash } = await createMarket(t);
    const batch = () =>
      Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          signOrder(t, trader, { marketHash, tick: 300 + i, size: 10n * USDC }),
        ),
      );
    const batches = await Promise.all([batch(), batch(), batch()]);
    // Thirty orders at once where MAX_PENDING_ORDERS is 10: the requests past the bound are refused whole.
    const answers = await Promise.all(
      batches.map((orders) =>
        app.inject({ method: 'POST', url: '/orders-v3', headers: trader.headers, payload: { orders } }),
      ),
    );
    const shed = answers.filter((a) => a.statusCode === 503);
    expect(shed.length).toBeGreaterThan(0);
    for (const answer of shed) expectSecurityHeaders(answer);
  });
});
