import type pg from 'pg';
import type { AppliedEntry } from '../../sequencer/inputs.js';
import {
  type EngineCheckpoint,
  JOURNAL_FEATURES,
  type Journal,
  type JournalFeatures,
  type JournalRow,
} from '../../sequencer/journal.js';
import { journalPayload } from '../../sequencer/journal-codec.js';
import { inTransaction } from './transaction.js';

/** Rows of a page of `after`. */
const JOURNAL_PAGE_ROWS = 2_000;

/** The channel a fenced append notifies, with the batch's last seq: standbys tailing the journal LISTEN to it. */
export const JOURNAL_CHANNEL = 'oddsbook_journal';

/**
 * A fenced append refused: the leader epoch in `sequencer_leader` is no longer this journal's (a successor
 * has taken over), or this process gave up leading. Nothing of the batch was written; nothing after it will be.
 */
export class JournalFenced extends Error {
  override name = 'JournalFenced';
  constructor(
    readonly epoch: number,
    readonly leaderEpoch: number | null,
  ) {
    super(
      leaderEpoch === null
        ? `the journal of epoch ${epoch} was deposed: this sequencer no longer leads`
        : `the journal is fenced: epoch ${epoch} is not the leader's (${leaderEpoch})`,
    );
  }
}

/**
 * The journal on PostgreSQL: a batch is one INSERT of all its rows (one statement: one transaction), durable
 * once it commits (synchronous_commit, PostgreSQL's fsync). The seq is the primary key, so a second writer
 * appending seqs the first has written fails instead of forking the journal.
 */
export class PostgresJournal implements Journal {
  private tail: Promise<void> = Promise.resolve();
  /** Set once this journal's leader has stopped leading: every later append is refused without a query. */
  private deposed = false;

  /**
   * `epoch`: the leader epoch this journal appends under (a cluster's sequencer, ADR 0018); null for the
   * single process, whose appends are a plain INSERT (no lock, no extra round trip).
   */
  private constructor(
    private readonly pool: pg.Pool,
    readonly features: JournalFeatures,
    readonly epoch: number | null = null,
  ) {}

  /** The same journal, fenced by the leader epoch `epoch` (see `insertFenced`). */
  fencedBy(epoch: number): PostgresJournal {
    return new PostgresJournal(this.pool, this.features, epoch);
  }

  /**
   * Refuses every append from now on (`JournalFenced`): the leader lost its lease. One already sent to the
   * database may still commit (its epoch is still the leader's: a successor's bump waits for it).
   */
  depose(): void {
    this.deposed = true;
  }

  /** Opens the journal, recording its rules' first seqs when this version first opens it. */
  static async open(pool: pg.Pool): Promise<PostgresJournal> {
    await pool.query(
      `INSERT INTO journal_features (name, since_seq)
        SELECT name, (SELECT coalesce(max(seq), 0) + 1 FROM journal) FROM unnest($1::text[]) AS f(name)
        ON CONFLICT (name) DO NOTHING`,
      [JOURNAL_FEATURES],
    );
    const { rows } = await pool.query<{ name: string; since_seq: number }>(
      'SELECT name, since_seq FROM journal_features',
    );
    const recorded = new Map(rows.map((row) => [row.name, row.since_seq]));
    const features = Object.fromEntries(
      JOURNAL_FEATURES.map((name) => [name, recorded.get(name)!]),
    ) as JournalFeatures;
    return new PostgresJournal(pool, features);
  }

  /**
   * Writes the batch after the batches before it have committed (a batch never lands before an earlier
   * one); once one has failed, every later one fails too, so that the journal never has a hole.
   */
  append(entries: readonly AppliedEntry[], onWritten?: () => void): Promise<void> {
    const appended = this.tail.then(() => this.insert(entries));
    this.tail = appended;
    return appended.then(() => onWritten?.());
  }

  private async insert(entries: readonly AppliedEntry[]): Promise<void> {
    if (this.epoch !== null) return this.insertFenced(this.epoch, entries);
    if (entries.length === 0) return;
    await this.pool.query(
      `INSERT INTO journal (seq, ts, kind, payload)
        SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[])`,
      [
        entries.map((e) => e.seq),
        entries.map((e) => e.ts),
        entries.map((e) => (e.input.kind === 'engine' ? e.input.command.type : e.input.kind)),
        entries.map(journalPayload),
      ],
    );
  }

  /**
   * One statement, so one transaction and one round trip: the leader row is locked FOR SHARE, the rows are
   * inserted only if its epoch is ours, and the batch's last seq is notified (delivered at commit). A
   * successor's epoch bump (an UPDATE of that row) waits for an append in flight to commit; an append after
   * the bump sees the new epoch (READ COMMITTED re-reads a row updated under a lock) and inserts nothing.
   */
  private async insertFenced(epoch: number, entries: readonly AppliedEntry[]): Promise<void> {
    if (this.deposed) throw new JournalFenced(epoch, null);
    const { rows } = await this.pool.query<{ epoch: number | null }>(
      `WITH leader AS (
          SELECT epoch FROM sequencer_leader WHERE id = 1 FOR SHARE
        ), written AS (
          INSERT INTO journal (seq, ts, kind, payload)
            SELECT e.* FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[]) AS e, leader
            WHERE leader.epoch = $5
            RETURNING seq
        )
        SELECT (SELECT epoch FROM leader) AS epoch,
          (SELECT pg_notify('${JOURNAL_CHANNEL}', max(seq)::text) FROM written HAVING count(*) > 0) AS notified`,
      [
        entries.map((e) => e.seq),
        entries.map((e) => e.ts),
        entries.map((e) => (e.input.kind === 'engine' ? e.input.command.type : e.input.kind)),
        entries.map(journalPayload),
        epoch,
      ],
    );
    const leaderEpoch = rows[0]?.epoch == null ? null : Number(rows[0].epoch);
    if (leaderEpoch !== epoch) {
      this.deposed = true;
      throw new JournalFenced(epoch, leaderEpoch);
    }
  }

  async last(): Promise<{ seq: number; ts: number }> {
    const { rows } = await this.pool.query<{ seq: number; ts: number }>(
      'SELECT seq, ts FROM journal ORDER BY seq DESC LIMIT 1',
    );
    return rows[0] ?? { seq: 0, ts: 0 };
  }

  async *after(seq: number): AsyncIterable<readonly JournalRow[]> {
    for (let from = seq; ; ) {
      const { rows } = await this.pool.query<JournalRow>(
        'SELECT seq, ts, payload FROM journal WHERE seq > $1 ORDER BY seq LIMIT $2',
        [from, JOURNAL_PAGE_ROWS],
      );
      if (rows.length > 0) yield rows;
      if (rows.length < JOURNAL_PAGE_ROWS) return;
      from = rows[rows.length - 1]!.seq;
    }
  }

  async latestCheckpoint(atOrBefore = Number.MAX_SAFE_INTEGER): Promise<EngineCheckpoint | null> {
    const { rows } = await this.pool.query<{ seq: number; digest: string; snapshot: Buffer }>(
      'SELECT seq, digest, snapshot FROM engine_checkpoints WHERE seq <= $1 ORDER BY seq DESC LIMIT 1',
      [atOrBefore],
    );
    const row = rows[0];
    return row ? { seq: row.seq, digest: row.digest, snapshot: row.snapshot } : null;
  }

  /**
   * Keeps the two newest checkpoints. Fenced like an append: a deposed leader's engine may hold batches that
   * were never journaled, and a checkpoint of it would hand them to every later start.
   */
  async saveCheckpoint(seq: number, digest: string, snapshot: Uint8Array, now: number): Promise<void> {
    const epoch = this.epoch;
    if (epoch !== null && this.deposed) throw new JournalFenced(epoch, null);
    await inTransaction(this.pool, async (client) => {
      if (epoch !== null) {
        const { rows } = await client.query<{ epoch: number }>(
          'SELECT epoch FROM sequencer_leader WHERE id = 1 FOR SHARE',
        );
        const leaderEpoch = rows[0] ? Number(rows[0].epoch) : null;
        if (leaderEpoch !== epoch) {
          this.deposed = true;
          throw new JournalFenced(epoch, leaderEpoch);
        }
      }
      await client.query(
        `INSERT INTO engine_checkpoints (seq, digest, snapshot, created_at) VALUES ($1, $2, $3, $4)
          ON CONFLICT (seq) DO UPDATE SET digest = excluded.digest, snapshot = excluded.snapshot,
            created_at = excluded.created_at`,
        [seq, digest, Buffer.from(snapshot.buffer, snapshot.byteOffset, snapshot.byteLength), now],
      );
      await client.query(
        'DELETE FROM engine_checkpoints WHERE seq NOT IN (SELECT seq FROM engine_checkpoints ORDER BY seq DESC LIMIT 2)',
      );
    });
  }

  /** The pool is the database's, closed by its owner. */
  async close(): Promise<void> {}
}
