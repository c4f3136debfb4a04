import { closeSync, fdatasync, openSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import type { Database } from 'better-sqlite3';
import { unsyncedCommits } from './write-transaction.js';

/**
 * Commits that reach the disk without blocking the event loop: `unsynced` runs a write whose COMMIT is not
 * synced, `sync` then flushes the WAL with fdatasync on libuv's thread pool. Once `sync` resolves, every
 * commit before it is durable: the same guarantee as synchronous=FULL, provided nobody is told of the
 * write before then, while the event loop goes on serving during the flush.
 */
export type WalSync = {
  unsynced<T>(write: () => T): T;
  sync(): Promise<void>;
  /** Releases the WAL's descriptor (opened again by the next sync). */
  close(): void;
};

/** Null when the database's commits are not synced anyway (not WAL, synchronous below FULL, in memory). */
export function walSync(db: Database): WalSync | null {
  const unsynced = unsyncedCommits(db);
  if (!unsynced) return null;
  // Absolute now, as SQLite made it at open: a later chdir must not point us at another file.
  const path = resolvePath(`${db.name}-wal`);
  // Kept open: SQLite keeps (resets, never replaces) the WAL file while a connection is open. Any
  // descriptor of the file will do: fdatasync flushes the inode's dirty pages, ours included.
  let fd: number | null = null;
  // A descriptor closed under a flush in flight would fail it (EBADF): the close waits for the flushes.
  let flushing = 0;
  let closeWhenFlushed = false;
  const release = () => {
    if (fd !== null) closeSync(fd);
    fd = null;
    closeWhenFlushed = false;
  };
  return {
    unsynced,
    sync() {
      fd ??= openSync(path, 'r');
      const open = fd;
      flushing += 1;
      return new Promise<void>((resolve, reject) =>
        fdatasync(open, (error) => {
          flushing -= 1;
          if (flushing === 0 && closeWhenFlushed) release();
          if (error) reject(error);
          else resolve();
        }),
      );
    },
    close() {
      if (flushing > 0) closeWhenFlushed = true;
      else release();
    },
  };
}
