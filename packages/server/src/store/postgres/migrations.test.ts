import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { migrateChainSchema } from '../../chain/sqlite-chain-store.js';
import { migrate as migrateSqlite } from '../sqlite/migrations.js';
import { JOURNAL_SCHEMA } from '../sqlite/open-journal.js';
import { createTestDatabase, requirePostgres } from '../test-support/postgres-test-database.js';
import { DatabaseNotEmpty, migrate, POSTGRES_MIGRATIONS } from './migrations.js';

await requirePostgres();
const database = await createTestDatabase();
afterAll(() => database.drop());

async function withPool<T>(url: string, use: (pool: pg.Pool) => Promise<T>): Promise<T> {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  try {
    return await use(pool);
  } finally {
    await pool.end();
  }
}

/** Each table of a schema with its columns, sorted. */
function sqliteTables(): Record<string, string[]> {
  const db = new BetterSqlite3(':memory:');
  migrateSqlite(db);
  migrateChainSchema(db);
  // PostgreSQL's migrations version the chain's tables with the rest.
  db.exec('DROP TABLE chain_schema_version');
  db.exec(JOURNAL_SCHEMA);
  db.exec('CREATE TABLE journal_features (name TEXT PRIMARY KEY, since_seq INTEGER NOT NULL)');
  const tables = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    .pluck()
    .all() as string[];
  const out = Object.fromEntries(
    tables.map((t) => [
      t,
      (db.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(t) as string[]).sort(),
    ]),
  );
  db.close();
  return out;
}

describe('the PostgreSQL migrations', () => {
  it("make the tables and columns of the SQLite schema and the chain's, less their rowid cursors, plus an order for the outstanding items and the confirmations", async () => {
    const url = await database.schema();
    const tables = await withPool(url, async (pool) => {
      expect(await migrate(pool)).toEqual(POSTGRES_MIGRATIONS.map((m) => m.version));
      const { rows } = await pool.query<{ table_name: string; column_name: string }>(
        `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema()`,
      );
      const out: Record<string, string[]> = {};
      for (const row of rows) {
        out[row.table_name] = [...(out[row.table_name] ?? []), row.column_name];
      }
      for (const columns of Object.values(out)) columns.sort();
      return out;
    });
    const expected = sqliteTables();
    expected.escrow_cursor = ['block_number', 'id'];
    expected.settlement_outstanding = ['id', 'item', 'pos'];
    expected.chain_multisig_confirmations = ['created_at', 'owner', 'pos', 'safe_tx_hash', 'signature'];
    // The cluster's leading sequencer (ADR 0018): no SQLite counterpart.
    expected.sequencer_leader = ['epoch', 'id', 'node', 'since'];
    expected.cluster_nodes = [
      'address',
      'epoch',
      'last_seq',
      'node_id',
      'pid',
      'roles',
      'seen_at',
      'started_at',
      'state',
    ];
    expected.role_leases = ['epoch', 'node', 'role', 'since'];
    expect(tables).toEqual(expected);
  });

  it('record what they applied, and apply nothing twice', async () => {
    const url = await database.schema();
    await withPool(url, async (pool) => {
      // Two starts at once take turns.
      const [first, second] = await Promise.all([migrate(pool), migrate(pool)]);
      const all = POSTGRES_MIGRATIONS.map((m) => m.version);
      expect([first, second].sort((a, b) => b.length - a.length)).toEqual([all, []]);
      expect(await migrate(pool)).toEqual([]);
      const next = all.at(-1)! + 1;
      const later = [
        ...POSTGRES_MIGRATIONS,
        { version: next, name: 'later', sql: 'CREATE TABLE later (x int)' },
      ];
      expect(await migrate(pool, later)).toEqual([next]);
      const { rows } = await pool.query('SELECT version, name FROM schema_migrations ORDER BY version');
      expect(rows).toEqual([
        ...POSTGRES_MIGRATIONS.map(({ version, name }) => ({ version, name })),
        { version: next, name: 'later' },
      ]);
    });
  });

  it('roll a failed migration back whole', async () => {
    const url = await database.schema();
    await withPool(url, async (pool) => {
      await migrate(pool);
      const last = POSTGRES_MIGRATIONS.at(-1)!.version;
      const broken = [
        ...POSTGRES_MIGRATIONS,
        { version: last + 1, name: 'broken', sql: 'CREATE TABLE half (x int); SELECT no_such_function()' },
      ];
      await expect(migrate(pool, broken)).rejects.toThrow('no_such_function');
      const { rows } = await pool.query("SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'half'");
      expect(rows[0].n).toBe(0);
      expect((await pool.query('SELECT max(version) AS v FROM schema_migrations')).rows[0].v).toBe(last);
    });
  });

  it('refuse a database that holds tables of something else', async () => {
    const url = await database.schema();
    await withPool(url, async (pool) => {
      await pool.query('CREATE TABLE invoices (id int)');
      const refused = migrate(pool);
      await expect(refused).rejects.toThrow(DatabaseNotEmpty);
      await expect(refused).rejects.toThrow(/invoices/);
    });
  });
});
