import type { Database, Statement } from 'better-sqlite3';
import type { EscrowFeed, UnescrowedFill, UnreleasedRefund } from '../escrow-feed.js';
import { withWriteGate } from './write-gate.js';
import { unsyncedWriteTransaction } from './write-transaction.js';

/**
 * The chain link's cursors in `escrow_cursor` (one row): `fills_rowid` (the last escrowed fill's rowid in
 * `fills`), `refund_seq` (the seq of the last released refunds in `ce_refunds`), `outbox_seq`, and `block_number` (written by the projector). `atomically` is an unsynced write
 * transaction on the database the embedded chain keeps its tables in.
 */
export class SqliteEscrowFeed implements EscrowFeed {
  private readonly unescrowed: Statement;
  private readonly writeEscrowedRowid: Statement;
  private readonly unreleased: Statement;
  private readonly writeReleasedSeq: Statement;
  private readonly readOutboxSeq: Statement;
  private readonly writeOutboxSeq: Statement;
  private readonly readBlockCursor: Statement;
  private readonly transaction: (write: () => unknown) => unknown;

  constructor(private readonly db: Database) {
    this.unescrowed = db.prepare(
      `SELECT rowid, account, fill_amount, seq FROM fills
        WHERE rowid > (SELECT fills_rowid FROM escrow_cursor WHERE id = 1) AND seq < ? ORDER BY rowid`,
    );
    this.writeEscrowedRowid = db.prepare('UPDATE escrow_cursor SET fills_rowid = ? WHERE id = 1');
    // A batch's refunds are projected in one transaction: every refund of a seq is there, or none.
    this.unreleased = db.prepare(
      `SELECT account, amount, seq FROM ce_refunds
        WHERE seq > (SELECT refund_seq FROM escrow_cursor WHERE id = 1) ORDER BY seq, fill_id`,
    );
    this.writeReleasedSeq = db.prepare('UPDATE escrow_cursor SET refund_seq = ? WHERE id = 1');
    this.readOutboxSeq = db.prepare('SELECT outbox_seq FROM escrow_cursor WHERE id = 1').pluck();
    this.writeOutboxSeq = db.prepare(
      'UPDATE escrow_cursor SET outbox_seq = ? WHERE id = 1 AND outbox_seq < ?',
    );
    this.readBlockCursor = db.prepare('SELECT block_number FROM escrow_cursor WHERE id = 1').pluck();
    this.transaction = unsyncedWriteTransaction(db, (write: () => unknown) => write());
  }

  unescrowedFills(beforeSeq: number): UnescrowedFill[] {
    const rows = this.unescrowed.all(beforeSeq) as {
      rowid: number;
      account: string;
      fill_amount: string;
      seq: number;
    }[];
    return rows.map((row) => ({
      position: row.rowid,
      account: row.account,
      stake: BigInt(row.fill_amount),
      seq: row.seq,
    }));
  }

  escrowedThrough(position: number): void {
    this.writeEscrowedRowid.run(position);
  }

  unreleasedRefunds(): UnreleasedRefund[] {
    const rows = this.unreleased.all() as { account: string; amount: string; seq: number }[];
    return rows.map((row) => ({ account: row.account, amount: BigInt(row.amount), seq: row.seq }));
  }

  releasedThrough(seq: number): void {
    this.writeReleasedSeq.run(seq);
  }

  outboxSeq(): number {
    return this.readOutboxSeq.get() as number;
  }

  setOutboxSeq(seq: number): void {
    this.writeOutboxSeq.run(seq, seq);
  }

  projectedBlock(): number {
    return (this.readBlockCursor.get() as number | undefined) ?? 0;
  }

  atomically<T>(write: () => T): T {
    return this.transaction(write) as T;
  }

  whenWritable<T>(write: () => T): T | Promise<T> {
    return withWriteGate(this.db, write);
  }
}
