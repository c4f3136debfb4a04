import { type Config, ConfigError, shownDatabaseUrl } from '../config/config.js';
import type { Journal } from '../sequencer/journal.js';
import type { SettlementFeed } from '../settlement/settlement-feed.js';
import { openPostgres, type PostgresDatabase } from '../store/postgres/postgres-database.js';
import { PostgresJournal } from '../store/postgres/postgres-journal.js';
import { PostgresProjectionStore } from '../store/postgres/postgres-projection-store.js';
import { PostgresSettlementFeed } from '../store/postgres/postgres-settlement-feed.js';
import { createPostgresStore } from '../store/postgres/postgres-store.js';
import { openPostgresTradingStorage } from '../store/postgres/postgres-trading-storage.js';
import type { ProjectionStore } from '../store/projection-store.js';
import { type ExchangeDatabase, openDatabase } from '../store/sqlite/open-database.js';
import { openJournal, openJournalDatabase } from '../store/sqlite/open-journal.js';
import { SqliteJournal } from '../store/sqlite/sqlite-journal.js';
import { SqliteProjectionStore } from '../store/sqlite/sqlite-projection-store.js';
import { SqliteSettlementFeed } from '../store/sqlite/sqlite-settlement-feed.js';
import { createSqliteStore } from '../store/sqlite/sqlite-store.js';
import { openSqliteTradingStorage } from '../store/sqlite/sqlite-trading-storage.js';
import type { Store } from '../store/store.js';
import type { TradingStorage } from '../store/trading-storage.js';

/** Where the exchange keeps its records: SQLite in the data dir, or PostgreSQL (`DATABASE_URL`). */
export type ExchangeStorage = {
  readonly kind: 'sqlite' | 'postgres';
  readonly store: Store;
  readonly journal: Journal;
  readonly feed: SettlementFeed;
  openTrading(options: { settlementSince: number }): Promise<TradingStorage>;
  closeJournal(): Promise<void>;
  /** After the store is closed: the data dir's database when the store is elsewhere. */
  closeRest(): Promise<void>;
};

/** What `oddsbook replay` reads: the journal, the projections and the settlement feed, wherever they are. */
export type ReplayStorage = {
  readonly journal: Journal;
  readonly projections: ProjectionStore;
  readonly feed: SettlementFeed;
  close(): Promise<void>;
};

export async function openReplayStorage(config: Config, db: ExchangeDatabase): Promise<ReplayStorage> {
  if (!config.databaseUrl) {
    const journalDb = openJournalDatabase(config.dataDir, db);
    return {
      journal: new SqliteJournal(journalDb),
      projections: new SqliteProjectionStore(db),
      feed: new SqliteSettlementFeed(db),
      close: async () => {
        journalDb.close();
      },
    };
  }
  const database = await connect(config);
  const projections = await PostgresProjectionStore.open(database);
  return {
    journal: await PostgresJournal.open(database.pool),
    projections,
    feed: new PostgresSettlementFeed(database.pool),
    async close() {
      await projections.close();
      await database.close();
    },
  };
}

/** The store alone (`oddsbook keys`): the data dir's database, or the one at `DATABASE_URL`. */
export async function openCommandStore(config: Config): Promise<Store> {
  if (!config.databaseUrl) return createSqliteStore(openDatabase(config.dataDir));
  return createPostgresStore(await connect(config));
}

/** The database at `DATABASE_URL`, its schema up to date; one that cannot be reached or used is named. */
export async function connect(config: Config): Promise<PostgresDatabase> {
  try {
    return await openPostgres({ url: config.databaseUrl });
  } catch (error) {
    throw new ConfigError(
      `${config.settingNames.databaseUrl} ${shownDatabaseUrl(config.databaseUrl)}: ${(error as Error).message || (error as { code?: string }).code || String(error)}`,
      { cause: error },
    );
  }
}

/**
 * Opens the exchange's storage ports. With `DATABASE_URL` every port but the embedded chain's (and the data
 * dir's secrets) is on PostgreSQL; a database that cannot be reached or used is a configuration error
 * naming the setting.
 */
export async function openExchangeStorage(config: Config, db: ExchangeDatabase): Promise<ExchangeStorage> {
  if (!config.databaseUrl) {
    const journal = openJournal(config.dataDir, db);
    return {
      kind: 'sqlite',
      store: createSqliteStore(db),
      journal: journal.journal,
      feed: new SqliteSettlementFeed(db),
      openTrading: (options) => openSqliteTradingStorage(db, options),
      closeJournal: () => journal.close(),
      // The store closed the database.
      closeRest: async () => {},
    };
  }
  const database = await connect(config);
  return {
    kind: 'postgres',
    store: createPostgresStore(database),
    journal: await PostgresJournal.open(database.pool),
    feed: new PostgresSettlementFeed(database.pool),
    openTrading: (options) => openPostgresTradingStorage(database, options),
    closeJournal: async () => {},
    closeRest: async () => {
      if (db.open) db.close();
    },
  };
}
