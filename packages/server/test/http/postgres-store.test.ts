import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LOCK_FILE } from '../../src/store/sqlite/data-dir-lock.js';
import { DATABASE_FILE } from '../../src/store/sqlite/open-database.js';
import { JOURNAL_FILE } from '../../src/store/sqlite/open-journal.js';
import { createTestDatabase, requirePostgres } from '../../src/store/test-support/postgres-test-database.js';
import { replayStore, storeSql } from '../helpers/store-access.js';
import { removeDataDir, startTestExchange, type TestExchange } from '../helpers/test-exchange.js';
import { createMarket, createTrader, place, USDC } from '../helpers/trading.js';

await requirePostgres();
const database = await createTestDatabase();
afterAll(() => database.drop());

describe('an exchange on PostgreSQL (DATABASE_URL)', () => {
  let t: TestExchange;
  afterAll(async () => {
    await t?.close();
    if (t) removeDataDir(t.dataDir);
  });

  it('keeps its records there, reads them back after a restart, and replays them', async () => {
    t = await startTestExchange({ databaseUrl: database.url });
    expect(t.exchange.storeKind).toBe('postgres');
    const { marketHash } = await createMarket(t);
    const maker = await createTrader(t);
    const taker = await createTrader(t);
    await place(t, maker, { marketHash, tick: 400, size: 10n * USDC });
    const taken = await place(t, taker, {
      marketHash,
      tick: 400,
      size: 4n * USDC,
      isOne: false,
      timeInForce: 'IOC',
    });
    expect(taken).toMatchObject({ status: 'SUBMITTED' });
    await t.settled();
    const fills = async () =>
      (await t.app.inject({ method: 'GET', url: '/fills-v3', headers: taker.headers })).json().data.fills;
    const before = await fills();
    expect(before).toHaveLength(1);

    // psql sees the rows; the data dir has no journal, and its database none of them.
    const sql = await storeSql(t);
    const count = async (table: string) =>
      Number((await sql.query(`SELECT count(*) AS n FROM ${table}`))[0]!.n);
    expect(await count('journal')).toBeGreaterThan(5);
    expect(await count('orders')).toBe(2);
    expect(await count('fills')).toBe(2);
    expect(await count('api_keys')).toBe(2);
    expect(await count('markets')).toBe(1);
    // The chain too (the stakes escrowed by a settlement transaction), and the server's secrets.
    expect(await count('chain_blocks')).toBeGreaterThan(0);
    expect(await count('chain_settled_items')).toBeGreaterThan(0);
    expect(await count('server_secrets')).toBe(2);
    await sql.close();
    // The data dir holds its lock and nothing else of the exchange's: no journal, no database.
    expect(t.exchange.db).toBeNull();
    expect(existsSync(join(t.dataDir, JOURNAL_FILE))).toBe(false);
    expect(existsSync(join(t.dataDir, DATABASE_FILE))).toBe(false);
    expect(readdirSync(t.dataDir)).toEqual([LOCK_FILE]);

    t = await t.reopen();
    expect(await fills()).toEqual(before);
    await t.close();
    const { projectionsHash, journalHash, replayedCommands } = await replayStore(t);
    expect(projectionsHash).toBe(journalHash);
    expect(replayedCommands).toBeGreaterThan(3);
    t = await startTestExchange({ dataDir: t.dataDir, databaseUrl: database.url });
  });
});
