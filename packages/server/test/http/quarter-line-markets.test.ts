import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSpecErrorShape } from '../helpers/error-shapes.js';
import { startTestExchange, type TestExchange, type TestUser } from '../helpers/test-exchange.js';
import { createTrader, place, USDC } from '../helpers/trading.js';
import { catalogBuilders } from './catalog-builders.js';

/**
 * Issue 26, as the operator and a bettor see it: a quarter-line market (x.25, x.75) comes with its two
 * legs, trades on its own book with each fill half on each leg, and is settled by the legs' results.
 */
type MarketJson = {
  marketHash: `0x${string}`;
  type: number;
  line: number | null;
  outcomeOneName: string;
  outcomeTwoName: string;
  mainLine: boolean;
  status: string;
  isQuarterLineMarket: boolean;
  quarterLineLegs: [`0x${string}`, `0x${string}`] | null;
  outcome?: number;
  reportedDate?: number;
};

const FUNDS = 1_000n * USDC;
let t: TestExchange;
let b: ReturnType<typeof catalogBuilders>;
let leagueId: number;
let fixtures = 0;

beforeAll(async () => {
  t = await startTestExchange();
  b = catalogBuilders(t);
  leagueId = await b.league({ sportId: 5, label: 'Quarter League' });
});
afterAll(async () => {
  await t?.close();
});

const fixture = () => {
  fixtures += 1;
  return b.fixture({
    leagueId,
    teamOneName: `Home ${fixtures}`,
    teamTwoName: `Away ${fixtures}`,
    gameTime: Math.floor(Date.now() / 1000) + 86_400,
  });
};
/** Created through the operator API, then read back as the public market record. */
const createMarket = async (payload: Record<string, unknown>): Promise<MarketJson> => {
  const created = (await b.post('/admin/markets', payload)) as Pick<
    MarketJson,
    'marketHash' | 'quarterLineLegs'
  >;
  const [market] = await find(created.marketHash);
  expect(market!.quarterLineLegs).toEqual(created.quarterLineLegs);
  return market!;
};
const find = async (...hashes: string[]): Promise<MarketJson[]> => {
  const response = await t.app.inject({
    method: 'GET',
    url: `/markets/find?marketHashes=${hashes.join(',')}`,
  });
  expect(response.statusCode, response.body).toBe(200);
  const byHash = new Map((response.json().data as MarketJson[]).map((m) => [m.marketHash, m]));
  return hashes.map((h) => byHash.get(h as `0x${string}`)!);
};
const eventMarkets = async (eventId: string): Promise<MarketJson[]> =>
  (await t.app.inject({ method: 'GET', url: `/markets/active?eventId=${eventId}` })).json().data.markets;
const resolve = (marketHash: string, outcome: 0 | 1 | 2) =>
  t.app.inject({
    method: 'POST',
    url: `/admin/markets/${marketHash}/resolve`,
    headers: t.admin,
    payload: { outcome },
  });
async function balance(user: TestUser) {
  const row = (await t.app.inject({ method: 'GET', url: '/user/balance-v3', headers: user.headers })).json()
    .data.balances[0] as { availableAmount: string; escrowedAmount: string };
  return { available: BigInt(row.availableAmount), escrowed: BigInt(row.escrowedAmount) };
}
/** A quarter-line handicap -0.75 on a fresh fixture, with its legs. */
async function handicap() {
  const eventId = await fixture();
  const market = await createMarket({
    eventId,
    type: 3,
    line: -0.75,
    outcomeOneName: `Home ${fixtures} -0.75`,
    outcomeTwoName: `Away ${fixtures} +0.75`,
  });
  const [whole, half] = market.quarterLineLegs!;
  return { eventId, market, whole, half };
}

describe('creating quarter-line markets', () => {
  it('creates the whole-line and half-line legs of -0.75 when the event has none, and links them', async () => {
    const { eventId, market, whole, half } = await handicap();
    expect(market).toMatchObject({ line: -0.75, isQuarterLineMarket: true, mainLine: true });
    const legs = await find(whole, half);
    expect(legs.map((m) => [m.line, m.outcomeOneName, m.outcomeTwoName, m.mainLine, m.type])).toEqual([
      [-1, `Home ${fixtures} -1`, `Away ${fixtures} +1`, false, 3],
      [-0.5, `Home ${fixtures} -0.5`, `Away ${fixtures} +0.5`, false, 3],
    ]);
    expect(legs.map((m) => [m.isQuarterLineMarket, m.quarterLineLegs])).toEqual([
      [false, null],
      [false, null],
    ]);
    expect((await find(market.marketHash))[0]!.quarterLineLegs).toEqual([whole, half]);
    expect(await eventMarkets(eventId)).toHaveLength(3);

    // The legs are ordinary markets: the same one again is a 409, not a second market.
    const again = await t.app.inject({
      method: 'POST',
      url: '/admin/markets',
      headers: t.admin,
      payload: {
        eventId,
        type: 3,
        line: -1,
        outcomeOneName: legs[0]!.outcomeOneName,
        outcomeTwoName: legs[0]!.outcomeTwoName,
      },
    });
    expect(again.statusCode).toBe(409);
    expectSpecErrorShape(409, again.json());
    expect(await eventMarkets(eventId)).toHaveLength(3);
  });

  it('links the whole line the event already has and creates only the half line', async () => {
    const eventId = await fixture();
    const existing = await createMarket({
      eventId,
      type: 3,
      line: -1,
      outcomeOneName: 'Home -1',
      outcomeTwoName: 'Away +1',
    });
    const market = await createMarket({
      eventId,
      type: 3,
      line: -0.75,
      outcomeOneName: 'Home -0.75',
      outcomeTwoName: 'Away +0.75',
    });
    expect(market.quarterLineLegs![0]).toBe(existing.marketHash);
    expect(market.mainLine).toBe(false);
    const spreads = await eventMarkets(eventId);
    expect(spreads.map((m) => m.line).sort()).toEqual([-0.5, -0.75, -1].sort());
    expect((await find(market.quarterLineLegs![1]))[0]).toMatchObject({
      line: -0.5,
      outcomeOneName: 'Home -0.5',
    });
  });

  it('gives a 2.25 total the 2 and 2.5 totals', async () => {
    const eventId = await fixture();
    const market = await createMarket({
      eventId,
      type: 2,
      line: 2.25,
      outcomeOneName: 'Over 2.25',
      outcomeTwoName: 'Under 2.25',
    });
    const legs = await find(...market.quarterLineLegs!);
    expect(legs.map((m) => [m.line, m.outcomeOneName, m.outcomeTwoName])).toEqual([
      [2, 'Over 2', 'Under 2'],
      [2.5, 'Over 2.5', 'Under 2.5'],
    ]);
  });
});

describe('trading and settling a quarter-line market', () => {
  it('matches on its own book after the engine opened its legs, and the legs settle it', async () => {
    const { market, whole, half } = await handicap();
    const engine = t.exchange.trading.sequencer.engine;
    expect(engine.market(market.marketHash)).toBeUndefined();
    const [maker, taker] = [await createTrader(t, FUNDS), await createTrader(t, FUNDS)];

    await place(t, maker, { marketHash: market.marketHash, tick: 400, size: 100n * USDC });
    expect([whole, half, market.marketHash].map((h) => engine.market(h)?.status)).toEqual([
      'open',
      'open',
      'open',
    ]);
    const fill = await place(t, taker, {
      marketHash: market.marketHash,
      tick: 400,
      size: 100n * USDC,
      isOne: false,
      timeInForce: 'IOC',
    });
    expect(fill.status, JSON.stringify(fill)).toBe('SUBMITTED');
    expect(fill.outcome).toMatchObject({ fillAmount: (100n * USDC).toString() });
    expect(await balance(maker)).toEqual({ available: FUNDS - 100n * USDC, escrowed: 100n * USDC });

    // Not resolved itself: its legs are.
    const refused = await resolve(market.marketHash, 1);
    expect(refused.statusCode).toBe(409);
    expectSpecErrorShape(409, refused.json());
    expect(refused.json().message).toBe(
      `a quarter-line market is settled by its legs: resolve ${whole} and ${half}`,
    );

    // Home wins by exactly one: the -1 leg is void, the -0.5 leg won. The maker wins half its bet.
    expect((await resolve(whole, 0)).statusCode).toBe(200);
    const closed = (await find(market.marketHash))[0]!;
    expect(closed.status).toBe('INACTIVE');
    expect(closed).not.toHaveProperty('reportedDate');
    expect(engine.market(market.marketHash)?.status).toBe('closed');
    const late = await place(t, taker, { marketHash: market.marketHash, tick: 400, size: 10n * USDC });
    expect(late).toMatchObject({ status: 'FAILED', reason: 'MARKET_INACTIVE' });

    expect((await resolve(half, 1)).statusCode).toBe(200);
    const settled = (await find(market.marketHash))[0]!;
    expect(settled.status).toBe('INACTIVE');
    expect(settled.reportedDate).toEqual(expect.any(Number));
    expect(settled).not.toHaveProperty('outcome');
    expect(await balance(maker)).toEqual({ available: FUNDS + 50n * USDC, escrowed: 0n });
    expect(await balance(taker)).toEqual({ available: FUNDS - 50n * USDC, escrowed: 0n });
  });

  it('refuses orders on a quarter-line market whose leg was resolved before it ever traded', async () => {
    const { market, whole } = await handicap();
    expect((await resolve(whole, 2)).statusCode).toBe(200);
    const trader = await createTrader(t, FUNDS);
    const refused = await place(t, trader, { marketHash: market.marketHash, tick: 400, size: 10n * USDC });
    expect(refused).toMatchObject({ status: 'FAILED', reason: 'MARKET_INACTIVE' });
    expect(t.exchange.trading.sequencer.engine.market(market.marketHash)).toBeUndefined();
    expect(await balance(trader)).toEqual({ available: FUNDS, escrowed: 0n });
  });

  it('closes a quarter-line market with its fixture', async () => {
    const { eventId, market, whole } = await handicap();
    const trader = await createTrader(t, FUNDS);
    await place(t, trader, { marketHash: market.marketHash, tick: 400, size: 10n * USDC });
    await b.status(eventId, 3);
    await t.exchange.trading.idle();
    const engine = t.exchange.trading.sequencer.engine;
    expect([engine.market(whole)?.status, engine.market(market.marketHash)?.status]).toEqual([
      'closed',
      'closed',
    ]);
    expect(await balance(trader)).toEqual({ available: FUNDS, escrowed: 0n });
  });
});
