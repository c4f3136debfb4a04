import type { Database, Statement } from 'better-sqlite3';
import {
  type DoneReason,
  type EngineEvent,
  type EngineSnapshot,
  type MarketSnapshot,
  type OrderSnapshot,
  RejectCode,
} from '../../engine/index.js';
import type { FillRecord, TradeRecord } from '../../records/records.js';
import type {
  AppliedEntry,
  EscrowReceipt,
  HeartbeatInput,
  OrderMeta,
  PlaceOrderInput,
  SequencerInput,
} from '../../sequencer/inputs.js';
import { withWriteGate } from '../../sqlite/write-gate.js';
import { unsyncedWriteTransaction } from '../../sqlite/write-transaction.js';
import { BatchProjection, type EntryChanges, type ProjectedOrder } from '../batch-projection.js';
import type { ProjectionWriter } from '../projection.js';
import { type PositionRow, StateMirror } from '../state-mirror.js';
import { SqliteSettlementProjection } from './sqlite-settlement-projection.js';
import { toOrder, toTrade } from './sqlite-trading-queries.js';

/** Why an order the engine refused ends up inactive. */
function reasonOfReject(code: string): DoneReason {
  switch (code) {
    case RejectCode.MARKET_CLOSED:
    case RejectCode.MARKET_RESOLVED:
    case RejectCode.MARKET_NOT_FOUND:
      return 'EVENT_LIFECYCLE';
    case RejectCode.ORDER_EXPIRED:
      return 'EXPIRED';
    case RejectCode.INSUFFICIENT_BALANCE:
      return 'INSUFFICIENT_BALANCE';
    default:
      return 'SYSTEM';
  }
}

/** Bounds the open-order row cache (about 600 bytes a row); the oldest entries go first. */
const OPEN_ORDER_CACHE_SIZE = 65_536;

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

const toProjectedOrder = (r: Record<string, unknown>): ProjectedOrder => ({
  ...toOrder(r),
  fillPot: r.fill_pot as string,
  placedSeq: (r.placed_seq as number | null) ?? null,
  activateAt: (r.activate_at as number | null) ?? null,
  commandId: r.command_id as string,
});

/**
 * The projections in SQLite, derived from committed batches: one transaction per batch writes every row
 * the batch changed (orders, fills, trades, balances, positions, markets) and the projector's cursor, the
 * batch's last seq. A batch at or below the cursor is skipped, so projecting is idempotent and a start
 * catches up from the journal after the cursor. History rows follow the events: a BatchProjection computes
 * them in memory and each touched row is written once per batch; the engine-state mirrors follow the events
 * too (StateMirror). The commit is not synced: the journal is the durable record, the cursor says how far
 * the projections have followed it.
 *
 * The chain's escrow receipts (`escrows` inputs) are applied here too: a landed escrow moves its account's
 * watermark (`escrow_locks`), under which fills and trades show LOCKED (`records/shown.ts`; no row is
 * rewritten); a failed one turns its fills and their trades FAILED; SETTLED is never overwritten. A block's
 * receipts record its number (`escrow_cursor.block_number`), so the chain link knows where to resume.
 */
export class SqliteProjector implements ProjectionWriter {
  private readonly s: Record<string, Statement>;
  /** The fills of an escrow (`range`, or `one` for a legacy per-fill memo) that it may still lock or fail. */
  private readonly escrowFills: Record<'range' | 'one', { select: Statement; fail: Statement }>;
  private readonly projectTx: (entries: readonly AppliedEntry[]) => EntryChanges[];
  private projectedSeq: number;
  /**
   * Open (ACTIVE, PENDING) orders' rows as last committed, so that a maker's row is not read back for each
   * of its fills. Only this store writes order rows, so an entry is never stale; a miss reads the database.
   */
  private readonly openOrders = new Map<string, ProjectedOrder>();
  /** Order rows the batch being written wrote: they enter `openOrders` once it has committed. */
  private writtenOrders: ProjectedOrder[] = [];
  /** How many open orders' rows are kept in memory. */
  private readonly openOrderCacheSize: number;

  private readonly settlement: SqliteSettlementProjection;

  constructor(
    private readonly db: Database,
    options: {
      /** The first seq settled through settlement transactions (the journal's `chainSettlement`); default 1. */
      settlementSince?: number;
      /** How many open orders' rows are kept in memory (tests make it small to exercise evictions). */
      openOrderCacheSize?: number;
    } = {},
  ) {
    this.openOrderCacheSize = options.openOrderCacheSize ?? OPEN_ORDER_CACHE_SIZE;
    this.settlement = new SqliteSettlementProjection(db, options.settlementSince ?? 1);
    const p = (sql: string) => db.prepare(sql);
    this.s = {
      order: p('SELECT * FROM orders WHERE id = ?'),
      trade: p('SELECT * FROM trades WHERE id = ?'),
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
          quarter_line_parent) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'MATCHED', ?, ?, ?, ?, ?)`),
      insertRefund: p(`INSERT INTO ce_refunds (seq, account, market_hash, fill_id, is_maker, amount,
          refunded_total, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
      marketHasRefunds: p('SELECT 1 FROM ce_refunds WHERE market_hash = ? LIMIT 1'),
      insertTrade:
        p(`INSERT INTO trades (id, order_id, account, market_hash, event_id, is_outcome_one, is_maker,
          stake, pot, status, last_fill_seq, created_at, updated_at, quarter_line_parent)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      updateTrade: p(
        'UPDATE trades SET stake = ?, pot = ?, status = ?, last_fill_seq = ?, updated_at = ? WHERE id = ?',
      ),
      // The views show the market's MATCHED trades and fills SETTLED from this row (migration 12).
      settleMarket: p('INSERT INTO market_settlements (market_hash, outcome, settled_at) VALUES (?, ?, ?)'),
      balance: p(`INSERT INTO balances (account, available, escrowed, updated_at) VALUES (?, ?, ?, ?)
        ON CONFLICT (account) DO UPDATE SET available = excluded.available, escrowed = excluded.escrowed,
          updated_at = excluded.updated_at`),
      position:
        p(`INSERT INTO positions (market_hash, account, stake_one, stake_two, pot_one, pot_two, refunded)
        VALUES (?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (market_hash, account) DO UPDATE SET stake_one = excluded.stake_one,
          stake_two = excluded.stake_two, pot_one = excluded.pot_one, pot_two = excluded.pot_two,
          refunded = excluded.refunded`),
      deletePosition: p('DELETE FROM positions WHERE market_hash = ? AND account = ?'),
      owed: p(`INSERT INTO balances (account, available, escrowed, owed, updated_at) VALUES (?1, '0', '0', ?2, ?3)
        ON CONFLICT (account) DO UPDATE SET owed = excluded.owed, updated_at = excluded.updated_at`),
      readPosition: p('SELECT * FROM positions WHERE market_hash = ? AND account = ?'),
      openMarket: p(`INSERT INTO engine_markets (market_hash, event_id, open_seq, status, version, whole_leg,
          half_leg) VALUES (?, ?, ?, ?, ?, ?, ?)`),
      updateMarket: p(`UPDATE engine_markets SET status = coalesce(?, status), version = coalesce(?, version)
        WHERE market_hash = ?`),
      cursor: p('UPDATE projector_cursor SET seq = ? WHERE id = 1'),
      armHeartbeat: p(`INSERT INTO heartbeats (account, timeout_seconds, expires_at) VALUES (?, ?, ?)
        ON CONFLICT (account) DO UPDATE SET timeout_seconds = excluded.timeout_seconds,
          expires_at = excluded.expires_at`),
      disarmHeartbeat: p('DELETE FROM heartbeats WHERE account = ?'),
      disarmFiredHeartbeat: p('DELETE FROM heartbeats WHERE account = ? AND expires_at = ?'),
      // A landed escrow moves its account's watermark: every fill (and trade) under it shows LOCKED (the
      // views of migration 9); no row is rewritten. Escrows land in the order they were submitted.
      lockThrough: p(`INSERT INTO escrow_locks (account, through_seq, locked_at) VALUES (?, ?, ?)
        ON CONFLICT (account) DO UPDATE SET through_seq = excluded.through_seq, locked_at = excluded.locked_at
          WHERE excluded.through_seq > through_seq`),
      // The trades of a failed escrow's fills (trade ids, a JSON array), never over SETTLED.
      failTrades: p(`UPDATE trades SET status = 'FAILED', updated_at = ?
        WHERE id IN (SELECT value FROM json_each(?)) AND status NOT IN ('SETTLED', 'FAILED')
          AND ${UNSETTLED('trades')}`),
      escrowBlock: p('UPDATE escrow_cursor SET block_number = ? WHERE id = 1 AND block_number < ?'),
    };
    // Fills still MATCHED, not yet under their account's watermark (applying a receipt again finds
    // nothing), nor in a resolved market (they show SETTLED, for good).
    const matched = `status = 'MATCHED'
      AND seq > ifnull((SELECT through_seq FROM escrow_locks WHERE escrow_locks.account = fills.account), -1)
      AND ${UNSETTLED('fills')}`;
    // An escrow covers one account's fills of a flush, whose seqs span every batch of the flush: by the
    // account's own index, bounded by the times of its first and last seq (a fill's created_at is its
    // entry's time, the same for every fill of that seq), not by seq, which would visit every account's
    // fills in between.
    const range = `account = @account
      AND created_at BETWEEN (SELECT created_at FROM fills INDEXED BY fills_by_seq WHERE seq = @firstSeq LIMIT 1)
        AND (SELECT created_at FROM fills INDEXED BY fills_by_seq WHERE seq = @lastSeq LIMIT 1)
      AND seq BETWEEN @firstSeq AND @lastSeq AND ${matched}`;
    const statements = (index: string, where: string) => ({
      select: p(`SELECT account, seq FROM fills INDEXED BY ${index} WHERE ${where} LIMIT 1`),
      fail: p(`UPDATE fills INDEXED BY ${index} SET status = 'FAILED', updated_at = @now WHERE ${where}
        RETURNING trade_id`).pluck(),
    });
    this.escrowFills = {
      range: statements('fills_by_account', range),
      // A legacy per-fill memo: the seq is the id's first part.
      one: statements('fills_by_seq', `seq = @seq AND id = @id AND ${matched}`),
    };
    this.projectedSeq = db.prepare('SELECT seq FROM projector_cursor WHERE id = 1').pluck().get() as number;
    this.projectTx = unsyncedWriteTransaction(db, (entries: readonly AppliedEntry[]) => {
      const changes = this.writeBatch(entries);
      this.s.cursor!.run(entries[entries.length - 1]!.seq);
      return changes;
    });
  }

  cursor(): number {
    return this.projectedSeq;
  }

  /**
   * Projects the entries after the cursor (none: nothing is written) in one transaction, at once unless
   * the WAL checkpointer is restarting the WAL (then as soon as it is done); returns each entry's changes.
   */
  async project(entries: readonly AppliedEntry[]): Promise<EntryChanges[]> {
    return withWriteGate(this.db, () => this.projectNow(entries));
  }

  /** `project`, written at once by a caller that holds the database's write gate (the projector's thread). */
  projectNow(entries: readonly AppliedEntry[]): EntryChanges[] {
    const fresh = entries.filter((e) => e.seq > this.projectedSeq);
    return fresh.length === 0 ? [] : this.commit(fresh);
  }

  private commit(entries: readonly AppliedEntry[]): EntryChanges[] {
    this.writtenOrders = [];
    const changes = this.projectTx(entries);
    this.projectedSeq = entries[entries.length - 1]!.seq;
    for (const row of this.writtenOrders) this.rememberCommitted(row);
    return changes;
  }

  /** Keeps an open order's committed row, the oldest one leaving when full; forgets a closed order's. */
  private rememberCommitted(row: ProjectedOrder): void {
    this.openOrders.delete(row.id);
    if (row.status !== 'ACTIVE' && row.status !== 'PENDING') return;
    if (this.openOrders.size >= this.openOrderCacheSize) {
      const oldest = this.openOrders.keys().next();
      if (oldest.done) return;
      this.openOrders.delete(oldest.value);
    }
    this.openOrders.set(row.id, row);
  }

  private writeBatch(entries: readonly AppliedEntry[]): EntryChanges[] {
    const mirror = new StateMirror((marketHash, account) => {
      const row = this.s.readPosition!.get(marketHash, account) as Record<string, string> | undefined;
      return row ? toPositionRow(row) : null;
    });
    const changes: EntryChanges[] = [];
    const rows = new BatchProjection({
      order: (orderId) => {
        // A copy: the projection changes the rows it is given.
        const open = this.openOrders.get(orderId);
        if (open) return { ...open };
        const row = this.s.order!.get(orderId) as Record<string, unknown> | undefined;
        return row ? toProjectedOrder(row) : null;
      },
      trade: (tradeId) => {
        const row = this.s.trade!.get(tradeId) as Record<string, unknown> | undefined;
        return row ? { row: toTrade(row), lastFillSeq: row.last_fill_seq as number } : null;
      },
      marketHasRefunds: (marketHash) => this.s.marketHasRefunds!.get(marketHash) !== undefined,
    });

    for (const entry of entries) {
      const { seq, ts, input } = entry;
      rows.beginEntry(seq, ts);
      if (input.kind === 'admit') rows.admit(input.order, input.meta, input.activateAt);
      else if (input.kind === 'withdraw') rows.withdraw(input.orderIds, input.reason);
      else if (input.kind === 'heartbeat') this.heartbeat(input);
      else if (input.kind === 'escrows') {
        // The rows the batch changed so far are written first: a later write of a trade this entry fails
        // must not put back its status from before.
        this.writeRows(rows);
        this.applyEscrows(input, ts);
      } else if (input.kind === 'settlement') {
        this.writeRows(rows);
        this.settlement.receipts(input, ts);
      } else {
        const place = input.command.type === 'place' ? input.command : null;
        let failed: { fills: FillRecord[]; trades: TradeRecord[] } | undefined;
        for (const event of entry.events) {
          mirror.apply(seq, event);
          if (event.type === 'fillReversed') {
            // As for a failed escrow: the rows so far first, then the FAILED ones over them.
            this.writeRows(rows);
            failed = this.settlement.reversed(event, ts);
          } else if (event.type === 'payout') this.settlement.payout(seq, event);
          this.projectEvent(event, { rows, place, meta: input.meta, ts });
        }
        if (failed) {
          const entryChanges = rows.endEntry();
          entryChanges.fills.push(...failed.fills);
          entryChanges.trades.push(...failed.trades);
          changes.push(entryChanges);
          continue;
        }
      }
      changes.push(rows.endEntry());
    }
    this.writeRows(rows);
    this.writeMirror(mirror, entries[entries.length - 1]!.ts);
    return changes;
  }

  private heartbeat({ account, timeoutSeconds, expiresAt, ifExpiresAt }: HeartbeatInput): void {
    if (expiresAt !== null) this.s.armHeartbeat!.run(account, timeoutSeconds, expiresAt);
    else if (ifExpiresAt !== undefined) this.s.disarmFiredHeartbeat!.run(account, ifExpiresAt);
    else this.s.disarmHeartbeat!.run(account);
  }

  /** A block's escrow receipts (or a refused submission's), in chain order; then the block's number. */
  private applyEscrows(input: Extract<SequencerInput, { kind: 'escrows' }>, ts: number): void {
    for (const escrow of input.escrows) this.applyEscrow(escrow, ts);
    if (input.block !== null) this.s.escrowBlock!.run(input.block, input.block);
  }

  /** A landed escrow moves its account's watermark to its last fill; a failed one fails its fills and trades. */
  private applyEscrow(escrow: EscrowReceipt, ts: number): void {
    const [which, params] =
      'fillId' in escrow
        ? // A fill id starts with its match id, `<seq>-<n>`.
          (['one', { seq: Number.parseInt(escrow.fillId, 10), id: escrow.fillId }] as const)
        : ([
            'range',
            { account: escrow.account, firstSeq: escrow.firstSeq, lastSeq: escrow.lastSeq },
          ] as const);
    const fills = this.escrowFills[which];
    if (escrow.ok) {
      // Only while a fill is left to lock: applying a receipt again changes nothing, not even the time.
      const last = fills.select.get(params) as { account: string; seq: number } | undefined;
      if (!last) return;
      const through = 'fillId' in escrow ? last.seq : escrow.lastSeq;
      this.s.lockThrough!.run(last.account, through, ts);
      return;
    }
    const tradeIds = fills.fail.all({ ...params, now: ts }) as string[];
    if (tradeIds.length > 0) this.s.failTrades!.run(ts, JSON.stringify([...new Set(tradeIds)]));
  }

  private writeMirror(mirror: StateMirror, ts: number): void {
    for (const [account, { available, escrowed }] of mirror.balances) {
      this.s.balance!.run(account, available.toString(), escrowed.toString(), ts);
    }
    for (const [account, owed] of mirror.owed) this.s.owed!.run(account, owed.toString(), ts);
    for (const { marketHash, account, row } of mirror.positions.values()) {
      if (!row) this.s.deletePosition!.run(marketHash, account);
      else
        this.s.position!.run(
          marketHash,
          account,
          row.stakeOne.toString(),
          row.stakeTwo.toString(),
          row.potOne.toString(),
          row.potTwo.toString(),
          row.refunded.toString(),
        );
    }
    for (const [marketHash, m] of mirror.markets) {
      if (m.openSeq !== undefined)
        this.s.openMarket!.run(
          marketHash,
          m.eventId,
          m.openSeq,
          m.status,
          m.version,
          m.legs?.[0] ?? null,
          m.legs?.[1] ?? null,
        );
      else this.s.updateMarket!.run(m.status ?? null, m.version ?? null, marketHash);
    }
  }

  /** Writes the rows the projection has changed so far, each once. */
  private writeRows(rows: BatchProjection): void {
    const { orders, trades, fills, refunds } = rows.takeDirty();
    for (const { row: o, meta } of orders) {
      // Until the batch commits, a later read of the row (after a settlement's mid-batch write) must see
      // this write: from the database, not the cache.
      this.openOrders.delete(o.id);
      // Not copied: the projection hands its rows over here and never changes them again.
      this.writtenOrders.push(o);
      if (meta) {
        this.s.insertOrder!.run({
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
        this.s.updateOrder!.run(
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
    for (const f of fills) {
      this.s.insertFill!.run(
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
        f.seq,
        f.createdAt,
        f.createdAt,
        f.ceRefundAmount,
        f.quarterLineParentMarketHash,
      );
    }
    for (const r of refunds) {
      this.s.insertRefund!.run(
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
    for (const { row: t, lastFillSeq, isNew } of trades) {
      if (isNew) {
        this.s.insertTrade!.run(
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
      } else this.s.updateTrade!.run(t.stake, t.pot, t.status, lastFillSeq, t.updatedAt, t.id);
    }
  }

  private projectEvent(
    event: EngineEvent,
    c: { rows: BatchProjection; place: PlaceOrderInput | null; meta: OrderMeta | undefined; ts: number },
  ): void {
    switch (event.type) {
      case 'orderAccepted':
        c.rows.accepted(c.place!, c.meta!);
        break;
      case 'orderRejected':
        // A replayed order id must never overwrite the original order's row.
        if (event.code !== RejectCode.DUPLICATE_ORDER_ID && c.place && c.meta) {
          c.rows.rejected(c.place, c.meta, reasonOfReject(event.code));
        }
        break;
      case 'orderRested':
        c.rows.rested(event.orderId, event.remainingSize, event.filledSize);
        break;
      case 'orderMatched':
        c.rows.matched(event);
        break;
      case 'ceRefund':
        c.rows.refunded(event);
        break;
      case 'orderDone':
        c.rows.done(event.orderId, event.reason, event.remainingSize, event.filledSize);
        break;
      case 'marketResolved':
        this.s.settleMarket!.run(event.marketHash, event.outcome, c.ts);
        break;
      default:
        break;
    }
  }

  // ------------------------------------------------------------------ recovery reads

  /** The engine state as the projections hold it, in the engine's canonical snapshot form. */
  engineSnapshotFromProjections(ladderSize: number, engineLastSeq: number): EngineSnapshot {
    const balances = this.db
      .prepare(
        "SELECT account, available, escrowed, owed FROM balances WHERE available <> '0' OR escrowed <> '0' OR owed <> '0'",
      )
      .all() as { account: string; available: string; escrowed: string; owed: string }[];
    balances.sort((a, b) => compare(a.account, b.account));
    const netDeposits = balances.reduce(
      (sum, b) => sum + BigInt(b.available) + BigInt(b.escrowed) - BigInt(b.owed),
      0n,
    );
    const positions = new Map<string, [string, string, string, string, string, string][]>();
    for (const row of this.db.prepare('SELECT * FROM positions').all() as Record<string, string>[]) {
      const list = positions.get(row.market_hash!) ?? [];
      list.push([row.account!, row.stake_one!, row.stake_two!, row.pot_one!, row.pot_two!, row.refunded!]);
      positions.set(row.market_hash!, list);
    }
    const markets: MarketSnapshot[] = (
      this.db.prepare('SELECT * FROM engine_markets ORDER BY open_seq').all() as {
        market_hash: string;
        event_id: string;
        status: MarketSnapshot['status'];
        version: number;
        whole_leg: string | null;
        half_leg: string | null;
      }[]
    ).map((m) => ({
      marketHash: m.market_hash,
      eventId: m.event_id,
      status: m.status,
      version: m.version,
      positions: (positions.get(m.market_hash) ?? []).sort((a, b) => compare(a[0], b[0])),
      ...(m.whole_leg !== null && m.half_leg !== null ? { legs: [m.whole_leg, m.half_leg] as const } : {}),
    }));
    const scale = 10n ** 20n;
    const orders: OrderSnapshot[] = (
      this.db
        // Through the open orders' partial index (its condition, repeated, lets the planner use it), then sorted.
        .prepare(`SELECT id, account, market_hash, is_outcome_one, percentage_odds, total_bet_size, remaining_size,
            expiry, placed_seq FROM orders WHERE status <> 'INACTIVE' AND status = 'ACTIVE' ORDER BY placed_seq`)
        .all() as Record<string, string | number>[]
    ).map((o) => [
      o.id as string,
      o.account as string,
      o.market_hash as string,
      o.is_outcome_one === 1,
      Number((BigInt(o.percentage_odds as string) * BigInt(ladderSize)) / scale),
      o.total_bet_size as string,
      o.remaining_size as string,
      o.expiry as number,
      o.placed_seq as number,
    ]);
    return {
      format: 2,
      ladderSize,
      lastSeq: engineLastSeq,
      netDeposits: netDeposits.toString(),
      accounts: balances.map((b) =>
        b.owed === '0'
          ? ([b.account, b.available, b.escrowed] as const)
          : ([b.account, b.available, b.escrowed, b.owed] as const),
      ),
      markets,
      orders,
    };
  }
}

const toPositionRow = (r: Record<string, string>): PositionRow => ({
  stakeOne: BigInt(r.stake_one!),
  stakeTwo: BigInt(r.stake_two!),
  potOne: BigInt(r.pot_one!),
  potTwo: BigInt(r.pot_two!),
  refunded: BigInt(r.refunded!),
});

/** A row of `table` not in a resolved market (whose MATCHED rows show SETTLED: migration 12). */
const UNSETTLED = (table: 'fills' | 'trades') =>
  `NOT EXISTS (SELECT 1 FROM market_settlements s WHERE s.market_hash = ${table}.market_hash)`;
