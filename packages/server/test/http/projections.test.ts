import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayStore, storeSql } from '../helpers/store-access.js';
import { removeDataDir, startTestExchange, type TestExchange } from '../helpers/test-exchange.js';
import { createMarket, createTrader, place, USDC } from '../helpers/trading.js';

/** The tables a projector writes (the journal, the catalog and the chain's own tables are not among them). */
const PROJECTION_TABLES = [
  'orders',
  'fills',
  'trades',
  'balances',
  'positions',
  'engine_markets',
  'market_settlements',
  'escrow_locks',
  'settlement_payouts',
  'settlement_outstanding',
];

describe('projections follow the journal', () => {
  let t: TestExchange;
  beforeAll(async () => {
    t = await startTestExchange();
  });
  afterAll(async () => {
    await t.close();
    removeDataDir(t.dataDir);
  });

  const get = (url: string, headers: Record<string, string>) =>
    t.app.inject({ method: 'GET', url, headers }).then((r) => r.json().data);

  it('are rebuilt from the journal alone: every read answers as before, and replay agrees', async () => {
    const open = await createMarket(t);
    const settled = await createMarket(t);
    const maker = await createTrader(t);
    const taker = await createTrader(t);
    for (const { marketHash } of [open, settled]) {
      await place(t, maker, { marketHash, tick: 400, size: 10n * USDC });
      await place(t, taker, { marketHash, tick: 400, size: 4n * USDC, isOne: false, timeInForce: 'IOC' });
    }
    await t.exchange.trading.resolveMarket(settled.marketHash, 1);
    await t.app.inject({
      method: 'POST',
      url: '/heartbeat/v3',
      headers: maker.headers,
      payload: { timeoutSeconds: 600 },
    });
    const reads = async () => ({
      orders: await get('/orders-v3?perPage=100', maker.headers),
      makerFills: await get('/fills-v3', maker.headers),
      takerTrades: await get('/trades-v3', taker.headers),
      balance: await get('/user/balance-v3', taker.headers),
      positions: await get('/positions-v3', taker.headers),
      tape: await get('/trades-v3/public', {}),
    });
    // Once the chain has settled everything (a start re-reads the blocks, which would move it meanwhile).
    await t.settled();
    const before = await reads();
    expect(before.makerFills.fills.every((f: { status: string }) => f.status !== 'MATCHED')).toBe(true);
    expect(before.makerFills.fills).toHaveLength(2);

    // A projection database lost (or never written): emptied, its cursor at 0.
    await t.close();
    const sql = await storeSql(t);
    for (const table of PROJECTION_TABLES) await sql.query(`DELETE FROM ${table}`);
    await sql.query('UPDATE projector_cursor SET seq = 0');
    await sql.close();

    t = await startTestExchange({ dataDir: t.dataDir });
    expect(await reads()).toEqual(before);
    expect(await t.exchange.catalog.getMarket(settled.marketHash)).toMatchObject({ outcome: 1 });
    await t.exchange.trading.idle();
    const { projectionsHash, journalHash } = await replayStore(t);
    expect(projectionsHash).toBe(journalHash);
  });

  it('are refused at a start when they are ahead of the journal (restored from a later backup)', async () => {
    await t.close();
    const sql = await storeSql(t);
    const [{ seq: cursor }] = (await sql.query('SELECT seq FROM projector_cursor')) as [{ seq: number }];
    await sql.query('UPDATE projector_cursor SET seq = $1', [cursor + 100]);
    await expect(startTestExchange({ dataDir: t.dataDir })).rejects.toThrow(/past the journal's end/);
    await sql.query('UPDATE projector_cursor SET seq = $1', [cursor]);
    await sql.close();
    t = await startTestExchange({ dataDir: t.dataDir });
  });

  it('bring the catalog back to a result the journal has (a stop between the two writes)', async () => {
    const { marketHash } = await createMarket(t);
    const maker = await createTrader(t);
    const taker = await createTrader(t);
    await place(t, maker, { marketHash, tick: 400, size: 10n * USDC });
    await place(t, taker, { marketHash, tick: 400, size: 4n * USDC, isOne: false, timeInForce: 'IOC' });
    // The result journaled, the catalog not yet told.
    await t.exchange.trading.sequencer.submit({
      kind: 'engine',
      command: { type: 'resolveMarket', marketHash, outcome: 2 },
    });
    expect(await t.exchange.catalog.getMarket(marketHash)).toMatchObject({ outcome: null });
    t = await t.reopen();
    expect(await t.exchange.catalog.getMarket(marketHash)).toMatchObject({ outcome: 2 });
    const trades = await get('/trades-v3', taker.headers);
    expect(trades.trades[0]).toMatchObject({ status: 'SETTLED' });
  });
});
