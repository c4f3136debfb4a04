import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockDataDir } from '../../src/store/sqlite/data-dir-lock.js';
import { createTestDatabase, requirePostgres } from '../../src/store/test-support/postgres-test-database.js';
import { runCli } from '../helpers/cli-process.js';
import { postV2Orders, signV2Order } from '../helpers/legacy.js';
import { storeSql } from '../helpers/store-access.js';
import {
  removeDataDir,
  startTestExchange,
  type TestExchange,
  type TestUser,
} from '../helpers/test-exchange.js';
import { createMarket, createTrader, place, USDC, until } from '../helpers/trading.js';

await requirePostgres();
const database = await createTestDatabase();
afterAll(() => database.drop());

const start = Math.floor(Date.now() / 1000);
/** The v2 API open (its dates ahead), so that the data dir holds legacy rows; every start uses the same. */
const env = {
  V2_CUTOVER_AT: String(start + 7 * 86_400),
  V2_HISTORY_REMOVED_AT: String(start + 8 * 86_400),
  LEGACY_WS_SHUTDOWN_AT: String(start + 7 * 86_400),
};

/** What the API shows each user: orders, fills, trades, balances, positions, and the v2 order list. */
async function readBack(t: TestExchange, users: readonly TestUser[]) {
  const get = async (url: string, user?: TestUser) => {
    const response = await t.app.inject({ method: 'GET', url, ...(user ? { headers: user.headers } : {}) });
    expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
    return response.json();
  };
  const views = [];
  for (const user of users) {
    views.push({
      orders: await get('/orders-v3?perPage=100', user),
      fills: await get('/fills-v3', user),
      trades: await get('/trades-v3', user),
      balance: await get('/user/balance-v3', user),
      positions: await get('/positions-v3', user),
      v2Orders: await get(`/orders?maker=${user.address}`),
    });
  }
  return views;
}

describe('oddsbook copy-to-postgres', () => {
  let dataDir: string;
  let users: TestUser[];
  let before: Awaited<ReturnType<typeof readBack>>;
  const copy = (url: string, ...flags: string[]) =>
    runCli(['copy-to-postgres', ...flags], { DATA_DIR: dataDir, DATABASE_URL: url, ...env });

  beforeAll(async () => {
    // A data dir on SQLite (whatever store the suite runs on) that has traded: orders rested, filled,
    // cancelled, a market resolved and paid, a v2 order.
    const t = await startTestExchange({ databaseUrl: '', env });
    expect(t.exchange.storeKind).toBe('sqlite');
    dataDir = t.dataDir;
    const open = await createMarket(t);
    const resolved = await createMarket(t);
    const maker = await createTrader(t, 1_000n * USDC);
    const taker = await createTrader(t, 1_000n * USDC);
    const canceller = await createTrader(t, 100n * USDC);
    users = [maker, taker, canceller];
    await place(t, maker, {
      marketHash: open.marketHash,
      tick: 480,
      size: 60n * USDC,
      clientOrderId: 'mk-1',
    });
    await place(t, taker, {
      marketHash: open.marketHash,
      tick: 360,
      size: 20n * USDC,
      isOne: false,
      timeInForce: 'IOC',
    });
    const cancelled = await place(t, canceller, { marketHash: open.marketHash, tick: 200, size: 5n * USDC });
    const cancel = await t.app.inject({
      method: 'DELETE',
      url: '/orders-v3',
      headers: canceller.headers,
      payload: { orders: [{ orderId: cancelled.orderId }] },
    });
    expect(cancel.statusCode, cancel.body).toBe(200);
    await place(t, maker, { marketHash: resolved.marketHash, tick: 400, size: 50n * USDC });
    await place(t, taker, {
      marketHash: resolved.marketHash,
      tick: 600,
      size: 30n * USDC,
      isOne: false,
      timeInForce: 'IOC',
    });
    const { order } = await signV2Order(t, canceller, {
      marketHash: open.marketHash,
      tick: 300,
      size: 7n * USDC,
    });
    expect((await postV2Orders(t, [order])).statusCode).toBe(200);
    await t.settled();
    const resolve = await t.app.inject({
      method: 'POST',
      url: `/admin/markets/${resolved.marketHash}/resolve`,
      headers: t.admin,
      payload: { outcome: 2 },
    });
    expect(resolve.statusCode, resolve.body).toBe(200);
    await t.settled();
    before = await readBack(t, users);
    expect(before[1]!.trades.data.trades.map((trade: { status: string }) => trade.status).sort()).toEqual([
      'LOCKED',
      'SETTLED',
    ]);
    expect(before[2]!.v2Orders.data).toHaveLength(1);
    await t.close();
  }, 120_000);
  afterAll(() => removeDataDir(dataDir));

  it('refuses while an exchange holds the data dir', async () => {
    const release = lockDataDir(dataDir);
    try {
      const result = await copy(await database.schema());
      expect(result.status, result.stderr).toBe(1);
      expect(result.stderr).toMatch(/in use by another oddsbook process.*stop the exchange before copying/);
    } finally {
      release();
    }
  });

  it('finds a copy that differs from the data dir', async () => {
    const url = await database.schema();
    expect((await copy(url)).status).toBe(0);
    const sql = await storeSql({ dataDir, config: { databaseUrl: url } });
    try {
      await sql.query(
        'UPDATE balances SET available = available + 1 WHERE account = (SELECT min(account) FROM balances)',
      );
    } finally {
      await sql.close();
    }
    const verified = await copy(url, '--verify-only');
    expect(verified.status, verified.stdout).toBe(1);
    expect(verified.stdout).not.toMatch(/^copying/m);
    expect(verified.stderr).toMatch(/MISMATCH in balances: SQLite 3 rows .* PostgreSQL 3 rows/);
    expect(verified.stderr).toMatch(/MISMATCH: the projections do not match the journal/);
    expect(verified.stderr).toMatch(/NOT VERIFIED: the copy differs from the data dir \(balances\)/);
  }, 120_000);

  it('copies the data dir, verifies it, refuses to copy over it, and the exchange runs on the copy', async () => {
    const url = await database.schema();
    const copied = await copy(url);
    expect(copied.status, `${copied.stdout}\n${copied.stderr}`).toBe(0);
    expect(copied.stderr).toBe('');
    const out = copied.stdout;
    expect(out).toMatch(/^ {2}journal +\d+ rows$/m);
    expect(out).toMatch(/^ {2}orders +6 rows$/m);
    expect(out).toMatch(/^copied \d+ tables, \d+ rows in /m);
    expect(out).toMatch(/^not copied: schema_migrations /m);
    expect(out).toMatch(/^ {2}(\d+) of \1 tables identical/m);
    const [journalHash, projectionsHash] = [
      ...out.matchAll(/state hash from the (?:journal|projections): +(\w+)/g),
    ]
      .slice(2)
      .map((m) => m[1]);
    expect(projectionsHash).toBe(journalHash);
    expect(out).toMatch(new RegExp(`^state hash from both journals: ${journalHash}$`, 'm'));
    expect(out).toMatch(/^ {2}reconciliation: 3 accounts, 0 differences/m);
    expect(out).toMatch(/^verified: start the exchange with DATABASE_URL=/m);

    const again = await copy(url);
    expect(again.status, again.stderr).toBe(2);
    expect(again.stderr).toMatch(/^oddsbook: DATABASE_URL postgres:\/\/.*already holds an exchange's rows/);

    // The exchange on the copy, in a new data dir (the copy holds everything, the chain and the secrets
    // included), shows what it showed on SQLite, and goes on trading (new ids after the copied).
    const t = await startTestExchange({ databaseUrl: url, env });
    try {
      expect(t.exchange.storeKind).toBe('postgres');
      expect(readdirSync(t.dataDir)).toEqual(['oddsbook.lock']);
      expect(await readBack(t, users)).toEqual(before);
      const market = await createMarket(t);
      const made = await place(t, users[0]!, { marketHash: market.marketHash, tick: 400, size: 3n * USDC });
      expect(made.outcome.state).toBe('RESTED');
      const sql = await storeSql(t);
      try {
        const leagues = await sql.query('SELECT league_id FROM leagues ORDER BY league_id');
        expect(leagues.map((row) => Number(row.league_id))).toEqual([1, 2, 3]);
      } finally {
        await sql.close();
      }
      await until(
        async () =>
          (await t.app.inject({ method: 'GET', url: '/orders-v3', headers: users[0]!.headers })).json(),
        (body) => body.data.orders.length === 2,
      );
    } finally {
      await t.close();
      removeDataDir(t.dataDir);
    }
  }, 120_000);
});
