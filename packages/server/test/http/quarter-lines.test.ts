import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { legTradeIdOf, tradeIdOf } from '../../src/records/records.js';
import { replayStore, storeSql } from '../helpers/store-access.js';
import {
  removeDataDir,
  startTestExchange,
  type TestExchange,
  type TestUser,
} from '../helpers/test-exchange.js';
import { createTrader, place, USDC, until } from '../helpers/trading.js';

/** The tables a projector writes (as in projections.test.ts, with the capital-efficiency refunds). */
const PROJECTION_TABLES = [
  'orders',
  'fills',
  'trades',
  'ce_refunds',
  'balances',
  'positions',
  'engine_markets',
  'market_settlements',
  'escrow_locks',
  'settlement_payouts',
  'settlement_outstanding',
];

const units = (usdc: bigint) => (usdc * USDC).toString();

type Row = Record<string, unknown> & { tradeId: string; marketHash: string };

/**
 * A quarter-line market (-1.25) whose legs are the -1 (whole) and -1.5 (half) lines of the same fixture,
 * opened in the engine with its legs (the catalog knows the three as ordinary markets). A makes 60 on
 * outcome one at 50 %, B takes it: 30 of each stake on each leg. Then the half line wins for outcome one
 * and the whole line is void: A gets 60 + 30 back, B 30.
 */
describe('quarter-line bets through the read routes', () => {
  let t: TestExchange;
  let a: TestUser;
  let b: TestUser;
  let whole: `0x${string}`;
  let half: `0x${string}`;
  let quarter: `0x${string}`;
  let orderA: string;
  let orderB: string;

  beforeAll(async () => {
    t = await startTestExchange();
    const post = async (url: string, payload: Record<string, unknown>) => {
      const response = await t.app.inject({ method: 'POST', url, headers: t.admin, payload });
      if (response.statusCode !== 200) throw new Error(`${url}: ${response.body}`);
      return response.json().data;
    };
    const { leagueId } = await post('/admin/leagues', { sportId: 5, label: 'Quarter League' });
    const { eventId } = await post('/admin/fixtures', {
      leagueId,
      teamOneName: 'Brighton',
      teamTwoName: 'Fulham',
      gameTime: Math.floor(Date.now() / 1000) + 86_400,
    });
    const spread = async (line: string) =>
      (
        await post('/admin/markets', {
          eventId,
          type: 3,
          line,
          outcomeOneName: `Brighton ${line}`,
          outcomeTwoName: `Fulham +${line.slice(1)}`,
        })
      ).marketHash as `0x${string}`;
    whole = await spread('-1');
    half = await spread('-1.5');
    quarter = await spread('-1.25');
    const { sequencer } = t.exchange.trading;
    for (const marketHash of [whole, half]) {
      await sequencer.submit({ kind: 'engine', command: { type: 'openMarket', marketHash, eventId } });
    }
    const opened = await sequencer.submit({
      kind: 'engine',
      command: { type: 'openMarket', marketHash: quarter, eventId, legs: [whole, half] },
    });
    expect(opened.events).toMatchObject([{ type: 'marketOpened', legs: [whole, half] }]);
    [a, b] = [await createTrader(t), await createTrader(t)];
    orderA = (await place(t, a, { marketHash: quarter, tick: 400, size: 60n * USDC })).orderId;
    orderB = (
      await place(t, b, {
        marketHash: quarter,
        tick: 400,
        size: 60n * USDC,
        isOne: false,
        timeInForce: 'IOC',
      })
    ).orderId;
    await t.exchange.trading.idle();
  });
  afterAll(async () => {
    await t.close();
    removeDataDir(t.dataDir);
  });

  const get = async (url: string, user: TestUser) => {
    const response = await t.app.inject({ method: 'GET', url, headers: user.headers });
    expect(response.statusCode).toBe(200);
    return response.json().data;
  };
  const consolidated = async (user: TestUser, query = '') =>
    (await get(`/trades-v3/consolidated${query}`, user)).trades as Row[];
  const balance = async (user: TestUser) => (await get('/user/balance-v3', user)).balances[0];

  /** The projections agree with the engine rebuilt from the journal (what `oddsbook replay` checks). */
  const replayAgrees = async () => {
    await t.exchange.trading.idle();
    const { projectionsHash, journalHash, snapshot } = await replayStore(t);
    expect(projectionsHash).toBe(journalHash);
    // The quarter-line market's mirror row names its legs; it holds no position of its own.
    const market = snapshot.markets.find((m) => m.marketHash === quarter);
    expect(market).toMatchObject({ legs: [whole, half], positions: [] });
  };

  it('shows the leg trades and fills on /trades-v3 and /fills-v3, the positions on the legs', async () => {
    // Ordered by time, then trade id (the legs' ids are hashes).
    const trades = (await get('/trades-v3', a)).trades as Row[];
    const byId = (x: Row, y: Row) => (x.tradeId < y.tradeId ? -1 : 1);
    expect(trades.map((r) => [r.tradeId, r.marketHash, r.stake, r.potentialPayout])).toEqual(
      [
        [legTradeIdOf(orderA, 0), whole, units(30n), units(60n)],
        [legTradeIdOf(orderA, 1), half, units(30n), units(60n)],
      ].sort((x, y) => (x[0]! < y[0]! ? -1 : 1)),
    );
    expect(trades.every((r) => r.isQuarterLineLeg && r.quarterLineParentMarketHash === quarter)).toBe(true);
    // The quarter-line market's hash lists its legs' trades; a leg's only its own.
    expect((await get(`/trades-v3?marketHash=${quarter}`, a)).trades).toEqual(trades);
    expect((await get(`/trades-v3?marketHash=${half}`, a)).trades).toEqual(
      trades.filter((r) => r.marketHash === half),
    );
    expect([...trades].sort(byId)).toEqual(trades);

    const fills = (await get('/fills-v3', b)).fills as Row[];
    expect(
      fills.map((f) => [f.marketHash, f.fillAmount, f.isQuarterLineLeg, f.quarterLineParentMarketHash]),
    ).toEqual([
      [whole, units(30n), true, quarter],
      [half, units(30n), true, quarter],
    ]);
    expect(fills.map((f) => f.tradeId)).toEqual([legTradeIdOf(orderB, 0), legTradeIdOf(orderB, 1)]);

    const positions = (await get('/positions-v3', a)).positions as Row[];
    expect(positions.map((p) => p.marketHash).sort()).toEqual([whole, half].sort());
    // The order itself is on the quarter-line market.
    expect(await get(`/orders-v3/${orderA}`, a)).toMatchObject({
      marketHash: quarter,
      fillAmount: units(60n),
    });
    await replayAgrees();
  });

  it('lists the parent beside its legs on /trades-v3/consolidated, and hides either', async () => {
    const rows = await consolidated(a);
    const parentId = tradeIdOf(orderA);
    expect(
      rows.map((r) => [
        r.tradeId,
        r.marketHash,
        r.isQuarterLineParent,
        r.isQuarterLineLeg,
        r.quarterLineFillHash,
      ]),
    ).toEqual([
      [parentId, quarter, true, false, null],
      [legTradeIdOf(orderA, 0), whole, false, true, parentId],
      [legTradeIdOf(orderA, 1), half, false, true, parentId],
    ]);
    expect(rows[0]).toMatchObject({
      orderId: orderA,
      stake: units(60n),
      totalStake: units(60n),
      totalReturn: units(120n),
      potentialPayout: units(120n),
      netReturn: units(60n),
      odds: (5n * 10n ** 19n).toString(),
      settlement: null,
      isQuarterLineLeg: false,
    });
    // The parent is no leg: no quarterLineParentMarketHash at all (the spec's rows), not null.
    expect(rows[0]).not.toHaveProperty('quarterLineParentMarketHash');
    expect(rows[1]).toMatchObject({ totalStake: units(30n), totalReturn: units(60n), netReturn: units(30n) });
    expect((await consolidated(a, '?hideQuarterLineLegs=true')).map((r) => r.tradeId)).toEqual([parentId]);
    expect((await consolidated(a, '?hideQuarterLineParents=true')).map((r) => r.tradeId)).toEqual([
      legTradeIdOf(orderA, 0),
      legTradeIdOf(orderA, 1),
    ]);
    expect((await consolidated(a, `?marketHash=${quarter}`)).map((r) => r.tradeId)).toEqual(
      rows.map((r) => r.tradeId),
    );
    expect((await consolidated(a, `?marketHash=${whole}`)).map((r) => r.tradeId)).toEqual([
      legTradeIdOf(orderA, 0),
    ]);
    // Keyset pages of one row cover the same rows.
    const paged: string[] = [];
    let nextKey: string | null = null;
    do {
      const query: string = `?perPage=1${nextKey ? `&nextKey=${nextKey}` : ''}`;
      const page: { trades: Row[]; nextKey: string | null } = await get(`/trades-v3/consolidated${query}`, a);
      paged.push(...page.trades.map((r) => r.tradeId));
      nextKey = page.nextKey;
    } while (nextKey);
    expect(paged).toEqual(rows.map((r) => r.tradeId));
    const descending = await consolidated(a, '?sortAsc=false');
    expect(descending.map((r) => r.tradeId)).toEqual(rows.map((r) => r.tradeId).reverse());
    // Ordinary rows of the taker's side: the same shape.
    expect((await consolidated(b)).map((r) => r.tradeId)).toEqual([
      tradeIdOf(orderB),
      legTradeIdOf(orderB, 0),
      legTradeIdOf(orderB, 1),
    ]);
  });

  it('refuses a bad query in the error shape, and an unauthenticated call', async () => {
    const bad = await t.app.inject({
      method: 'GET',
      url: '/trades-v3/consolidated?hideQuarterLineLegs=maybe',
      headers: a.headers,
    });
    expect(bad.statusCode).toBe(400);
    expect((await t.app.inject({ method: 'GET', url: '/trades-v3/consolidated' })).statusCode).toBe(401);
  });

  it('settles each leg with its own market, the parent once both are, through a restart', async () => {
    // The escrows land on the chain's timer: once they have, no row changes across the restart but by it.
    for (const user of [a, b]) {
      await until(
        () => consolidated(user),
        (rows) => rows.every((r) => r.status === 'LOCKED'),
        10_000,
      );
    }
    await t.exchange.trading.resolveMarket(half, 1);
    await t.settled();
    const afterHalf = await consolidated(a);
    expect(afterHalf.map((r) => [r.status, r.settlement, r.netReturn])).toEqual([
      // The parent waits for the whole line.
      [expect.not.stringMatching('SETTLED'), null, units(60n)],
      [expect.not.stringMatching('SETTLED'), null, units(30n)],
      ['SETTLED', { outcome: 1, payout: units(60n) }, units(30n)],
    ]);
    const balances = { a: await balance(a), b: await balance(b) };
    // What realtime publishes at the half line's resolution: its own rows, not the whole line's.
    const settledHalf = await t.exchange.trading.queries.settledOf(half, [a.address]);
    expect(settledHalf.trades.map((r) => r.id)).toEqual([legTradeIdOf(orderA, 1)]);
    expect(settledHalf.fills.map((f) => [f.marketHash, f.status])).toEqual([[half, 'SETTLED']]);
    await replayAgrees();

    t = await t.reopen();
    expect(await consolidated(a)).toEqual(afterHalf);
    expect({ a: await balance(a), b: await balance(b) }).toEqual(balances);

    await t.exchange.trading.resolveMarket(whole, 0);
    await t.settled();
    const settled = await consolidated(a);
    expect(settled.map((r) => [r.tradeId, r.status, r.settlement, r.netReturn])).toEqual([
      [tradeIdOf(orderA), 'SETTLED', { outcome: 1, payout: units(90n) }, units(30n)],
      [legTradeIdOf(orderA, 0), 'SETTLED', { outcome: 0, payout: units(30n) }, '0'],
      [legTradeIdOf(orderA, 1), 'SETTLED', { outcome: 1, payout: units(60n) }, units(30n)],
    ]);
    const settledWhole = await t.exchange.trading.queries.settledOf(whole, [a.address]);
    expect(settledWhole.fills.map((f) => f.marketHash)).toEqual([whole]);
    const lost = await consolidated(b, '?hideQuarterLineLegs=true');
    expect(lost).toMatchObject([
      { status: 'SETTLED', settlement: { outcome: 1, payout: units(30n) }, netReturn: units(-30n) },
    ]);
    expect(await balance(a)).toMatchObject({ availableAmount: units(1030n), escrowedAmount: '0' });
    expect(await balance(b)).toMatchObject({ availableAmount: units(970n), escrowedAmount: '0' });
    expect((await get('/positions-v3', a)).positions).toEqual([]);
    await replayAgrees();
  });

  it('are rebuilt from the journal alone: the quarter-line rows read as before', async () => {
    const reads = async () => ({
      consolidated: [await consolidated(a), await consolidated(b)],
      trades: (await get('/trades-v3', a)).trades,
      fills: (await get('/fills-v3', b)).fills,
      orders: [await get(`/orders-v3/${orderA}`, a), await get(`/orders-v3/${orderB}`, b)],
      balances: [await balance(a), await balance(b)],
    });
    await t.settled();
    const before = await reads();
    await t.close();
    const sql = await storeSql(t);
    for (const table of PROJECTION_TABLES) await sql.query(`DELETE FROM ${table}`);
    await sql.query('UPDATE projector_cursor SET seq = 0');
    await sql.close();
    t = await startTestExchange({ dataDir: t.dataDir });
    await t.exchange.trading.idle();
    expect(await reads()).toEqual(before);
    await replayAgrees();
  });
});
