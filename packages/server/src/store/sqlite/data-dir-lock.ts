import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { ensureDataDir } from './data-dir.js';

export const LOCK_FILE = 'oddsbook.lock';

export class DataDirInUse extends Error {
  constructor(dataDir: string) {
    super(
      `the data dir ${dataDir} is in use by another oddsbook process (it holds ${LOCK_FILE}); stop it first, or use another DATA_DIR`,
    );
    this.name = 'DataDirInUse';
  }
}

/**
 * One exchange per data dir: two sequencers on one journal would hand out the same sequence numbers. The
 * lock is an exclusive transaction on a small SQLite file of its own, held for as long as the exchange is
 * open. The operating system drops it when the process ends in any way, SIGKILL included, so a crash
 * leaves no stale lock behind. Returns the release.
 */
export function lockDataDir(dataDir: string): () => void {
  ensureDataDir(dataDir);
  const lock = new BetterSqlite3(join(dataDir, LOCK_FILE), { timeout: 0 });
  try {
    // Its rollback journal in memory: the lock leaves no `-journal` file beside it.
    lock.pragma('journal_mode = MEMORY');
    lock.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    lock.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY') throw new DataDirInUse(dataDir);
    throw error;
  }
  return () => {
    if (!lock.open) return;
    lock.exec('ROLLBACK');
    lock.close();
  };
}
