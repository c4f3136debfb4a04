import type { Database, Statement } from 'better-sqlite3';
import type { AppliedEntry } from '../../sequencer/inputs.js';
import {
  type EngineCheckpoint,
  JOURNAL_FEATURES,
  type Journal,
  type JournalFeatures,
  type JournalRow,
} from '../../sequencer/journal.js';
import { encodeInput } from '../../sequencer/journal-codec.js';
import { type WalSync, walSync } from '../../sqlite/wal-sync.js';
import { withWriteGate } from '../../sqlite/write-gate.js';
import { writeTransaction } from '../../sqlite/write-transaction.js';

/**
 * The journal in SQLite: one transaction per batch holds the batch's journal rows and nothing else; a
 * batch is durable once the WAL is synced (synchronous=FULL, WAL) or at commit (an in-memory database).
 */
export class SqliteJournal implements Journal {
  private readonly insert: Statement;
  private readonly appendTx: (entries: readonly AppliedEntry[]) => void;
  /** Set when commits are synced (WAL, synchronous=FULL): a batch is acknowledged once `sync` resolves. */
  private readonly walSync: WalSync | null;
  readonly features: JournalFeatures;

  constructor(private readonly db: Database) {
    this.insert = db.prepare('INSERT INTO journal (seq, ts, kind, payload) VALUES (?, ?, ?, ?)');
    this.appendTx = writeTransaction(db, (entries: readonly AppliedEntry[]) => {
      for (const { seq, ts, input } of entries) {
        this.insert.run(
          seq,
          ts,
          input.kind === 'engine' ? input.command.type : input.kind,
          encodeInput(input),
        );
      }
    });
    this.walSync = walSync(db);
    this.features = this.recordFeatures();
  }

  /** Records the rules' first seqs when this journal is first opened by a version that has them. */
  private recordFeatures(): JournalFeatures {
    this.db.exec(`CREATE TABLE IF NOT EXISTS journal_features (
      name      TEXT PRIMARY KEY,
      since_seq INTEGER NOT NULL
    ) STRICT`);
    const read = () =>
      new Map(
        (
          this.db.prepare('SELECT name, since_seq FROM journal_features').all() as {
            name: string;
            since_seq: number;
          }[]
        ).map((row) => [row.name, row.since_seq]),
      );
    let recorded = read();
    if (JOURNAL_FEATURES.some((name) => !recorded.has(name))) {
      writeTransaction(this.db, () => {
        const insert = this.db.prepare(
          'INSERT OR IGNORE INTO journal_features (name, since_seq) VALUES (?, ?)',
        );
        for (const name of JOURNAL_FEATURES) insert.run(name, this.lastRow().seq + 1);
      })();
      recorded = read();
    }
    return Object.fromEntries(JOURNAL_FEATURES.map((name) => [name, recorded.get(name)!])) as JournalFeatures;
  }

  /**
   * Writes the batch in one transaction, at once unless the WAL checkpointer is restarting the WAL (then
   * as soon as it is done, the event loop free meanwhile); resolves once the batch is durable.
   */
  async append(entries: readonly AppliedEntry[], onWritten?: () => void): Promise<void> {
    const walSync = this.walSync;
    if (!walSync) {
      this.appendTx(entries);
      return;
    }
    // Unsynced only at commit; checkpoints still sync the WAL before and the database after.
    const written = withWriteGate(this.db, () => walSync.unsynced(() => this.appendTx(entries)));
    if (written instanceof Promise) await written;
    onWritten?.();
    // Syncs the WAL as it stands now: this batch and every commit before it (an earlier batch whose own
    // sync is still running is durable once both are: the sequencer answers in order).
    await walSync.sync();
  }

  async last(): Promise<{ seq: number; ts: number }> {
    return this.lastRow();
  }

  private lastRow(): { seq: number; ts: number } {
    const row = this.db.prepare('SELECT seq, ts FROM journal ORDER BY seq DESC LIMIT 1').get() as
      | { seq: number; ts: number }
      | undefined;
    return row ?? { seq: 0, ts: 0 };
  }

  async *after(seq: number): AsyncIterable<readonly JournalRow[]> {
    const page = this.db.prepare('SELECT seq, ts, payload FROM journal WHERE seq > ? ORDER BY seq LIMIT ?');
    for (let from = seq; ; ) {
      const rows = page.all(from, JOURNAL_PAGE_ROWS) as JournalRow[];
      if (rows.length > 0) yield rows;
      if (rows.length < JOURNAL_PAGE_ROWS) return;
      from = rows[rows.length - 1]!.seq;
    }
  }

  async latestCheckpoint(atOrBefore = Number.MAX_SAFE_INTEGER): Promise<EngineCheckpoint | null> {
    const row = this.db
      .prepare(
        'SELECT seq, digest, snapshot FROM engine_checkpoints WHERE seq <= ? ORDER BY seq DESC LIMIT 1',
      )
      .get(atOrBefore) as { seq: number; digest: string; snapshot: Buffer } | undefined;
    return row ? { seq: row.seq, digest: row.digest, snapshot: row.snapshot } : null;
  }

  /** Keeps the two newest checkpoints. */
  async saveCheckpoint(seq: number, digest: string, snapshot: Uint8Array, now: number): Promise<void> {
    writeTransaction(this.db, () => {
      this.db
        .prepare(
          'INSERT OR REPLACE INTO engine_checkpoints (seq, digest, snapshot, created_at) VALUES (?, ?, ?, ?)',
        )
        .run(seq, digest, snapshot, now);
      this.db
        .prepare(
          'DELETE FROM engine_checkpoints WHERE seq NOT IN (SELECT seq FROM engine_checkpoints ORDER BY seq DESC LIMIT 2)',
        )
        .run();
    })();
  }

  /** Releases the WAL descriptor (the database itself is closed by its owner). */
  async close(): Promise<void> {
    this.walSync?.close();
  }
}

/** Rows of a page of `after`. */
const JOURNAL_PAGE_ROWS = 2_000;
