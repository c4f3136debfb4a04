import { orderId, tickToOdds } from '@oddsbook/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  removeDataDir,
  startTestExchange,
  type TestExchange,
  type TestUser,
} from '../helpers/test-exchange.js';
import { createMarket, createTrader, postOrders, signOrder, USDC } from '../helpers/trading.js';

/** secp256k1 group order: s' = n - s is the malleable twin of a signature. */
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

describe('POST /orders-v3 admission', () => {
  let t: TestExchange;
  let trader: TestUser;
  let marketHash: `0x${string}`;
  beforeAll(async () => {
    t = await startTestExchange();
    trader = await createTrader(t);
    ({ marketHash } = await createMarket(t, { minBetSize: '2000000' }));
  });
  afterAll(async () => {
    await t.close();
    removeDataDir(t.dataDir);
  });

  const post = (orders: unknown[], extra: Record<string, unknown> = {}) =>
    t.app.inject({
      method: 'POST',
      url: '/orders-v3',
      headers: trader.headers,
      payload: { orders, ...extra },
    });
  const order = (f: Partial<Parameters<typeof signOrder>[2]> = {}) =>
    signOrder(t, trader, { marketHash, tick: 400, size: 5n * USDC, ...f });

  it('refuses an empty batch and more than 10 orders with 400 messages', async () => {
    const empty = await post([]);
    expect(empty.statusCode).toBe(400);
    expect(empty.json()).toMatchObject({ error: 'Bad Request', statusCode: 400 });
    expect(empty.json().message.join(' ')).toMatch(/fewer than 1 items/);
    const one = await order();
    const eleven = await post(Array.from({ length: 11 }, () => one));
    expect(eleven.statusCode).toBe(400);
    expect(eleven.json().message.join(' ')).toMatch(/more than 10 items/);
  });

  it('refuses wrong types and missing fields with readable messages', async () => {
    const good = await order();
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ ...good, totalBetSize: 5000000 }, /totalBetSize must be string/],
      [{ ...good, totalBetSize: '5e6' }, /totalBetSize must match pattern/],
      [{ ...good, expiry: '123' }, /expiry must be integer/],
      [{ ...good, timeInForce: 'DAY' }, /timeInForce must be equal to one of the allowed values/],
      [{ ...good, clientOrderId: 'has space' }, /clientOrderId must match pattern/],
      [{ ...good, clientOrderId: 'x'.repeat(65) }, /clientOrderId must NOT have more than 64 characters/],
      [{ ...good, orderSignature: undefined }, /must have required property 'orderSignature'/],
      [{ ...good, executor: '0x00' }, /must NOT have additional properties 'executor'/],
    ];
    for (const [bad, message] of cases) {
      const response = await post([bad]);
      expect(response.statusCode, JSON.stringify(bad)).toBe(400);
      expect([response.json().message].flat().join(' | ')).toMatch(message);
    }
  });

  it('applies the expiry rules: 0, milliseconds, past, inside the betting delay', async () => {
    const nowS = () => Math.floor(Date.now() / 1000);
    for (const [expiry, message] of [
      [() => 0, /expiry 0 is rejected/],
      [() => Date.now() + 60_000, /unix seconds, not milliseconds/],
      [() => nowS() - 10, /in the future/],
      // 1 to 2 s ahead when signed: still in the future when the request lands, inside the 2 s slack.
      [() => nowS() + 2, /betting delay/],
    ] as const) {
      const value = expiry();
      const response = await post([await order({ expiry: value })]);
      expect(response.statusCode, String(value)).toBe(400);
      expect(response.json()).toMatchObject({ error: 'Bad Request', statusCode: 400 });
      expect(response.json().message).toMatch(message);
    }
    const live = await createMarket(t, { live: true, bettingDelay: 5 });
    const inside = await post([await order({ marketHash: live.marketHash, expiry: nowS() + 6 })]);
    expect(inside.statusCode).toBe(400);
    expect(inside.json().message).toMatch(/betting delay \(5000 ms\) \+ 2 s/);
  });

  it('answers TOTAL_BET_SIZE_TOO_LOW in the exact spec shape', async () => {
    const response = await post([await order({ size: 1_999_999n })]);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ message: 'TOTAL_BET_SIZE_TOO_LOW', marketHash, minimum: '2000000' });
  });

  it('requires one maker, the key’s own account, and a deployed proxy', async () => {
    const other = await createTrader(t);
    const mixed = await post([
      await order(),
      await signOrder(t, other, { marketHash, tick: 400, size: 5n * USDC }),
    ]);
    expect(mixed.statusCode).toBe(400);
    expect(mixed.json().message).toMatch(/one maker/);
    const foreign = await post([await signOrder(t, other, { marketHash, tick: 400, size: 5n * USDC })]);
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json().message).toMatch(/maker must be the address/);

    const undeployed = await t.createUser();
    const response = await postOrders(t, undeployed, [
      await signOrder(t, undeployed, { marketHash, tick: 400, size: 5n * USDC }),
    ]);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      message: expect.stringMatching(/deploy the proxy/),
      statusCode: 400,
    });
  });

  it('fails single orders with a reason: market, base token, ladder, signature, replay, client id', async () => {
    const good = await order();
    const tampered = { ...(await order()), totalBetSize: (6n * USDC).toString() };
    const sig = BigInt(`0x${good.orderSignature.slice(66, 130)}`);
    const v = Number.parseInt(good.orderSignature.slice(130), 16);
    const highS = `${good.orderSignature.slice(0, 66)}${(N - sig).toString(16).padStart(64, '0')}${(v === 27 ? 28 : 27).toString(16)}`;
    const response = await post([
      await order({ marketHash: `0x${'ab'.repeat(32)}` }),
      { ...(await order()), baseToken: '0x0000000000000000000000000000000000000001' },
      { ...(await order()), percentageOdds: (tickToOdds(400) + 1n).toString() },
      tampered,
      { ...good, orderSignature: highS },
      good,
      good,
    ]);
    expect(response.statusCode).toBe(200);
    const results = response.json().data.orders;
    expect(results.map((r: { status: string; reason?: string }) => r.reason ?? r.status)).toEqual([
      'MARKET_NOT_FOUND',
      'BAD_BASE_TOKEN',
      'ODDS_NOT_ON_LADDER',
      'SIGNATURE_MISMATCH',
      'MALLEABLE_SIGNATURE',
      'SUBMITTED',
      'ORDER_ALREADY_EXISTS',
    ]);
    expect(results[5].orderId).toBe(results[6].orderId);

    // A replay in a later request is refused too, whatever state the original is in.
    const replay = await post([good]);
    expect(replay.json().data.orders[0]).toMatchObject({ status: 'FAILED', reason: 'ORDER_ALREADY_EXISTS' });

    const tagged = await post([
      await order({ clientOrderId: 'dup-1' }),
      await order({ clientOrderId: 'dup-1' }),
    ]);
    expect(
      tagged.json().data.orders.map((r: { status: string; reason?: string }) => r.reason ?? r.status),
    ).toEqual(['SUBMITTED', 'DUPLICATE_CLIENT_ORDER_ID']);
    const later = await post([await order({ clientOrderId: 'dup-1' })]);
    expect(later.json().data.orders[0]).toMatchObject({
      status: 'FAILED',
      reason: 'DUPLICATE_CLIENT_ORDER_ID',
      clientOrderId: 'dup-1',
    });
  });

  it('accepts one order per client order id from concurrent requests, while earlier ones are still projected', async () => {
    // Each id is posted three times in separate requests, the copies a turn apart: a copy is checked while the
    // first is in flight, or answered and not yet projected, or projected.
    const ids = Array.from({ length: 8 }, (_, i) => `race-${i}`);
    const copies = await Promise.all(ids.flatMap((id) => [0, 1, 2].map(() => order({ clientOrderId: id }))));
    const posted = await Promise.all(
      copies.map(async (o, i) => {
        for (let k = 0; k < i % 3; k++) await new Promise((r) => setImmediate(r));
        return (await post([o])).json().data.orders[0] as { status: string; clientOrderId: string };
      }),
    );
    for (const id of ids) {
      const statuses = posted.filter((r) => r.clientOrderId === id).map((r) => r.status);
      expect(
        statuses.filter((s) => s === 'SUBMITTED'),
        id,
      ).toHaveLength(1);
    }
    // The projections took every accepted order (a duplicate row would have stopped the exchange).
    await t.exchange.trading.idle();
    expect((await post([await order({ clientOrderId: 'after-race' })])).json().data.orders[0].status).toBe(
      'SUBMITTED',
    );
  });

  it('gives a FAILED result the order id whenever the order can be hashed', async () => {
    const failing = [
      await order({ marketHash: `0x${'cd'.repeat(32)}` }),
      { ...(await order()), baseToken: '0x0000000000000000000000000000000000000001' },
      { ...(await order()), percentageOdds: (tickToOdds(400) + 1n).toString() },
      { ...(await order()), totalBetSize: (2n ** 255n).toString() },
    ];
    const response = await post(failing);
    expect(response.statusCode).toBe(200);
    const results = response.json().data.orders as {
      orderId: string | null;
      status: string;
      reason: string;
    }[];
    expect(results.map((r) => r.reason)).toEqual([
      'MARKET_NOT_FOUND',
      'BAD_BASE_TOKEN',
      'ODDS_NOT_ON_LADDER',
      'TOTAL_BET_SIZE_TOO_HIGH',
    ]);
    results.forEach((result, i) => {
      const wire = failing[i]!;
      expect(result.status).toBe('FAILED');
      expect(result.orderId).toBe(
        orderId(t.exchange.orderDomain, {
          ...wire,
          baseToken: wire.baseToken as `0x${string}`,
          totalBetSize: BigInt(wire.totalBetSize),
          percentageOdds: BigInt(wire.percentageOdds),
          salt: BigInt(wire.salt),
          expiry: BigInt(wire.expiry),
        }),
      );
    });
  });

  it('refuses orders on a market whose fixture is finished', async () => {
    const { marketHash: closed, eventId } = await createMarket(t);
    await t.app.inject({
      method: 'POST',
      url: `/admin/fixtures/${eventId}/status`,
      headers: t.admin,
      payload: { status: 3 },
    });
    const response = await post([await order({ marketHash: closed })]);
    expect(response.json().data.orders[0]).toMatchObject({ status: 'FAILED', reason: 'MARKET_INACTIVE' });
  });
});
