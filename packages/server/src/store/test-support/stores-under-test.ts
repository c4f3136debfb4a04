import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll } from 'vitest';
import type { Journal } from '../../sequencer/journal.js';
import type { SettlementFeed } from '../../settlement/settlement-feed.js';
import { openPostgres } from '../postgres/postgres-database.js';
import { PostgresJournal } from '../postgres/postgres-journal.js';
import { PostgresProjectionStore } from '../postgres/postgres-projection-store.js';
import { PostgresSettlementFeed } from '../postgres/postgres-settlement-feed.js';
import { createPostgresStore } from '../postgres/postgres-store.js';
import { PostgresTradingQueries } from '../postgres/postgres-trading-queries.js';
import type { ProjectionStore } from '../projection-store.js';
import { openDatabase } from '../sqlite/open-database.js';
import { JOURNAL_FILE, openJournalDatabase } from '../sqlite/open-journal.js';
import { SqliteJournal } from '../sqlite/sqlite-journal.js';
import { SqliteProjectionStore } from '../sqlite/sqlite-projection-store.js';
import { SqliteSettlementFeed } from '../sqlite/sqlite-settlement-feed.js';
import { createSqliteStore } from '../sqlite/sqlite-store.js';
import { SqliteTradingQueries } from '../sqlite/sqlite-trading-queries.js';
import type { Store } from '../store.js';
import type { TradingReads } from '../trading-reads.js';
import { createTestDatabase, requirePostgres } from './postgres-test-database.js';

/** Every storage port of one store, opened on one set of data, with what the conformance tests do to it. */
export type PortsUnderTest = {
  readonly store: Store;
  readonly journal: Journal;
  readonly projections: ProjectionStore;
  readonly reads: TradingReads;
  readonly feed: SettlementFeed;
  /** Rows of a table, counted in the database itself. */
  count(table: string): Promise<number>;
  /** From now on, writing a browser session fails (with the message 'full'). */
  refuseWebSessions(): Promise<void>;
  /** Forgets the journal's rule seqs, as a journal begun before they existed has none. */
  forgetJournalFeatures(): Promise<void>;
  /** A second journal writer on the same storage (another process, as far as the database can tell). */
  secondJournal(): Promise<Journal & { close(): Promise<void> }>;
  /** Closes everything and opens the same data again (a restart). */
  reopen(): Promise<PortsUnderTest>;
  close(): Promise<void>;
};

export type StoreUnderTest = { readonly name: 'SQLite' | 'PostgreSQL'; open(): Promise<PortsUnderTest> };

/**
 * The stores a conformance suite runs its one body against: SQLite, always; PostgreSQL in a database made
 * for the test file (dropped after it), a fresh schema for each `open`. PostgreSQL unreachable fails the file
 * with the reason (`.ci/run` starts it).
 */
export async function storesUnderTest(): Promise<StoreUnderTest[]> {
  const dirs: string[] = [];
  const stores: StoreUnderTest[] = [
    {
      name: 'SQLite',
      async open() {
        const dir = mkdtempSync(join(tmpdir(), 'oddsbook-conformance-'));
        dirs.push(dir);
        return openSqlitePorts(dir);
      },
    },
  ];
  afterAll(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  await requirePostgres();
  const database = await createTestDatabase();
  afterAll(() => database.drop());
  stores.push({ name: 'PostgreSQL', open: async () => openPostgresPorts(await database.schema()) });
  return stores;
}

function openSqlitePorts(dir: string): PortsUnderTest {
  const db = openDatabase(dir);
  const journalDb = openJournalDatabase(dir, db);
  const store = createSqliteStore(db);
  const journal = new SqliteJournal(journalDb);
  const close = async () => {
    await journal.close();
    journalDb.close();
    await store.close();
  };
  const journalTables = new Set(['journal', 'engine_checkpoints', 'journal_features']);
  return {
    store,
    journal,
    projections: new SqliteProjectionStore(db),
    reads: new SqliteTradingQueries(db),
    feed: new SqliteSettlementFeed(db),
    async count(table) {
      const on = journalTables.has(table) ? journalDb : db;
      return on.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
    },
    async refuseWebSessions() {
      db.exec(
        `CREATE TEMP TRIGGER refuse BEFORE INSERT ON web_sessions BEGIN SELECT RAISE(ABORT, 'full'); END`,
      );
    },
    async forgetJournalFeatures() {
      journalDb.exec('DROP TABLE IF EXISTS journal_features');
    },
    async secondJournal() {
      const other = new BetterSqlite3(join(dir, JOURNAL_FILE));
      other.pragma('busy_timeout = 5000');
      const second = new SqliteJournal(other);
      return Object.assign(second, {
        async close() {
          other.close();
        },
      });
    },
    async reopen() {
      await close();
      return openSqlitePorts(dir);
    },
    close,
  };
}

async function openPostgresPorts(url: string): Promise<PortsUnderTest> {
  const database = await openPostgres({ url, poolSize: 4 });
  const store = createPostgresStore(database);
  const journal = await PostgresJournal.open(database.pool);
  const projections = await PostgresProjectionStore.open(database);
  const close = async () => {
    await projections.close();
    await store.close();
  };
  return {
    store,
    journal,
    projections,
    reads: new PostgresTradingQueries(database.pool),
    feed: new PostgresSettlementFeed(database.pool),
    async count(table) {
      const { rows } = await database.pool.query<{ n: number }>(`SELECT count(*) AS n FROM ${table}`);
      return rows[0]!.n;
    },
    async refuseWebSessions() {
      await database.pool.query(`
        CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'full'; END $$;
        CREATE TRIGGER refuse BEFORE INSERT ON web_sessions FOR EACH ROW EXECUTE FUNCTION refuse();
      `);
    },
    async forgetJournalFeatures() {
      await database.pool.query('DELETE FROM journal_features');
    },
    async secondJournal() {
      const other = await openPostgres({ url, poolSize: 1 });
      const second = await PostgresJournal.open(other.pool);
      return Object.assign(second, {
        async close() {
          await other.close();
        },
      });
    },
    async reopen() {
      await close();
      return openPostgresPorts(url);
    },
    close,
  };
}
