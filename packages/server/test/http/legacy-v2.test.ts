import { ODDS_SCALE, tickToOdds } from '@oddsbook/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  nowSeconds,
  postV2Orders,
  signV2Cancel,
  signV2Fill,
  signV2Order,
  v2Metadata,
} from '../helpers/legacy.js';
import {
  removeDataDir,
  startTestExchange,
  type TestExchange,
  type TestUser,
} from '../helpers/test-exchange.js';
import { createMarket, createTrader, place, USDC, until } from '../helpers/trading.js';

/** The exchange's clock: real time plus an offset the tests move across the dates. */
const offset = { ms: 0 };
const clock = { now: () => Date.now() + offset.ms };

describe('the legacy v2 API before V2_CUTOVER_AT: v2 and v3 on the same books', () => {
  let t: TestExchange;
  let maker: TestUser;
  let taker: TestUser;
  let marketHash: `0x${string}`;
  let eventId: string;

  beforeAll(async () => {
    const start = Math.floor(Date.now() / 1000);
    t = await startTestExchange({
      clock,
      env: {
        V2_CUTOVER_AT: String(start + 3_600),
        V2_HISTORY_REMOVED_AT: String(start + 7_200),
        LEGACY_WS_SHUTDOWN_AT: String(start + 1_800),
      },
    });
    maker = await createTrader(t, 1_000n * USDC);
    taker = await createTrader(t, 1_000n * USDC);
    ({ marketHash, eventId } = await createMarket(t));
  });
  afterAll(async () => {
    await t.close();
    removeDataDir(t.dataDir);
  });

  const balance = async (user: TestUser) =>
    (await t.app.inject({ method: 'GET', url: '/user/balance-v3', headers: user.headers })).json().data
      .balances[0] as { availableAmount: string; escrowedAmount: string };

  it('GET /metadata gives the executor, the fill hasher and the domain version v2 bots sign with', async () => {
    const metadata = await v2Metadata(t);
    expect(metadata.executorAddress).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(metadata.EIP712FillHasher).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(metadata.domainVersion).toBe('6.0');
    expect(metadata.chainId).toBe(t.config.chainId);
  });

  it('a v2 maker order rests where a v3 taker fills it, and its money moves as any order’s', async () => {
    // Maker bets outcome one at 60 % with 60 USDC: a taker of outcome two pays 40 % of the pot.
    const { orderHash, order } = await signV2Order(t, maker, { marketHash, tick: 480, size: 60n * USDC });
    const posted = await postV2Orders(t, [order]);
    expect(posted.statusCode, posted.body).toBe(200);
    expect(posted.json()).toEqual({
      status: 'success',
      data: { orders: [orderHash], statuses: { [orderHash]: 'OK' }, inserted: 1 },
    });
    const listed = await until(
      async () => (await t.app.inject({ method: 'GET', url: `/orders?maker=${maker.address}` })).json(),
      (body) => body.data?.length === 1,
    );
    expect(listed.data[0]).toMatchObject({
      orderHash,
      maker: maker.address,
      totalBetSize: '60000000',
      fillAmount: '0',
      pendingFillAmount: '0',
      expiry: 2209006800,
      apiExpiry: order.apiExpiry,
      salt: order.salt,
      signature: order.signature,
      sportXeventId: eventId,
      orderStatus: 'ACTIVE',
    });

    const fill = await place(t, taker, {
      marketHash,
      tick: 320,
      size: 20n * USDC,
      isOne: false,
      timeInForce: 'IOC',
    });
    expect(fill.outcome).toMatchObject({ state: 'FULLY_FILLED', fillAmount: '20000000' });
    const after = await until(
      async () => (await t.app.inject({ method: 'GET', url: `/orders?marketHashes=${marketHash}` })).json(),
      (body) => body.data?.[0]?.fillAmount === '30000000',
    );
    expect(after.data[0].orderHash).toBe(orderHash);
    expect(await balance(maker)).toMatchObject({ availableAmount: '970000000', escrowedAmount: '30000000' });
  });

  it('a v2 taker fill takes v3 and v2 makers at desiredOdds within oddsSlippage, weighted-average rule', async () => {
    // Book for a taker of outcome two: the v2 maker's 30 USDC left at 40 %, and a v3 maker at 45 % (55 % one).
    await place(t, maker, { marketHash, tick: 440, size: 55n * USDC });
    const before = await balance(taker);
    // desired 40 %, slippage 5 %: bound 42.1 %: all of the 40 % level (20 stake, pot 50) and of the 45 % level
    // x with (20 + x) / (50 + x / 0.45) <= 0.421: about 25.
    const body = await signV2Fill(t, taker, {
      marketHash,
      stake: 100n * USDC,
      desiredOdds: tickToOdds(320),
      oddsSlippage: 5,
      isOne: false,
    });
    const response = await t.app.inject({ method: 'POST', url: '/orders/fill/v2', payload: body });
    expect(response.statusCode, response.body).toBe(200);
    const data = response.json().data;
    expect(data.fillHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(data.isPartialFill).toBe(true);
    const filled = BigInt(data.totalFilled);
    expect(filled > 20n * USDC && filled < 50n * USDC).toBe(true);
    const bound = (tickToOdds(320) * 100n) / 95n;
    expect(BigInt(data.averageOdds) <= bound).toBe(true);
    expect(BigInt(data.averageOdds) > tickToOdds(320)).toBe(true);
    const after = await balance(taker);
    expect(BigInt(before.availableAmount) - BigInt(after.availableAmount)).toBe(filled);

    // The same signed fill again: refused, nothing moves.
    const replay = await t.app.inject({ method: 'POST', url: '/orders/fill/v2', payload: body });
    expect(replay.statusCode).toBe(400);
    expect(replay.json()).toEqual({ status: 'failure', errorCode: 'FILL_ALREADY_SUBMITTED' });
  });

  it('refuses bad fills in the legacy shape', async () => {
    const good = await signV2Fill(t, taker, {
      marketHash,
      stake: 10n * USDC,
      desiredOdds: tickToOdds(300),
      isOne: false,
    });
    const cases: [Record<string, unknown>, string][] = [
      [{ ...good, oddsSlippage: 101 }, 'INVALID_ODDS_SLIPPAGE'],
      [{ ...good, desiredOdds: ODDS_SCALE.toString() }, 'INVALID_ODDS'],
      [{ ...good, stakeWei: '11000000' }, 'TAKER_SIGNATURE_MISMATCH'],
      [{ ...good, taker: maker.address }, 'TAKER_SIGNATURE_MISMATCH'],
      [{ ...good, baseToken: maker.address }, 'BAD_BASE_TOKEN'],
      [{ ...good, stakeWei: 'ten' }, 'BAD_BODY'],
      [{ ...good, market: `0x${'00'.repeat(32)}` }, 'TAKER_SIGNATURE_MISMATCH'],
    ];
    for (const [payload, errorCode] of cases) {
      const response = await t.app.inject({ method: 'POST', url: '/orders/fill/v2', payload });
      expect({ status: response.statusCode, body: response.json() }).toEqual({
        status: 400,
        body: { status: 'failure', errorCode },
      });
    }
    // A market that does not exist, signed properly.
    const nowhere = await signV2Fill(t, taker, {
      marketHash: `0x${'11'.repeat(32)}`,
      stake: 10n * USDC,
      desiredOdds: tickToOdds(300),
    });
    const response = await t.app.inject({ method: 'POST', url: '/orders/fill/v2', payload: nowhere });
    expect(response.json()).toEqual({ status: 'failure', errorCode: 'MATCH_STATE_INVALID' });
    // Nothing within the bound: INSUFFICIENT_SPACE, and no money moved.
    const before = await balance(taker);
    const far = await signV2Fill(t, taker, {
      marketHash,
      stake: 10n * USDC,
      desiredOdds: tickToOdds(100),
      isOne: false,
    });
    const none = await t.app.inject({ method: 'POST', url: '/orders/fill/v2', payload: far });
    expect(none.json()).toEqual({ status: 'failure', errorCode: 'INSUFFICIENT_SPACE' });
    expect(await balance(taker)).toEqual(before);
  });

  it('refuses bad maker orders in the legacy shape, per request or per order', async () => {
    const one = await signV2Order(t, maker, { marketHash, tick: 400, size: 20n * USDC });
    const cases: [unknown, string][] = [
      [{ ...one.order, expiry: one.order.apiExpiry }, 'INVALID_EXPIRY'],
      [{ ...one.order, executor: maker.address }, 'INVALID_EXECUTOR'],
      [{ ...one.order, totalBetSize: '20000001' }, 'MAKER_SIGNATURE_MISMATCH'],
      [{ ...one.order, baseToken: maker.address }, 'BAD_BASE_TOKEN'],
      [{ ...one.order, percentageOdds: '50000000000000000001' }, 'ODDS_NOT_ON_LADDER'],
      [{ ...one.order, apiExpiry: nowSeconds(t) - 10 }, 'INVALID_EXPIRY'],
      [{ ...one.order, signature: '0x12' }, 'BAD_BODY'],
    ];
    for (const [order, errorCode] of cases) {
      const response = await postV2Orders(t, [order]);
      expect({ status: response.statusCode, body: response.json() }).toEqual({
        status: 400,
        body: { status: 'failure', errorCode },
      });
    }
    const markets = await Promise.all([1, 2, 3].map(() => createMarket(t)));
    const four = await Promise.all(
      [marketHash, ...markets.map((m) => m.marketHash)].map((m) =>
        signV2Order(t, maker, { marketHash: m, tick: 400, size: 20n * USDC }),
      ),
    );
    const tooMany = await postV2Orders(
      t,
      four.map((o) => o.order),
    );
    expect(tooMany.json()).toEqual({ status: 'failure', errorCode: 'TOO_MANY_DIFFERENT_MARKETS' });
    // Per order: an unknown market, a duplicate, and one beyond the maker's money.
    const unknown = await signV2Order(t, maker, {
      marketHash: `0x${'22'.repeat(32)}`,
      tick: 400,
      size: 20n * USDC,
    });
    const rich = await signV2Order(t, maker, { marketHash, tick: 400, size: 100_000n * USDC });
    const first = await postV2Orders(t, [one.order]);
    expect(first.json().data.statuses).toEqual({ [one.orderHash]: 'OK' });
    const mixed = await postV2Orders(t, [unknown.order, one.order, rich.order]);
    expect(mixed.json().data).toEqual({
      orders: [unknown.orderHash, one.orderHash, rich.orderHash],
      statuses: {
        [unknown.orderHash]: 'INVALID_MARKET',
        [one.orderHash]: 'ORDERS_ALREADY_EXIST',
        [rich.orderHash]: 'INSUFFICIENT_BALANCE',
      },
      inserted: 0,
    });
    const malformed = await t.app.inject({
      method: 'POST',
      url: '/orders/new',
      headers: { 'content-type': 'application/json' },
      payload: '{"orders": [',
    });
    expect(malformed.json()).toEqual({ status: 'failure', errorCode: 'MALFORMED_JSON' });
    const empty = await postV2Orders(t, []);
    expect(empty.json()).toEqual({ status: 'failure', errorCode: 'BAD_BODY' });
  });

  it('the three v2 cancels: by hash, by event, all; a replayed salt is refused', async () => {
    const a = await signV2Order(t, maker, { marketHash, tick: 380, size: 20n * USDC });
    const b = await signV2Order(t, maker, { marketHash, tick: 370, size: 20n * USDC });
    expect((await postV2Orders(t, [a.order, b.order])).json().data.inserted).toBe(2);
    const missing = `0x${'33'.repeat(32)}`;
    const byHash = await signV2Cancel(t, maker, {
      kind: 'orders',
      orderHashes: [a.orderHash, missing],
      timestamp: nowSeconds(t),
    });
    const cancelled = await t.app.inject({ method: 'POST', url: '/orders/cancel/v2', payload: byHash });
    expect(cancelled.json()).toEqual({
      status: 'success',
      data: {
        cancelledCount: 1,
        orders: [{ orderHash: a.orderHash, pendingFills: [] }],
        notCancelled: [{ orderHash: missing, reason: 'not_found_or_inactive' }],
      },
    });
    const replay = await t.app.inject({ method: 'POST', url: '/orders/cancel/v2', payload: byHash });
    expect(replay.json()).toEqual({ status: 'failure', errorCode: 'CANCEL_REQUEST_ALREADY_PROCESSED' });
    const forged = await signV2Cancel(t, taker, { kind: 'all', timestamp: nowSeconds(t) });
    const wrongMaker = await t.app.inject({
      method: 'POST',
      url: '/orders/cancel/all',
      payload: { ...forged, maker: maker.address },
    });
    expect(wrongMaker.json()).toEqual({ status: 'failure', errorCode: 'MAKER_SIGNATURE_MISMATCH' });
    const stale = await signV2Cancel(t, maker, { kind: 'all', timestamp: nowSeconds(t) - 3_600 });
    expect(
      (await t.app.inject({ method: 'POST', url: '/orders/cancel/all', payload: stale })).json(),
    ).toEqual({
      status: 'failure',
      errorCode: 'STALE_CANCEL_TIMESTAMP',
    });

    const byEvent = await signV2Cancel(t, maker, {
      kind: 'event',
      sportXeventId: eventId,
      timestamp: nowSeconds(t),
    });
    const event = await t.app.inject({ method: 'POST', url: '/orders/cancel/event', payload: byEvent });
    // b and the v3 maker order of the weighted-average test are the maker's open orders on the event.
    expect(event.json().data.cancelledCount).toBeGreaterThanOrEqual(2);
    expect(event.json().data.orders.map((o: { orderHash: string }) => o.orderHash)).toContain(b.orderHash);

    const c = await signV2Order(t, maker, { marketHash, tick: 360, size: 20n * USDC });
    await postV2Orders(t, [c.order]);
    const all = await signV2Cancel(t, maker, { kind: 'all', timestamp: nowSeconds(t) });
    const everything = await t.app.inject({ method: 'POST', url: '/orders/cancel/all', payload: all });
    expect(everything.json().data.orders.map((o: { orderHash: string }) => o.orderHash)).toContain(
      c.orderHash,
    );
    const nothing = await signV2Cancel(t, maker, { kind: 'all', timestamp: nowSeconds(t) });
    expect(
      (await t.app.inject({ method: 'POST', url: '/orders/cancel/all', payload: nothing })).json().data,
    ).toEqual({
      cancelledCount: 0,
      orders: [],
      notCancelled: [],
    });
  });

  it('GET /orders filter rules, GET /orders/odds/best', async () => {
    const ask = async (query: string) =>
      (await t.app.inject({ method: 'GET', url: `/orders${query}` })).json();
    expect(await ask('')).toEqual({ status: 'failure', errorCode: 'MARKET_HASHES_OR_MAKER_REQUIRED' });
    expect(await ask(`?marketHashes=${marketHash}&sportXeventId=${eventId}`)).toEqual({
      status: 'failure',
      errorCode: 'BOTH_SPORTXEVENTID_MARKETHASHES_PRESENT',
    });
    const many = Array.from({ length: 1_001 }, (_, i) => `0x${i.toString(16).padStart(64, '0')}`).join(',');
    expect(await ask(`?marketHashes=${many}`)).toEqual({
      status: 'failure',
      errorCode: 'RATE_LIMIT_ORDER_REQUEST_MARKET_COUNT',
    });
    expect(await ask('?marketHashes=nothex')).toEqual({ status: 'failure', errorCode: 'BAD_BODY' });
    expect(await ask(`?maker=${maker.address}&baseToken=${maker.address}`)).toEqual({
      status: 'success',
      data: [],
    });

    const v3 = await place(t, taker, { marketHash, tick: 500, size: 10n * USDC, isOne: false });
    const best = await until(
      async () =>
        (
          await t.app.inject({
            method: 'GET',
            url: `/orders/odds/best?marketHashes=${marketHash}&baseToken=${t.config.baseToken}`,
          })
        ).json(),
      (body) => body.data?.bestOdds?.[0]?.outcomeTwo !== null,
    );
    expect(best.data.bestOdds[0]).toMatchObject({
      marketHash,
      baseToken: t.config.baseToken,
      outcomeTwo: { percentageOdds: tickToOdds(500).toString() },
    });
    const v3Rows = await ask(`?marketHashes=${marketHash}`);
    expect(v3Rows.data.map((o: { orderHash: string }) => o.orderHash)).toContain(v3.orderId);
    const noFilter = await t.app.inject({
      method: 'GET',
      url: `/orders/odds/best?baseToken=${t.config.baseToken}`,
    });
    expect(noFilter.json()).toEqual({ status: 'failure', errorCode: 'BAD_BODY' });
  });

  it('GET /trades needs a filter; /trades/orders and /trades/consolidated show the v2 bets', async () => {
    const none = await t.app.inject({ method: 'GET', url: '/trades' });
    expect(none.json()).toEqual({ status: 'failure', errorCode: 'TRADES_FILTER_REQUIRED' });
    const mine = await until(
      async () => (await t.app.inject({ method: 'GET', url: `/trades?bettor=${taker.address}` })).json(),
      (body) => body.data?.trades?.length >= 2,
    );
    for (const trade of mine.data.trades) {
      expect(trade).toMatchObject({ bettor: taker.address, maker: false, isQuarterLineLeg: false });
      expect(trade).not.toHaveProperty('quarterLineParentMarketHash');
    }
    const byMarket = await t.app.inject({
      method: 'GET',
      url: `/trades?marketHashes=${marketHash}&pageSize=1`,
    });
    expect(byMarket.json().data).toMatchObject({ pageSize: 1, count: 1 });
    expect(byMarket.json().data.nextKey).toEqual(expect.any(String));
    const orderHash = mine.data.trades[0].orderHash;
    const ofOrder = await t.app.inject({ method: 'GET', url: `/trades/orders?orderHashes=${orderHash}` });
    expect(ofOrder.json().data.trades.map((r: { orderHash: string }) => r.orderHash)).toEqual([orderHash]);
    const consolidated = await t.app.inject({
      method: 'GET',
      url: `/trades/consolidated?bettor=${taker.address}`,
    });
    expect(consolidated.json().data.trades.length).toBeGreaterThanOrEqual(2);
    const badKey = await t.app.inject({
      method: 'GET',
      url: `/trades?bettor=${taker.address}&paginationKey=nope`,
    });
    expect(badKey.json()).toEqual({ status: 'failure', errorCode: 'BAD_PAGINATION_KEY' });
  });
});

describe('the dates, driven by the clock: before, at and after each', () => {
  let t: TestExchange;
  let maker: TestUser;
  let v3Maker: TestUser;
  let marketHash: `0x${string}`;
  let start: number;

  beforeAll(async () => {
    offset.ms = 0;
    start = Math.floor(Date.now() / 1000);
    t = await startTestExchange({
      clock,
      env: {
        V2_CUTOVER_AT: String(start + 3_600),
        V2_HISTORY_REMOVED_AT: String(start + 7_200),
        LEGACY_WS_SHUTDOWN_AT: String(start + 1_800),
      },
    });
    maker = await createTrader(t, 100n * USDC);
    v3Maker = await createTrader(t, 100n * USDC);
    ({ marketHash } = await createMarket(t));
  });
  afterAll(async () => {
    offset.ms = 0;
    await t.close();
    removeDataDir(t.dataDir);
  });

  const routes = async () => {
    const cancel = await signV2Cancel(t, maker, { kind: 'all', timestamp: nowSeconds(t) });
    const calls = [
      { method: 'GET', url: '/metadata' },
      { method: 'POST', url: '/orders/new', payload: { orders: [] } },
      { method: 'POST', url: '/orders/fill/v2', payload: {} },
      { method: 'POST', url: '/orders/cancel/v2', payload: cancel },
      { method: 'POST', url: '/orders/cancel/event', payload: cancel },
      { method: 'POST', url: '/orders/cancel/all', payload: cancel },
      { method: 'GET', url: `/orders?marketHashes=${marketHash}` },
      { method: 'GET', url: `/orders/odds/best?marketHashes=${marketHash}&baseToken=${t.config.baseToken}` },
    ] as const;
    return Promise.all(calls.map((call) => t.app.inject(call)));
  };

  it('cancels the resting v2 orders at the cut-over (V2_CUTOVER), leaves v3 alone, then refuses every v2 order route', async () => {
    const v2 = await signV2Order(t, maker, { marketHash, tick: 400, size: 40n * USDC });
    expect((await postV2Orders(t, [v2.order])).json().data.inserted).toBe(1);
    // Its expiry well past every date the clock is moved to (the default, an hour of real time, is the cut-over).
    const expiry = start + 7 * 24 * 3_600;
    const v3 = await place(t, v3Maker, { marketHash, tick: 300, size: 30n * USDC, expiry });
    expect(v3.outcome.state).toBe('RESTED');

    // A second before the cut-over: still open.
    offset.ms = (start + 3_599) * 1000 - Date.now();
    expect((await t.app.inject({ method: 'GET', url: '/metadata' })).statusCode).toBe(200);
    await new Promise((r) => setTimeout(r, 150));
    const stillResting = await t.app.inject({
      method: 'GET',
      url: `/orders-v3/${v2.orderHash}`,
      headers: maker.headers,
    });
    expect(stillResting.json().data).toMatchObject({ status: 'ACTIVE', inactiveReason: null });

    // At the cut-over: one journaled cancel of every v2 order.
    offset.ms = (start + 3_600) * 1000 - Date.now();
    const cancelled = await until(
      async () =>
        (
          await t.app.inject({ method: 'GET', url: `/orders-v3/${v2.orderHash}`, headers: maker.headers })
        ).json().data,
      (row) => row.status === 'INACTIVE',
    );
    expect(cancelled.inactiveReason).toBe('V2_CUTOVER');
    const v3Row = await t.app.inject({
      method: 'GET',
      url: `/orders-v3/${v3.orderId}`,
      headers: v3Maker.headers,
    });
    expect(v3Row.json().data).toMatchObject({ status: 'ACTIVE', inactiveReason: null });
    const balance = await t.app.inject({ method: 'GET', url: '/user/balance-v3', headers: maker.headers });
    expect(balance.json().data.balances[0]).toMatchObject({
      availableAmount: '100000000',
      escrowedAmount: '0',
    });

    for (const response of await routes()) {
      expect({ status: response.statusCode, body: response.json() }).toEqual({
        status: 400,
        body: {
          status: 'failure',
          message: 'OrderBook V2 is no longer supported',
          errorCode: 'V2_NO_LONGER_SUPPORTED',
        },
      });
    }
    // History, market discovery, refunds and the legacy token route keep working.
    const trades = await t.app.inject({ method: 'GET', url: `/trades?bettor=${maker.address}` });
    expect(trades.statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/markets/active' })).statusCode).toBe(200);
    const refunds = await t.app.inject({
      method: 'GET',
      url: `/trades/portfolio/refunds?bettor=${maker.address}`,
      headers: maker.headers,
    });
    expect(refunds.statusCode).toBe(200);
    const token = await t.app.inject({
      method: 'GET',
      url: '/user/realtime-token/api-key',
      headers: maker.headers,
    });
    expect(token.statusCode).toBe(200);
    // v3 goes on: the v3 order still fills.
    const taker = await createTrader(t, 100n * USDC);
    const fill = await place(t, taker, {
      marketHash,
      tick: 700,
      size: 10n * USDC,
      isOne: false,
      timeInForce: 'IOC',
      expiry: nowSeconds(t) + 600,
    });
    expect(fill.outcome.state).toBe('FULLY_FILLED');
  });

  it('answers the v2 trade-history routes 404 from V2_HISTORY_REMOVED_AT', async () => {
    offset.ms = (start + 7_199) * 1000 - Date.now();
    const urls = [
      `/trades?bettor=${maker.address}`,
      `/trades/orders?orderHashes=0x${'00'.repeat(32)}`,
      `/trades/consolidated?bettor=${maker.address}`,
    ];
    for (const url of urls) expect((await t.app.inject({ method: 'GET', url })).statusCode).toBe(200);
    offset.ms = (start + 7_200) * 1000 - Date.now();
    for (const url of urls) {
      const response = await t.app.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(404);
      expect(response.json().code).toBe('ROUTE_NOT_FOUND');
    }
    expect((await t.app.inject({ method: 'GET', url: '/markets/active' })).statusCode).toBe(200);
  });

  it('a server started after the cut-over with resting v2 orders cancels them', async () => {
    offset.ms = 0;
    await t.close();
    const dataDir = t.dataDir;
    const env = {
      V2_CUTOVER_AT: String(start + 3_600 * 48),
      V2_HISTORY_REMOVED_AT: String(start + 3_600 * 96),
      LEGACY_WS_SHUTDOWN_AT: String(start),
    };
    t = await startTestExchange({ clock, dataDir, env });
    const v2 = await signV2Order(t, maker, {
      marketHash,
      tick: 410,
      size: 20n * USDC,
      apiExpiry: start + 7 * 86_400,
    });
    expect((await postV2Orders(t, [v2.order])).json().data.inserted).toBe(1);
    await t.close();
    offset.ms = (start + 3_600 * 48) * 1000 - Date.now();
    t = await startTestExchange({ clock, dataDir, env });
    const row = await until(
      async () =>
        (
          await t.app.inject({ method: 'GET', url: `/orders-v3/${v2.orderHash}`, headers: maker.headers })
        ).json().data,
      (r) => r.status === 'INACTIVE',
    );
    expect(row.inactiveReason).toBe('V2_CUTOVER');
  });
});

describe('with the default dates, today', () => {
  it('every v2 order route gives the message and the history routes 404', async () => {
    const t = await startTestExchange();
    try {
      expect(new Date(t.config.v2CutoverAt).toISOString()).toBe('2026-08-26T14:00:00.000Z');
      const order = await t.app.inject({ method: 'POST', url: '/orders/new', payload: { orders: [] } });
      expect(order.json()).toEqual({
        status: 'failure',
        message: 'OrderBook V2 is no longer supported',
        errorCode: 'V2_NO_LONGER_SUPPORTED',
      });
      expect((await t.app.inject({ method: 'GET', url: '/metadata' })).statusCode).toBe(400);
      expect(
        (
          await t.app.inject({
            method: 'GET',
            url: '/trades?bettor=0x0000000000000000000000000000000000000001',
          })
        ).statusCode,
      ).toBe(404);
    } finally {
      await t.close();
      removeDataDir(t.dataDir);
    }
  });
});
