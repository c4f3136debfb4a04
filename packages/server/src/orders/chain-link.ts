import type { Database, Statement } from 'better-sqlite3';
import type { Chain, TokenTxRequest } from '../chain/chain.js';
import type { ChainBlock, ChainReceipt } from '../chain/chain-types.js';
import type { CommittedBatch } from '../sequencer/committed-batch.js';
import type { AppliedEntry } from '../sequencer/inputs.js';
import { toFill, toTrade } from '../store/sqlite/sqlite-trading-queries.js';
import { withWriteGate } from '../store/sqlite/write-gate.js';
import { unsyncedWriteTransaction } from '../store/sqlite/write-transaction.js';
import type { FillRecord, TradeRecord } from './records.js';

/** Memos that tie chain transactions to exchange records. */
export const chainMemo = {
  /**
   * The stakes of one account in one sequencer batch: its fills with `seq` in [firstSeq, lastSeq] (the
   * seqs of its first and last match in the batch; a batch's seqs are its own, so no other fill is in range).
   */
  escrow: (account: string, firstSeq: number, lastSeq: number) => `escrow:${account}:${firstSeq}-${lastSeq}`,
  payout: (marketHash: string, account: string) => `payout:${marketHash}:${account}`,
  deposit: (seq: number) => `deposit:${seq}`,
  withdrawal: (seq: number) => `withdrawal:${seq}`,
} as const;

/** The fills an escrow memo stands for; `fill:<id>` is the one-escrow-per-fill memo of older data dirs. */
export type EscrowFills = { account: string; firstSeq: number; lastSeq: number } | { fillId: string };

export function parseEscrowMemo(memo: string | null): EscrowFills | null {
  if (!memo) return null;
  if (memo.startsWith('escrow:')) {
    const colon = memo.lastIndexOf(':');
    const range = /^(\d+)-(\d+)$/.exec(memo.slice(colon + 1));
    const account = memo.slice('escrow:'.length, colon);
    if (!range || !account) return null;
    return { account, firstSeq: Number(range[1]), lastSeq: Number(range[2]) };
  }
  if (memo.startsWith('fill:')) return { fillId: memo.slice('fill:'.length) };
  return null;
}

export type FillLockUpdate = {
  fillId: string;
  tradeId: string;
  account: string;
  status: 'LOCKED' | 'FAILED';
  /** The fill's row as this update left it. */
  fill: FillRecord;
  /**
   * The trade's row when this update changed the trade's status (LOCKED or FAILED), else null. A status
   * change is reported once, on the last update of that trade's fills in the list.
   */
  trade: TradeRecord | null;
};

type LandedEscrow = { fills: EscrowFills; ok: boolean };

/** Chain requests of committed batches: a payout's step first escrows the fills before its seq. */
type OutboxStep = { escrowsBefore: number | null; requests: TokenTxRequest[] };

/**
 * The money side of trading on the chain:
 * - escrow: the stakes of the fills committed since the last flush, one escrow per account (the sum of its
 *   stakes, maker and taker sides), submitted together with `submitMany` by `flush`: on a timer (about twice
 *   per block, so a block carries each account's escrow once, whatever the number of batches) and before
 *   any payout. What was flushed is the fills up to a durable cursor on the fills table, written in the
 *   same transaction as the submissions: a fill is escrowed exactly once, also across a crash (the first
 *   flush after a start covers the fills committed before it).
 * - for each committed batch (once projected), the other chain transactions that batch implies: payouts of
 *   resolved markets (after a flush of the fills before them) and deposits, written with the outbox cursor
 *   (the last seq whose requests are submitted) in one write: a start submits those of the batches after
 *   it again (`submitForBatch` with the replayed entries), and none twice.
 * - when an escrow transaction lands, its account's watermark (`escrow_locks`) moves to the escrow's last
 *   seq: its fills show LOCKED, and so does a trade once the watermark passes its last fill (the `_shown`
 *   views; no fill or trade row is rewritten). A failed escrow, or one the chain refused to take, turns its
 *   fills and their trades FAILED. SETTLED is never overwritten. Listeners get the changed rows.
 * - the last block whose escrows were applied is kept (`escrow_cursor`, in the same write as the marks),
 *   so a start applies exactly the blocks that landed after it, e.g. while the exchange was down.
 */
export class ChainLink {
  /**
   * The fills of an escrow (`range`, or `one` for a legacy per-fill memo) still MATCHED, in match order,
   * and the statement that fails them.
   */
  private readonly escrowFills: Record<'range' | 'one', { select: Statement; fail: Statement }>;
  /** Whether a landed range escrow still has a fill to lock (when nobody wants its rows). */
  private readonly anyEscrowFill: Statement;
  private readonly lockThrough: Statement;
  private readonly lockedTrades: Statement;
  private readonly failTrades: Statement;
  private readonly readCursor: Statement;
  private readonly writeCursor: Statement;
  private readonly headBlock: Statement;
  private readonly landedEscrows: Statement;
  private readonly unescrowedFills: Statement;
  private readonly writeEscrowedRowid: Statement;
  private readonly readOutboxSeq: Statement;
  private readonly writeOutboxSeq: Statement;
  private readonly flushTx: (beforeSeq: number) => void;
  private readonly outboxTx: (steps: readonly OutboxStep[], throughSeq: number) => void;
  /** The last seq whose chain requests are submitted. */
  private outboxCursor: number;
  /**
   * Applies `escrows` from index `from` on, at least one, until `budgetMs` have passed; writes the block
   * cursor `through` once the last is applied. Returns the changed rows and the index to go on from.
   */
  private readonly applyTx: (
    escrows: readonly LandedEscrow[],
    from: number,
    budgetMs: number,
    through: number | null,
    now: number,
  ) => { updates: FillLockUpdate[]; next: number };
  private readonly listeners: {
    listener: (updates: readonly FillLockUpdate[]) => void;
    wants: (account: string) => boolean;
  }[] = [];
  /** The last block whose escrow receipts are applied (or had none). */
  private cursor = 0;
  /** Blocks waiting for a large block before them to finish applying, oldest first. */
  private readonly queued: { through: number; now: number }[] = [];
  private applying = false;
  private stopped = false;
  private now: () => number = Date.now;

  constructor(
    private readonly db: Database,
    private readonly chain: Chain,
    private readonly walletOf: (account: `0x${string}`) => `0x${string}`,
    /**
     * A submission the chain refused (a broken invariant: stakes are always positive) or a slice of a large
     * block that could not be applied (the next block catches up): reported loudly.
     */
    private readonly onSubmitError: (error: unknown) => void = (error) =>
      console.error('chain submission refused', error),
    /** The event-loop time one slice of a block's escrows may take (0: one escrow a slice). */
    private readonly applySliceMs = APPLY_SLICE_MS,
  ) {
    // Only fills the escrowed-fills cursor has passed (a refused submission whose flush then rolled back left
    // its fills to the next flush, which escrows them again) and not yet under their account's watermark
    // (applying a block again finds nothing), nor in a resolved market (they show SETTLED, for good).
    const matched = `status = 'MATCHED' AND rowid <= (SELECT fills_rowid FROM escrow_cursor WHERE id = 1)
      AND seq > ifnull((SELECT through_seq FROM escrow_locks WHERE escrow_locks.account = fills.account), -1)
      AND ${UNSETTLED('fills')}`;
    // An escrow covers one account's fills of a flush, whose seqs span every batch of the flush: by the
    // account's own index, bounded by the times of its first and last seq (a fill's created_at is its
    // entry's journal time), not by seq, which would visit every account's fills in between.
    const range = `account = @account
      AND created_at BETWEEN (SELECT ts FROM journal WHERE seq = @firstSeq) AND (SELECT ts FROM journal WHERE seq = @lastSeq)
      AND seq BETWEEN @firstSeq AND @lastSeq AND ${matched}`;
    const statements = (index: string, where: string) => ({
      select: db.prepare(`SELECT * FROM fills INDEXED BY ${index} WHERE ${where} ORDER BY seq, id`),
      fail: db.prepare(
        `UPDATE fills INDEXED BY ${index} SET status = 'FAILED', updated_at = @now WHERE ${where}`,
      ),
    });
    this.escrowFills = {
      range: statements('fills_by_account', range),
      // A legacy per-fill memo: the seq is the id's first part.
      one: statements('fills_by_seq', `seq = @seq AND id = @id AND ${matched}`),
    };
    this.anyEscrowFill = db
      .prepare(`SELECT 1 FROM fills INDEXED BY fills_by_account WHERE ${range} LIMIT 1`)
      .pluck();
    // A landed escrow moves its account's watermark: every fill (and trade) under it shows LOCKED (the views
    // of migration 9); no row is rewritten. Escrows land in the order they were submitted.
    this.lockThrough = db.prepare(`INSERT INTO escrow_locks (account, through_seq, locked_at) VALUES (?, ?, ?)
      ON CONFLICT (account) DO UPDATE SET through_seq = excluded.through_seq, locked_at = excluded.locked_at
        WHERE excluded.through_seq > through_seq`);
    // The trades of the escrow's fills that it locks: those with no fill after it (trade ids, a JSON array).
    this.lockedTrades = db.prepare(`SELECT * FROM trades
      WHERE id IN (SELECT value FROM json_each(?)) AND status = 'MATCHED' AND last_fill_seq <= ?
        AND ${UNSETTLED('trades')}`);
    this.failTrades = db.prepare(`UPDATE trades SET status = 'FAILED', updated_at = ?
      WHERE id IN (SELECT value FROM json_each(?)) AND status NOT IN ('SETTLED', 'FAILED')
        AND ${UNSETTLED('trades')}
      RETURNING *`);
    this.readCursor = db.prepare('SELECT block_number FROM escrow_cursor WHERE id = 1').pluck();
    this.writeCursor = db.prepare('UPDATE escrow_cursor SET block_number = ? WHERE id = 1');
    this.headBlock = db.prepare('SELECT max(number) FROM chain_blocks').pluck();
    this.landedEscrows = db.prepare(
      `SELECT json_extract(t.payload, '$.memo') AS memo, r.status
         FROM chain_blocks b, json_each(b.tx_hashes) h
         JOIN chain_receipts r ON r.tx_hash = h.value
         JOIN chain_transactions t ON t.hash = r.tx_hash
        WHERE b.number > ? AND b.number <= ? AND t.kind = 'escrow'
        ORDER BY b.number, r.tx_index`,
    );
    this.unescrowedFills = db.prepare(
      `SELECT rowid, account, fill_amount, seq FROM fills
        WHERE rowid > (SELECT fills_rowid FROM escrow_cursor WHERE id = 1) AND seq < ? ORDER BY rowid`,
    );
    this.writeEscrowedRowid = db.prepare('UPDATE escrow_cursor SET fills_rowid = ? WHERE id = 1');
    this.readOutboxSeq = db.prepare('SELECT outbox_seq FROM escrow_cursor WHERE id = 1').pluck();
    this.writeOutboxSeq = db.prepare(
      'UPDATE escrow_cursor SET outbox_seq = ? WHERE id = 1 AND outbox_seq < ?',
    );
    // Neither write waits for the disk (on the event loop): both can be rebuilt from durable state, and the
    // next synced commit (a batch's, a block's) carries them to disk before anything that depends on them.
    // A flush lost to a power cut is not in any block either (blocks are synced) and the first flush after
    // the start submits those fills again; lost LOCKED marks are re-applied from the stored blocks at the
    // start, before anything is served.
    this.flushTx = unsyncedWriteTransaction(db, (beforeSeq: number) => this.submitEscrows(beforeSeq));
    // Not synced: a write lost to a power cut takes the submissions and the cursor with it (the WAL keeps a
    // prefix of the commits), and the start submits them again from the journal.
    this.outboxTx = unsyncedWriteTransaction(db, (steps: readonly OutboxStep[], throughSeq: number) => {
      for (const { escrowsBefore, requests } of steps) {
        if (escrowsBefore !== null) this.submitEscrows(escrowsBefore);
        if (requests.length > 0) this.submit(requests);
      }
      this.writeOutboxSeq.run(throughSeq, throughSeq);
    });
    this.outboxCursor = this.readOutboxSeq.get() as number;
    this.applyTx = unsyncedWriteTransaction(
      db,
      (
        escrows: readonly LandedEscrow[],
        from: number,
        budgetMs: number,
        through: number | null,
        now: number,
      ) => {
        const updates: FillLockUpdate[] = [];
        const deadline = performance.now() + budgetMs;
        let next = from;
        do this.applyEscrow(escrows[next++]!, now, updates);
        while (next < escrows.length && performance.now() < deadline);
        if (next === escrows.length && through !== null) this.writeCursor.run(through);
        return { updates, next };
      },
    );
  }

  /**
   * Listens for fills (and their trades) changing status on the chain's word. `wants`: whether the
   * listener wants an account's LOCKED rows at all; when no listener does, a landed escrow only moves the
   * account's watermark, without reading its fills and trades back.
   */
  onLockUpdates(
    listener: (updates: readonly FillLockUpdate[]) => void,
    wants: (account: string) => boolean = () => true,
  ): void {
    this.listeners.push({ listener, wants });
  }

  /** The last seq whose chain requests (payouts, deposits) are submitted. */
  outboxSeq(): number {
    return this.outboxCursor;
  }

  /**
   * The chain requests of a committed batch, once it is projected: payouts (each after an escrow flush of
   * the fills before it, which it may pay from) and deposits, with the outbox cursor in one write. Entries at
   * or below the cursor are skipped. Escrows wait for `flush`.
   */
  submitForBatch(batch: Pick<CommittedBatch, 'entries' | 'lastSeq'>): void {
    if (batch.lastSeq <= this.outboxCursor) return;
    const steps = this.outboxOf(batch.entries.filter((e) => e.seq > this.outboxCursor));
    // A batch without chain requests leaves the cursor (a checkpoint moves it: `submittedThrough`).
    if (steps.length === 0) return;
    this.outboxTx(steps, batch.lastSeq);
    this.outboxCursor = batch.lastSeq;
  }

  /** Every batch through `seq` has been consumed (a checkpoint at `seq`): none is submitted again. */
  submittedThrough(seq: number): void {
    if (seq <= this.outboxCursor) return;
    this.writeOutboxSeq.run(seq, seq);
    this.outboxCursor = seq;
  }

  private outboxOf(entries: readonly AppliedEntry[]): OutboxStep[] {
    const wallet = (account: string) => this.walletOf(account as `0x${string}`);
    const steps: OutboxStep[] = [];
    let current = null as OutboxStep | null;
    for (const entry of entries) {
      for (const event of entry.events) {
        if (event.type === 'payout' && event.payout > 0n) {
          // A resolution's payouts go together, after the escrows of the fills before it.
          if (current?.escrowsBefore !== entry.seq) {
            current = { escrowsBefore: entry.seq, requests: [] };
            steps.push(current);
          }
          current.requests.push({
            kind: 'release',
            to: wallet(event.account),
            amount: event.payout,
            memo: chainMemo.payout(event.marketHash, event.account),
          });
        } else if (event.type === 'balanceChanged' && entry.input.kind === 'engine') {
          const command = entry.input.command;
          // A deposit only adds money: it may go before escrows of earlier fills.
          if (command.type === 'credit' && command.account === event.account) {
            if (!current) {
              current = { escrowsBefore: null, requests: [] };
              steps.push(current);
            }
            current.requests.push({
              kind: 'mint',
              to: wallet(event.account),
              amount: command.amount,
              memo: chainMemo.deposit(entry.seq),
            });
          }
        }
      }
    }
    return steps;
  }

  /** Submits the escrows of every fill committed since the last flush, one per account, in one write. */
  flush(): void {
    this.flushTx(Number.MAX_SAFE_INTEGER);
  }

  /** Escrows of the fills after the cursor with seq < `beforeSeq`; moves the cursor past them. */
  private submitEscrows(beforeSeq: number): void {
    const rows = this.unescrowedFills.all(beforeSeq) as {
      rowid: number;
      account: string;
      fill_amount: string;
      seq: number;
    }[];
    if (rows.length === 0) return;
    // Per account, in order of first fill; fills are inserted in seq order, so ranges never interleave.
    const stakes = new Map<string, { amount: bigint; firstSeq: number; lastSeq: number }>();
    for (const row of rows) {
      const s = stakes.get(row.account);
      if (s) {
        s.amount += BigInt(row.fill_amount);
        s.lastSeq = row.seq;
      } else
        stakes.set(row.account, { amount: BigInt(row.fill_amount), firstSeq: row.seq, lastSeq: row.seq });
    }
    const requests: TokenTxRequest[] = [];
    for (const [account, s] of stakes) {
      requests.push({
        kind: 'escrow',
        from: this.walletOf(account as `0x${string}`),
        amount: s.amount,
        memo: chainMemo.escrow(account, s.firstSeq, s.lastSeq),
      });
    }
    this.submit(requests);
    this.writeEscrowedRowid.run(rows[rows.length - 1]!.rowid);
  }

  private submit(requests: readonly TokenTxRequest[]): void {
    this.chain.submitMany(requests).catch((error: unknown) => {
      this.failRefusedEscrows(requests);
      this.onSubmitError(error);
    });
  }

  /**
   * The chain refused a submission (all of it: submitMany is all or none). The escrowed-fills cursor has
   * already moved past its escrows' fills, so no later flush covers them: they turn FAILED now, as if the
   * escrow had failed on chain, instead of staying MATCHED for ever. A refused payout or deposit has no
   * fill to mark; it is only reported.
   */
  private failRefusedEscrows(requests: readonly TokenTxRequest[]): void {
    const escrows: LandedEscrow[] = [];
    for (const request of requests) {
      const fills = request.kind === 'escrow' ? parseEscrowMemo(request.memo ?? null) : null;
      if (fills) escrows.push({ fills, ok: false });
    }
    // Also after a stop (the flush at shutdown): the cursor has moved either way. A closed database throws.
    if (escrows.length === 0) return;
    try {
      this.applyAtOnce(escrows, null, this.now());
    } catch (error) {
      this.onSubmitError(error);
    }
  }

  /**
   * Subscribes to blocks and applies the escrows of those that landed after the last applied one; flushes
   * the escrows of committed fills now (those of before a crash too) and then every `flushMs`.
   */
  start(now: () => number, flushMs: number): () => void {
    this.now = now;
    this.cursor = (this.readCursor.get() as number | undefined) ?? 0;
    this.flush();
    const flushTimer = setInterval(() => {
      try {
        // Behind the write gate: while the WAL checkpointer restarts the WAL, off the event loop.
        const written = withWriteGate(this.db, () => {
          if (!this.stopped) this.flush();
        });
        if (written instanceof Promise) written.catch(this.onSubmitError);
      } catch (error) {
        this.onSubmitError(error);
      }
    }, flushMs);
    flushTimer.unref();
    // Once per block, not per receipt: one transaction (one fsync) for all of a block's fills.
    const unsubscribe = this.chain.onBlock((block, receipts) => this.applyBlock(block, receipts, now()));
    // Escrows whose receipts arrived while the exchange was down (or before a crash, after the last apply):
    // at once, before anything is served.
    const head = (this.headBlock.get() as number | null) ?? 0;
    const stored = head > this.cursor ? this.storedEscrows(this.cursor, head) : [];
    if (stored.length > 0) this.applyAtOnce(stored, head, now());
    else if (head > this.cursor) this.cursor = head;
    this.stopped = false;
    this.applying = false;
    return () => {
      this.stopped = true;
      this.queued.length = 0;
      clearInterval(flushTimer);
      unsubscribe();
    };
  }

  private applyBlock(block: ChainBlock, receipts: readonly ChainReceipt[], now: number): void {
    if (this.applying) {
      // A large block before it is still being applied: this one follows it (catching up if needed).
      this.queued.push({ through: block.number, now });
      return;
    }
    if (block.number <= this.cursor) return;
    let escrows: LandedEscrow[];
    if (block.number === this.cursor + 1) {
      escrows = [];
      for (const r of receipts) {
        const fills = r.tx.kind === 'escrow' ? parseEscrowMemo(r.tx.memo) : null;
        if (fills) escrows.push({ fills, ok: r.status === 'success' });
      }
    } else {
      // An earlier block's apply failed: catch up from the stored receipts, this block's included.
      escrows = this.storedEscrows(this.cursor, block.number);
    }
    if (escrows.length > 0) this.apply(escrows, block.number, now);
    // Nothing to apply: the stored cursor moves with the next write (a restart re-reads a few empty blocks).
    else this.cursor = block.number;
  }

  /** Escrow receipts of the blocks in (after, through], in chain order. */
  private storedEscrows(after: number, through: number): LandedEscrow[] {
    const rows = this.landedEscrows.all(after, through) as { memo: string | null; status: string }[];
    const escrows: LandedEscrow[] = [];
    for (const row of rows) {
      const fills = parseEscrowMemo(row.memo);
      if (fills) escrows.push({ fills, ok: row.status === 'success' });
    }
    return escrows;
  }

  /**
   * Applies a block's escrows in slices of about `applySliceMs` (more while later blocks wait), one
   * transaction each with the event loop free in between: at a high fill rate a block carries hundreds of
   * fills, and requests are not held up for all of them at once. Each slice goes behind the write gate, so
   * a slice that meets the WAL checkpointer's restart waits off the event loop. The cursor moves with the
   * last slice. Applying an escrow again changes nothing (only fills above the watermark are reported), so
   * a crash between slices just re-applies the block at the next start.
   */
  private apply(escrows: readonly LandedEscrow[], through: number, now: number): void {
    this.applying = true;
    let next = 0;
    const failed = (error: unknown) => {
      // The cursor stays behind: the next block catches up from the stored receipts.
      this.applying = false;
      this.queued.length = 0;
      this.onSubmitError(error);
    };
    const sliced = (applied: { updates: FillLockUpdate[]; next: number } | null) => {
      if (applied === null) return; // stopped while waiting for the gate
      try {
        next = applied.next;
        if (next < escrows.length) {
          this.publish(applied.updates, null);
          setImmediate(slice);
          return;
        }
        this.applying = false;
        this.publish(applied.updates, through);
      } catch (error) {
        failed(error);
        return;
      }
      this.drainQueue();
    };
    const slice = () => {
      if (this.stopped) return;
      try {
        const written = withWriteGate(this.db, () =>
          this.stopped
            ? null
            : // Blocks mined meanwhile wait behind this one: each adds a slice's time, so that under a
              // sustained load the receipts keep pace with the chain instead of falling further behind.
              this.applyTx(escrows, next, this.applySliceMs * (1 + this.queued.length), through, now),
        );
        if (written instanceof Promise) written.then(sliced, failed);
        else sliced(written);
      } catch (error) {
        failed(error);
      }
    };
    slice();
  }

  /** Applies `escrows` in one transaction, whatever their number, and publishes the changed rows. */
  private applyAtOnce(escrows: readonly LandedEscrow[], through: number | null, now: number): void {
    this.publish(this.applyTx(escrows, 0, Number.POSITIVE_INFINITY, through, now).updates, through);
  }

  /** Blocks that arrived while a large one was applying, in order (the first catches up from storage). */
  private drainQueue(): void {
    while (!this.applying && this.queued.length > 0) {
      const { through, now } = this.queued.shift()!;
      if (through <= this.cursor) continue;
      const escrows = this.storedEscrows(this.cursor, through);
      if (escrows.length > 0) this.apply(escrows, through, now);
      else this.cursor = through;
    }
  }

  private publish(updates: FillLockUpdate[], through: number | null): void {
    if (through !== null) this.cursor = through;
    if (updates.length) for (const { listener } of this.listeners) listener(updates);
  }

  /**
   * A landed escrow moves its account's watermark; a failed one fails its fills and their trades. The
   * fills and trades it changed are read back for the listeners, unless it landed and none wants them.
   */
  private applyEscrow({ fills, ok }: LandedEscrow, now: number, updates: FillLockUpdate[]): void {
    if (ok && 'account' in fills && !this.listeners.some(({ wants }) => wants(fills.account))) {
      if (this.anyEscrowFill.get(fills) !== undefined)
        this.lockThrough.run(fills.account, fills.lastSeq, now);
      return;
    }
    const status = ok ? 'LOCKED' : 'FAILED';
    const [which, params] =
      'fillId' in fills
        ? // A fill id starts with its match id, `<seq>-<n>`.
          (['one', { seq: Number.parseInt(fills.fillId, 10), id: fills.fillId }] as const)
        : (['range', fills] as const);
    const rows = this.escrowFills[which].select.all(params) as Record<string, unknown>[];
    if (rows.length === 0) return;
    const changed = rows.map((row) => {
      const fill = toFill(row);
      fill.status = status;
      return fill;
    });
    const through = 'fillId' in fills ? (rows[0]!.seq as number) : fills.lastSeq;
    const tradeIds = JSON.stringify([...new Set(changed.map((f) => f.tradeId))]);
    const trades = new Map<string, TradeRecord>();
    if (ok) {
      this.lockThrough.run(changed[0]!.account, through, now);
      for (const row of this.lockedTrades.all(tradeIds, through) as Record<string, unknown>[]) {
        const trade = toTrade(row);
        trade.status = 'LOCKED';
        trade.updatedAt = now;
        trades.set(trade.id, trade);
      }
    } else {
      this.escrowFills[which].fail.run({ ...params, now });
      for (const row of this.failTrades.all(now, tradeIds) as Record<string, unknown>[]) {
        trades.set(row.id as string, toTrade(row));
      }
    }
    // The changed trade rides on the last update of its fills.
    const lastOfTrade = new Map<string, number>();
    for (const [i, f] of changed.entries()) lastOfTrade.set(f.tradeId, i);
    changed.forEach((fill, i) => {
      updates.push({
        fillId: fill.id,
        tradeId: fill.tradeId,
        account: fill.account,
        status,
        fill,
        trade: lastOfTrade.get(fill.tradeId) === i ? (trades.get(fill.tradeId) ?? null) : null,
      });
    });
  }
}

/** A row of `table` not in a resolved market (whose MATCHED rows show SETTLED: migration 12). */
const UNSETTLED = (table: 'fills' | 'trades') =>
  `NOT EXISTS (SELECT 1 FROM market_settlements s WHERE s.market_hash = ${table}.market_hash)`;

/** The event-loop time one slice of a block's escrows may take (each escrow about ten fills at a high rate). */
const APPLY_SLICE_MS = 1;
