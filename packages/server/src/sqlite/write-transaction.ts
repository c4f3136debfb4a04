import type { Database, Transaction } from 'better-sqlite3';

/** What better-sqlite3's own `transaction` accepts. */
type Fn = Parameters<Database['transaction']>[0];

/**
 * A database transaction that takes the write lock at its BEGIN (`BEGIN IMMEDIATE`; nested, a savepoint as
 * usual). Every transaction that writes is one of these: SQLite never waits (busy timeout) for a
 * transaction that has already read to become a writer, since two of them could wait on each other. A
 * deferred transaction that reads first fails at once with SQLITE_BUSY whenever another connection holds
 * the write lock, which the WAL checkpointer's RESTART does for milliseconds at a time.
 */
export function writeTransaction<F extends Fn>(db: Database, fn: F): Transaction<F>['immediate'] {
  return db.transaction(fn).immediate;
}

/**
 * A write transaction whose COMMIT is not synced to disk (in WAL mode, `PRAGMA synchronous = NORMAL` for
 * its duration), for writes the exchange can rebuild from durable state after a power loss. The WAL is one
 * file written in order, so the next synced commit (or sync of the file) makes this one durable too: a
 * power loss keeps a prefix of the commits, never a later one without this. Elsewhere (synchronous already
 * NORMAL or OFF, an in-memory database), the same as `writeTransaction`.
 */
export function unsyncedWriteTransaction<F extends Fn>(db: Database, fn: F): Transaction<F>['immediate'] {
  const tx = writeTransaction(db, fn);
  const unsynced = unsyncedCommits(db);
  if (!unsynced) return tx;
  const run: Transaction<F>['immediate'] = (...args) => unsynced(() => tx(...args));
  return run;
}

/**
 * Runs `write` with its commits not synced, then restores the connection's setting; null when its
 * commits are not synced anyway (not WAL, or synchronous below FULL).
 */
export function unsyncedCommits(db: Database): (<T>(write: () => T) => T) | null {
  const synchronous = Number(db.pragma('synchronous', { simple: true }));
  const wal = !db.memory && db.pragma('journal_mode', { simple: true }) === 'wal';
  if (!wal || synchronous < 2) return null;
  // Not prepared statements: SQLite applies this pragma when it compiles it, and a prepared one only
  // recompiles itself on its runs after the first, so its first run would change nothing.
  return (write) => {
    db.exec('PRAGMA synchronous = NORMAL');
    try {
      return write();
    } finally {
      db.exec(`PRAGMA synchronous = ${synchronous}`);
    }
  };
}
