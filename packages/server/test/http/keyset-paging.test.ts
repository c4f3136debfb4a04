import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  removeDataDir,
  startTestExchange,
  type TestExchange,
  type TestUser,
} from '../helpers/test-exchange.js';
import { createMarket, createTrader, place, postOrders, signOrder, USDC } from '../helpers/trading.js';

type Page = { nextKey: string | null } & Record<string, unknown>;

/**
 * Listings page by keyset cursors: rows that arrive or leave between two pages neither repeat nor hide a
 * row that was there when paging started (row offsets did both).
 */
describe('keyset paging of orders, fills and trades while rows arrive and leave', () => {
  let t: TestExchange;
  let maker: TestUser;
  let taker: TestUser;
  let marketHash: `0x${string}`;
  beforeAll(async () => {
    t = await startTestExchange();
    ({ marketHash } = await createMarket(t));
    maker = await createTrader(t);
    taker = await createTrader(t);
    // Liquidity for every taker bet below: one resting order the taker hits again and again.
    await place(t, maker, { marketHash, tick: 400, size: 200n * USDC });
    for (let i = 0; i < 5; i++) await takerBet();
  });
  afterAll(async () => {
    await t.close();
    removeDataDir(t.dataDir);
  });

  /** One taker bet: one trade and one fill of the taker's, one more fill of the maker's. */
  const takerBet = () =>
    place(t, taker, { marketHash, tick: 400, size: 1n * USDC, isOne: false, timeInForce: 'IOC' });

  const get = async (url: string, user: TestUser | null): Promise<Page> => {
    const response = await t.app.inject({ method: 'GET', url, headers: user?.headers ?? {} });
    expect(response.statusCode, response.body).toBe(200);
    return response.json().data;
  };

  /** Every page of a listing, `between` run after each page; the ids in the order they came. */
  async function pageThrough(
    url: string,
    user: TestUser | null,
    rowsOf: (page: Page) => string[],
    between: (pageIndex: number) => Promise<unknown>,
  ): Promise<string[]> {
    const seen: string[] = [];
    let nextKey: string | null = null;
    for (let i = 0; i < 50; i++) {
      const sep = url.includes('?') ? '&' : '?';
      const page = await get(nextKey ? `${url}${sep}nextKey=${nextKey}` : url, user);
      seen.push(...rowsOf(page));
      nextKey = page.nextKey;
      if (!nextKey) return seen;
      await between(i);
    }
    throw new Error('more than 50 pages');
  }

  const ids = (key: string, field: string) => (page: Page) =>
    (page[key] as Record<string, string>[]).map((row) => row[field]!);

  it('pages the account trades and the public tape, newest first, while new bets arrive', async () => {
    for (const [url, user, rowsOf] of [
      ['/trades-v3?sortAsc=false&perPage=2', taker, ids('trades', 'tradeId')],
      [`/trades-v3/public?marketHash=${marketHash}&perPage=2`, null, ids('trades', 'tradeId')],
    ] as const) {
      const before = rowsOf(await get(url.replace('perPage=2', 'perPage=100'), user));
      expect(before.length).toBeGreaterThanOrEqual(5);
      const paged = await pageThrough(url, user, rowsOf, () => takerBet());
      expect(new Set(paged).size, `${url}: a row repeated`).toBe(paged.length);
      expect(paged, url).toEqual(before);
    }
  });

  it('pages fills both ways while new fills arrive, rows of one instant included', async () => {
    for (const user of [taker, maker]) {
      for (const sortAsc of [false, true]) {
        const url = `/fills-v3?sortAsc=${sortAsc}&perPage=2`;
        const before = ids('fills', 'id')(await get(`/fills-v3?sortAsc=${sortAsc}&perPage=100`, user));
        const paged = await pageThrough(url, user, ids('fills', 'id'), () => takerBet());
        expect(new Set(paged).size, `${url}: a row repeated`).toBe(paged.length);
        // Ascending, the new fills come after the last page's: the ones there at the start come first.
        expect(sortAsc ? paged.slice(0, before.length) : paged, url).toEqual(before);
      }
    }
  });

  it('pages open orders while orders are placed and cancelled between pages, ties on time included', async () => {
    const { marketHash: quiet } = await createMarket(t);
    const user = await createTrader(t);
    // One request, one journal entry: the six orders share their createdAt, the id breaks the tie.
    const batch = await postOrders(
      t,
      user,
      await Promise.all(
        [300, 301, 302, 303, 304, 305].map((tick) =>
          signOrder(t, user, { marketHash: quiet, tick, size: USDC }),
        ),
      ),
      { waitForOutcome: true },
    );
    expect(batch.statusCode).toBe(200);
    for (const tick of [306, 307, 308]) await place(t, user, { marketHash: quiet, tick, size: USDC });
    const orderIds = ids('orders', 'id');

    for (const sortBy of ['createdAt', 'event', 'totalBetSize']) {
      // Newest first while new orders arrive: an offset would show the previous page's rows again.
      const descUrl = `/orders-v3?sortBy=${sortBy}&sortAsc=false&perPage=2`;
      const before = orderIds(await get(descUrl.replace('perPage=2', 'perPage=100'), user));
      let tick = 500;
      const paged = await pageThrough(descUrl, user, orderIds, async () => {
        await place(t, user, { marketHash: quiet, tick: tick++, size: 2n * USDC });
      });
      expect(new Set(paged).size, `${descUrl}: a row repeated`).toBe(paged.length);
      const arrived = new Set(
        orderIds(await get('/orders-v3?perPage=100', user)).filter((id) => !before.includes(id)),
      );
      expect(
        paged.filter((id) => !arrived.has(id)),
        descUrl,
      ).toEqual(before);
    }

    // Oldest first while each page's orders are cancelled: an offset would skip the rows that moved up.
    const url = '/orders-v3?perPage=2';
    const before = orderIds(await get('/orders-v3?perPage=100', user));
    let shown: string[] = [];
    const paged = await pageThrough(
      url,
      user,
      (page) => {
        shown = orderIds(page);
        return shown;
      },
      async () => {
        const cancel = await t.app.inject({
          method: 'DELETE',
          url: '/orders-v3',
          headers: user.headers,
          payload: { orders: shown.map((orderId) => ({ orderId })) },
        });
        expect(cancel.json().data.cancelled).toHaveLength(shown.length);
      },
    );
    expect(paged).toEqual(before);
  });

  it('refuses a key of another listing or sort, and one it never issued, with 400', async () => {
    const first = await get('/fills-v3?perPage=1', taker);
    expect(first.nextKey).toEqual(expect.any(String));
    for (const url of [
      `/fills-v3?sortAsc=false&nextKey=${first.nextKey}`,
      `/trades-v3?nextKey=${first.nextKey}`,
      `/orders-v3?nextKey=${first.nextKey}`,
      '/fills-v3?nextKey=bm90LWEta2V5',
      `/fills-v3?nextKey=${Buffer.from(JSON.stringify(['fills:asc', 1, 'x', 'y'])).toString('base64url')}`,
    ]) {
      const response = await t.app.inject({ method: 'GET', url, headers: taker.headers });
      expect(response.statusCode, url).toBe(400);
      expect(response.json()).toMatchObject({ error: 'Bad Request', statusCode: 400 });
      expect(response.json().message).toMatch(/^nextKey is not a key/);
    }
  });
});
