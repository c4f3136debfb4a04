import {
  ACCOUNT_FILLS_CHANNEL,
  AccountOrderUpdate,
  ActiveOrderUpdate,
  accountOrdersChannel,
  accountTradesChannel,
  activeOrdersChannel,
  BestOddsUpdate,
  BookUpdate,
  CeRefundUpdate,
  ConsolidatedTrade,
  ceRefundsChannel,
  FillUpdate,
  FixtureUpdate,
  GLOBAL_CHANNELS,
  LiveScoreUpdate,
  MarketUpdate,
  orderBookEventChannel,
  orderBookMarketChannel,
  RecentTrade,
  TradeUpdate,
} from '@oddsbook/protocol';
import type { Centrifuge, PublicationContext, SubscribedContext, Subscription } from 'centrifuge';
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tradeIdOf } from '../../src/records/records.js';
import {
  removeDataDir,
  startTestExchange,
  type TestExchange,
  type TestUser,
} from '../helpers/test-exchange.js';
import { createMarket, createTrader, postOrders, signOrder, USDC } from '../helpers/trading.js';
import { exchangeClient, until as waitFor } from './helpers.js';

let t: TestExchange;
let api: string;
const clients: Centrifuge[] = [];

beforeAll(async () => {
  t = await startTestExchange();
  api = await t.app.listen({ port: 0, host: '127.0.0.1' });
});

afterEach(() => {
  for (const c of clients.splice(0)) c.disconnect();
});

afterAll(async () => {
  await t.close();
  removeDataDir(t.dataDir);
});

/** The official client of the test exchange, its token from the REST route. */
function clientOf(user: TestUser): Centrifuge {
  const c = exchangeClient(api, user.headers);
  clients.push(c);
  return c;
}

type Feed = {
  sub: Subscription;
  pubs: PublicationContext[];
  subscribed: SubscribedContext[];
  unsubscribedCode: number;
  data<T = Record<string, unknown>>(): T[];
};

function follow(c: Centrifuge, channel: string): Feed {
  const sub = c.newSubscription(channel, { positioned: true, recoverable: true });
  const feed: Feed = {
    sub,
    pubs: [],
    subscribed: [],
    unsubscribedCode: 0,
    data: <T>() => feed.pubs.map((p) => p.data as T),
  };
  sub.on('publication', (ctx) => feed.pubs.push(ctx));
  sub.on('subscribed', (ctx) => feed.subscribed.push(ctx));
  sub.on('unsubscribed', (ctx) => {
    feed.unsubscribedCode = ctx.code;
  });
  sub.subscribe();
  return feed;
}

async function connected(c: Centrifuge, ...feeds: Feed[]): Promise<void> {
  c.connect();
  await waitFor(() => feeds.every((f) => f.subscribed.length > 0), 5000, 'subscribed');
}

function expectShape(schema: TSchema, data: unknown): void {
  const errors = [...Value.Errors(schema, data)];
  expect(errors, JSON.stringify(errors.slice(0, 3))).toEqual([]);
}

const get = async (path: string, user?: TestUser) => {
  const res = await t.app.inject({ method: 'GET', url: path, ...(user ? { headers: user.headers } : {}) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
};

const withoutMessageId = ({ messageId: _, ...rest }: Record<string, unknown>) => rest;

type Book = { version: string; outcomeOne: unknown[]; outcomeTwo: unknown[]; marketHash: string };

describe('exchange channels with the official client', () => {
  it('publishes the outcome of an order posted without waitForOutcome on the account channel', async () => {
    const { marketHash } = await createMarket(t);
    const maker = await createTrader(t);
    const c = clientOf(maker);
    const orders = follow(c, accountOrdersChannel(maker.address));
    const active = follow(c, activeOrdersChannel(maker.address));
    await connected(c, orders, active);

    const res = await postOrders(t, maker, [
      await signOrder(t, maker, { marketHash, tick: 400, size: 50n * USDC }),
    ]);
    expect(res.statusCode).toBe(200);
    const created = res.json().data.orders[0];
    expect(created.outcome).toBeUndefined();

    await waitFor(() => orders.pubs.length >= 1, 5000, 'order update');
    const update = orders.data<AccountOrderUpdate>()[0]!;
    expectShape(AccountOrderUpdate, update);
    expect(update).toMatchObject({
      id: created.orderId,
      commandId: created.commandId,
      status: 'ACTIVE',
      inactiveReason: null,
      outcome: { state: 'RESTED', fillAmount: '0', remainingAmount: (50n * USDC).toString() },
    });
    expect(orders.pubs[0]!.tags?.messageId).toBe(update.messageId);
    // The row is the REST row.
    const rest = await get(`/orders-v3/${created.orderId}`, maker);
    const { commandId: _c, outcome: _o, ...row } = withoutMessageId(update);
    expect(row).toEqual(rest);
    await waitFor(() => active.pubs.length >= 1, 5000, 'active order');
    expectShape(ActiveOrderUpdate, active.pubs[0]!.data);
    expect(withoutMessageId(active.pubs[0]!.data)).toEqual(rest);

    // A taker fills half: the maker's row follows, the taker's outcome is on its own channel.
    const taker = await createTrader(t);
    const tc = clientOf(taker);
    const takerOrders = follow(tc, accountOrdersChannel(taker.address));
    await connected(tc, takerOrders);
    const take = await postOrders(t, taker, [
      await signOrder(t, taker, {
        marketHash,
        tick: 400,
        isOne: false,
        size: 25n * USDC,
        timeInForce: 'IOC',
      }),
    ]);
    const takerOrder = take.json().data.orders[0];
    await waitFor(() => takerOrders.pubs.length >= 1, 5000, 'taker outcome');
    expect(takerOrders.data<AccountOrderUpdate>()[0]).toMatchObject({
      id: takerOrder.orderId,
      commandId: takerOrder.commandId,
      status: 'INACTIVE',
      inactiveReason: 'FILLED',
      outcome: { state: 'FULLY_FILLED', fillAmount: (25n * USDC).toString() },
    });
    await waitFor(() => orders.pubs.length >= 2, 5000, 'maker fill');
    const fill = orders.data<AccountOrderUpdate>()[1]!;
    expect(fill).toMatchObject({
      id: created.orderId,
      status: 'ACTIVE',
      remainingSize: (25n * USDC).toString(),
    });
    expect(fill.commandId).toBeUndefined();
    expect(withoutMessageId(fill)).toEqual(await get(`/orders-v3/${created.orderId}`, maker));
  });

  it("denies another user's account channels (103) and treats legacy names as unknown (102)", async () => {
    const alice = await t.createUser();
    const bob = await t.createUser();
    const c = clientOf(alice);
    const own = follow(c, accountOrdersChannel(alice.address));
    const others = [
      accountOrdersChannel(bob.address),
      accountTradesChannel(bob.address),
      activeOrdersChannel(bob.address),
    ].map((name) => follow(c, name));
    const legacy = [
      'markets',
      'recent_trades',
      'main_line',
      `live_scores:L1`,
      `active_orders_v2:${t.config.baseToken}:${alice.address}`,
      `order_book_v2:${t.config.baseToken}:0x${'ab'.repeat(32)}`,
      `best_odds:${t.config.baseToken}`,
      'markets:parlay',
      `ce_refunds:${alice.address.toLowerCase()}`,
    ].map((name) => follow(c, name));
    await connected(c, own);
    await waitFor(() => [...others, ...legacy].every((f) => f.unsubscribedCode !== 0), 5000, 'refusals');
    expect(others.map((f) => f.unsubscribedCode)).toEqual([103, 103, 103]);
    expect(legacy.map((f) => f.unsubscribedCode)).toEqual(legacy.map(() => 102));
  });

  it('opens book channels only for markets and events of the catalog (102 for made-up ones)', async () => {
    const { marketHash, eventId } = await createMarket(t);
    const c = clientOf(await t.createUser());
    const real = [follow(c, orderBookMarketChannel(marketHash)), follow(c, orderBookEventChannel(eventId))];
    const madeUp = [
      follow(c, orderBookMarketChannel(`0x${'5a'.repeat(32)}`)),
      follow(c, orderBookEventChannel('no-such-event')),
    ];
    await connected(c, ...real);
    await waitFor(() => madeUp.every((f) => f.unsubscribedCode !== 0), 5000, 'refusals');
    expect(madeUp.map((f) => f.unsubscribedCode)).toEqual([102, 102]);
    expect(real.map((f) => f.sub.state)).toEqual(['subscribed', 'subscribed']);
  });

  it('delivers cancels with inactiveReason HEARTBEAT_TIMEOUT when the heartbeat lapses', async () => {
    const { marketHash } = await createMarket(t);
    const maker = await createTrader(t);
    const c = clientOf(maker);
    const orders = follow(c, accountOrdersChannel(maker.address));
    const active = follow(c, activeOrdersChannel(maker.address));
    await connected(c, orders, active);
    await postOrders(t, maker, [
      await signOrder(t, maker, { marketHash, tick: 300, size: 20n * USDC }),
      await signOrder(t, maker, { marketHash, tick: 310, size: 20n * USDC }),
    ]);
    const hb = await t.app.inject({
      method: 'POST',
      url: '/heartbeat/v3',
      headers: maker.headers,
      payload: { timeoutSeconds: 1 },
    });
    expect(hb.statusCode).toBe(200);
    const cancelled = await waitFor(
      () => {
        const done = orders.data<AccountOrderUpdate>().filter((o) => o.status === 'INACTIVE');
        return done.length === 2 && done;
      },
      6000,
      'heartbeat cancels',
    );
    for (const o of cancelled) expect(o.inactiveReason).toBe('HEARTBEAT_TIMEOUT');
    await waitFor(
      () =>
        active.data<ActiveOrderUpdate>().filter((o) => o.inactiveReason === 'HEARTBEAT_TIMEOUT').length === 2,
      5000,
      'active orders removed',
    );
    await t.app.inject({
      method: 'POST',
      url: '/heartbeat/v3',
      headers: maker.headers,
      payload: { timeoutSeconds: 0 },
    });
  });

  it('follows a trade MATCHED, LOCKED when its escrow lands, SETTLED at resolution; fills only to their user', async () => {
    const { marketHash } = await createMarket(t);
    const maker = await createTrader(t);
    const taker = await createTrader(t);
    const mc = clientOf(maker);
    const tc = clientOf(taker);
    const makerTrades = follow(mc, accountTradesChannel(maker.address));
    const makerFills = follow(mc, ACCOUNT_FILLS_CHANNEL);
    const takerTrades = follow(tc, accountTradesChannel(taker.address));
    const takerFills = follow(tc, ACCOUNT_FILLS_CHANNEL);
    await connected(mc, makerTrades, makerFills);
    await connected(tc, takerTrades, takerFills);

    await postOrders(t, maker, [await signOrder(t, maker, { marketHash, tick: 400, size: 40n * USDC })], {
      waitForOutcome: true,
    });
    await postOrders(
      t,
      taker,
      [
        await signOrder(t, taker, {
          marketHash,
          tick: 400,
          isOne: false,
          size: 40n * USDC,
          timeInForce: 'IOC',
        }),
      ],
      { waitForOutcome: true },
    );

    const statuses = (f: Feed) => f.data<TradeUpdate>().map((tr) => tr.status);
    await waitFor(() => statuses(makerTrades).includes('LOCKED'), 5000, 'maker trade LOCKED');
    await waitFor(() => statuses(takerTrades).includes('LOCKED'), 5000, 'taker trade LOCKED');
    expect(statuses(makerTrades)).toEqual(['MATCHED', 'LOCKED']);
    for (const tr of [...makerTrades.data(), ...takerTrades.data()]) expectShape(TradeUpdate, tr);
    const [restTrade] = (await get('/trades-v3', maker)).trades;
    expect(withoutMessageId(makerTrades.data().at(-1)!)).toEqual(restTrade);

    // Fills: MATCHED then LOCKED, each user only its own.
    await waitFor(
      () => makerFills.data<FillUpdate>().some((f) => f.status === 'LOCKED'),
      5000,
      'fill LOCKED',
    );
    await waitFor(
      () => takerFills.data<FillUpdate>().some((f) => f.status === 'LOCKED'),
      5000,
      'fill LOCKED',
    );
    for (const f of makerFills.data<FillUpdate>()) {
      expectShape(FillUpdate, f);
      expect(f.isMaker).toBe(true);
    }
    for (const f of takerFills.data<FillUpdate>()) expect(f.isMaker).toBe(false);
    const [restFill] = (await get('/fills-v3', maker)).fills;
    expect(withoutMessageId(makerFills.data().at(-1)!)).toEqual(restFill);

    const resolve = await t.app.inject({
      method: 'POST',
      url: `/admin/markets/${marketHash}/resolve`,
      headers: t.admin,
      payload: { outcome: 1 },
    });
    expect(resolve.statusCode, resolve.body).toBe(200);
    await waitFor(() => statuses(makerTrades).includes('SETTLED'), 5000, 'maker trade SETTLED');
    const settled = makerTrades.data<TradeUpdate>().at(-1)!;
    expect(settled.settlement).toEqual({ outcome: 1, payout: (80n * USDC).toString() });
    expect(withoutMessageId(settled)).toEqual((await get('/trades-v3', maker)).trades[0]);
    await waitFor(
      () => takerFills.data<FillUpdate>().some((f) => f.status === 'SETTLED'),
      5000,
      'fill SETTLED',
    );
  });

  it('publishes a capital-efficiency refund to its bettor only, recoverable, with the fill that caused it', async () => {
    const { marketHash } = await createMarket(t);
    const [makerOne, makerTwo, bettor] = await Promise.all([
      createTrader(t),
      createTrader(t),
      createTrader(t),
    ]);
    const c = clientOf(bettor);
    const refunds = follow(c, ceRefundsChannel(bettor.address));
    const fills = follow(c, ACCOUNT_FILLS_CHANNEL);
    const trades = follow(c, accountTradesChannel(bettor.address));
    await connected(c, refunds, fills, trades);
    const other = await t.createUser();
    const oc = clientOf(other);
    const own = follow(oc, ceRefundsChannel(other.address));
    const spy = follow(oc, ceRefundsChannel(bettor.address));
    await connected(oc, own);
    await waitFor(() => spy.unsubscribedCode !== 0, 5000, 'refusal');
    expect(spy.unsubscribedCode).toBe(103);

    // Outcome one 100 at 50%: nothing certain yet.
    await postOrders(
      t,
      makerOne,
      [await signOrder(t, makerOne, { marketHash, tick: 400, isOne: false, size: 100n * USDC })],
      { waitForOutcome: true },
    );
    await postOrders(
      t,
      bettor,
      [await signOrder(t, bettor, { marketHash, tick: 400, size: 100n * USDC, timeInForce: 'IOC' })],
      { waitForOutcome: true },
    );
    await waitFor(() => fills.pubs.length >= 1, 5000, 'first fill');

    // Outcome two 100 at 50% while the bettor is away: 200 certain, refunded at once; recovered on return.
    c.disconnect();
    await postOrders(
      t,
      makerTwo,
      [await signOrder(t, makerTwo, { marketHash, tick: 400, size: 100n * USDC })],
      { waitForOutcome: true },
    );
    await postOrders(
      t,
      bettor,
      [
        await signOrder(t, bettor, {
          marketHash,
          tick: 400,
          isOne: false,
          size: 100n * USDC,
          timeInForce: 'IOC',
        }),
      ],
      { waitForOutcome: true },
    );
    await t.exchange.trading.idle();
    c.connect();
    await waitFor(() => refunds.subscribed.length === 2, 5000, 'resubscribed');
    expect(refunds.subscribed[1]).toMatchObject({ wasRecovering: true, recovered: true });
    await waitFor(() => refunds.pubs.length >= 1, 5000, 'recovered refund');
    expect(refunds.pubs).toHaveLength(1);
    const [refund] = refunds.data<CeRefundUpdate>()[0]!;
    expectShape(CeRefundUpdate, refunds.pubs[0]!.data);
    expect(refunds.pubs[0]!.tags?.messageId).toMatch(/^\d+:\d+$/);
    const refunded = (200n * USDC).toString();
    expect(refund).toMatchObject({ marketHash, baseToken: t.config.baseToken, totalRefunded: refunded });
    expect(refund!.events).toEqual([
      expect.objectContaining({ maker: false, amount: refunded, bettor: bettor.address, marketHash }),
    ]);

    // The fill that caused it carries the refund, live and on REST.
    const fill = await waitFor(
      () => fills.data<FillUpdate>().find((f) => f.id === refund!.events[0]!.fillOrderHash),
      5000,
      'refunding fill',
    );
    expectShape(FillUpdate, fill);
    expect(fill.ceRefundAmount).toBe(refunded);
    const restFills = (await get('/fills-v3', bettor)).fills as { id: string; ceRefundAmount: string }[];
    expect(restFills.find((f) => f.id === fill.id)?.ceRefundAmount).toBe(refunded);
    const lastTrade = await waitFor(() => trades.data<TradeUpdate>().at(-1), 5000, 'trade');
    expect(lastTrade.marketHasRefunds).toBe(true);
    expect(own.pubs).toEqual([]);
  });

  it('recovers a burst of refunds (one per fill of a hedge) missed during a 2 s disconnect', async () => {
    const { marketHash } = await createMarket(t);
    const [makerOne, makerTwo, bettor] = await Promise.all([
      createTrader(t),
      createTrader(t),
      createTrader(t),
    ]);
    const c = clientOf(bettor);
    const refunds = follow(c, ceRefundsChannel(bettor.address));
    await connected(c, refunds);
    // Outcome one 150 at 50%, then 150 offers of 1 on outcome one for the hedge to take one by one.
    const FILLS = 150;
    const ok = (res: { statusCode: number; body: string }) => expect(res.statusCode, res.body).toBe(200);
    ok(
      await postOrders(
        t,
        makerOne,
        [await signOrder(t, makerOne, { marketHash, tick: 400, isOne: false, size: BigInt(FILLS) * USDC })],
        { waitForOutcome: true },
      ),
    );
    ok(
      await postOrders(
        t,
        bettor,
        [
          await signOrder(t, bettor, {
            marketHash,
            tick: 400,
            size: BigInt(FILLS) * USDC,
            timeInForce: 'IOC',
          }),
        ],
        { waitForOutcome: true },
      ),
    );
    for (let i = 0; i < FILLS / 10; i++) {
      const offers = await Promise.all(
        Array.from({ length: 10 }, () => signOrder(t, makerTwo, { marketHash, tick: 400, size: USDC })),
      );
      ok(await postOrders(t, makerTwo, offers, { waitForOutcome: true }));
    }

    const away = Date.now();
    c.disconnect();
    const hedge = await postOrders(
      t,
      bettor,
      [
        await signOrder(t, bettor, {
          marketHash,
          tick: 400,
          isOne: false,
          size: BigInt(FILLS) * USDC,
          timeInForce: 'IOC',
        }),
      ],
      { waitForOutcome: true },
    );
    expect(hedge.json().data.orders[0].outcome).toMatchObject({
      state: 'FULLY_FILLED',
      fillAmount: (BigInt(FILLS) * USDC).toString(),
    });
    await t.exchange.trading.idle();
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 2_000 - (Date.now() - away))));
    c.connect();
    await waitFor(() => refunds.subscribed.length === 2, 5000, 'resubscribed');
    // More refunds than the 100 the channel used to keep: all of them recovered, in order, once each.
    expect(refunds.subscribed[1]).toMatchObject({ wasRecovering: true, recovered: true });
    await waitFor(() => refunds.pubs.length === FILLS, 5000, 'recovered refunds');
    const totals = refunds.data<CeRefundUpdate>().map(([r]) => BigInt(r!.totalRefunded));
    expect(totals).toEqual(totals.map((_, i) => BigInt(i + 1) * 2n * USDC));
    expect(new Set(refunds.pubs.map((p) => p.tags?.messageId)).size).toBe(FILLS);
  });

  it('puts a quarter-line bet on both tapes as its legs, and a parent on the consolidated one', async () => {
    // A -0.75 handicap: the catalog creates its -1 and -0.5 legs.
    const { eventId } = await createMarket(t);
    const created = await t.app.inject({
      method: 'POST',
      url: '/admin/markets',
      headers: t.admin,
      payload: { eventId, type: 3, line: -0.75, outcomeOneName: 'Home -0.75', outcomeTwoName: 'Away +0.75' },
    });
    expect(created.statusCode, created.body).toBe(200);
    const { marketHash: quarter, quarterLineLegs: legs } = created.json().data as {
      marketHash: `0x${string}`;
      quarterLineLegs: [string, string];
    };
    const [maker, taker] = await Promise.all([createTrader(t), createTrader(t)]);
    const c = clientOf(await t.createUser());
    const recent = follow(c, GLOBAL_CHANNELS.recent_trades);
    const consolidated = follow(c, GLOBAL_CHANNELS.recent_trades_consolidated);
    await connected(c, recent, consolidated);

    const order = (user: TestUser, isOne: boolean, timeInForce: 'GTC' | 'IOC') =>
      signOrder(t, user, { marketHash: quarter, tick: 400, isOne, size: 30n * USDC, timeInForce }).then((o) =>
        postOrders(t, user, [o], { waitForOutcome: true }),
      );
    await order(maker, false, 'GTC');
    const taken = (await order(taker, true, 'IOC')).json().data.orders[0] as { orderId: string };
    await waitFor(() => consolidated.pubs.length >= 3 && recent.pubs.length >= 2, 5000, 'the tapes');

    const legRows = recent.data<RecentTrade>();
    for (const row of legRows) expectShape(RecentTrade, row);
    expect(
      legRows.map((r) => [r.marketHash, r.isQuarterLineLeg, r.quarterLineParentMarketHash, r.totalStake]),
    ).toEqual([
      [legs[0], true, quarter, (15n * USDC).toString()],
      [legs[1], true, quarter, (15n * USDC).toString()],
    ]);
    const rows = consolidated.data<ConsolidatedTrade>();
    for (const row of rows) expectShape(ConsolidatedTrade, row);
    const parentId = rows[2]!.tradeId;
    expect(
      rows.map((r) => [r.marketHash, r.isQuarterLineParent, r.isQuarterLineLeg, r.quarterLineFillHash]),
    ).toEqual([
      [legs[0], false, true, parentId],
      [legs[1], false, true, parentId],
      [quarter, true, false, null],
    ]);
    expect(rows[2]).toMatchObject({
      totalStake: (30n * USDC).toString(),
      totalReturn: (60n * USDC).toString(),
      netReturn: (30n * USDC).toString(),
    });
    // The parent is the bet's trade on REST's consolidated view too.
    const rest = (await get('/trades-v3/consolidated?hideQuarterLineLegs=true', taker)).trades as {
      tradeId: string;
    }[];
    expect(rest.map((r) => r.tradeId)).toEqual([parentId]);
    expect(parentId).toBe(tradeIdOf(taken.orderId));
  });

  it('reconstructs the REST book exactly from a snapshot plus later publications after a random burst', async () => {
    const { marketHash, eventId } = await createMarket(t);
    const traders = await Promise.all([createTrader(t), createTrader(t), createTrader(t)]);
    const watcher = await t.createUser();
    const c = clientOf(watcher);
    const book = follow(c, orderBookMarketChannel(marketHash));
    const eventBook = follow(c, orderBookEventChannel(eventId));
    const best = follow(c, GLOBAL_CHANNELS.best_odds);
    const recent = follow(c, GLOBAL_CHANNELS.recent_trades);
    const consolidated = follow(c, GLOBAL_CHANNELS.recent_trades_consolidated);
    await connected(c, book, eventBook, best, recent, consolidated);

    let seed = 42;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const open = new Map<string, TestUser>();
    let snapshot: Book | undefined;
    for (let round = 0; round < 8; round++) {
      const ops: Promise<unknown>[] = [];
      for (let i = 0; i < 8; i++) {
        const user = traders[Math.floor(random() * traders.length)]!;
        const roll = random();
        if (roll < 0.25 && open.size > 0) {
          const [orderId, owner] = [...open][Math.floor(random() * open.size)]!;
          open.delete(orderId);
          ops.push(
            t.app.inject({
              method: 'DELETE',
              url: '/orders-v3',
              headers: owner.headers,
              payload: { orders: [{ orderId }] },
            }),
          );
        } else {
          const isOne = random() < 0.5;
          const tick = 390 + Math.floor(random() * 20);
          const size = BigInt(1 + Math.floor(random() * 20)) * USDC;
          const timeInForce = roll > 0.85 ? ('IOC' as const) : ('GTC' as const);
          ops.push(
            signOrder(t, user, { marketHash, tick, isOne, size, timeInForce })
              .then((o) => postOrders(t, user, [o]))
              .then((res) => {
                const id = res.json().data.orders[0].orderId as string;
                if (timeInForce === 'GTC') open.set(id, user);
              }),
          );
        }
      }
      await Promise.all(ops);
      if (round === 3) snapshot = await get(`/orderbook-v3/snapshot?marketHash=${marketHash}`);
    }
    await t.exchange.trading.sequencer.idle();
    const final: Book = await get(`/orderbook-v3/snapshot?marketHash=${marketHash}`);
    expect(Number(final.version)).toBeGreaterThan(Number(snapshot!.version));
    await waitFor(() => book.data<Book>().at(-1)?.version === final.version, 5000, 'last book');

    // At most one publication per market per book interval, the latest: versions strictly increase.
    const versions = book.data<Book>().map((b) => b.version);
    expect([...versions].sort()).toEqual(versions);
    expect(new Set(versions).size).toBe(versions.length);
    for (const b of book.data()) expectShape(BookUpdate, b);

    let state: Book = snapshot!;
    for (const update of book.data<Book>()) if (update.version > state.version) state = update;
    expect(withoutMessageId(state)).toEqual(final);

    await waitFor(() => eventBook.data<Book>().at(-1)?.version === final.version, 5000, 'event book');
    expect(withoutMessageId(eventBook.data().at(-1)!)).toEqual(final);

    const lastBest = best
      .data<BestOddsUpdate>()
      .filter((b) => b.marketHash === marketHash)
      .at(-1)!;
    expectShape(BestOddsUpdate, lastBest);
    expect(lastBest).toMatchObject({
      eventId,
      sportId: 1,
      outcomeOne: (final.outcomeOne[0] as object | undefined) ?? null,
      outcomeTwo: (final.outcomeTwo[0] as object | undefined) ?? null,
    });

    // The public tape: the newest publication of each taker bet is the REST row (plus the flags).
    const tape = (await get(`/trades-v3/public?marketHash=${marketHash}&perPage=100`)).trades as {
      tradeId: string;
    }[];
    expect(tape.length).toBeGreaterThan(0);
    await waitFor(
      () => tape.every((row) => recent.data<RecentTrade>().some((r) => r.tradeId === row.tradeId)),
      5000,
      'tape',
    );
    for (const row of tape) {
      const last = recent
        .data<RecentTrade>()
        .filter((r) => r.tradeId === row.tradeId)
        .at(-1)!;
      expectShape(RecentTrade, last);
      expect(withoutMessageId(last)).toEqual({
        ...row,
        isQuarterLineLeg: false,
      });
      expect(last).not.toHaveProperty('quarterLineParentMarketHash');
      const cons = consolidated
        .data<ConsolidatedTrade>()
        .filter((r) => r.tradeId === row.tradeId)
        .at(-1)!;
      expectShape(ConsolidatedTrade, cons);
      expect(cons).toMatchObject({
        ...row,
        isQuarterLineParent: false,
        isQuarterLineLeg: false,
        quarterLineFillHash: null,
      });
    }
  });

  it('recovers the book and order publications missed while disconnected', async () => {
    const { marketHash } = await createMarket(t);
    const maker = await createTrader(t);
    const c = clientOf(maker);
    const book = follow(c, orderBookMarketChannel(marketHash));
    const orders = follow(c, accountOrdersChannel(maker.address));
    await connected(c, book, orders);
    // Another follower stays, to tell when the last book held back by the book interval is out.
    const other = clientOf(await t.createUser());
    const otherBook = follow(other, orderBookMarketChannel(marketHash));
    await connected(other, otherBook);
    await postOrders(t, maker, [await signOrder(t, maker, { marketHash, tick: 380, size: 10n * USDC })], {
      waitForOutcome: true,
    });
    await waitFor(() => book.pubs.length === 1 && orders.pubs.length === 1, 5000, 'first publications');

    c.disconnect();
    const missed: string[] = [];
    for (const tick of [381, 382, 383]) {
      const res = await postOrders(
        t,
        maker,
        [await signOrder(t, maker, { marketHash, tick, size: 10n * USDC })],
        {
          waitForOutcome: true,
        },
      );
      missed.push(res.json().data.orders[0].orderId);
    }
    const final = await get(`/orderbook-v3/snapshot?marketHash=${marketHash}`);
    await waitFor(() => otherBook.data<Book>().at(-1)?.version === final.version, 5000, 'last book out');
    expect(otherBook.pubs.length).toBeGreaterThan(1);
    c.connect();
    await waitFor(() => book.subscribed.length === 2 && orders.subscribed.length === 2, 5000, 'resubscribed');
    expect(book.subscribed[1]).toMatchObject({ wasRecovering: true, recovered: true });
    expect(orders.subscribed[1]).toMatchObject({ wasRecovering: true, recovered: true });
    // Every order row it missed; of the books, only the latest (a book is the market's whole state).
    await waitFor(() => book.pubs.length === 2 && orders.pubs.length === 4, 5000, 'recovered publications');
    expect(
      orders
        .data<AccountOrderUpdate>()
        .slice(1)
        .map((o) => o.id),
    ).toEqual(missed);
    expect(withoutMessageId(book.pubs[1]!.data)).toEqual(final);
    expect(book.pubs[1]!.offset).toBe(otherBook.pubs.at(-1)!.offset);
  });

  it('publishes an in-play taker as PENDING, then its outcome once the betting delay has run', async () => {
    const { marketHash } = await createMarket(t, { live: true, bettingDelay: 1 });
    const maker = await createTrader(t);
    const taker = await createTrader(t);
    await postOrders(t, maker, [await signOrder(t, maker, { marketHash, tick: 400, size: 30n * USDC })], {
      waitForOutcome: true,
    });
    const c = clientOf(taker);
    const orders = follow(c, accountOrdersChannel(taker.address));
    await connected(c, orders);
    const res = await postOrders(t, taker, [
      await signOrder(t, taker, {
        marketHash,
        tick: 400,
        isOne: false,
        size: 10n * USDC,
        timeInForce: 'IOC',
      }),
    ]);
    const created = res.json().data.orders[0];
    await waitFor(() => orders.pubs.length >= 2, 5000, 'pending then outcome');
    const [pending, done] = orders.data<AccountOrderUpdate>();
    expect(pending).toMatchObject({ id: created.orderId, commandId: created.commandId, status: 'PENDING' });
    expect(pending!.outcome).toBeUndefined();
    expect(done).toMatchObject({
      id: created.orderId,
      commandId: created.commandId,
      status: 'INACTIVE',
      inactiveReason: 'FILLED',
      outcome: { state: 'FULLY_FILLED' },
    });
  });

  it('publishes catalog changes: markets, fixtures, live scores and main lines', async () => {
    const watcher = await t.createUser();
    const c = clientOf(watcher);
    const markets = follow(c, GLOBAL_CHANNELS.markets);
    const fixtures = follow(c, GLOBAL_CHANNELS.fixtures);
    const scores = follow(c, GLOBAL_CHANNELS.live_scores);
    const mainLine = follow(c, GLOBAL_CHANNELS.main_line);
    await connected(c, markets, fixtures, scores, mainLine);

    const { marketHash, eventId } = await createMarket(t);
    await waitFor(
      () => markets.data<MarketUpdate>().some((m) => m.marketHash === marketHash),
      5000,
      'market',
    );
    const market = markets.data<MarketUpdate>().find((m) => m.marketHash === marketHash)!;
    expectShape(MarketUpdate, market);
    const [restMarket] = await get(`/markets/find?marketHashes=${marketHash}`);
    expect(withoutMessageId(market)).toEqual(restMarket);
    await waitFor(() => fixtures.data<FixtureUpdate>().some((f) => f.eventId === eventId), 5000, 'fixture');
    expectShape(FixtureUpdate, fixtures.data().at(-1));

    const score = await t.app.inject({
      method: 'POST',
      url: `/admin/fixtures/${eventId}/scores`,
      headers: t.admin,
      payload: { teamOneScore: 2, teamTwoScore: 1, currentPeriod: '2H', periodTime: '63:00' },
    });
    expect(score.statusCode, score.body).toBe(200);
    const live = await waitFor(
      () => scores.data<LiveScoreUpdate>().find((s) => s.sportXEventId === eventId),
      5000,
      'live score',
    );
    expectShape(LiveScoreUpdate, live);
    expect(live).toMatchObject({ teamOneScore: 2, teamTwoScore: 1, currentPeriod: '2H' });

    const alt = await t.app.inject({
      method: 'POST',
      url: '/admin/markets',
      headers: t.admin,
      payload: {
        eventId,
        type: 3,
        outcomeOneName: 'Home -1.5',
        outcomeTwoName: 'Away +1.5',
        line: -1.5,
        mainLine: true,
      },
    });
    expect(alt.statusCode, alt.body).toBe(200);
    const line = await waitFor(
      () => mainLine.data().find((m) => m.marketHash === alt.json().data.marketHash),
      5000,
      'main line',
    );
    expect(line).toMatchObject({ marketType: 3, sportXEventId: eventId });
  });
});

describe('shutdown', () => {
  it('closing the app closes the hub: clients are told to reconnect and the server stops', async () => {
    const own = await startTestExchange();
    try {
      const url = await own.app.listen({ port: 0, host: '127.0.0.1' });
      const user = await own.createUser();
      const c = exchangeClient(url, user.headers);
      clients.push(c);
      const codes: number[] = [];
      c.on('connecting', (ctx) => codes.push(ctx.code));
      c.connect();
      await waitFor(() => c.state === 'connected', 5000, 'connected');
      await own.app.close();
      await waitFor(() => codes.length > 1, 5000, 'disconnect');
      expect(codes.at(-1)).toBe(3001);
      c.disconnect();
    } finally {
      await own.exchange.close();
      removeDataDir(own.dataDir);
    }
  });
});
