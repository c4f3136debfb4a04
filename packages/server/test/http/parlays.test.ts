import { GLOBAL_CHANNELS, orderBookMarketChannel, ParlayMarketUpdate } from '@oddsbook/protocol';
import type { Centrifuge, PublicationContext } from 'centrifuge';
import { Value } from 'typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayCheckPassed, runReplayCheck } from '../../src/exchange/replay-check.js';
import { expectSpecErrorShape } from '../helpers/error-shapes.js';
import {
  removeDataDir,
  startTestExchange,
  type TestExchange,
  type TestUser,
} from '../helpers/test-exchange.js';
import { createMarket, createTrader, place, USDC, until } from '../helpers/trading.js';
import { exchangeClient, until as waitFor } from '../realtime/helpers.js';

/**
 * Issue 39, against the real server: a bettor requests a parlay, makers quote on the market made for it within
 * the quote window, the requester alone takes, the market closes at takeUntil, and the legs' results settle it
 * with the fee on the winner's profit, credited to the fee account; the chain agrees to the base unit.
 */
const QUOTE_MS = 3_000;
const TAKE_MS = 60_000;
let offset = 0;
const clock = { now: () => Date.now() + offset };
/** Moves the exchange's clock forward (the sequencer's time, the windows, due work). */
const advance = (ms: number) => {
  offset += ms;
};

let t: TestExchange;
let api: string;
let requester: TestUser;
let maker: TestUser;
let other: TestUser;
const clients: Centrifuge[] = [];

beforeAll(async () => {
  t = await startTestExchange({ clock });
  api = await t.app.listen({ port: 0, host: '127.0.0.1' });
  [requester, maker, other] = await Promise.all([createTrader(t), createTrader(t), createTrader(t)]);
}, 60_000);
let closed = false;
afterAll(async () => {
  for (const c of clients) c.disconnect();
  if (!closed) await t?.close();
  if (t) removeDataDir(t.dataDir);
});

const legsOf = async (n: number) =>
  Promise.all(Array.from({ length: n }, () => createMarket(t))).then((ms) =>
    ms.map((m, i) => ({ ...m, bettingOutcomeOne: i % 2 === 0 })),
  );
const request = (user: TestUser, body: unknown) =>
  t.app.inject({ method: 'POST', url: '/parlays-v3', headers: user.headers, payload: body as object });
const body = (legs: { marketHash: string; bettingOutcomeOne: boolean }[], extra: object = {}) => ({
  baseToken: t.config.baseToken,
  legs: legs.map(({ marketHash, bettingOutcomeOne }) => ({ marketHash, bettingOutcomeOne })),
  ...extra,
});
const detail = async (user: TestUser, marketHash: string) => {
  const response = await t.app.inject({
    method: 'GET',
    url: `/parlays-v3/${marketHash}`,
    headers: user.headers,
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data;
};
const resolve = async (marketHash: string, outcome: 0 | 1 | 2) => {
  const response = await t.app.inject({
    method: 'POST',
    url: `/admin/markets/${marketHash}/resolve`,
    headers: t.admin,
    payload: { outcome },
  });
  expect(response.statusCode, response.body).toBe(200);
};
const available = async (user: TestUser) =>
  BigInt(
    (await t.app.inject({ method: 'GET', url: '/user/balance-v3', headers: user.headers })).json().data
      .balances[0].availableAmount,
  );
const fees = async () =>
  (await t.app.inject({ method: 'GET', url: '/admin/fees', headers: t.admin })).json().data as {
    address: string;
    parlayFeeBps: number;
    collectedAmount: string;
  };
const trades = async (user: TestUser, marketHash: string) =>
  (
    await t.app.inject({ method: 'GET', url: `/trades-v3?marketHash=${marketHash}`, headers: user.headers })
  ).json().data.trades as {
    status: string;
    fee: string;
    isParlay: boolean;
    settlement: { payout: string } | null;
  }[];

/** A requested parlay with one offer (maker lays 40 at 80 %) and the requester's take of 10 at 20 %. */
async function takenParlay(nLegs = 3) {
  const legs = await legsOf(nLegs);
  const answer = await request(requester, body(legs, { requestSize: (10n * USDC).toString() }));
  expect(answer.statusCode, answer.body).toBe(200);
  const { marketHash } = answer.json().data as { marketHash: `0x${string}` };
  const offer = await place(t, maker, { marketHash, tick: 640, size: 40n * USDC, isOne: false });
  expect(offer.status).toBe('SUBMITTED');
  advance(QUOTE_MS);
  const take = await place(t, requester, { marketHash, tick: 160, size: 10n * USDC, timeInForce: 'IOC' });
  expect(take.outcome.state, JSON.stringify(take)).toBe('FULLY_FILLED');
  return { legs, marketHash };
}

describe('POST /parlays-v3: the request', () => {
  it('refuses 0, 1 and 11 legs, a bad body, another token: 400, never 500', async () => {
    const eleven = await legsOf(11);
    for (const payload of [
      body([]),
      body(eleven.slice(0, 1)),
      body(eleven),
      { legs: 'x' },
      { ...body(eleven.slice(0, 2)), extra: 1 },
      { ...body(eleven.slice(0, 2)), requestSize: '-5' },
      body([{ marketHash: 'nope', bettingOutcomeOne: true }, eleven[0]!]),
    ]) {
      const response = await request(requester, payload);
      expect(response.statusCode, response.body).toBe(400);
      expectSpecErrorShape(400, response.json());
    }
    const token = await request(requester, { ...body(eleven.slice(0, 2)), baseToken: `0x${'1'.repeat(40)}` });
    expect(token.json()).toMatchObject({ statusCode: 400, code: 'PARLAY_BAD_BASE_TOKEN' });
    const noKey = await t.app.inject({
      method: 'POST',
      url: '/parlays-v3',
      payload: body(eleven.slice(0, 2)),
    });
    expect(noKey.statusCode).toBe(401);
  });

  it('names the refused leg: unknown, inactive, or a second leg of one event', async () => {
    const [a, b, c] = await legsOf(3);
    const unknown = `0x${'ab'.repeat(32)}`;
    const refusal = async (legs: { marketHash: string; bettingOutcomeOne: boolean }[]) =>
      (await request(requester, body(legs))).json();
    expect(await refusal([a!, { marketHash: unknown, bettingOutcomeOne: true }])).toEqual({
      message: expect.stringContaining('leg 1'),
      error: 'Bad Request',
      statusCode: 400,
      code: 'PARLAY_LEG_NOT_FOUND',
      marketHash: unknown,
      legIndex: 1,
    });
    await resolve(c!.marketHash, 1);
    expect(await refusal([a!, b!, c!])).toMatchObject({
      code: 'PARLAY_LEG_INACTIVE',
      marketHash: c!.marketHash,
      legIndex: 2,
    });
    const sameEvent = await t.app.inject({
      method: 'POST',
      url: '/admin/markets',
      headers: t.admin,
      payload: { eventId: a!.eventId, type: 1, outcomeOneName: 'Home', outcomeTwoName: 'Away' },
    });
    const second = sameEvent.json().data.marketHash as string;
    expect(await refusal([a!, b!, { marketHash: second, bettingOutcomeOne: true }])).toMatchObject({
      code: 'PARLAY_LEGS_SAME_EVENT',
      marketHash: second,
      legIndex: 2,
    });
  });

  it('makes a market for the request, broadcast on parlay_markets:global, with legs as full records', async () => {
    const c = exchangeClient(api, requester.headers);
    clients.push(c);
    const pubs: PublicationContext[] = [];
    const sub = c.newSubscription(GLOBAL_CHANNELS.parlay_markets);
    sub.on('publication', (ctx) => pubs.push(ctx));
    let subscribed = false;
    sub.on('subscribed', () => {
      subscribed = true;
    });
    sub.subscribe();
    c.connect();
    await waitFor(() => subscribed, 5_000, 'subscribed');

    const legs = await legsOf(3);
    const before = clock.now();
    const answer = await request(requester, body(legs, { requestSize: '100000000' }));
    expect(answer.statusCode, answer.body).toBe(200);
    const data = answer.json().data;
    expect(data.marketHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(data.legs).toEqual(body(legs).legs);
    const windowEnd = Date.parse(data.quoteWindowEndsAt);
    expect(windowEnd - before).toBeGreaterThanOrEqual(QUOTE_MS);
    expect(Date.parse(data.takeUntil) - windowEnd).toBe(TAKE_MS);

    await waitFor(() => pubs.some((p) => p.data.marketHash === data.marketHash), 5_000, 'broadcast');
    const update = pubs.find((p) => p.data.marketHash === data.marketHash)!.data;
    expect(Value.Check(ParlayMarketUpdate, update), JSON.stringify(update)).toBe(true);
    expect(update).toMatchObject({
      channelName: 'markets:parlay',
      marketHash: data.marketHash,
      baseToken: t.config.baseToken,
      requestSize: '100000000',
      legs: body(legs).legs,
    });

    const found = (
      await t.app.inject({ method: 'GET', url: `/markets/find?marketHashes=${data.marketHash}` })
    ).json().data[0];
    expect(found).toMatchObject({ marketHash: data.marketHash, status: 'ACTIVE' });
    expect(found.legs.map((l: { marketHash: string }) => l.marketHash)).toEqual(
      legs.map((l) => l.marketHash),
    );
    expect(found.legs[0]).toMatchObject({ status: 'ACTIVE', teamOneName: expect.any(String) });
    const active = (await t.app.inject({ method: 'GET', url: '/markets/active?perPage=1000' })).json().data
      .markets as { marketHash: string }[];
    expect(active.some((m) => m.marketHash === data.marketHash)).toBe(false);
    expect(active.some((m) => m.marketHash === legs[0]!.marketHash)).toBe(true);
  });
});

describe('offers on a parlay market', () => {
  it('are hidden until the window closes, refused after it; only the requester takes', async () => {
    const legs = await legsOf(2);
    const { marketHash } = (await request(requester, body(legs))).json().data as {
      marketHash: `0x${string}`;
    };
    const offer = await place(t, maker, { marketHash, tick: 640, size: 40n * USDC, isOne: false });
    expect(offer.outcome.state).toBe('RESTED');
    // During the window the requester sees nothing, neither here nor in the book; the maker sees its own.
    expect((await detail(requester, marketHash)).offers).toEqual([]);
    expect((await detail(requester, marketHash)).state).toBe('QUOTING');
    expect((await detail(maker, marketHash)).offers.map((o: { orderId: string }) => o.orderId)).toEqual([
      offer.orderId,
    ]);
    const book = async () =>
      (await t.app.inject({ method: 'GET', url: `/orderbook-v3/snapshot?marketHash=${marketHash}` })).json()
        .data;
    expect((await book()).outcomeTwo).toEqual([]);
    // Someone else betting the parlay is refused, in the window or after.
    const stranger = await place(t, other, { marketHash, tick: 160, size: 10n * USDC, timeInForce: 'IOC' });
    expect(stranger).toMatchObject({ status: 'FAILED', reason: 'PARLAY_REQUESTER_ONLY' });

    advance(QUOTE_MS);
    const late = await place(t, other, { marketHash, tick: 700, size: 40n * USDC, isOne: false });
    expect(late).toMatchObject({ status: 'FAILED', reason: 'PARLAY_QUOTE_WINDOW_CLOSED' });
    const seen = await detail(requester, marketHash);
    expect(seen.state).toBe('TAKING');
    expect(seen.offers).toEqual([
      expect.objectContaining({
        orderId: offer.orderId,
        isMakerBettingOutcomeOne: false,
        remainingSize: (40n * USDC).toString(),
      }),
    ]);
    expect((await book()).outcomeTwo).toHaveLength(1);
    expect(
      (await place(t, other, { marketHash, tick: 160, size: 10n * USDC, timeInForce: 'IOC' })).reason,
    ).toBe('PARLAY_REQUESTER_ONLY');

    // Past takeUntil the market closes: the resting offer is cancelled, EVENT_LIFECYCLE.
    advance(TAKE_MS);
    const row = await until(
      async () =>
        (
          await t.app.inject({ method: 'GET', url: `/orders-v3/${offer.orderId}`, headers: maker.headers })
        ).json().data,
      (o) => o.status === 'INACTIVE',
      10_000,
    );
    expect(row.inactiveReason).toBe('EVENT_LIFECYCLE');
    expect((await detail(requester, marketHash)).state).toBe('CLOSED');
    const tooLate = await place(t, requester, {
      marketHash,
      tick: 160,
      size: 10n * USDC,
      timeInForce: 'IOC',
    });
    expect(tooLate.status).toBe('FAILED');
  });
});

describe('the quote window, sealed', () => {
  it('publishes no offer on the realtime book before quoteWindowEndsAt and refuses the requester; then the whole book', async () => {
    const c = exchangeClient(api, other.headers);
    clients.push(c);
    const legs = await legsOf(2);
    const [plain] = await legsOf(1);
    const { marketHash, quoteWindowEndsAt } = (await request(requester, body(legs))).json().data as {
      marketHash: `0x${string}`;
      quoteWindowEndsAt: string;
    };
    type Book = { outcomeOne: unknown[]; outcomeTwo: unknown[] };
    const follow = (channel: string) => {
      const feed = { books: [] as Book[], subscribed: false };
      const sub = c.newSubscription(channel);
      sub.on('publication', (ctx) => feed.books.push(ctx.data as Book));
      sub.on('subscribed', () => {
        feed.subscribed = true;
      });
      sub.subscribe();
      return feed;
    };
    const parlayBook = follow(orderBookMarketChannel(marketHash));
    const plainBook = follow(orderBookMarketChannel(plain!.marketHash));
    c.connect();
    await waitFor(() => parlayBook.subscribed && plainBook.subscribed, 5_000, 'subscribed');

    const offer = await place(t, maker, { marketHash, tick: 640, size: 40n * USDC, isOne: false });
    expect(offer.outcome.state).toBe('RESTED');
    const early = await place(t, requester, { marketHash, tick: 160, size: 10n * USDC, timeInForce: 'IOC' });
    expect(early).toMatchObject({ status: 'FAILED', reason: 'PARLAY_QUOTE_WINDOW_OPEN' });
    // A later book on the same connection: had the offer been published, it would have come first.
    await place(t, maker, { marketHash: plain!.marketHash, tick: 400, size: 10n * USDC });
    await waitFor(() => plainBook.books.some((b) => b.outcomeOne.length > 0), 10_000, 'the other book');
    expect(clock.now()).toBeLessThan(Date.parse(quoteWindowEndsAt));
    expect(parlayBook.books.filter((b) => b.outcomeOne.length + b.outcomeTwo.length > 0)).toEqual([]);

    // The window closes: the book comes whole, with no order of anyone's to prompt it.
    advance(QUOTE_MS);
    const shown = await waitFor(
      () => parlayBook.books.find((b) => b.outcomeTwo.length > 0),
      10_000,
      'the parlay book at the window’s close',
    );
    const rest = (
      await t.app.inject({ method: 'GET', url: `/orderbook-v3/snapshot?marketHash=${marketHash}` })
    ).json().data;
    expect(shown).toEqual({ ...rest, messageId: expect.any(String) });
    const take = await place(t, requester, { marketHash, tick: 160, size: 10n * USDC, timeInForce: 'IOC' });
    expect(take.outcome.state, JSON.stringify(take)).toBe('FULLY_FILLED');
  });
});

describe('settlement from the legs', () => {
  it('a lost leg settles it at once, before the other legs; the maker pays the fee on its profit', async () => {
    const { legs, marketHash } = await takenParlay();
    const makerBefore = await available(maker);
    const feesBefore = BigInt((await fees()).collectedAmount);
    // The bettor needs leg 1's outcome two: outcome one loses it.
    await resolve(legs[1]!.marketHash, 1);
    await t.settled();
    const settled = await detail(requester, marketHash);
    expect(settled).toMatchObject({ state: 'SETTLED', outcome: 2 });
    // Profit 10 USDC, fee 5 %: 0.5.
    expect((await available(maker)) - makerBefore).toBe(50n * USDC - 500_000n);
    expect(BigInt((await fees()).collectedAmount) - feesBefore).toBe(500_000n);
    const [row] = await trades(maker, marketHash);
    expect(row).toMatchObject({ status: 'SETTLED', isParlay: true, fee: '500000' });
    expect(row!.settlement!.payout).toBe((50n * USDC - 500_000n).toString());
    const [taker] = await trades(requester, marketHash);
    expect(taker).toMatchObject({ status: 'SETTLED', isParlay: true, fee: '0' });
    const tape = (
      await t.app.inject({ method: 'GET', url: `/trades-v3/public?marketHash=${marketHash}` })
    ).json().data.trades;
    expect(tape).toEqual([expect.objectContaining({ isParlay: true })]);
  });

  it('wins once every leg is won: the requester pays 5 % of 40', async () => {
    const { legs, marketHash } = await takenParlay(2);
    const before = await available(requester);
    await resolve(legs[0]!.marketHash, 1);
    expect((await detail(requester, marketHash)).state).toBe('CLOSED');
    await resolve(legs[1]!.marketHash, 2);
    await t.settled();
    expect(await detail(requester, marketHash)).toMatchObject({ state: 'SETTLED', outcome: 1 });
    expect((await available(requester)) - before).toBe(50n * USDC - 2n * USDC);
    expect((await trades(requester, marketHash))[0]).toMatchObject({ fee: (2n * USDC).toString() });
  });

  it('voids on a void leg with none lost: every stake back, no fee', async () => {
    const { legs, marketHash } = await takenParlay(2);
    const [r, m] = [await available(requester), await available(maker)];
    await resolve(legs[0]!.marketHash, 0);
    await resolve(legs[1]!.marketHash, 2);
    await t.settled();
    expect(await detail(requester, marketHash)).toMatchObject({ state: 'SETTLED', outcome: 0 });
    expect((await available(requester)) - r).toBe(10n * USDC);
    expect((await available(maker)) - m).toBe(40n * USDC);
  });

  it('is refused to the operator; the chain agrees with the engine, fees included; /metrics shows them', async () => {
    const { marketHash } = await takenParlay(2);
    const refused = await t.app.inject({
      method: 'POST',
      url: `/admin/markets/${marketHash}/resolve`,
      headers: t.admin,
      payload: { outcome: 1 },
    });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().code).toBe('PARLAY_MARKET');
    await t.settled();
    const report = (await t.app.inject({ method: 'GET', url: '/admin/reconcile', headers: t.admin })).json()
      .data;
    expect(report.differences).toEqual([]);
    const { collectedAmount, parlayFeeBps } = await fees();
    expect(parlayFeeBps).toBe(500);
    expect(BigInt(collectedAmount)).toBeGreaterThan(0n);
    const metrics = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toContain(`oddsbook_parlay_fees_collected_base_units ${collectedAmount}`);
  });

  it('survives a restart: the parlay, its windows and its legs’ results', async () => {
    const { legs, marketHash } = await takenParlay(2);
    await resolve(legs[0]!.marketHash, 1);
    t = await t.reopen();
    expect((await detail(requester, marketHash)).state).toBe('CLOSED');
    await resolve(legs[1]!.marketHash, 2);
    await t.settled();
    expect(await detail(requester, marketHash)).toMatchObject({ state: 'SETTLED', outcome: 1 });
  });

  it('rebuilds from the projections as from the journal (oddsbook replay), the chain agreeing', async () => {
    const { marketHash } = await takenParlay(2);
    expect((await detail(requester, marketHash)).state).toBe('TAKING');
    await t.settled();
    await t.close();
    closed = true;
    const check = await runReplayCheck(t.config);
    expect(check.projectionsHash).toBe(check.journalHash);
    expect(replayCheckPassed(check), JSON.stringify(check.reconciliation?.report.differences)).toBe(true);
  });
});
