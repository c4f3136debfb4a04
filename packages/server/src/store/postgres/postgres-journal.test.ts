import type pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { AppliedEntry } from '../../sequencer/inputs.js';
import { createTestDatabase, requirePostgres } from '../test-support/postgres-test-database.js';
import { openPostgres } from './postgres-database.js';
import { JOURNAL_CHANNEL, JournalFenced, PostgresJournal } from './postgres-journal.js';

await requirePostgres();
const database = await createTestDatabase();
afterAll(() => database.drop());

const credit = (seq: number): AppliedEntry => ({
  seq,
  ts: seq,
  input: { kind: 'engine', command: { type: 'credit', account: '0xa', amount: 1n } },
  events: [],
});

describe('the PostgreSQL journal', () => {
  it('writes nothing after a batch that failed, so that it never has a hole', async () => {
    const db = await openPostgres({ url: await database.schema(), poolSize: 2 });
    try {
      const journal = await PostgresJournal.open(db.pool);
      await journal.append([credit(1)]);
      // Batches handed on before the first one is written: the second fails (seq 1 again), the third with it.
      const written: number[] = [];
      const appends = [[credit(2)], [credit(1), credit(3)], [credit(4)]].map((entries) =>
        journal.append(entries, () => written.push(entries[0]!.seq)),
      );
      const settled = await Promise.allSettled(appends);
      expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
      expect(written).toEqual([2]);
      expect(await journal.last()).toEqual({ seq: 2, ts: 2 });
    } finally {
      await db.close();
    }
  });
});

describe('the fenced PostgreSQL journal (a cluster sequencer, ADR 0018)', () => {
  const bump = async (pool: pg.Pool | pg.Client) =>
    Number(
      (await pool.query('UPDATE sequencer_leader SET epoch = epoch + 1 WHERE id = 1 RETURNING epoch')).rows[0]
        .epoch,
    );
  const seqs = async (pool: pg.Pool) =>
    (await pool.query<{ seq: number }>('SELECT seq FROM journal ORDER BY seq')).rows.map((r) => r.seq);

  it("appends under its epoch, notifies the last seq, and once a successor's epoch is in refuses every append and writes nothing", async () => {
    const db = await openPostgres({ url: await database.schema(), poolSize: 3 });
    const listener = await db.connect();
    try {
      const notified: string[] = [];
      listener.on('notification', (m) => notified.push(`${m.channel}:${m.payload}`));
      await listener.query(`LISTEN ${JOURNAL_CHANNEL}`);
      const base = await PostgresJournal.open(db.pool);
      const a = base.fencedBy(await bump(db.pool));
      await a.append([credit(1), credit(2)]);
      await a.append([credit(3)]);

      // B takes over while A still holds its journal.
      const b = base.fencedBy(await bump(db.pool));
      const refused = a.append([credit(4)]);
      await expect(refused).rejects.toThrow(JournalFenced);
      await expect(refused).rejects.toMatchObject({ epoch: 1, leaderEpoch: 2 });
      // Fenced for good, even for a seq nobody has written, and for checkpoints.
      await expect(a.append([credit(5)])).rejects.toThrow(JournalFenced);
      await expect(a.saveCheckpoint(3, 'x', new Uint8Array([1]), 0)).rejects.toThrow(JournalFenced);
      expect(await seqs(db.pool)).toEqual([1, 2, 3]);

      expect(await b.last()).toEqual({ seq: 3, ts: 3 });
      await b.append([credit(4)]);
      await b.saveCheckpoint(4, 'd', new Uint8Array([1]), 0);
      expect(await seqs(db.pool)).toEqual([1, 2, 3, 4]);
      await expect
        .poll(() => notified)
        .toEqual([`${JOURNAL_CHANNEL}:2`, `${JOURNAL_CHANNEL}:3`, `${JOURNAL_CHANNEL}:4`]);

      // A deposed journal (its lease lost) refuses without asking the database.
      b.depose();
      await expect(b.append([credit(5)])).rejects.toMatchObject({ name: 'JournalFenced', leaderEpoch: null });
      expect(await seqs(db.pool)).toEqual([1, 2, 3, 4]);
    } finally {
      await listener.end();
      await db.close();
    }
  });

  it('makes a successor’s epoch bump wait for an append in flight; the former leader is fenced at its next append', async () => {
    const db = await openPostgres({ url: await database.schema(), poolSize: 3 });
    const blocker = await db.connect();
    const successor = await db.connect();
    try {
      const base = await PostgresJournal.open(db.pool);
      const a = base.fencedBy(await bump(db.pool));
      await a.append([credit(1)]);
      // Another transaction holds seq 2 uncommitted: A's append of seq 2 locks the leader row, then waits on it.
      await blocker.query('BEGIN');
      await blocker.query(`INSERT INTO journal (seq, ts, kind, payload) VALUES (2, 0, 'x', 'x')`);
      const inFlight = a.append([credit(2)]);
      const waiting = async (pattern: string) =>
        (
          await db.pool.query(
            `SELECT count(*)::int AS n FROM pg_stat_activity
              WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE $1`,
            [pattern],
          )
        ).rows[0].n;
      await expect.poll(() => waiting('WITH leader AS%'), { timeout: 10_000 }).toBe(1);
      const bumped = bump(successor);
      await expect.poll(() => waiting('UPDATE sequencer_leader%'), { timeout: 10_000 }).toBe(1);
      await blocker.query('ROLLBACK');
      await inFlight;
      expect(await bumped).toBe(2);
      // The successor reads the end after its bump: the append in flight is in it.
      expect(await base.fencedBy(2).last()).toEqual({ seq: 2, ts: 2 });
      await expect(a.append([credit(3)])).rejects.toThrow(JournalFenced);
      expect(await seqs(db.pool)).toEqual([1, 2]);
    } finally {
      await blocker.end();
      await successor.end();
      await db.close();
    }
  });

  it('appends as before without an epoch, whatever the leader row says', async () => {
    const db = await openPostgres({ url: await database.schema(), poolSize: 2 });
    try {
      const journal = await PostgresJournal.open(db.pool);
      expect(journal.epoch).toBeNull();
      await bump(db.pool);
      await journal.append([credit(1)]);
      expect(await seqs(db.pool)).toEqual([1]);
    } finally {
      await db.close();
    }
  });
});
