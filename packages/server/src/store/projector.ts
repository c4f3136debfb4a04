import { type DoneReason, type EngineEvent, RejectCode } from '../engine/index.js';
import type { AppliedEntry, OrderMeta, PlaceOrderInput } from '../sequencer/inputs.js';
import { BatchProjection, type EntryChanges, type ProjectedOrder } from './batch-projection.js';
import type { ProjectionWriter } from './projection.js';
import { projectionReads } from './projection-reads.js';
import { type CommittedState, type ProjectionStore, positionKey } from './projection-store.js';
import { SettlementProjection } from './settlement-projection.js';
import { StateMirror } from './state-mirror.js';

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
/** Bounds what is known of markets' refunds (markets are few; forgotten at once when full). */
const REFUND_MARKETS_KNOWN = 100_000;

export type ProjectorOptions = {
  /** The first seq settled through settlement transactions (the journal's `chainSettlement`); default 1. */
  settlementSince?: number;
  /** How many open orders' rows are kept in memory (tests make it small to exercise evictions). */
  openOrderCacheSize?: number;
};

/**
 * The trading projections, derived from committed batches by the same rules whatever the store: per
 * batch, the committed rows it touches are read at once (projection-reads.ts), the batch is computed in
 * memory (BatchProjection for orders, fills and trades; StateMirror for balances, positions and markets;
 * SettlementProjection for receipts and reversals), and everything it changed is written at once with the
 * cursor, its last seq. Entries at or below the cursor are skipped, so projecting is idempotent and a
 * start catches up from the journal after it. Batches are projected one after the other, in the order
 * given. The store is the projections' only writer's: what the projector holds of it (open orders' rows,
 * markets known to have had refunds) never goes stale.
 */
export class Projector implements ProjectionWriter {
  readonly ordered = true;
  private projectedSeq: number;
  private last: Promise<unknown> = Promise.resolve();
  /** Open (ACTIVE, PENDING) orders' rows as last written, so that a maker's row is not read for each fill. */
  private readonly openOrders = new Map<string, ProjectedOrder>();
  private readonly openOrderCacheSize: number;
  private readonly refundedMarkets = new Map<string, boolean>();
  private readonly settlementSince: number;

  private constructor(
    private readonly store: ProjectionStore,
    cursor: number,
    options: ProjectorOptions,
  ) {
    this.projectedSeq = cursor;
    this.openOrderCacheSize = options.openOrderCacheSize ?? OPEN_ORDER_CACHE_SIZE;
    this.settlementSince = options.settlementSince ?? 1;
  }

  static async open(store: ProjectionStore, options: ProjectorOptions = {}): Promise<Projector> {
    return new Projector(store, await store.cursor(), options);
  }

  cursor(): number {
    return this.projectedSeq;
  }

  project(entries: readonly AppliedEntry[]): Promise<EntryChanges[]> {
    const projected = this.last.then(() => this.projectBatch(entries));
    this.last = projected.catch(() => undefined);
    return projected;
  }

  private async projectBatch(entries: readonly AppliedEntry[]): Promise<EntryChanges[]> {
    const fresh = entries.filter((e) => e.seq > this.projectedSeq);
    if (fresh.length === 0) return [];
    const reads = projectionReads(fresh, {
      order: (id) => this.openOrders.has(id),
      refunds: (marketHash) => this.refundedMarkets.has(marketHash),
    });
    const state = await this.store.read(reads);
    const { changes, rows, mirror, settlement } = this.compute(fresh, state);
    const dirty = rows.dirty();
    const lastEntry = fresh[fresh.length - 1]!;
    await this.store.write({
      cursor: lastEntry.seq,
      at: lastEntry.ts,
      ...dirty,
      balances: mirror.balances,
      owed: mirror.owed,
      positions: [...mirror.positions.values()],
      markets: mirror.markets,
      resolutions: this.resolutions(fresh),
      ...settlement.writes(),
    });
    this.projectedSeq = lastEntry.seq;
    for (const { row } of dirty.orders) this.rememberOrder(row);
    for (const marketHash of reads.refundMarkets)
      this.knowRefunds(marketHash, state.refundedMarkets.has(marketHash));
    for (const refund of dirty.refunds) this.knowRefunds(refund.marketHash, true);
    return changes;
  }

  private compute(entries: readonly AppliedEntry[], state: CommittedState) {
    const rows = new BatchProjection({
      order: (orderId) => this.openOrders.get(orderId) ?? state.orders.get(orderId) ?? null,
      trade: (tradeId) => state.trades.get(tradeId) ?? null,
      // A market read for the batch is as read; any other was known before it.
      marketHasRefunds: (marketHash) =>
        state.refundedMarkets.has(marketHash) || this.refundedMarkets.get(marketHash) === true,
    });
    // Trades read for reversals and escrows are trades too (a reversal's may also be one the batch filled).
    for (const read of [...state.matches, ...state.escrows])
      for (const trade of read.trades)
        if (!state.trades.has(trade.row.id)) state.trades.set(trade.row.id, trade);
    const mirror = new StateMirror(
      (marketHash, account) => state.positions.get(positionKey(marketHash, account)) ?? null,
    );
    const settlement = new SettlementProjection(state, rows, this.settlementSince);
    const changes: EntryChanges[] = [];
    for (const { seq, ts, input, events } of entries) {
      rows.beginEntry(seq, ts);
      if (input.kind === 'admit') rows.admit(input.order, input.meta, input.activateAt);
      else if (input.kind === 'withdraw') rows.withdraw(input.orderIds, input.reason);
      else if (input.kind === 'escrows') {
        for (const escrow of input.escrows) settlement.escrow(escrow, ts);
        settlement.escrowBlock(input.block);
      } else if (input.kind === 'settlement') settlement.receipts(input, seq, ts);
      else if (input.kind === 'engine') {
        const place = input.command.type === 'place' ? input.command : null;
        for (const event of events) {
          mirror.apply(seq, event);
          if (event.type === 'fillReversed') settlement.reversed(event);
          else if (event.type === 'payout') settlement.payout(seq, event);
          else if (event.type === 'marketResolved') settlement.resolvedMarket(event.marketHash);
          projectEvent(event, rows, place, input.meta);
        }
      }
      changes.push(rows.endEntry());
    }
    return { changes, rows, mirror, settlement };
  }

  private resolutions(entries: readonly AppliedEntry[]) {
    return entries.flatMap(({ ts, events }) =>
      events.flatMap((e) =>
        e.type === 'marketResolved' ? [{ marketHash: e.marketHash, outcome: e.outcome, at: ts }] : [],
      ),
    );
  }

  /** Keeps an open order's written row, the oldest one leaving when full; forgets a closed order's. */
  private rememberOrder(row: ProjectedOrder): void {
    this.openOrders.delete(row.id);
    if (row.status !== 'ACTIVE' && row.status !== 'PENDING') return;
    if (this.openOrders.size >= this.openOrderCacheSize) {
      const oldest = this.openOrders.keys().next();
      if (oldest.done) return;
      this.openOrders.delete(oldest.value);
    }
    this.openOrders.set(row.id, row);
  }

  private knowRefunds(marketHash: string, has: boolean): void {
    if (this.refundedMarkets.size >= REFUND_MARKETS_KNOWN) this.refundedMarkets.clear();
    this.refundedMarkets.set(marketHash, has);
  }
}

function projectEvent(
  event: EngineEvent,
  rows: BatchProjection,
  place: PlaceOrderInput | null,
  meta: OrderMeta | undefined,
): void {
  switch (event.type) {
    case 'orderAccepted':
      rows.accepted(place!, meta!);
      break;
    case 'orderRejected':
      // A replayed order id must never overwrite the original order's row.
      if (event.code !== RejectCode.DUPLICATE_ORDER_ID && place && meta) {
        rows.rejected(place, meta, reasonOfReject(event.code));
      }
      break;
    case 'orderRested':
      rows.rested(event.orderId, event.remainingSize, event.filledSize);
      break;
    case 'orderMatched':
      rows.matched(event);
      break;
    case 'ceRefund':
      rows.refunded(event);
      break;
    case 'orderDone':
      rows.done(event.orderId, event.reason, event.remainingSize, event.filledSize);
      break;
    default:
      break;
  }
}
