import { ODDS_SCALE, tickToOdds } from '@oddsbook/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDataDir, startTestExchange, type TestExchange } from '../helpers/test-exchange.js';
import { createMarket, createTrader, place, postOrders, signOrder, USDC, until } from '../helpers/trading.js';

describe('orders v3: make, take, fills, trades, balances, settlement', () => {
  let t: TestExchange;
  beforeAll(async () => {
    t = await startTestExchange();
  });
  afterAll(async () => {
    await t.close();
    removeDataDir(t.dataDir);
  });

  it('rests a maker, fills it with an IOC taker at the maker price, escrows and locks, then settles', async () => {
    const { marketHash, eventId } = await createMarket(t);
    const maker = await createTrader(t, 1_000n * USDC);
    const taker = await createTrader(t, 1_000n * USDC);

    // Maker bets outcome one at 60 % (tick 480) for 60 USDC: it risks 60 to win 40.
    const made = await place(t, maker, { marketHash, tick: 480, size: 60n * USDC, clientOrderId: 'mk-1' });
    expect(made).toMatchObject({ status: 'SUBMITTED', clientOrderId: 'mk-1' });
    expect(made.orderId).toMatch(/^0x[0-9a-f]{64}$/);
    expect(made.commandId).toMatch(/^[0-9a-f-]{36}$/);
    expect(made.outcome).toEqual({
      state: 'RESTED',
      remainingAmount: (60n * USDC).toString(),
      fillAmount: '0',
      blendedOdds: '0',
      matchIds: [],
      tradeId: null,
    });

    const book = (
      await t.app.inject({ method: 'GET', url: `/orderbook-v3/snapshot?marketHash=${marketHash}` })
    ).json().data;
    expect(book).toMatchObject({
      marketHash,
      eventId,
      outcomeOne: [{ percentageOdds: tickToOdds(480).toString(), size: (60n * USDC).toString() }],
      outcomeTwo: [],
    });
    const takerView = (
      await t.app.inject({
        method: 'GET',
        url: `/orderbook-v3/snapshot?marketHash=${marketHash}&showTakerPerspective=true`,
      })
    ).json().data;
    // A taker on outcome two gets 40 % and can stake up to 40 USDC against it.
    expect(takerView.outcomeTwo).toEqual([
      { percentageOdds: tickToOdds(320).toString(), size: (40n * USDC).toString() },
    ]);
    expect(BigInt(takerView.version)).toBe(BigInt(book.version));

    // Taker bets outcome two, willing to pay up to 45 %, stakes 20 USDC: it trades at 40 %.
    const took = await place(t, taker, {
      marketHash,
      tick: 360,
      size: 20n * USDC,
      isOne: false,
      timeInForce: 'IOC',
    });
    expect(took.outcome.state).toBe('FULLY_FILLED');
    expect(took.outcome.fillAmount).toBe((20n * USDC).toString());
    expect(took.outcome.remainingAmount).toBe('0');
    expect(BigInt(took.outcome.blendedOdds)).toBe((ODDS_SCALE * 40n) / 100n);
    expect(took.outcome.matchIds).toHaveLength(1);
    expect(took.outcome.tradeId).toMatch(/^0x[0-9a-f]{64}$/);

    const after = (
      await t.app.inject({ method: 'GET', url: `/orderbook-v3/snapshot?marketHash=${marketHash}` })
    ).json().data;
    expect(after.outcomeOne).toEqual([
      { percentageOdds: tickToOdds(480).toString(), size: (30n * USDC).toString() },
    ]);
    expect(BigInt(after.version)).toBeGreaterThan(BigInt(book.version));

    const makerOrder = (
      await t.app.inject({ method: 'GET', url: `/orders-v3/${made.orderId}`, headers: maker.headers })
    ).json().data;
    expect(makerOrder).toMatchObject({
      id: made.orderId,
      status: 'ACTIVE',
      remainingSize: (30n * USDC).toString(),
      fillAmount: (30n * USDC).toString(),
      userAddress: maker.address,
      wallet: t.exchange.wallets.proxyAddress(maker.address),
      inactiveReason: null,
      eventId,
    });

    // Both stakes moved to escrow: the maker's 30, the taker's 20.
    const balance = async (user: typeof maker) =>
      (await t.app.inject({ method: 'GET', url: '/user/balance-v3', headers: user.headers })).json().data
        .balances[0];
    expect(await balance(maker)).toMatchObject({
      availableAmount: (970n * USDC).toString(),
      escrowedAmount: (30n * USDC).toString(),
    });
    expect(await balance(taker)).toMatchObject({
      availableAmount: (980n * USDC).toString(),
      escrowedAmount: (20n * USDC).toString(),
    });

    const fills = (await t.app.inject({ method: 'GET', url: '/fills-v3', headers: taker.headers })).json()
      .data.fills;
    expect(fills).toHaveLength(1);
    expect(fills[0]).toMatchObject({
      orderId: took.orderId,
      tradeId: took.outcome.tradeId,
      marketHash,
      isBettingOutcomeOne: false,
      isMaker: false,
      fillAmount: (20n * USDC).toString(),
      fillOdds: tickToOdds(320).toString(),
    });

    // The escrow lands in a block: fills and trades become LOCKED.
    const trades = await until(
      async () =>
        (await t.app.inject({ method: 'GET', url: '/trades-v3', headers: taker.headers })).json().data.trades,
      (rows) => rows[0]?.status === 'LOCKED',
    );
    expect(trades[0]).toMatchObject({
      tradeId: took.outcome.tradeId,
      stake: (20n * USDC).toString(),
      potentialPayout: (50n * USDC).toString(),
    });

    const tape = (
      await t.app.inject({ method: 'GET', url: `/trades-v3/public?marketHash=${marketHash}` })
    ).json().data.trades;
    expect(tape).toEqual([
      expect.objectContaining({
        marketHash,
        totalStake: (20n * USDC).toString(),
        totalReturn: (50n * USDC).toString(),
      }),
    ]);
    expect(JSON.stringify(tape)).not.toContain(taker.address.slice(2).toLowerCase());

    // Outcome two wins: the taker gets the 50 pot; the maker's open remainder is cancelled.
    const resolved = await t.app.inject({
      method: 'POST',
      url: `/admin/markets/${marketHash}/resolve`,
      headers: t.admin,
      payload: { outcome: 2 },
    });
    expect(resolved.statusCode).toBe(200);
    expect(resolved.json().data).toMatchObject({ status: 'INACTIVE', outcome: 2 });
    expect(await balance(taker)).toMatchObject({
      availableAmount: (1030n * USDC).toString(),
      escrowedAmount: '0',
    });
    expect(await balance(maker)).toMatchObject({
      availableAmount: (970n * USDC).toString(),
      escrowedAmount: '0',
    });
    // The taker's trade shows SETTLED once its payout landed on the chain (the balance has it at once).
    await t.settled();
    const settled = (await t.app.inject({ method: 'GET', url: '/trades-v3', headers: taker.headers })).json()
      .data.trades[0];
    expect(settled).toMatchObject({
      status: 'SETTLED',
      settlement: { outcome: 2, payout: (50n * USDC).toString() },
    });
    const settledFills = (
      await t.app.inject({ method: 'GET', url: '/fills-v3', headers: maker.headers })
    ).json().data.fills;
    expect(settledFills.length).toBeGreaterThan(0);
    for (const fill of settledFills) expect(fill.status).toBe('SETTLED');
    const closed = (
      await t.app.inject({ method: 'GET', url: `/orders-v3/${made.orderId}`, headers: maker.headers })
    ).json().data;
    expect(closed).toMatchObject({ status: 'INACTIVE', inactiveReason: 'EVENT_LIFECYCLE' });
    const again = await t.app.inject({
      method: 'POST',
      url: `/admin/markets/${marketHash}/resolve`,
      headers: t.admin,
      payload: { outcome: 1 },
    });
    expect(again.statusCode).toBe(409);

    // The chain agrees: each proxy holds exactly its available balance after the payout lands.
    await until(
      () => t.exchange.chain.balanceOf(t.exchange.wallets.proxyAddress(taker.address)),
      (v) => v === 1030n * USDC,
    );
  });

  it('answers IOC and FOK outcomes: partial, no liquidity, all or nothing', async () => {
    const { marketHash } = await createMarket(t);
    const maker = await createTrader(t);
    const taker = await createTrader(t);
    await place(t, maker, { marketHash, tick: 400, size: 10n * USDC });

    // 37.5 % + 50 % < 100 %: nothing crosses.
    const none = await place(t, taker, {
      marketHash,
      tick: 300,
      size: 5n * USDC,
      isOne: false,
      timeInForce: 'IOC',
    });
    expect(none.outcome).toMatchObject({ state: 'CANCELLED', cancelReason: 'NO_LIQUIDITY', fillAmount: '0' });

    const fok = await place(t, taker, {
      marketHash,
      tick: 400,
      size: 20n * USDC,
      isOne: false,
      timeInForce: 'FOK',
    });
    expect(fok.outcome).toMatchObject({ state: 'CANCELLED', fillAmount: '0' });

    const partial = await place(t, taker, {
      marketHash,
      tick: 400,
      size: 15n * USDC,
      isOne: false,
      timeInForce: 'IOC',
    });
    // The maker's 10 at 50 % is worth 10 of taker stake: the taker gets 10 of its 15.
    expect(partial.outcome).toMatchObject({
      state: 'PARTIAL_FILL_DONE',
      fillAmount: (10n * USDC).toString(),
      remainingAmount: (5n * USDC).toString(),
      cancelReason: 'NO_LIQUIDITY',
    });
  });

  it('fills a GTC taker partly and rests the rest', async () => {
    const { marketHash } = await createMarket(t);
    const maker = await createTrader(t);
    const taker = await createTrader(t);
    await place(t, maker, { marketHash, tick: 400, size: 4n * USDC });
    const result = await place(t, taker, { marketHash, tick: 600, size: 10n * USDC, isOne: false });
    // The maker's 4 at 50 % takes 4 of the taker's 10; 6 rest at the taker's own 75 %.
    expect(result.outcome).toMatchObject({
      state: 'PARTIAL_FILL_RESTED',
      fillAmount: (4n * USDC).toString(),
      remainingAmount: (6n * USDC).toString(),
    });
    const list = (await t.app.inject({ method: 'GET', url: '/orders-v3', headers: taker.headers })).json()
      .data.orders;
    expect(list).toEqual([
      expect.objectContaining({
        id: result.orderId,
        status: 'ACTIVE',
        remainingSize: (6n * USDC).toString(),
      }),
    ]);
  });

  it('accepts asynchronously without waitForOutcome and reports the order later', async () => {
    const { marketHash } = await createMarket(t);
    const maker = await createTrader(t);
    const response = await postOrders(t, maker, [
      await signOrder(t, maker, { marketHash, tick: 420, size: 5n * USDC }),
    ]);
    const [result] = response.json().data.orders;
    expect(result.status).toBe('SUBMITTED');
    expect(result.outcome).toBeUndefined();
    const row = (
      await t.app.inject({ method: 'GET', url: `/orders-v3/${result.orderId}`, headers: maker.headers })
    ).json().data;
    expect(row.status).toBe('ACTIVE');
  });

  it('honest liquidity: refuses what a maker cannot pay, and pulls its newest order when a take spends it', async () => {
    const { marketHash } = await createMarket(t);
    const other = await createMarket(t);
    const unfunded = await createTrader(t, 0n);
    const refused = await place(t, unfunded, { marketHash, tick: 500, size: 100_000n * USDC });
    expect(refused).toMatchObject({ status: 'FAILED', reason: 'INSUFFICIENT_BALANCE' });
    expect(refused.outcome).toBeUndefined();

    const maker = await createTrader(t, 100n * USDC);
    const sixty = await place(t, maker, { marketHash, tick: 500, size: 60n * USDC });
    const forty = await place(t, maker, { marketHash, tick: 440, size: 40n * USDC });
    expect([sixty.outcome.state, forty.outcome.state]).toEqual(['RESTED', 'RESTED']);
    const third = await place(t, maker, { marketHash, tick: 400, size: 1n * USDC });
    expect(third).toMatchObject({ status: 'FAILED', reason: 'INSUFFICIENT_BALANCE' });
    const balance = async () =>
      (await t.app.inject({ method: 'GET', url: '/user/balance-v3', headers: maker.headers })).json().data
        .balances[0];
    expect(await balance()).toMatchObject({
      availableAmount: (100n * USDC).toString(),
      escrowedAmount: '0',
      exposureAmount: (100n * USDC).toString(),
    });

    // The maker takes 30 elsewhere: 70 left, so its newest order (the 40) leaves the book.
    const layer = await createTrader(t);
    await place(t, layer, { marketHash: other.marketHash, tick: 400, size: 30n * USDC, isOne: false });
    const take = await place(t, maker, {
      marketHash: other.marketHash,
      tick: 400,
      size: 30n * USDC,
      timeInForce: 'IOC',
    });
    expect(take.outcome.state).toBe('FULLY_FILLED');
    const pulled = (
      await t.app.inject({ method: 'GET', url: `/orders-v3/${forty.orderId}`, headers: maker.headers })
    ).json().data;
    expect(pulled).toMatchObject({ status: 'INACTIVE', inactiveReason: 'INSUFFICIENT_BALANCE' });
    expect(await balance()).toMatchObject({
      availableAmount: (70n * USDC).toString(),
      escrowedAmount: (30n * USDC).toString(),
      exposureAmount: (60n * USDC).toString(),
    });
    const book = (
      await t.app.inject({ method: 'GET', url: `/orderbook-v3/snapshot?marketHash=${marketHash}` })
    ).json().data;
    expect(book.outcomeOne).toEqual([
      { percentageOdds: tickToOdds(500).toString(), size: (60n * USDC).toString() },
    ]);
  });

  it('voids a market: both stakes go back and nothing else moves', async () => {
    const { marketHash } = await createMarket(t);
    const maker = await createTrader(t, 100n * USDC);
    const taker = await createTrader(t, 100n * USDC);
    await place(t, maker, { marketHash, tick: 600, size: 30n * USDC });
    const took = await place(t, taker, {
      marketHash,
      tick: 200,
      size: 10n * USDC,
      isOne: false,
      timeInForce: 'FOK',
    });
    expect(took.outcome.state).toBe('FULLY_FILLED');
    const resolved = await t.app.inject({
      method: 'POST',
      url: `/admin/markets/${marketHash}/resolve`,
      headers: t.admin,
      payload: { outcome: 0 },
    });
    expect(resolved.json().data.outcome).toBe(0);
    await t.settled();
    for (const user of [maker, taker]) {
      const [balance] = (
        await t.app.inject({ method: 'GET', url: '/user/balance-v3', headers: user.headers })
      ).json().data.balances;
      expect(balance).toMatchObject({ availableAmount: (100n * USDC).toString(), escrowedAmount: '0' });
      const [trade] = (await t.app.inject({ method: 'GET', url: '/trades-v3', headers: user.headers })).json()
        .data.trades;
      expect(trade.settlement).toEqual({ outcome: 0, payout: trade.stake });
    }
    const bad = await t.app.inject({
      method: 'POST',
      url: `/admin/markets/${marketHash}/resolve`,
      headers: t.admin,
      payload: { outcome: 3 },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toEqual(['body/outcome must be <= 2']);
    const text = await t.app.inject({
      method: 'POST',
      url: `/admin/markets/${marketHash}/resolve`,
      headers: t.admin,
      payload: { outcome: '2' },
    });
    expect(text.json()).toMatchObject({ statusCode: 400, message: ['body/outcome must be integer'] });
    const unknown = await t.app.inject({
      method: 'POST',
      url: `/admin/markets/0x${'cd'.repeat(32)}/resolve`,
      headers: t.admin,
      payload: { outcome: 1 },
    });
    expect(unknown.statusCode).toBe(404);
  });
});
