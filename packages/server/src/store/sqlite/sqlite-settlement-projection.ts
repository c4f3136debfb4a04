import type { Database, Statement } from 'better-sqlite3';
import type { FillReversedEvent, PayoutEvent } from '../../engine/index.js';
import type { FillRecord, TradeRecord } from '../../records/records.js';
import type { SettlementInput } from '../../sequencer/inputs.js';
import { FILLS, TRADES, toShownFill, toShownTrade } from './sqlite-trading-queries.js';

/**
 * What the chain's settlement receipts and reversals change in the projections (issue 33):
 * - a landed transaction moves the watermark (`escrow_locks`) of every account with fills in its entries to
 *   its last seq, under which fills and trades show LOCKED (`records/shown.ts`), but for accounts with a
 *   skipped fill: theirs stops before it until it lands;
 * - payouts of the settlement era are recorded at the resolution (`settlement_payouts`) and paid when their
 *   item lands: a winner's trades show SETTLED then, not before;
 * - items that did not land (other than failed fills) wait in `settlement_outstanding`, in order, for the
 *   driver to submit again;
 * - a reversed fill's rows turn FAILED, and so do the trades they belong to.
 */
export class SqliteSettlementProjection {
  private readonly s: Record<string, Statement>;

  constructor(
    db: Database,
    /** The first seq whose payouts the chain pays through settlement transactions. */
    private readonly since: number,
  ) {
    const p = (sql: string) => db.prepare(sql);
    this.s = {
      lockWindow: p(`INSERT INTO escrow_locks (account, through_seq, locked_at)
        SELECT account, @lastSeq, @ts FROM fills INDEXED BY fills_by_seq
          WHERE seq BETWEEN @firstSeq AND @lastSeq AND account NOT IN (SELECT value FROM json_each(@held))
          GROUP BY account
        ON CONFLICT (account) DO UPDATE SET through_seq = excluded.through_seq, locked_at = excluded.locked_at
          WHERE excluded.through_seq > through_seq`),
      lockAccount: p(`INSERT INTO escrow_locks (account, through_seq, locked_at) VALUES (?, ?, ?)
        ON CONFLICT (account) DO UPDATE SET through_seq = excluded.through_seq, locked_at = excluded.locked_at
          WHERE excluded.through_seq > through_seq`),
      outstand: p('INSERT OR IGNORE INTO settlement_outstanding (id, item) VALUES (?, ?)'),
      landed: p('DELETE FROM settlement_outstanding WHERE id = ?'),
      outstandingItem: p('SELECT item FROM settlement_outstanding WHERE id = ?').pluck(),
      outstandingFills: p(`SELECT item FROM settlement_outstanding WHERE id LIKE 'fill:%'`).pluck(),
      payout: p('INSERT OR IGNORE INTO settlement_payouts (market_hash, account, seq) VALUES (?, ?, ?)'),
      payWindow: p(`UPDATE settlement_payouts SET paid_at = @ts
        WHERE seq BETWEEN @firstSeq AND @lastSeq AND paid_at IS NULL
          AND ('payout:' || market_hash || ':' || account) NOT IN (SELECT value FROM json_each(@unpaid))`),
      payOne: p(`UPDATE settlement_payouts SET paid_at = ?
        WHERE market_hash = ? AND account = ? AND paid_at IS NULL`),
      block: p('UPDATE escrow_cursor SET block_number = ? WHERE id = 1 AND block_number < ?'),
      failFills: p(`UPDATE fills INDEXED BY fills_by_seq SET status = 'FAILED', updated_at = ?
        WHERE seq = ? AND match_id = ? AND status = 'MATCHED' RETURNING trade_id`).pluck(),
      failTrades: p(`UPDATE trades SET status = 'FAILED', updated_at = ?
        WHERE id IN (SELECT value FROM json_each(?)) AND status NOT IN ('SETTLED', 'FAILED')`),
      fillsOfMatch: p(`SELECT * FROM ${FILLS} WHERE seq = ? AND match_id = ? ORDER BY id`),
      tradesById: p(`SELECT * FROM ${TRADES} WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id`),
    };
  }

  /** A resolution's payout: unpaid until its item lands (payouts of 0 move nothing: none is recorded). */
  payout(seq: number, event: PayoutEvent): void {
    if (seq >= this.since && event.payout > 0n) this.s.payout!.run(event.marketHash, event.account, seq);
  }

  /** A block's settlement receipts. */
  receipts(input: SettlementInput, ts: number): void {
    for (const tx of input.txs) {
      const unpaid: string[] = [];
      for (const item of tx.notLanded) {
        if (item.kind === 'payout') unpaid.push(item.id);
        // A failed fill is reversed (its own entry follows); anything else is submitted again.
        if (item.kind === 'fill' && item.status === 'failed') continue;
        this.s.outstand!.run(item.id, JSON.stringify(item, bigints));
      }
      // Retried items that landed: a payout is paid; a fill lets its accounts' watermarks follow it.
      const retriedFills = new Map<string, number>();
      for (const { id, kind } of tx.landed) {
        if (kind === 'payout') {
          const [, marketHash, account] = id.split(':');
          this.s.payOne!.run(ts, marketHash, account);
        } else if (kind === 'fill') {
          const fill = this.outstandingFill(this.s.outstandingItem!.get(id) as string | undefined);
          for (const account of fill ? [fill.makerAccount, fill.takerAccount] : []) {
            retriedFills.set(account, Math.max(retriedFills.get(account) ?? 0, fill!.seq));
          }
        }
        this.s.landed!.run(id);
      }
      // Accounts with a fill still outstanding: their watermark stays below the first one.
      const held = new Map<string, number>();
      for (const json of this.s.outstandingFills!.all() as string[]) {
        const fill = this.outstandingFill(json)!;
        for (const account of [fill.makerAccount, fill.takerAccount]) {
          held.set(account, Math.min(held.get(account) ?? Number.POSITIVE_INFINITY, fill.seq));
        }
      }
      if (tx.firstSeq <= tx.lastSeq) {
        const window = { firstSeq: tx.firstSeq, lastSeq: tx.lastSeq, ts };
        this.s.lockWindow!.run({ ...window, held: JSON.stringify([...held.keys()]) });
        this.s.payWindow!.run({ ...window, unpaid: JSON.stringify(unpaid) });
      }
      for (const [account, seq] of retriedFills)
        if (!held.has(account)) this.s.lockAccount!.run(account, seq, ts);
      for (const [account, first] of held) this.s.lockAccount!.run(account, first - 1, ts);
    }
    this.s.block!.run(input.block, input.block);
  }

  private outstandingFill(json: string | undefined) {
    if (json === undefined) return undefined;
    return (JSON.parse(json) as { fill?: { seq: number; makerAccount: string; takerAccount: string } }).fill;
  }

  /** A reversed fill: its rows and their trades FAILED; returns them as they show now. */
  reversed(event: FillReversedEvent, ts: number): { fills: FillRecord[]; trades: TradeRecord[] } {
    const seq = Number.parseInt(event.matchId, 10);
    const tradeIds = [...new Set(this.s.failFills!.all(ts, seq, event.matchId) as string[])];
    if (tradeIds.length > 0) this.s.failTrades!.run(ts, JSON.stringify(tradeIds));
    return {
      fills: (this.s.fillsOfMatch!.all(seq, event.matchId) as Record<string, unknown>[]).map(toShownFill),
      trades: (this.s.tradesById!.all(JSON.stringify(tradeIds)) as Record<string, unknown>[]).map(
        toShownTrade,
      ),
    };
  }
}

const bigints = (_key: string, value: unknown) => (typeof value === 'bigint' ? value.toString() : value);
