import { join } from 'node:path';
import BetterSqlite3, { type Database } from 'better-sqlite3';
import { writeTransaction } from '../../sqlite/write-transaction.js';
import { SqliteJournal } from './sqlite-journal.js';
import { startWalCheckpointer } from './wal-checkpointer.js';

export const JOURNAL_FILE = 'journal.sqlite';

export const JOURNAL_SCHEMA = `
  -- Every input the sequencer ordered, in order: the audit trail and the replay source.
  CREATE TABLE IF NOT EXISTS journal (
    seq     INTEGER PRIMARY KEY,
    ts      INTEGER NOT NULL,
    kind    TEXT NOT NULL,
    payload TEXT NOT NULL
  ) STRICT;
  -- The engine's bytes at a journal seq, with their SHA-256 (a start restores the newest).
  CREATE TABLE IF NOT EXISTS engine_checkpoints (
    seq        INTEGER PRIMARY KEY,
    digest     TEXT NOT NULL,
    snapshot   BLOB NOT NULL,
    created_at INTEGER NOT NULL
  ) STRICT;
`;

export type OpenedJournal = { journal: SqliteJournal; close(): Promise<void> };

/**
 * The journal in a database file of its own beside the exchange's (`journal.sqlite`), written only by the
 * sequencer: the projector's thread writes the other, and SQLite drops a connection's whole page cache
 * whenever another connection has written its file, so that sharing one file cost each side its cache
 * at every batch. WAL, synchronous=FULL, checkpointed in the background like the other. A data dir from
 * before keeps its journal in the exchange's database: it moves here at the first start (in one synced
 * transaction; the old tables are dropped after). An in-memory exchange keeps it in its one database.
 */
export function openJournal(dataDir: string, main: Database): OpenedJournal {
  if (main.memory) {
    return { journal: new SqliteJournal(main), close: async () => {} };
  }
  const db = openJournalDatabase(dataDir, main);
  const checkpointer = startWalCheckpointer(db);
  const journal = new SqliteJournal(db);
  return {
    journal,
    async close() {
      journal.close();
      await checkpointer.stop();
      db.close();
    },
  };
}

/** The journal's database file (without its checkpointer: `oddsbook replay`), its schema up to date. */
export function openJournalDatabase(dataDir: string, main: Database): Database {
  const db = new BetterSqlite3(join(dataDir, JOURNAL_FILE));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 5000');
  db.exec(JOURNAL_SCHEMA);
  moveLegacyJournal(db, main);
  return db;
}

function moveLegacyJournal(db: Database, main: Database): void {
  const legacy = main
    .prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('journal', 'engine_checkpoints')",
    )
    .pluck()
    .all() as string[];
  if (legacy.length === 0) return;
  const empty = db.prepare('SELECT count(*) FROM journal').pluck().get() === 0;
  if (empty && legacy.includes('journal')) {
    db.prepare('ATTACH DATABASE ? AS legacy').run(main.name);
    try {
      writeTransaction(db, () => {
        db.exec(
          'INSERT INTO journal (seq, ts, kind, payload) SELECT seq, ts, kind, payload FROM legacy.journal',
        );
        if (legacy.includes('engine_checkpoints'))
          db.exec(
            'INSERT INTO engine_checkpoints SELECT seq, digest, snapshot, created_at FROM legacy.engine_checkpoints',
          );
      })();
    } finally {
      db.exec('DETACH DATABASE legacy');
    }
  }
  // Copied (and synced) above, or by a start that stopped before this: the old tables go.
  main.exec('DROP TABLE IF EXISTS journal; DROP TABLE IF EXISTS engine_checkpoints');
}
