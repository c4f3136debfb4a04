import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDataDir, startTestExchange, type TestExchange } from '../helpers/test-exchange.js';
import { createMarket, createTrader, place, postOrders, signOrder, USDC, until } from '../helpers/trading.js';

describe('orders v3: reads, cancels, heartbeat, expiry, betting delay, restart', () => {
  let t: TestExchange;
  beforeAll(async () => {
    t = await startTestExchange();
  });
  afterAll(async () => {
    await t.close();
    removeDataDir(t.dataDir);
  });

  const get = (url: string, headers: Record<string, string>) => t.app.inject({ method: 'GET', url, headers });

  it('lists open orders with filters, sorting before paging, and an opaque nextKey', async () => {
    const a = await createMarket(t);
    const b = await createMarket(t);
    const user = await createTrader(t);
    const sizes = [7n, 3n, 9n, 1n, 5n];
    for (const [i, size] of sizes.entries()) {
      await place(t, user, {
        marketHash: i % 2 ? b.marketHash : a.marketHash,
        tick: 300 + i,
        size: size * USDC,
      });
    }
    const all = (await get('/orders-v3', user.headers)).json().data;
    expect(all.orders).toHaveLength(5);
    expect(all.nextKey).toBeNull();
    expect(all.orders.map((o: { totalBetSize: string }) => BigInt(o.totalBetSize) / USDC)).toEqual(sizes);

    const bySize = (await get('/orders-v3?sortBy=totalBetSize&sortAsc=false&perPage=2', user.headers)).json()
      .data;
    expect(bySize.orders.map((o: { totalBetSize: string }) => BigInt(o.totalBetSize) / USDC)).toEqual([
      9n,
      7n,
    ]);
    const next = (
      await get(
        `/orders-v3?sortBy=totalBetSize&sortAsc=false&perPage=2&nextKey=${bySize.nextKey}`,
        user.headers,
      )
    ).json().data;
    expect(next.orders.map((o: { totalBetSize: string }) => BigInt(o.totalBetSize) / USDC)).toEqual([5n, 3n]);

    const onB = (await get(`/orders-v3?marketHash=${b.marketHash}`, user.headers)).json().data.orders;
    expect(onB).toHaveLength(2);
    expect((await get(`/orders-v3?eventId=${a.eventId}`, user.headers)).json().data.orders).toHaveLength(3);
    const byEvent = (await get('/orders-v3?sortBy=event', user.headers)).json().data.orders;
    expect(byEvent.map((o: { eventId: string }) => o.eventId)).toEqual(
      [a.eventId, a.eventId, a.eventId, b.eventId, b.eventId].sort(),
    );

    expect((await get('/orders-v3?perPage=101', user.headers)).statusCode).toBe(400);
    expect((await get('/orders-v3?eventId=x', user.headers)).statusCode).toBe(400);
    expect((await get('/orders-v3?nextKey=garbage', user.headers)).json()).toMatchObject({
      statusCode: 400,
      message: expect.stringMatching(/nextKey/),
    });
    const stranger = await createTrader(t, 0n);
    expect((await get('/orders-v3', stranger.headers)).json().data.orders).toEqual([]);
  });

  it('finds an order by client id, including finished ones, and hides foreign or unknown ones', async () => {
    const { marketHash } = await createMarket(t);
    const user = await createTrader(t);
    const other = await createTrader(t);
    const made = await place(t, user, { marketHash, tick: 400, size: 2n * USDC, clientOrderId: 'bot_42-a' });
    await t.app.inject({
      method: 'DELETE',
      url: '/orders-v3',
      headers: user.headers,
      payload: { orders: [{ orderId: made.orderId }] },
    });
    const found = await get('/orders-v3/client/bot_42-a', user.headers);
    expect(found.json().data).toMatchObject({
      id: made.orderId,
      clientOrderId: 'bot_42-a',
      status: 'INACTIVE',
      inactiveReason: 'USER_REQUESTED',
    });
    expect((await get('/orders-v3/client/bot_42-a', other.headers)).statusCode).toBe(404);
    expect((await get('/orders-v3/client/never-set', user.headers)).json()).toEqual({
      message: 'Order not found',
      error: 'Not Found',
      statusCode: 404,
      code: 'ORDER_NOT_FOUND',
    });
    expect((await get('/orders-v3/client/bad%20tag', user.headers)).statusCode).toBe(400);
    expect((await get(`/orders-v3/${made.orderId}`, other.headers)).statusCode).toBe(404);
    expect((await get('/orders-v3/0x1234', user.headers)).statusCode).toBe(400);
  });

  it('cancels by id synchronously: duplicates collapse, foreign and unknown ids are NOT_FOUND', async () => {
    const { marketHash } = await createMarket(t);
    const user = await createTrader(t);
    const other = await createTrader(t);
    const mine = await place(t, user, { marketHash, tick: 400, size: 2n * USDC });
    const theirs = await place(t, other, { marketHash, tick: 401, size: 2n * USDC });
    const unknown = `0x${'12'.repeat(32)}`;
    const response = await t.app.inject({
      method: 'DELETE',
      url: '/orders-v3',
      headers: user.headers,
      payload: {
        orders: [
          { orderId: mine.orderId },
          { orderId: mine.orderId.toUpperCase().replace('0X', '0x') },
          { orderId: theirs.orderId },
          { orderId: unknown },
        ],
      },
    });
    expect(response.statusCode).toBe(200);
    const data = response.json().data;
    expect(data.cancelled).toEqual([
      { orderId: mine.orderId, commandId: expect.stringMatching(/^[0-9a-f-]{36}$/) },
    ]);
    expect(data.notCancelled).toEqual([
      { orderId: theirs.orderId, reason: 'NOT_FOUND' },
      { orderId: unknown, reason: 'NOT_FOUND' },
    ]);
    expect(data.unconfirmed).toEqual([]);
    const again = await t.app.inject({
      method: 'DELETE',
      url: '/orders-v3',
      headers: user.headers,
      payload: { orders: [{ orderId: mine.orderId }] },
    });
    expect(again.json().data.notCancelled).toEqual([{ orderId: mine.orderId, reason: 'NOT_FOUND' }]);
    const empty = await t.app.inject({
      method: 'DELETE',
      url: '/orders-v3',
      headers: user.headers,
      payload: { orders: [] },
    });
    expect(empty.json().data).toEqual({ cancelled: [], notCancelled: [], unconfirmed: [] });
    // Ids are 32-byte hex, as on every other route: anything else is a 400, not echoed as NOT_FOUND.
    for (const orderId of ['abc', '0x12', `0x${'zz'.repeat(32)}`, `${'12'.repeat(33)}`, 'x'.repeat(66)]) {
      const bad = await t.app.inject({
        method: 'DELETE',
        url: '/orders-v3',
        headers: user.headers,
        payload: { orders: [{ orderId: mine.orderId }, { orderId }] },
      });
      expect(bad.statusCode, orderId).toBe(400);
      expect(bad.json()).toMatchObject({ error: 'Bad Request', statusCode: 400 });
      expect(bad.json().message.join(' ')).toMatch(/body\/orders\/1\/orderId must match pattern/);
    }
    const tooMany = Array.from({ length: 101 }, (_, i) => ({
      orderId: `0x${i.toString(16).padStart(64, '0')}`,
    }));
    const refused = await t.app.inject({
      method: 'DELETE',
      url: '/orders-v3',
      headers: user.headers,
      payload: { orders: tooMany },
    });
    expect(refused.statusCode).toBe(400);
    const hundred = [...tooMany.slice(0, 100), ...tooMany.slice(0, 50)];
    expect(
      (
        await t.app.inject({
          method: 'DELETE',
          url: '/orders-v3',
          headers: user.headers,
          payload: { orders: hundred },
        })
      ).statusCode,
    ).toBe(200);
  });

  it('cancels by market, by event and all, for the caller only', async () => {
    const a = await createMarket(t);
    const b = await createMarket(t);
    const user = await createTrader(t);
    const other = await createTrader(t);
    const onA = [
      await place(t, user, { marketHash: a.marketHash, tick: 400, size: 2n * USDC }),
      await place(t, user, { marketHash: a.marketHash, tick: 401, size: 2n * USDC, isOne: false }),
    ];
    const onB = await place(t, user, { marketHash: b.marketHash, tick: 402, size: 2n * USDC });
    const foreign = await place(t, other, { marketHash: a.marketHash, tick: 390, size: 2n * USDC });

    const byMarket = await t.app.inject({
      method: 'DELETE',
      url: `/orders-v3/market?marketHash=${a.marketHash}`,
      headers: user.headers,
    });
    expect(byMarket.json().data).toEqual({
      cancelledSubmitted: expect.arrayContaining(
        onA.map((o) => ({ orderId: o.orderId, commandId: expect.any(String) })),
      ),
      hasMore: false,
    });
    expect(byMarket.json().data.cancelledSubmitted).toHaveLength(2);
    expect(
      (
        await t.app.inject({
          method: 'DELETE',
          url: '/orders-v3/market?marketHash=0x12',
          headers: user.headers,
        })
      ).statusCode,
    ).toBe(400);
    expect((await get(`/orders-v3/${foreign.orderId}`, other.headers)).json().data.status).toBe('ACTIVE');

    const byEvent = await t.app.inject({
      method: 'DELETE',
      url: `/orders-v3/event?eventId=${b.eventId}`,
      headers: user.headers,
    });
    expect(byEvent.json().data.cancelledSubmitted.map((c: { orderId: string }) => c.orderId)).toEqual([
      onB.orderId,
    ]);

    const more = await place(t, user, { marketHash: b.marketHash, tick: 403, size: 2n * USDC });
    const all = await t.app.inject({
      method: 'DELETE',
      url: '/orders-v3/all',
      headers: { ...user.headers, 'content-type': 'application/json' },
    });
    expect(all.statusCode).toBe(200);
    expect(all.json().data.cancelledSubmitted.map((c: { orderId: string }) => c.orderId)).toEqual([
      more.orderId,
    ]);
    expect((await get('/orders-v3', user.headers)).json().data.orders).toEqual([]);
  });

  it('cancels every open order when the heartbeat lapses, and 0 disarms it', async () => {
    const { marketHash } = await createMarket(t);
    const user = await createTrader(t);
    const made = await place(t, user, { marketHash, tick: 400, size: 2n * USDC });
    const armed = await t.app.inject({
      method: 'POST',
      url: '/heartbeat/v3',
      headers: user.headers,
      payload: { timeoutSeconds: 1 },
    });
    expect(armed.statusCode).toBe(200);
    expect(Date.parse(armed.json().data.expiresAt)).toBeGreaterThan(Date.now());
    const row = await until(
      async () => (await get(`/orders-v3/${made.orderId}`, user.headers)).json().data,
      (o) => o.status === 'INACTIVE',
      3_000,
    );
    expect(row.inactiveReason).toBe('HEARTBEAT_TIMEOUT');

    const kept = await place(t, user, { marketHash, tick: 400, size: 2n * USDC });
    await t.app.inject({
      method: 'POST',
      url: '/heartbeat/v3',
      headers: user.headers,
      payload: { timeoutSeconds: 1 },
    });
    const off = await t.app.inject({
      method: 'POST',
      url: '/heartbeat/v3',
      headers: user.headers,
      payload: { timeoutSeconds: 0 },
    });
    expect(off.json().data).toEqual({ timeoutSeconds: 0, expiresAt: null });
    await new Promise((r) => setTimeout(r, 1_500));
    expect((await get(`/orders-v3/${kept.orderId}`, user.headers)).json().data.status).toBe('ACTIVE');

    for (const timeoutSeconds of [-1, 3601, 1.5, '10']) {
      const bad = await t.app.inject({
        method: 'POST',
        url: '/heartbeat/v3',
        headers: user.headers,
        payload: { timeoutSeconds },
      });
      expect(bad.statusCode, String(timeoutSeconds)).toBe(400);
    }
  });

  it('expires a resting order at its expiry', async () => {
    const { marketHash } = await createMarket(t);
    const user = await createTrader(t);
    const made = await place(t, user, {
      marketHash,
      tick: 400,
      size: 2n * USDC,
      // At least 4 s ahead: the rule asks for more than 2 s when the order arrives, and signing and sending
      // it on a busy machine can take a second or more.
      expiry: Math.ceil(Date.now() / 1000) + 4,
    });
    const row = await until(
      async () => (await get(`/orders-v3/${made.orderId}`, user.headers)).json().data,
      (o) => o.status === 'INACTIVE',
      12_000,
    );
    expect(row.inactiveReason).toBe('EXPIRED');
  });

  it('holds an in-play taker for the betting delay, and answers TIMEOUT when the wait is shorter', async () => {
    const { marketHash } = await createMarket(t, { live: true, bettingDelay: 1 });
    const maker = await createTrader(t);
    const taker = await createTrader(t);
    const made = await place(t, maker, {
      marketHash,
      tick: 400,
      size: 10n * USDC,
      expiry: Math.floor(Date.now() / 1000) + 60,
    });
    expect(made.outcome.state).toBe('RESTED');

    const started = Date.now();
    const took = await place(t, taker, {
      marketHash,
      tick: 400,
      size: 4n * USDC,
      isOne: false,
      timeInForce: 'IOC',
      expiry: Math.floor(Date.now() / 1000) + 60,
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(took.outcome.state).toBe('FULLY_FILLED');

    const quick = await postOrders(
      t,
      taker,
      [
        await signOrder(t, taker, {
          marketHash,
          tick: 400,
          size: 1n * USDC,
          isOne: false,
          timeInForce: 'IOC',
          expiry: Math.floor(Date.now() / 1000) + 60,
        }),
      ],
      { waitForOutcome: true, maxWaitTime: 100 },
    );
    const result = quick.json().data.orders[0];
    expect(result.outcome.state).toBe('TIMEOUT');
    expect((await get(`/orders-v3/${result.orderId}`, taker.headers)).json().data.status).toBe('PENDING');
    await until(
      async () => (await get(`/orders-v3/${result.orderId}`, taker.headers)).json().data,
      (o) => o.status === 'INACTIVE' && o.inactiveReason === 'FILLED',
      3_000,
    );

    // A delayed order can be cancelled while it waits.
    const waiting = await postOrders(t, taker, [
      await signOrder(t, taker, {
        marketHash,
        tick: 400,
        size: 1n * USDC,
        isOne: false,
        timeInForce: 'IOC',
        expiry: Math.floor(Date.now() / 1000) + 60,
      }),
    ]);
    const waitingId = waiting.json().data.orders[0].orderId;
    const cancelled = await t.app.inject({
      method: 'DELETE',
      url: '/orders-v3',
      headers: taker.headers,
      payload: { orders: [{ orderId: waitingId }] },
    });
    expect(cancelled.json().data.cancelled).toEqual([{ orderId: waitingId, commandId: expect.any(String) }]);
    await new Promise((r) => setTimeout(r, 1_200));
    expect((await get(`/orders-v3/${waitingId}`, taker.headers)).json().data).toMatchObject({
      status: 'INACTIVE',
      inactiveReason: 'USER_REQUESTED',
      remainingSize: (1n * USDC).toString(),
    });
  });

  it('keeps everything across a restart: books, balances, delayed orders, heartbeat deadlines', async () => {
    const { marketHash } = await createMarket(t, { live: true, bettingDelay: 2 });
    const maker = await createTrader(t);
    const taker = await createTrader(t);
    const expiry = Math.floor(Date.now() / 1000) + 60;
    const made = await place(t, maker, { marketHash, tick: 400, size: 10n * USDC, expiry });
    const pending = await postOrders(t, taker, [
      await signOrder(t, taker, {
        marketHash,
        tick: 400,
        size: 3n * USDC,
        isOne: false,
        timeInForce: 'IOC',
        expiry,
      }),
    ]);
    const pendingId = pending.json().data.orders[0].orderId;
    const book = (await get(`/orderbook-v3/snapshot?marketHash=${marketHash}`, {})).json().data;
    await t.app.inject({
      method: 'POST',
      url: '/heartbeat/v3',
      headers: maker.headers,
      payload: { timeoutSeconds: 3 },
    });

    t = await t.reopen();
    expect((await get(`/orderbook-v3/snapshot?marketHash=${marketHash}`, {})).json().data).toEqual(book);
    expect((await get(`/orders-v3/${pendingId}`, taker.headers)).json().data.status).toBe('PENDING');
    // The delayed taker still matches after the restart...
    await until(
      async () => (await get(`/orders-v3/${pendingId}`, taker.headers)).json().data,
      (o) => o.status === 'INACTIVE' && o.inactiveReason === 'FILLED',
      5_000,
    );
    // ...and the maker's heartbeat still fires.
    const row = await until(
      async () => (await get(`/orders-v3/${made.orderId}`, maker.headers)).json().data,
      (o) => o.status === 'INACTIVE',
      6_000,
    );
    expect(row.inactiveReason).toBe('HEARTBEAT_TIMEOUT');
    const balances = (await get('/user/balance-v3', taker.headers)).json().data.balances[0];
    expect(balances.escrowedAmount).toBe((3n * USDC).toString());
  });
});
