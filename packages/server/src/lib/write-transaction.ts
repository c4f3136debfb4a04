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
