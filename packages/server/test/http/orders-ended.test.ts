import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rateLimitGroup } from '../../src/http/plugins/rate-limits.js';
import {
  removeDataDir,
  startTestExchange,
  type TestExchange,
  type TestUser,
} from '../helpers/test-exchange.js';
import { createMarket, createTrader, place, USDC } from '../helpers/trading.js';

type Row = {
  id: string;
  status: string;
  inactiveReason: string | null;
  createdAt: string;
  marketHash: string;
};
type Page = { orders: Row[]; nextKey: string | null };

describe('GET /orders-v3/ended: the account’s ended orders', () => {
  let t: TestExchange;
  beforeAll(async () => {
    t = await startTestExchange();
  });
  afterAll(async () => {
    await t.close();
    removeDataDir(t.dataDir);
  });

  const get = (url: string, user?: TestUser) =>
    t.app.inject({ method: 'GET', url, ...(user ? { headers: user.headers } : {}) });
  const page = async (url: string, user: TestUser): Promise<Page> => {
    const response = await get(url, user);
    expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
    return response.json().data;
  };
  const ids = (rows: readonly Row[]) => rows.map((o) => o.id);
  /** Newest first: by creation time, then id, both descending (the listing's order). */
  const newestFirst = (rows: readonly Row[]) =>
    [...rows].sort((x, y) => y.createdAt.localeCompare(x.createdAt) || (y.id < x.id ? -1 : 1));

  it('lists filled and cancelled orders newest first with why they ended, never resting or foreign ones', async () => {
    const a = await createMarket(t);
    const b = await createMarket(t);
    const user = await createTrader(t);
    const taker = await createTrader(t);

    // Filled: the user rests 10 at 50 % on a, the taker takes all of it.
    const filled = await place(t, user, { marketHash: a.marketHash, tick: 400, size: 10n * USDC });
    const took = await place(t, taker, {
      marketHash: a.marketHash,
      tick: 400,
      size: 10n * USDC,
      isOne: false,
      timeInForce: 'IOC',
    });
    expect(took.outcome.state).toBe('FULLY_FILLED');
    // Cancelled: rests on b, then cancelled by id.
    const cancelled = await place(t, user, { marketHash: b.marketHash, tick: 300, size: 2n * USDC });
    const cancel = await t.app.inject({
      method: 'DELETE',
      url: '/orders-v3',
      headers: user.headers,
      payload: { orders: [{ orderId: cancelled.orderId }] },
    });
    expect(cancel.json().data.cancelled).toHaveLength(1);
    // Resting: two orders stay on the book.
    const resting = await place(t, user, { marketHash: a.marketHash, tick: 350, size: 3n * USDC });
    await place(t, user, { marketHash: b.marketHash, tick: 351, size: 3n * USDC });

    const ended = await page('/orders-v3/ended', user);
    expect(ended.nextKey).toBeNull();
    expect(ended.orders).toHaveLength(2);
    expect(ids(ended.orders)).toEqual(ids(newestFirst(ended.orders)));
    const byId = Object.fromEntries(ended.orders.map((o) => [o.id, o]));
    expect(byId[filled.orderId]).toMatchObject({
      status: 'INACTIVE',
      inactiveReason: 'FILLED',
      fillAmount: (10n * USDC).toString(),
      marketHash: a.marketHash,
    });
    expect(byId[cancelled.orderId]).toMatchObject({
      status: 'INACTIVE',
      inactiveReason: 'USER_REQUESTED',
      fillAmount: '0',
    });
    // The cancelled order was placed after the filled one: newest first, it comes first.
    expect(byId[cancelled.orderId]!.createdAt >= byId[filled.orderId]!.createdAt).toBe(true);
    expect(ids(ended.orders)[0]).toBe(cancelled.orderId);
    // The resting orders are the open listing's, not this one's.
    expect(ids((await page('/orders-v3', user)).orders)).toContain(resting.orderId);
    expect(ids(ended.orders)).not.toContain(resting.orderId);

    // Oldest first on request; filters by market and event.
    expect(ids((await page('/orders-v3/ended?sortAsc=true', user)).orders)).toEqual(
      ids(ended.orders).reverse(),
    );
    expect(ids((await page(`/orders-v3/ended?marketHash=${a.marketHash}`, user)).orders)).toEqual([
      filled.orderId,
    ]);
    expect(
      ids(
        (await page(`/orders-v3/ended?marketHash=${b.marketHash.toUpperCase().replace('0X', '0x')}`, user))
          .orders,
      ),
    ).toEqual([cancelled.orderId]);
    expect(ids((await page(`/orders-v3/ended?eventId=${b.eventId}`, user)).orders)).toEqual([
      cancelled.orderId,
    ]);

    // Another account sees none of them: the taker only its own filled take, a new account nothing.
    const takers = (await page('/orders-v3/ended', taker)).orders;
    expect(takers.map((o) => [o.id, o.inactiveReason])).toEqual([[took.orderId, 'FILLED']]);
    expect((await page('/orders-v3/ended', await createTrader(t, 0n))).orders).toEqual([]);

    // The static route wins over /orders-v3/:orderId, which still answers by id.
    expect((await get(`/orders-v3/${cancelled.orderId}`, user)).json().data.inactiveReason).toBe(
      'USER_REQUESTED',
    );
  });

  it('pages one row at a time through every ended order, newest or oldest first, alone or on a market', async () => {
    const { marketHash } = await createMarket(t);
    const user = await createTrader(t);
    const placed = [];
    for (const [i, size] of [4n, 1n, 3n, 2n, 5n].entries())
      placed.push(await place(t, user, { marketHash, tick: 300 + i, size: size * USDC }));
    await t.app.inject({ method: 'DELETE', url: '/orders-v3/all', headers: user.headers });
    await expect
      .poll(async () => (await page('/orders-v3/ended', user)).orders.length, { timeout: 10_000 })
      .toBe(5);

    for (const query of ['', 'sortAsc=true', 'sortBy=createdAt', `marketHash=${marketHash}&sortAsc=true`]) {
      const whole = ids((await page(`/orders-v3/ended?${query}`, user)).orders);
      const walked: string[] = [];
      let nextKey: string | null = null;
      let pages = 0;
      do {
        const key: string = nextKey ? `&nextKey=${nextKey}` : '';
        const one: Page = await page(`/orders-v3/ended?perPage=1&${query}${key}`, user);
        walked.push(...ids(one.orders));
        nextKey = one.nextKey;
        pages += 1;
      } while (nextKey);
      expect(walked, query).toEqual(whole);
      expect(pages, query).toBe(5);
      expect(new Set(walked)).toEqual(new Set(placed.map((p) => p.orderId)));
    }
    // Newest placed first: the sizes in the reverse of their placing.
    const newest = (await page('/orders-v3/ended', user)).orders;
    expect(newest.map((o) => BigInt((o as Row & { totalBetSize: string }).totalBetSize) / USDC)).toEqual([
      5n,
      2n,
      3n,
      1n,
      4n,
    ]);
  });

  it('refuses bad input with 400, a key of the open listing too, and a missing key with 401', async () => {
    const { marketHash } = await createMarket(t);
    const user = await createTrader(t);
    for (const tick of [300, 301]) await place(t, user, { marketHash, tick, size: USDC });
    const openKey = (await page('/orders-v3?perPage=1', user)).nextKey;
    expect(openKey).toEqual(expect.any(String));

    // A validation message names the parameter (an array of them, in the spec's shape); a page key's says nextKey.
    for (const [url, code, names] of [
      ['/orders-v3/ended?perPage=101', 'VALIDATION_FAILED', 'perPage'],
      ['/orders-v3/ended?perPage=0', 'VALIDATION_FAILED', 'perPage'],
      ['/orders-v3/ended?marketHash=0x12', 'VALIDATION_FAILED', 'marketHash'],
      ['/orders-v3/ended?sortBy=price', 'VALIDATION_FAILED', 'sortBy'],
      // The history sorts by time only: by event or size it would sort all of it for every page.
      ['/orders-v3/ended?sortBy=event', 'VALIDATION_FAILED', 'sortBy'],
      ['/orders-v3/ended?sortBy=totalBetSize', 'VALIDATION_FAILED', 'sortBy'],
      ['/orders-v3/ended?nextKey=garbage', 'BAD_NEXT_KEY', 'nextKey'],
      [`/orders-v3/ended?nextKey=${openKey}`, 'BAD_NEXT_KEY', 'nextKey'],
    ] as const) {
      const response = await get(url, user);
      expect(response.statusCode, url).toBe(400);
      expect(response.json(), url).toMatchObject({ statusCode: 400, error: 'Bad Request', code });
      expect(JSON.stringify(response.json().message), url).toContain(names);
    }
    const anonymous = await get('/orders-v3/ended');
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toMatchObject({ statusCode: 401, code: 'BAD_AUTH' });
    const badKey = await t.app.inject({
      method: 'GET',
      url: '/orders-v3/ended',
      headers: { 'x-svc-api-key': 'not-a-key' },
    });
    expect(badKey.statusCode).toBe(401);
    // Counted with the other order reads.
    expect(rateLimitGroup('GET', '/orders-v3/ended')).toBe('orderReads');
  });
});
