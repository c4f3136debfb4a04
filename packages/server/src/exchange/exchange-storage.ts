import type { ChainStore } from '../chain/chain-store.js';
import type { MultisigStore } from '../chain/multisig-store.js';
import { SqliteChainStore } from '../chain/sqlite-chain-store.js';
import { SqliteMultisigStore } from '../chain/sqlite-multisig-store.js';
import { type Config, ConfigError, shownDatabaseUrl } from '../config/config.js';
import type { Journal } from '../sequencer/journal.js';
import type { SettlementFeed } from '../settlement/settlement-feed.js';
import { PostgresChainStore } from '../store/postgres/postgres-chain-store.js';
import { openPostgres, type PostgresDatabase } from '../store/postgres/postgres-database.js';
import { PostgresJournal } from '../store/postgres/postgres-journal.js';
import { PostgresMultisigStore } from '../store/postgres/postgres-multisig-store.js';
import { PostgresProjectionStore } from '../store/postgres/postgres-projection-store.js';
import { openPostgresRevocations } from '../store/postgres/postgres-revocation-broadcast.js';
import { PostgresSettlementFeed } from '../store/postgres/postgres-settlement-feed.js';
import { createPostgresStore } from '../store/postgres/postgres-store.js';
import { PostgresTradingQueries } from '../store/postgres/postgres-trading-queries.js';
import { openPostgresTradingStorage } from '../store/postgres/postgres-trading-storage.js';
import type { ProjectionStore } from '../store/projection-store.js';
import { localRevocations, type RevocationBroadcast } from '../store/revocation-broadcast.js';
import { type ExchangeDatabase, openDatabase } from '../store/sqlite/open-database.js';
import { openJournal, openJournalDatabase } from '../store/sqlite/open-journal.js';
import { SqliteJournal } from '../store/sqlite/sqlite-journal.js';
import { SqliteProjectionStore } from '../store/sqlite/sqlite-projection-store.js';
import { SqliteSettlementFeed } from '../store/sqlite/sqlite-settlement-feed.js';
import { createSqliteStore } from '../store/sqlite/sqlite-store.js';
import { openSqliteTradingStorage } from '../store/sqlite/sqlite-trading-storage.js';
import type { Store } from '../store/store.js';
import type { TradingReads } from '../store/trading-reads.js';
import type { TradingStorage } from '../store/trading-storage.js';

/** Where the exchange keeps its records: SQLite in the data dir, or PostgreSQL (`DATABASE_URL`). */
export type ExchangeStorage = {
  readonly kind: 'sqlite' | 'postgres';
  /** The data dir's database when the records are there; null on PostgreSQL (the data dir holds its lock alone). */
  readonly db: ExchangeDatabase | null;
  readonly store: Store;
  readonly journal: Journal;
  readonly feed: SettlementFeed;
  /** The embedded chain's store (closed by the chain's `stop`) and its multisig bookkeeping, beside the rest. */
  readonly chainStore: ChainStore;
  readonly multisigStore: MultisigStore;
  openTrading(options: { settlementSince: number }): Promise<TradingStorage>;
  /** The projector cursor as the database holds it (a cluster's projector node moves it: ADR 0018). */
  projectedSeq(): Promise<number>;
  closeJournal(): Promise<void>;
  /**
   * How the nodes sharing the store hear of each other's revocations: nobody else on SQLite (one process),
   * LISTEN/NOTIFY on PostgreSQL. `onReconnect` is told when a broken listening connection is back.
   */
  openRevocations(options: { onReconnect: () => void }): Promise<RevocationBroadcast>;
};

/** What `oddsbook replay` reads: the journal, the projections, the settlement feed and the chain's store, wherever they are. */
export type ReplayStorage = {
  readonly journal: Journal;
  readonly projections: ProjectionStore;
  readonly feed: SettlementFeed;
  readonly chainStore: ChainStore;
  close(): Promise<void>;
};

export async function openReplayStorage(config: Config): Promise<ReplayStorage> {
  if (!config.databaseUrl) {
    const db = openDatabase(config.dataDir);
    const journalDb = openJournalDatabase(config.dataDir, db);
    const chainStore = new SqliteChainStore(db);
    return {
      journal: new SqliteJournal(journalDb),
      projections: new SqliteProjectionStore(db),
      feed: new SqliteSettlementFeed(db),
      chainStore,
      close: async () => {
        chainStore.close();
        journalDb.close();
        db.close();
      },
    };
  }
  const database = await connect(config);
  try {
    const projections = await PostgresProjectionStore.open(database);
    const chainStore = await PostgresChainStore.open(database);
    return {
      journal: await PostgresJournal.open(database.pool),
      projections,
      feed: new PostgresSettlementFeed(database.pool),
      chainStore,
      async close() {
        await chainStore.close();
        await projections.close();
        await database.close();
      },
    };
  } catch (error) {
    await database.close();
    throw error;
  }
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
 * Opens the exchange's storage ports: every one in the data dir's SQLite database (and its journal file), or
 * every one on PostgreSQL with `DATABASE_URL`, the embedded chain's and the server's secrets included; then
 * nothing is opened in the data dir. A database that cannot be reached or used is a configuration error
 * naming the setting.
 */
export async function openExchangeStorage(config: Config): Promise<ExchangeStorage> {
  if (!config.databaseUrl) {
    const db = openDatabase(config.dataDir);
    try {
      const journal = openJournal(config.dataDir, db);
      return {
        kind: 'sqlite',
        db,
        store: createSqliteStore(db),
        journal: journal.journal,
        feed: new SqliteSettlementFeed(db),
        chainStore: new SqliteChainStore(db),
        multisigStore: new SqliteMultisigStore(db),
        openTrading: (options) => openSqliteTradingStorage(db, options),
        projectedSeq: async () =>
          db.prepare('SELECT seq FROM projector_cursor WHERE id = 1').pluck().get() as number,
        closeJournal: () => journal.close(),
        openRevocations: async () => localRevocations,
      };
    } catch (error) {
      db.close();
      throw error;
    }
  }
  const database = await connect(config);
  try {
    const journal = await PostgresJournal.open(database.pool);
    return {
      kind: 'postgres',
      db: null,
      store: createPostgresStore(database),
      journal,
      feed: new PostgresSettlementFeed(database.pool),
      chainStore: await PostgresChainStore.open(database),
      multisigStore: new PostgresMultisigStore(database.pool),
      openTrading: (options) => openPostgresTradingStorage(database, options),
      projectedSeq: () => projectorCursor(database),
      closeJournal: async () => {},
      openRevocations: (options) => openPostgresRevocations(database, options),
    };
  } catch (error) {
    await database.close();
    throw error;
  }
}

/** What an API node reads on PostgreSQL (ADR 0018): the store, the leader's journal and projections. */
export type ApiNodeStorage = {
  readonly database: PostgresDatabase;
  readonly store: Store;
  readonly journal: Journal;
  readonly reads: TradingReads;
  /** The leader's projector cursor: the last seq its rows include. */
  projectedSeq(): Promise<number>;
  openRevocations(options: { onReconnect: () => void }): Promise<RevocationBroadcast>;
  close(): Promise<void>;
};

/** An API node's storage: nothing of the data dir, nothing it writes but the store's own records. */
export async function openApiNodeStorage(config: Config): Promise<ApiNodeStorage> {
  const database = await connect(config);
  try {
    const store = createPostgresStore(database);
    return {
      database,
      store,
      journal: await PostgresJournal.open(database.pool),
      reads: new PostgresTradingQueries(database.pool),
      projectedSeq: () => projectorCursor(database),
      openRevocations: (options) => openPostgresRevocations(database, options),
      close: () => store.close(),
    };
  } catch (error) {
    await database.close();
    throw error;
  }
}

/** The seq of the newest engine checkpoint stored (0: none). */
export async function newestCheckpointSeq(database: PostgresDatabase): Promise<number> {
  const { rows } = await database.pool.query('SELECT COALESCE(max(seq), 0) AS seq FROM engine_checkpoints');
  return Number(rows[0]!.seq);
}

/** The projector's cursor: the last journal seq the projections include. */
export async function projectorCursor(database: PostgresDatabase): Promise<number> {
  const { rows } = await database.pool.query('SELECT seq FROM projector_cursor WHERE id = 1');
  return Number(rows[0]!.seq);
}
