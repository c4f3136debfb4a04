import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  removeDataDir,
  startTestExchange,
  type TestExchange,
  type TestUser,
} from '../helpers/test-exchange.js';
import { createMarket, createTrader, place, USDC } from '../helpers/trading.js';

describe('fills and trades', () => {
  let t: TestExchange;
  let maker: TestUser;
  let taker: TestUser;
  let takerOrder: { orderId: string; outcome: { tradeId: string; matchIds: string[] } };
  let before: string;
  beforeAll(async () => {
    t = await startTestExchange();
    const { marketHash } = await createMarket(t);
    maker = await createTrader(t);
    taker = await createTrader(t);
    before = new Date(Date.now() - 1000).toISOString();
    for (const tick of [400, 404, 408]) await place(t, maker, { marketHash, tick, size: 4n * USDC });
    // One taker order sweeping three levels: one trade, three fills.
    takerOrder = await place(t, taker, {
      marketHash,
      tick: 400,
      size: 20n * USDC,
      isOne: false,
      timeInForce: 'IOC',
    });
  });
  afterAll(async () => {
    await t.close();
    removeDataDir(t.dataDir);
  });

  const fills = async (user: TestUser, query = '') =>
    (await t.app.inject({ method: 'GET', url: `/fills-v3${query}`, headers: user.headers })).json().data;

  it('gives one fill per match, best price first, oldest first by default', async () => {
    expect(takerOrder.outcome.matchIds).toHaveLength(3);
    const page = await fills(taker);
    expect(page.fills.map((f: { matchId: string }) => f.matchId)).toEqual(takerOrder.outcome.matchIds);
    expect(page.fills.every((f: { tradeId: string }) => f.tradeId === takerOrder.outcome.tradeId)).toBe(true);
    // The taker bought the 408 level first (the maker's best), at 1 - 408/800.
    expect(page.fills[0].fillOdds).toBe(((10n ** 20n * 392n) / 800n).toString());
    const desc = await fills(taker, '?sortAsc=false');
    expect(desc.fills.map((f: { matchId: string }) => f.matchId)).toEqual(
      [...takerOrder.outcome.matchIds].reverse(),
    );
  });

  it('filters by order, trade and dates, pages with nextKey, and gives an empty page for foreign ids', async () => {
    expect((await fills(taker, `?orderId=${takerOrder.orderId}`)).fills).toHaveLength(3);
    expect((await fills(taker, `?tradeId=${takerOrder.outcome.tradeId}`)).fills).toHaveLength(3);
    expect((await fills(maker, `?orderId=${takerOrder.orderId}`)).fills).toEqual([]);
    expect((await fills(taker, `?orderId=0x${'99'.repeat(32)}`)).fills).toEqual([]);
    expect((await fills(taker, `?startDate=${before}`)).fills).toHaveLength(3);
    expect((await fills(taker, `?endDate=${before}`)).fills).toEqual([]);
    const first = await fills(taker, '?perPage=2');
    expect(first.fills).toHaveLength(2);
    const second = await fills(taker, `?perPage=2&nextKey=${first.nextKey}`);
    expect(second.fills).toHaveLength(1);
    expect(second.nextKey).toBeNull();
  });

  it('refuses bad ranges and page sizes with 400', async () => {
    const now = new Date().toISOString();
    for (const query of [
      `?startDate=${now}&endDate=${before}`,
      '?startDate=1700000000',
      '?perPage=101',
      '?perPage=0',
    ]) {
      const response = await t.app.inject({
        method: 'GET',
        url: `/fills-v3${query}`,
        headers: taker.headers,
      });
      expect(response.statusCode, query).toBe(400);
      expect(response.json()).toMatchObject({ error: 'Bad Request', statusCode: 400 });
    }
  });

  it('rolls fills up into one trade per bet with stake-weighted odds', async () => {
    const trades = (await t.app.inject({ method: 'GET', url: '/trades-v3', headers: taker.headers })).json()
      .data.trades;
    expect(trades).toHaveLength(1);
    const [trade] = trades;
    // Whole lots: the pot of each fill is exactly the two stakes; the makers' dust stays unfilled.
    const takerFills = (await fills(taker)).fills as { fillAmount: string }[];
    const makerFills = (await fills(maker)).fills as { fillAmount: string }[];
    const sum = (rows: { fillAmount: string }[]) => rows.reduce((a, f) => a + BigInt(f.fillAmount), 0n);
    expect(BigInt(trade.stake)).toBe(sum(takerFills));
    expect(BigInt(trade.potentialPayout)).toBe(sum(takerFills) + sum(makerFills));
    // Maker lots at tick k are k/gcd(k, 800-k) units: 408 -> 51, 404 -> 101, 400 -> 1.
    const filledInLots = (lot: bigint) => ((4n * USDC) / lot) * lot;
    expect(sum(makerFills)).toBe(filledInLots(51n) + filledInLots(101n) + filledInLots(1n));
    expect(BigInt(trade.odds)).toBe((BigInt(trade.stake) * 10n ** 20n) / BigInt(trade.potentialPayout));
    const makerTrades = (
      await t.app.inject({ method: 'GET', url: '/trades-v3', headers: maker.headers })
    ).json().data.trades;
    expect(makerTrades).toHaveLength(3);
    expect(makerTrades.every((m: { isMaker: boolean }) => m.isMaker)).toBe(true);
    const bad = await t.app.inject({ method: 'GET', url: '/trades-v3?status=PAID', headers: taker.headers });
    expect(bad.statusCode).toBe(400);
  });
});
