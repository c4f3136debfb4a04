import { join } from 'node:path';
import BetterSqlite3, { type Database } from 'better-sqlite3';
import { ensureDataDir } from './data-dir.js';
import { migrate } from './migrations.js';

export const DATABASE_FILE = 'oddsbook.sqlite';

/** The exchange's database: the SQLite adapters and the embedded chain are opened on it (exchange.ts). */
export type ExchangeDatabase = Database;

/**
 * Opens (creating when needed) the exchange database under `dataDir` in WAL mode and brings its schema
 * up to date. `dataDir` ':memory:' gives a private in-memory database (tests).
 */
export function openDatabase(dataDir: string): Database {
  let db: Database;
  if (dataDir === ':memory:') {
    db = new BetterSqlite3(':memory:');
  } else {
    ensureDataDir(dataDir);
    db = new BetterSqlite3(join(dataDir, DATABASE_FILE));
    db.pragma('journal_mode = WAL');
  }
  // FULL: every commit is fsynced, so an acknowledged write survives power loss too; group commit amortizes it.
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  // The working set of the trading indexes (random keys): 64 MiB of pages instead of the default 2 MiB.
  db.pragma('cache_size = -65536');
  // Pages a large savepoint spills (a block of chain submissions) stay in memory, not in /var/tmp files.
  db.pragma('temp_store = MEMORY');
  migrate(db);
  return db;
}
