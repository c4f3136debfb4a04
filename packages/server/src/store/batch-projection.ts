import type { CeRefundEvent, DoneReason, OrderMatchedEvent } from '../engine/index.js';
import {
  type FillRecord,
  fillIdOf,
  type OrderRecord,
  type RefundRecord,
  type TradeRecord,
  tradeIdOf,
} from '../orders/records.js';
import type { OrderMeta, PlaceOrderInput } from '../sequencer/inputs.js';

/** An order row with the columns the projection maintains besides the REST fields. */
export type ProjectedOrder = OrderRecord & {
  fillPot: string;
  placedSeq: number | null;
  activateAt: number | null;
  commandId: string;
};

export type ProjectedFill = FillRecord;

/** What one journal entry changed: every row it touched, as it stood right after the entry. */
export type EntryChanges = {
  orders: ProjectedOrder[];
  fills: FillRecord[];
  trades: TradeRecord[];
  refunds: RefundRecord[];
};

/**
 * A trade row and the seq of its last fill: the trade shows LOCKED once its account's escrows have landed
 * through that seq (the `trades_shown` view), with no row update when they land.
 */
export type SequencedTrade = { row: TradeRecord; lastFillSeq: number };

/** Rows committed before this batch (the projection reads each at most once per batch). */
export interface CommittedRows {
  order(orderId: string): ProjectedOrder | null;
  trade(tradeId: string): SequencedTrade | null;
  /** Whether a capital-efficiency refund of the market was committed before this batch. */
  marketHasRefunds(marketHash: string): boolean;
}

/** A row the batch touched: `meta` is set for an order first written by this batch (an insert). */
export type DirtyOrder = { row: ProjectedOrder; meta: OrderMeta | null };
export type DirtyTrade = SequencedTrade & { isNew: boolean };

type OrderStatus = { status: OrderRecord['status']; inactiveReason: string | null };

/**
 * The trading projections of one batch, computed in memory: each order and trade row the batch touches
 * is read once, changed entry by entry as the events say, and written once at the end (see
 * SqliteTradingStore). Each entry's changes are kept as snapshots, so realtime publishes every step
 * without reading the rows back.
 */
export class BatchProjection {
  private readonly orders = new Map<string, DirtyOrder>();
  private readonly trades = new Map<string, DirtyTrade>();
  private fills: ProjectedFill[] = [];
  private refunds: RefundRecord[] = [];
  /** Markets known to have had a refund (committed or in this batch), and those known not to. */
  private readonly refundedMarkets = new Map<string, boolean>();
  private entryOrders = new Map<string, DirtyOrder>();
  private entryTrades = new Map<string, DirtyTrade>();
  private entryFills: FillRecord[] = [];
  private entryRefunds: RefundRecord[] = [];
  private seq = 0;
  private ts = 0;

  constructor(private readonly committed: CommittedRows) {}

  beginEntry(seq: number, ts: number): void {
    this.seq = seq;
    this.ts = ts;
  }

  endEntry(): EntryChanges {
    const changes: EntryChanges = {
      orders: [...this.entryOrders.values()].map((d) => ({ ...d.row })),
      fills: this.entryFills,
      trades: [...this.entryTrades.values()].map((d) => ({ ...d.row })),
      refunds: this.entryRefunds,
    };
    this.entryOrders = new Map();
    this.entryTrades = new Map();
    this.entryFills = [];
    this.entryRefunds = [];
    return changes;
  }

  /** Hands over every dirty row (to be written) and forgets them: later reads go to the database. */
  takeDirty(): {
    orders: DirtyOrder[];
    trades: DirtyTrade[];
    fills: ProjectedFill[];
    refunds: RefundRecord[];
  } {
    const dirty = {
      orders: [...this.orders.values()],
      trades: [...this.trades.values()],
      fills: this.fills,
      refunds: this.refunds,
    };
    this.orders.clear();
    this.trades.clear();
    this.fills = [];
    this.refunds = [];
    return dirty;
  }

  /** An order accepted now that enters the engine after its betting delay. */
  admit(order: PlaceOrderInput, meta: OrderMeta, activateAt: number): void {
    this.upsertOrder(order, meta, { status: 'PENDING', inactiveReason: null }, null, activateAt);
  }

  /** Admitted orders cancelled before they reached the engine: only those still PENDING change. */
  withdraw(orderIds: readonly string[], reason: string): void {
    for (const orderId of orderIds) {
      const order = this.order(orderId);
      if (!order) continue;
      if (order.row.status === 'PENDING') {
        this.setStatus(order.row, { status: 'INACTIVE', inactiveReason: reason });
        order.row.activateAt = null;
      }
    }
  }

  accepted(order: PlaceOrderInput, meta: OrderMeta): void {
    this.upsertOrder(order, meta, { status: 'PENDING', inactiveReason: null }, this.seq, null);
  }

  rejected(order: PlaceOrderInput, meta: OrderMeta, reason: DoneReason): void {
    this.upsertOrder(order, meta, { status: 'INACTIVE', inactiveReason: reason }, null, null);
  }

  rested(orderId: string, remainingSize: bigint, filledSize: bigint): void {
    const order = this.order(orderId);
    if (!order) return;
    this.setStatus(order.row, { status: 'ACTIVE', inactiveReason: order.row.inactiveReason });
    order.row.remainingSize = remainingSize.toString();
    order.row.filledSize = filledSize.toString();
  }

  done(orderId: string, reason: DoneReason, remainingSize: bigint, filledSize: bigint): void {
    const order = this.order(orderId);
    if (!order) return;
    this.setStatus(order.row, { status: 'INACTIVE', inactiveReason: reason });
    order.row.remainingSize = remainingSize.toString();
    order.row.filledSize = filledSize.toString();
    order.row.activateAt = null;
  }

  /** Both sides of a match: the orders' fill columns, one fill each, and each side's trade. */
  matched(e: OrderMatchedEvent): void {
    const potValue = e.makerStake + e.takerStake;
    const pot = potValue.toString();
    this.matchSide(e, 'maker', e.makerOrderId, e.makerAccount, e.makerIsBettingOutcomeOne, pot, potValue);
    this.matchSide(e, 'taker', e.takerOrderId, e.takerAccount, !e.makerIsBettingOutcomeOne, pot, potValue);
  }

  private matchSide(
    e: OrderMatchedEvent,
    side: 'maker' | 'taker',
    orderId: string,
    account: string,
    isOne: boolean,
    pot: string,
    potValue: bigint,
  ): void {
    const isMaker = side === 'maker';
    const stakeValue = isMaker ? e.makerStake : e.takerStake;
    const stake = stakeValue.toString();
    const order = this.order(orderId);
    // A trade row is written with its order's first fill: an order with nothing filled yet has none.
    const hasTrade = order === null || order.row.filledSize !== '0';
    if (order) {
      const remaining = isMaker ? e.makerRemainingSize : e.takerRemainingSize;
      const row = order.row;
      row.remainingSize = remaining.toString();
      row.filledSize = (BigInt(row.totalBetSize) - remaining).toString();
      row.fillPot = (BigInt(row.fillPot) + potValue).toString();
      row.updatedAt = this.ts;
    }
    const tradeId = tradeIdOf(orderId);
    const fill: ProjectedFill = {
      id: fillIdOf(e.matchId, side),
      matchId: e.matchId,
      orderId,
      tradeId,
      account,
      marketHash: e.marketHash,
      isBettingOutcomeOne: isOne,
      isMaker,
      fillAmount: stake,
      pot,
      fillOdds: (isMaker ? e.makerOdds : e.takerOdds).toString(),
      status: 'MATCHED',
      createdAt: this.ts,
      seq: this.seq,
      ceRefundAmount: '0',
      quarterLineParentMarketHash: null,
    };
    this.fills.push(fill);
    this.entryFills.push(fill);

    let trade = this.trades.get(tradeId);
    if (!trade) {
      const committed = hasTrade ? this.committed.trade(tradeId) : null;
      trade = committed
        ? { ...committed, isNew: false }
        : {
            row: {
              id: tradeId,
              orderId,
              account,
              marketHash: e.marketHash,
              eventId: e.eventId,
              isBettingOutcomeOne: isOne,
              isMaker,
              stake: '0',
              pot: '0',
              status: 'MATCHED',
              outcome: null,
              payout: null,
              marketHasRefunds: false,
              quarterLineParentMarketHash: null,
              createdAt: this.ts,
              updatedAt: this.ts,
            },
            lastFillSeq: this.seq,
            isNew: true,
          };
      this.trades.set(tradeId, trade);
    }
    const t = trade.row;
    t.stake = (BigInt(t.stake) + stakeValue).toString();
    t.pot = (BigInt(t.pot) + potValue).toString();
    t.updatedAt = this.ts;
    t.marketHasRefunds = this.marketHasRefunds(e.marketHash);
    trade.lastFillSeq = this.seq;
    if (!this.entryTrades.has(tradeId)) this.entryTrades.set(tradeId, trade);
  }

  /**
   * A capital-efficiency refund, right after its match: on the fill of the refunded side (already made
   * by this entry), as a refund row, and the market's trades touched by the entry show it has refunds.
   */
  refunded(e: CeRefundEvent): void {
    const fillId = fillIdOf(e.matchId, e.maker ? 'maker' : 'taker');
    const fill = this.entryFills.findLast((f) => f.id === fillId);
    if (fill) fill.ceRefundAmount = (BigInt(fill.ceRefundAmount) + e.amount).toString();
    const refund: RefundRecord = {
      seq: this.seq,
      account: e.account,
      marketHash: e.marketHash,
      fillId,
      isMaker: e.maker,
      amount: e.amount.toString(),
      refundedTotal: e.refundedTotal.toString(),
      createdAt: this.ts,
    };
    this.refunds.push(refund);
    this.entryRefunds.push(refund);
    this.refundedMarkets.set(e.marketHash, true);
    for (const trade of this.entryTrades.values()) {
      if (trade.row.marketHash === e.marketHash) trade.row.marketHasRefunds = true;
    }
  }

  private marketHasRefunds(marketHash: string): boolean {
    let has = this.refundedMarkets.get(marketHash);
    if (has === undefined) {
      has = this.committed.marketHasRefunds(marketHash);
      this.refundedMarkets.set(marketHash, has);
    }
    return has;
  }

  /** The batch's working row of an order (read once from the committed rows), marked touched by the entry. */
  private order(orderId: string): DirtyOrder | null {
    let order = this.orders.get(orderId);
    if (!order) {
      const row = this.committed.order(orderId);
      if (!row) return null;
      order = { row, meta: null };
      this.orders.set(orderId, order);
    }
    if (!this.entryOrders.has(orderId)) this.entryOrders.set(orderId, order);
    return order;
  }

  private setStatus(row: ProjectedOrder, to: OrderStatus): void {
    row.status = to.status;
    row.inactiveReason = to.inactiveReason;
    row.updatedAt = this.ts;
  }

  /** A new order row, or (an order admitted earlier entering the engine) its status columns rewritten. */
  private upsertOrder(
    order: PlaceOrderInput,
    meta: OrderMeta,
    status: OrderStatus,
    placedSeq: number | null,
    activateAt: number | null,
  ): void {
    const existing = this.order(order.orderId);
    if (existing) {
      this.setStatus(existing.row, status);
      existing.row.placedSeq = placedSeq;
      existing.row.activateAt = activateAt;
      return;
    }
    const created: DirtyOrder = {
      row: {
        id: order.orderId,
        account: order.account as `0x${string}`,
        marketHash: order.marketHash,
        eventId: meta.eventId,
        isBettingOutcomeOne: order.isBettingOutcomeOne,
        percentageOdds: order.percentageOdds.toString(),
        totalBetSize: order.totalBetSize.toString(),
        remainingSize: order.totalBetSize.toString(),
        filledSize: '0',
        expiry: order.expiry,
        timeInForce: order.timeInForce,
        status: status.status,
        inactiveReason: status.inactiveReason,
        clientOrderId: meta.clientOrderId,
        createdAt: this.ts,
        updatedAt: this.ts,
        fillPot: '0',
        placedSeq,
        activateAt,
        commandId: meta.commandId,
      },
      meta,
    };
    this.orders.set(order.orderId, created);
    this.entryOrders.set(order.orderId, created);
  }
}
