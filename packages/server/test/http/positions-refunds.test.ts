import { getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSpecErrorShape } from '../helpers/error-shapes.js';
import {
  removeDataDir,
  startTestExchange,
  type TestExchange,
  type TestUser,
} from '../helpers/test-exchange.js';
import { createMarket, createTrader, place, USDC } from '../helpers/trading.js';

const units = (usdc: bigint) => (usdc * USDC).toString();

/**
 * Capital efficiency through the read routes. A hedges fully in market one as taker (outcome one 100 at
 * 50 %, then outcome two 100 at 50 %: 200 back) and partly in market two as maker (outcome one 100, then
 * outcome two 50: 100 back); B and C are the other sides.
 */
describe('GET /positions-v3 and GET /trades/portfolio/refunds', () => {
  let t: TestExchange;
  let a: TestUser;
  let b: TestUser;
  let c: TestUser;
  let one: { marketHash: `0x${string}`; eventId: string };
  let two: { marketHash: `0x${string}`; eventId: string };
  beforeAll(async () => {
    t = await startTestExchange();
    one = await createMarket(t);
    two = await createMarket(t);
    [a, b, c] = [await createTrader(t), await createTrader(t), await createTrader(t)];
    // Market one: A takes both sides, against B then C.
    await place(t, b, { marketHash: one.marketHash, tick: 400, size: 100n * USDC, isOne: false });
    await place(t, a, { marketHash: one.marketHash, tick: 400, size: 100n * USDC, timeInForce: 'IOC' });
    await place(t, c, { marketHash: one.marketHash, tick: 400, size: 100n * USDC });
    await place(t, a, {
      marketHash: one.marketHash,
      tick: 400,
      size: 100n * USDC,
      isOne: false,
      timeInForce: 'IOC',
    });
    // Market two: A makes both sides, taken by B then C.
    await place(t, a, { marketHash: two.marketHash, tick: 400, size: 100n * USDC });
    await place(t, b, {
      marketHash: two.marketHash,
      tick: 400,
      size: 100n * USDC,
      isOne: false,
      timeInForce: 'IOC',
    });
    await place(t, a, { marketHash: two.marketHash, tick: 400, size: 50n * USDC, isOne: false });
    await place(t, c, { marketHash: two.marketHash, tick: 400, size: 50n * USDC, timeInForce: 'IOC' });
  });
  afterAll(async () => {
    await t.close();
    removeDataDir(t.dataDir);
  });

  const get = (url: string, user?: TestUser) =>
    t.app.inject({ method: 'GET', url, ...(user ? { headers: user.headers } : {}) });
  const positions = async (user: TestUser, query = '') => {
    const response = await get(`/positions-v3${query}`, user);
    expect(response.statusCode, response.body).toBe(200);
    return response.json().data as { positions: Record<string, unknown>[]; nextKey: string | null };
  };
  const refunds = async (query: string, user = a) => {
    const response = await get(`/trades/portfolio/refunds?${query}`, user);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().status).toBe('success');
    return response.json().data as { results: Record<string, unknown>[]; count: number };
  };

  it('shows a full hedge: both sides, everything guaranteed and refunded, nothing to lose', async () => {
    const { positions: rows } = await positions(a, `?marketHash=${one.marketHash}`);
    expect(rows).toEqual([
      {
        marketHash: one.marketHash,
        eventId: one.eventId,
        outcomeOne: { stake: units(100n), potentialPayout: units(200n) },
        outcomeTwo: { stake: units(100n), potentialPayout: units(200n) },
        guaranteedReceipt: units(200n),
        refunded: units(200n),
        maxLoss: '0',
      },
    ]);
    // The counterparties are one-sided: nothing is guaranteed.
    expect((await positions(b, `?marketHash=${one.marketHash}`)).positions).toEqual([
      expect.objectContaining({
        outcomeOne: { stake: '0', potentialPayout: '0' },
        outcomeTwo: { stake: units(100n), potentialPayout: units(200n) },
        guaranteedReceipt: '0',
        refunded: '0',
        maxLoss: units(100n),
      }),
    ]);
  });

  it('shows a partial hedge: min(pot one, pot two, stakes) back, the rest at risk', async () => {
    const { positions: rows } = await positions(a, `?eventId=${two.eventId}`);
    expect(rows).toEqual([
      {
        marketHash: two.marketHash,
        eventId: two.eventId,
        outcomeOne: { stake: units(100n), potentialPayout: units(200n) },
        outcomeTwo: { stake: units(50n), potentialPayout: units(100n) },
        guaranteedReceipt: units(100n),
        refunded: units(100n),
        maxLoss: units(50n),
      },
    ]);
    // 1,000 - 350 staked + 300 refunded; escrow keeps what is not refunded (market two's 150 - 100).
    const balance = (await get('/user/balance-v3', a)).json().data.balances[0];
    expect(balance).toMatchObject({ availableAmount: units(950n), escrowedAmount: units(50n) });
  });

  it('filters by market and event, and pages one market at a time in market-hash order', async () => {
    expect((await positions(a, `?eventId=${one.eventId}`)).positions.map((p) => p.marketHash)).toEqual([
      one.marketHash,
    ]);
    expect((await positions(a, `?marketHash=0x${'ab'.repeat(32)}`)).positions).toEqual([]);
    const all = await positions(a);
    const sorted = [one.marketHash, two.marketHash].sort();
    expect(all.positions.map((p) => p.marketHash)).toEqual(sorted);
    expect(all.nextKey).toBeNull();
    const first = await positions(a, '?perPage=1');
    expect(first.positions.map((p) => p.marketHash)).toEqual([sorted[0]]);
    expect(first.nextKey).toEqual(expect.any(String));
    const second = await positions(a, `?perPage=1&nextKey=${first.nextKey}`);
    expect(second.positions.map((p) => p.marketHash)).toEqual([sorted[1]]);
    expect(second.nextKey).toBeNull();
  });

  it('needs the API key and refuses bad queries with 400', async () => {
    const anonymous = await get('/positions-v3');
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toEqual({
      message: 'BAD_AUTH',
      error: 'Unauthorized',
      statusCode: 401,
      code: 'BAD_AUTH',
    });
    for (const query of ['?marketHash=0x12', '?perPage=0', '?perPage=101', '?nextKey=nope', '?eventId=']) {
      const response = await get(`/positions-v3${query}`, a);
      expect(response.statusCode, query).toBe(400);
      expectSpecErrorShape(400, response.json());
      expect(response.json()).toMatchObject({ error: 'Bad Request', statusCode: 400 });
    }
  });

  it('lists the refunds per market in the legacy shape, with the refunded fill and side', async () => {
    const fills = (await get('/fills-v3', a)).json().data.fills as {
      id: string;
      marketHash: string;
      isMaker: boolean;
      ceRefundAmount: string;
    }[];
    const refunded = fills.filter((f) => f.ceRefundAmount !== '0');
    expect(refunded.map((f) => [f.marketHash, f.isMaker, f.ceRefundAmount])).toEqual([
      [one.marketHash, false, units(200n)],
      [two.marketHash, true, units(100n)],
    ]);
    const event = (market: string, fill: (typeof refunded)[number]) => ({
      maker: fill.isMaker,
      amount: fill.ceRefundAmount,
      bettor: a.address,
      baseToken: t.config.baseToken,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      marketHash: market,
      fillOrderHash: fill.id,
    });
    const all = await refunds(`bettor=${a.address}`);
    expect(all.count).toBe(2);
    // The latest refunded market first by default.
    expect(all.results).toEqual([
      {
        marketHash: two.marketHash,
        baseToken: t.config.baseToken,
        totalRefunded: units(100n),
        events: [event(two.marketHash, refunded[1]!)],
        eventCount: 1,
      },
      {
        marketHash: one.marketHash,
        baseToken: t.config.baseToken,
        totalRefunded: units(200n),
        events: [event(one.marketHash, refunded[0]!)],
        eventCount: 1,
      },
    ]);
    const asc = await refunds(`bettor=${a.address.toLowerCase()}&sortAsc=true&page=0&perPage=500`);
    expect(asc.results.map((r) => r.marketHash)).toEqual([one.marketHash, two.marketHash]);
    const page = await refunds(`bettor=${a.address}&sortAsc=true&page=1&perPage=1`);
    expect(page).toMatchObject({ count: 2, results: [{ marketHash: two.marketHash }] });
    expect((await refunds(`bettor=${a.address}&maker=true`)).results.map((r) => r.marketHash)).toEqual([
      two.marketHash,
    ]);
    expect((await refunds(`bettor=${a.address}&maker=false`)).results.map((r) => r.marketHash)).toEqual([
      one.marketHash,
    ]);
    expect(
      (await refunds(`bettor=${a.address}&fillOrderHash=${refunded[0]!.id}`)).results.map(
        (r) => r.marketHash,
      ),
    ).toEqual([one.marketHash]);
    expect((await refunds(`bettor=${a.address}&marketHash=${two.marketHash}`)).count).toBe(1);
    expect(await refunds(`bettor=${a.address}&baseToken=0x${'11'.repeat(20)}`)).toEqual({
      results: [],
      count: 0,
    });
    expect((await refunds(`bettor=${a.address}&baseToken=${t.config.baseToken}`)).count).toBe(2);
    expect(await refunds(`bettor=${b.address}`, b)).toEqual({ results: [], count: 0 });
  });

  it("answers only the bettor's own key, in the legacy failure shape", async () => {
    const query = `/trades/portfolio/refunds?bettor=${a.address}`;
    for (const headers of [{}, { 'x-svc-api-key': 'not-a-key' }]) {
      const response = await t.app.inject({ method: 'GET', url: query, headers });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({ status: 'failure', errorCode: 'BAD_AUTH' });
    }
    // Before validation, as every authenticated route.
    const invalid = await t.app.inject({ method: 'GET', url: '/trades/portfolio/refunds?bettor=0x12' });
    expect(invalid.json()).toEqual({ status: 'failure', errorCode: 'BAD_AUTH' });
    const foreign = await get(query, b);
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json()).toEqual({ status: 'failure', errorCode: 'BETTOR_MISMATCH' });
    // A lower-case bettor is the same account.
    expect((await refunds(`bettor=${a.address.toLowerCase()}`, a)).count).toBe(2);
  });

  it("pages each market's events, at most 5,000 per answer", async () => {
    const [d, e, f] = [await createTrader(t), await createTrader(t), await createTrader(t)];
    const three = await createMarket(t);
    // D takes outcome one 120 from E, then hedges it against F's 120 on outcome one, 10 at a time: a
    // refund at each of the 12 hedges.
    await place(t, e, { marketHash: three.marketHash, tick: 400, size: 120n * USDC, isOne: false });
    await place(t, d, { marketHash: three.marketHash, tick: 400, size: 120n * USDC, timeInForce: 'IOC' });
    await place(t, f, { marketHash: three.marketHash, tick: 400, size: 120n * USDC });
    for (let i = 0; i < 12; i++)
      await place(t, d, {
        marketHash: three.marketHash,
        tick: 400,
        size: 10n * USDC,
        isOne: false,
        timeInForce: 'IOC',
      });
    type Result = { events: { fillOrderHash: string }[]; eventCount: number; totalRefunded: string };
    const of = async (query: string) => {
      const { results } = await refunds(`bettor=${d.address}&sortAsc=true&${query}`, d);
      expect(results).toHaveLength(1);
      return results[0] as unknown as Result;
    };
    const all = await of('');
    expect(all).toMatchObject({ eventCount: 12, totalRefunded: units(240n) });
    expect(all.events).toHaveLength(12);
    // 500 markets a page leave 10 events each within 5,000.
    expect((await of('perPage=500')).events).toHaveLength(10);
    const pages = [await of('eventsPerPage=5'), await of('eventsPerPage=5&eventsPage=1')];
    pages.push(await of('eventsPerPage=5&eventsPage=2'));
    expect(pages.map((p) => [p.events.length, p.eventCount])).toEqual([
      [5, 12],
      [5, 12],
      [2, 12],
    ]);
    expect(pages.flatMap((p) => p.events)).toEqual(all.events);
    expect((await of('eventsPerPage=5&eventsPage=3')).events).toEqual([]);
    const descending = (await refunds(`bettor=${d.address}&eventsPerPage=1`, d))
      .results[0] as unknown as Result;
    expect(descending.events).toEqual([all.events[11]]);
    for (const [query, errorCode] of [
      ['perPage=500&eventsPerPage=11', 'BAD_EVENTS_PER_PAGE'],
      ['eventsPerPage=501', 'BAD_EVENTS_PER_PAGE'],
      ['eventsPerPage=0', 'BAD_EVENTS_PER_PAGE'],
      ['eventsPage=-1', 'BAD_EVENTS_PAGE'],
    ] as const) {
      const response = await get(`/trades/portfolio/refunds?bettor=${d.address}&${query}`, d);
      expect(response.statusCode, query).toBe(400);
      expect(response.json(), query).toEqual({ status: 'failure', errorCode });
    }
  });

  it('refuses a bad or missing bettor and over 500 per page in the legacy failure shape', async () => {
    for (const [query, errorCode] of [
      ['', 'BAD_BETTOR'],
      ['bettor=0x1234', 'BAD_BETTOR'],
      [`bettor=${a.address}&perPage=501`, 'BAD_PER_PAGE'],
      [`bettor=${a.address}&page=-1`, 'BAD_PAGE'],
      [`bettor=${a.address}&marketHash=0x12`, 'BAD_MARKET_HASH'],
      [`bettor=${a.address}&maker=maybe`, 'BAD_MAKER'],
    ] as const) {
      const response = await get(`/trades/portfolio/refunds?${query}`, a);
      expect(response.statusCode, query).toBe(400);
      expect(response.json(), query).toEqual({ status: 'failure', errorCode });
    }
  });

  it('ends the position at resolution and keeps its refunds', async () => {
    const resolved = await t.app.inject({
      method: 'POST',
      url: `/admin/markets/${one.marketHash}/resolve`,
      headers: t.admin,
      payload: { outcome: 1 },
    });
    expect(resolved.statusCode).toBe(200);
    expect((await positions(a)).positions.map((p) => p.marketHash)).toEqual([two.marketHash]);
    const kept = await refunds(`bettor=${getAddress(a.address)}&marketHash=${one.marketHash}`);
    expect(kept.results).toEqual([expect.objectContaining({ totalRefunded: units(200n) })]);
    // Fully hedged: the 200 came back at the hedge, the win adds nothing (200 won - 200 refunded).
    const balance = (await get('/user/balance-v3', a)).json().data.balances[0];
    expect(balance).toMatchObject({ availableAmount: units(950n), escrowedAmount: units(50n) });
  });
});
