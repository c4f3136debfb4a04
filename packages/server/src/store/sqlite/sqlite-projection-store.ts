import type { Database, Statement } from 'better-sqlite3';
import type { EngineSnapshot } from '../../engine/index.js';
import type { EscrowFills } from '../../sequencer/inputs.js';
import { withWriteGate } from '../../sqlite/write-gate.js';
import { unsyncedWriteTransaction } from '../../sqlite/write-transaction.js';
import type { ProjectedOrder, SequencedTrade } from '../batch-projection.js';
import { engineSnapshotFromRows } from '../engine-snapshot-rows.js';
import {
  type CommittedState,
  type EscrowCoverage,
  type ProjectionReads,
  type ProjectionStore,
  type ProjectionWrites,
  positionKey,
} from '../projection-store.js';
import type { PositionRow } from '../state-mirror.js';
import { toFill, toOrder, toTrade } from '../trading-rows.js';

type Row = Record<string, unknown>;

const toProjectedOrder = (r: Row): ProjectedOrder => ({
  ...toOrder(r),
  fillPot: r.fill_pot as string,
  placedSeq: (r.placed_seq as number | null) ?? null,
  activateAt: (r.activate_at as number | null) ?? null,
  commandId: r.command_id as string,
});

const toSequencedTrade = (r: Row): SequencedTrade => ({
  row: toTrade(r),
  lastFillSeq: r.last_fill_seq as number,
});

const toPositionRow = (r: Record<string, string>): PositionRow => ({
  stakeOne: BigInt(r.stake_one!),
  stakeTwo: BigInt(r.stake_two!),
  potOne: BigInt(r.pot_one!),
  potTwo: BigInt(r.pot_two!),
  refunded: BigInt(r.refunded!),
});

/**
 * The trading projections in SQLite: rows read by key with prepared statements (in-process, a read costs
 * microseconds: no need to batch them), and a batch's writes in one transaction with the cursor. The commit
 * is not synced: the journal is the durable record, the cursor says how far the projections have followed
 * it. A write waits for the WAL checkpointer's restart of the WAL (the write gate) off the event loop.
 */
export class SqliteProjectionStore implements ProjectionStore {
  private readonly s: Record<string, Statement>;
  private readonly writeTx: (writes: ProjectionWrites) => void;

  constructor(private readonly db: Database) {
    const p = (sql: string) => db.prepare(sql);
    this.s = {
      cursor: p('SELECT seq FROM projector_cursor WHERE id = 1').pluck(),
      order: p('SELECT * FROM orders WHERE id = ?'),
      trade: p('SELECT * FROM trades WHERE id = ?'),
      position: p('SELECT * FROM positions WHERE market_hash = ? AND account = ?'),
      hasRefunds: p('SELECT 1 FROM ce_refunds WHERE market_hash = ? LIMIT 1').pluck(),
      outstanding: p('SELECT id, item FROM settlement_outstanding ORDER BY rowid'),
      windowAccounts: p(
        'SELECT DISTINCT account FROM fills INDEXED BY fills_by_seq WHERE seq BETWEEN ? AND ?',
      ).pluck(),
      windowUnpaid: p(`SELECT market_hash AS marketHash, account FROM settlement_payouts
        WHERE seq BETWEEN ? AND ? AND paid_at IS NULL`),
      matchFills: p('SELECT * FROM fills INDEXED BY fills_by_seq WHERE seq = ? AND match_id = ? ORDER BY id'),
      // An escrow covers one account's fills of a flush, whose seqs span every batch of the flush: by the
      // account's own index, bounded by the times of its first and last seq (a fill's created_at is its
      // entry's time), not by seq, which would visit every account's fills in between.
      escrowRange: p(`SELECT * FROM fills INDEXED BY fills_by_account WHERE account = @account
        AND created_at BETWEEN (SELECT created_at FROM fills INDEXED BY fills_by_seq WHERE seq = @firstSeq LIMIT 1)
          AND (SELECT created_at FROM fills INDEXED BY fills_by_seq WHERE seq = @lastSeq LIMIT 1)
        AND seq BETWEEN @firstSeq AND @lastSeq ORDER BY seq, id`),
      escrowOne: p('SELECT * FROM fills INDEXED BY fills_by_seq WHERE seq = ? AND id = ?'),
      lockOf: p('SELECT through_seq FROM escrow_locks WHERE account = ?').pluck(),
      resolved: p('SELECT 1 FROM market_settlements WHERE market_hash = ?').pluck(),

      insertOrder: p(`INSERT INTO orders (id, account, market_hash, event_id, is_outcome_one, percentage_odds,
          total_bet_size, remaining_size, filled_size, fill_pot, expiry, time_in_force, status, inactive_reason,
          client_order_id, salt, base_token, signature, command_id, placed_seq, activate_at, created_at, updated_at)
        VALUES (@id, @account, @marketHash, @eventId, @isOne, @odds, @total, @remaining, @filled, @fillPot,
          @expiry, @tif, @status, @reason, @clientOrderId, @salt, @baseToken, @signature, @commandId, @placedSeq,
          @activateAt, @createdAt, @updatedAt)`),
      updateOrder: p(`UPDATE orders SET remaining_size = ?, filled_size = ?, fill_pot = ?, status = ?,
          inactive_reason = ?, placed_seq = ?, activate_at = ?, updated_at = ? WHERE id = ?`),
      insertFill:
        p(`INSERT INTO fills (id, match_id, order_id, trade_id, account, market_hash, is_outcome_one,
          is_maker, fill_amount, pot, fill_odds, status, seq, created_at, updated_at, ce_refund_amount,
          quarter_line_parent) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      failFill: p(`UPDATE fills INDEXED BY fills_by_seq SET status = 'FAILED', updated_at = ?
        WHERE seq = ? AND id = ?`),
      insertRefund: p(`INSERT INTO ce_refunds (seq, account, market_hash, fill_id, is_maker, amount,
          refunded_total, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
      insertTrade:
        p(`INSERT INTO trades (id, order_id, account, market_hash, event_id, is_outcome_one, is_maker,
          stake, pot, status, last_fill_seq, created_at, updated_at, quarter_line_parent)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      updateTrade: p(
        'UPDATE trades SET stake = ?, pot = ?, status = ?, last_fill_seq = ?, updated_at = ? WHERE id = ?',
      ),
      resolve: p('INSERT INTO market_settlements (market_hash, outcome, settled_at) VALUES (?, ?, ?)'),
      payout: p('INSERT OR IGNORE INTO settlement_payouts (market_hash, account, seq) VALUES (?, ?, ?)'),
      paid: p(`UPDATE settlement_payouts SET paid_at = ?
        WHERE market_hash = ? AND account = ? AND paid_at IS NULL`),
      raiseLock: p(`INSERT INTO escrow_locks (account, through_seq, locked_at) VALUES (?, ?, ?)
        ON CONFLICT (account) DO UPDATE SET through_seq = excluded.through_seq, locked_at = excluded.locked_at
          WHERE excluded.through_seq > through_seq`),
      outstand: p('INSERT OR IGNORE INTO settlement_outstanding (id, item) VALUES (?, ?)'),
      landed: p('DELETE FROM settlement_outstanding WHERE id = ?'),
      block: p('UPDATE escrow_cursor SET block_number = ? WHERE id = 1 AND block_number < ?'),
      balance: p(`INSERT INTO balances (account, available, escrowed, updated_at) VALUES (?, ?, ?, ?)
        ON CONFLICT (account) DO UPDATE SET available = excluded.available, escrowed = excluded.escrowed,
          updated_at = excluded.updated_at`),
      // Anonymous parameters: better-sqlite3 does not bind numbered ones (?1) from positional values.
      owed: p(`INSERT INTO balances (account, available, escrowed, owed, updated_at) VALUES (?, '0', '0', ?, ?)
        ON CONFLICT (account) DO UPDATE SET owed = excluded.owed, updated_at = excluded.updated_at`),
      upsertPosition: p(`INSERT INTO positions (market_hash, account, stake_one, stake_two, pot_one, pot_two,
          refunded) VALUES (?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (market_hash, account) DO UPDATE SET stake_one = excluded.stake_one,
          stake_two = excluded.stake_two, pot_one = excluded.pot_one, pot_two = excluded.pot_two,
          refunded = excluded.refunded`),
      deletePosition: p('DELETE FROM positions WHERE market_hash = ? AND account = ?'),
      openMarket: p(`INSERT INTO engine_markets (market_hash, event_id, open_seq, status, version, whole_leg,
          half_leg, parlay) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
      updateMarket: p(`UPDATE engine_markets SET status = coalesce(?, status), version = coalesce(?, version)
        WHERE market_hash = ?`),
      moveCursor: p('UPDATE projector_cursor SET seq = ? WHERE id = 1'),
    };
    this.writeTx = unsyncedWriteTransaction(db, (writes: ProjectionWrites) => this.writeRows(writes));
  }

  async cursor(): Promise<number> {
    return this.s.cursor!.get() as number;
  }

  async read(reads: ProjectionReads): Promise<CommittedState> {
    const s = this.s;
    const orders = new Map<string, ProjectedOrder>();
    for (const id of reads.orders) {
      const row = s.order!.get(id) as Row | undefined;
      if (row) orders.set(id, toProjectedOrder(row));
    }
    const trades = new Map<string, SequencedTrade>();
    for (const id of reads.trades) {
      const row = s.trade!.get(id) as Row | undefined;
      if (row) trades.set(id, toSequencedTrade(row));
    }
    const positions = new Map<string, PositionRow>();
    for (const { marketHash, account } of reads.positions) {
      const row = s.position!.get(marketHash, account) as Record<string, string> | undefined;
      if (row) positions.set(positionKey(marketHash, account), toPositionRow(row));
    }
    return {
      orders,
      trades,
      positions,
      refundedMarkets: new Set(reads.refundMarkets.filter((m) => s.hasRefunds!.get(m) !== undefined)),
      outstanding: reads.outstanding ? (s.outstanding!.all() as { id: string; item: string }[]) : [],
      windows: reads.windows.map(({ firstSeq, lastSeq }) => ({
        accounts: s.windowAccounts!.all(firstSeq, lastSeq) as string[],
        unpaid: s.windowUnpaid!.all(firstSeq, lastSeq) as { marketHash: string; account: string }[],
      })),
      matches: reads.matches.map(({ seq, matchId }) => {
        const fills = (s.matchFills!.all(seq, matchId) as Row[]).map(toFill);
        return { fills, trades: this.tradesOf(fills) };
      }),
      escrows: reads.escrows.map((escrow) => this.escrowCoverage(escrow)),
    };
  }

  private tradesOf(fills: readonly { tradeId: string }[]): SequencedTrade[] {
    return [...new Set(fills.map((f) => f.tradeId))].flatMap((id) => {
      const row = this.s.trade!.get(id) as Row | undefined;
      return row ? [toSequencedTrade(row)] : [];
    });
  }

  private escrowCoverage(escrow: EscrowFills): EscrowCoverage {
    const fills = (
      'fillId' in escrow
        ? this.s.escrowOne!.all(Number.parseInt(escrow.fillId, 10), escrow.fillId)
        : this.s.escrowRange!.all(escrow)
    ).map((r) => toFill(r as Row));
    const account = 'account' in escrow ? escrow.account : fills[0]?.account;
    const lock = account === undefined ? undefined : (this.s.lockOf!.get(account) as number | undefined);
    return {
      fills,
      trades: this.tradesOf(fills),
      lockThroughSeq: lock ?? null,
      resolvedMarkets: [...new Set(fills.map((f) => f.marketHash))].filter(
        (m) => this.s.resolved!.get(m) !== undefined,
      ),
    };
  }

  async write(writes: ProjectionWrites): Promise<void> {
    await withWriteGate(this.db, () => this.writeTx(writes));
  }

  private writeRows(w: ProjectionWrites): void {
    const s = this.s;
    for (const { row: o, meta } of w.orders) {
      if (meta) {
        s.insertOrder!.run({
          id: o.id,
          account: o.account,
          marketHash: o.marketHash,
          eventId: o.eventId,
          isOne: o.isBettingOutcomeOne ? 1 : 0,
          odds: o.percentageOdds,
          total: o.totalBetSize,
          remaining: o.remainingSize,
          filled: o.filledSize,
          fillPot: o.fillPot,
          expiry: o.expiry,
          tif: o.timeInForce,
          status: o.status,
          reason: o.inactiveReason,
          clientOrderId: o.clientOrderId,
          salt: meta.salt,
          baseToken: meta.baseToken,
          signature: meta.signature,
          commandId: o.commandId,
          placedSeq: o.placedSeq,
          activateAt: o.activateAt,
          createdAt: o.createdAt,
          updatedAt: o.updatedAt,
        });
      } else {
        s.updateOrder!.run(
          o.remainingSize,
          o.filledSize,
          o.fillPot,
          o.status,
          o.inactiveReason,
          o.placedSeq,
          o.activateAt,
          o.updatedAt,
          o.id,
        );
      }
    }
    for (const f of w.fills) {
      s.insertFill!.run(
        f.id,
        f.matchId,
        f.orderId,
        f.tradeId,
        f.account,
        f.marketHash,
        f.isBettingOutcomeOne ? 1 : 0,
        f.isMaker ? 1 : 0,
        f.fillAmount,
        f.pot,
        f.fillOdds,
        f.status,
        f.seq,
        f.createdAt,
        f.createdAt,
        f.ceRefundAmount,
        f.quarterLineParentMarketHash,
      );
    }
    for (const { seq, id, at } of w.failedFills) s.failFill!.run(at, seq, id);
    for (const r of w.refunds) {
      s.insertRefund!.run(
        r.seq,
        r.account,
        r.marketHash,
        r.fillId,
        r.isMaker ? 1 : 0,
        r.amount,
        r.refundedTotal,
        r.createdAt,
      );
    }
    for (const { row: t, lastFillSeq, isNew } of w.trades) {
      if (isNew) {
        s.insertTrade!.run(
          t.id,
          t.orderId,
          t.account,
          t.marketHash,
          t.eventId,
          t.isBettingOutcomeOne ? 1 : 0,
          t.isMaker ? 1 : 0,
          t.stake,
          t.pot,
          t.status,
          lastFillSeq,
          t.createdAt,
          t.updatedAt,
          t.quarterLineParentMarketHash,
        );
      } else s.updateTrade!.run(t.stake, t.pot, t.status, lastFillSeq, t.updatedAt, t.id);
    }
    for (const r of w.resolutions) s.resolve!.run(r.marketHash, r.outcome, r.at);
    for (const p of w.payouts) s.payout!.run(p.marketHash, p.account, p.seq);
    for (const p of w.paid) s.paid!.run(p.at, p.marketHash, p.account);
    for (const l of w.locks) s.raiseLock!.run(l.account, l.throughSeq, l.at);
    for (const op of w.outstanding) {
      if ('add' in op) s.outstand!.run(op.add.id, op.add.item);
      else s.landed!.run(op.remove);
    }
    if (w.block !== null) s.block!.run(w.block, w.block);
    for (const [account, { available, escrowed }] of w.balances) {
      s.balance!.run(account, available.toString(), escrowed.toString(), w.at);
    }
    for (const [account, owed] of w.owed) s.owed!.run(account, owed.toString(), w.at);
    for (const { marketHash, account, row } of w.positions) {
      if (!row) s.deletePosition!.run(marketHash, account);
      else
        s.upsertPosition!.run(
          marketHash,
          account,
          row.stakeOne.toString(),
          row.stakeTwo.toString(),
          row.potOne.toString(),
          row.potTwo.toString(),
          row.refunded.toString(),
        );
    }
    for (const [marketHash, m] of w.markets) {
      if (m.openSeq !== undefined)
        s.openMarket!.run(
          marketHash,
          m.eventId,
          m.openSeq,
          m.status,
          m.version,
          m.legs?.[0] ?? null,
          m.legs?.[1] ?? null,
          m.parlay ? JSON.stringify(m.parlay) : null,
        );
      else s.updateMarket!.run(m.status ?? null, m.version ?? null, marketHash);
    }
    s.moveCursor!.run(w.cursor);
  }

  /** The engine state as the projections hold it, in the engine's canonical snapshot form. */
  async engineSnapshot(ladderSize: number, engineLastSeq: number): Promise<EngineSnapshot> {
    const rows = {
      balances: this.db
        .prepare(
          "SELECT account, available, escrowed, owed FROM balances WHERE available <> '0' OR escrowed <> '0' OR owed <> '0'",
        )
        .all() as Record<string, unknown>[],
      positions: this.db.prepare('SELECT * FROM positions').all() as Record<string, unknown>[],
      markets: this.db.prepare('SELECT * FROM engine_markets ORDER BY open_seq').all() as Record<
        string,
        unknown
      >[],
      resolutions: this.db.prepare('SELECT market_hash, outcome FROM market_settlements').all() as Record<
        string,
        unknown
      >[],
      orders: this.db
        // Through the open orders' partial index (its condition, repeated, lets the planner use it), then sorted.
        .prepare(`SELECT id, account, market_hash, is_outcome_one, percentage_odds, total_bet_size, remaining_size,
            expiry, placed_seq FROM orders WHERE status <> 'INACTIVE' AND status = 'ACTIVE' ORDER BY placed_seq`)
        .all() as Record<string, unknown>[],
    };
    return engineSnapshotFromRows(rows, ladderSize, engineLastSeq);
  }
}
