import { closeSync, mkdtempSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { checkpointerRuns, withWriteGate, writeGateOf } from '../../sqlite/write-gate.js';
import { DATABASE_FILE, openDatabase } from './open-database.js';
import { startWalCheckpointer } from './wal-checkpointer.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('WAL checkpointer', () => {
  it('copies committed pages into the database file from its own thread, the writer never does', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'oddsbook-ckpt-'));
    dirs.push(dir);
    const db = openDatabase(dir);
    const file = join(dir, DATABASE_FILE);
    const checkpointer = startWalCheckpointer(db, { intervalMs: 20 });
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    const before = statSync(file).size;
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    db.transaction(() => {
      for (let i = 0; i < 5_000; i++) insert.run('x'.repeat(100));
    })();
    await until(() => statSync(file).size > before + 400_000);
    await checkpointer.stop();
    expect(db.prepare('SELECT count(*) FROM t').pluck().get()).toBe(5_000);
    db.close();
  });

  it("tells other threads through the gate's state whether it runs (their connections leave checkpoints to it)", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'oddsbook-ckpt-'));
    dirs.push(dir);
    const db = openDatabase(dir);
    const checkpointer = startWalCheckpointer(db, { intervalMs: 20 });
    const state = writeGateOf(db)!.state;
    expect(checkpointerRuns(state)).toBe(true);
    await checkpointer.stop();
    expect(checkpointerRuns(state)).toBe(false);
    // A gate of one slot (no checkpointer behind it) never says so.
    expect(checkpointerRuns(new Int32Array(new SharedArrayBuffer(4)))).toBe(false);
    db.close();
  });

  /**
   * The WAL header's checkpoint sequence number, which SQLite increments each time the WAL is started over
   * from its beginning (its first frame written again).
   */
  function walGeneration(dir: string): number {
    const header = Buffer.alloc(16);
    const fd = openSync(join(dir, `${DATABASE_FILE}-wal`), 'r');
    try {
      readSync(fd, header, 0, 16, 0);
    } finally {
      closeSync(fd);
    }
    return header.readUInt32BE(12);
  }

  /**
   * Commits 10 kB of rows a millisecond, each checkpoint overlapping commits, until the WAL has been started
   * over `restarts` times. Its size is not a measure: on a loaded machine the checkpointer thread runs late
   * and the WAL grows meanwhile. What load cannot change is that, without catching up or a RESTART, a
   * passive checkpoint never finds every frame copied while commits keep coming, and the WAL is never
   * started over: it grows for as long as the writes last (93 MB in 8 s here, with passes: 1).
   */
  async function writeUntilWalRestarts(
    options: { restartFrames: number; passes?: number },
    restarts: number,
  ): Promise<{ restarted: number; written: number }> {
    const dir = mkdtempSync(join(tmpdir(), 'oddsbook-ckpt-'));
    dirs.push(dir);
    const db = openDatabase(dir);
    db.pragma('synchronous = NORMAL');
    const checkpointer = startWalCheckpointer(db, { intervalMs: 100, ...options });
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    const commit = db.transaction(() => {
      for (let i = 0; i < 10; i++) insert.run('x'.repeat(1_000));
    });
    commit();
    const first = walGeneration(dir);
    let written = 0;
    // Bounded in time and in disk: a WAL that is never started over holds about twice what was written.
    for (const end = Date.now() + 25_000; Date.now() < end && written < 256 * 1024 * 1024; ) {
      commit();
      written += 10_000;
      if (walGeneration(dir) - first >= restarts) break;
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    const restarted = walGeneration(dir) - first;
    await checkpointer.stop();
    expect(db.prepare('SELECT count(*) FROM t').pluck().get()).toBe((written / 10_000) * 10 + 10);
    db.close();
    return { restarted, written };
  }

  it('starts the WAL over under steady writes by catching up, so that a commit starts it over', {
    timeout: 60_000,
  }, async () => {
    // No RESTART at all: only the passes that catch up let a commit find every frame copied.
    const { restarted } = await writeUntilWalRestarts({ restartFrames: Number.MAX_SAFE_INTEGER }, 3);
    expect(restarted).toBeGreaterThanOrEqual(3);
  });

  it('starts the WAL over under steady writes with RESTARTs where passes do not catch up', {
    timeout: 60_000,
  }, async () => {
    const { restarted } = await writeUntilWalRestarts({ restartFrames: 256, passes: 1 }, 3);
    expect(restarted).toBeGreaterThanOrEqual(3);
  });

  it('never holds the writer off while a reader keeps an old snapshot (a backup)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'oddsbook-ckpt-'));
    dirs.push(dir);
    const db = openDatabase(dir);
    const checkpointer = startWalCheckpointer(db, { intervalMs: 20, restartFrames: 16 });
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    const commit = db.transaction(() => {
      for (let i = 0; i < 10; i++) insert.run('x'.repeat(1_000));
    });
    commit();
    const reader = new BetterSqlite3(join(dir, DATABASE_FILE), { readonly: true });
    reader.exec('BEGIN');
    reader.prepare('SELECT count(*) FROM t').get(); // the snapshot is taken and held
    let slowest = 0;
    const until = Date.now() + 1_500;
    while (Date.now() < until) {
      const started = performance.now();
      commit();
      slowest = Math.max(slowest, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    reader.exec('COMMIT');
    reader.close();
    await checkpointer.stop();
    db.close();
    // A commit may wait for one RESTART's 10 ms, never for the reader: a checkpointer waiting on the
    // reader as long as the writer would (5 s) held a commit for 5.0 s (checked). The bound leaves room
    // for this VM's disk, whose syncs alone have reached 244 ms (a commit here syncs).
    expect(slowest).toBeLessThan(1_000);
  });

  it('never lets a commit behind the write gate meet a RESTART (no wait in the busy handler of SQLite)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'oddsbook-ckpt-'));
    dirs.push(dir);
    const db = openDatabase(dir);
    // Commits without their own fsync (as the sequencer's); restarts every 10 ms, each copying and syncing.
    db.pragma('synchronous = NORMAL');
    // A commit that met a RESTART would wait in SQLite's busy handler (sleeping 1, 2, 5, 10 ms... on the
    // event loop); without one it fails at once with SQLITE_BUSY, which this test counts. Timing the
    // commits instead measured this VM's disk, whose stalls reach hundreds of milliseconds.
    db.pragma('busy_timeout = 0');
    const checkpointer = startWalCheckpointer(db, { intervalMs: 10, restartFrames: 16, passes: 1 });
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    const commit = db.transaction(() => {
      for (let i = 0; i < 10; i++) insert.run('x'.repeat(1_000));
    });
    expect(writeGateOf(db)).toBeDefined();
    let busy = 0;
    let commits = 0;
    for (const end = Date.now() + 1_500; Date.now() < end; commits++) {
      await withWriteGate(db, () => {
        try {
          commit();
        } catch (error) {
          if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
          busy++;
        }
      });
      await new Promise((resolve) => setImmediate(resolve));
    }
    await checkpointer.stop();
    expect(writeGateOf(db)).toBeUndefined();
    db.close();
    expect(commits).toBeGreaterThan(100);
    expect(busy).toBe(0);
  });

  it('stops with a last checkpoint and lets the process see its exit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'oddsbook-ckpt-'));
    dirs.push(dir);
    const db = openDatabase(dir);
    const checkpointer = startWalCheckpointer(db, { intervalMs: 60_000 });
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY)');
    const size = statSync(join(dir, DATABASE_FILE)).size;
    await checkpointer.stop();
    expect(statSync(join(dir, DATABASE_FILE)).size).toBeGreaterThan(size);
    await checkpointer.stop();
    db.close();
  });
});
