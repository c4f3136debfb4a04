import type { CeRefundEvent, DoneReason, OrderMatchedEvent } from '../engine/index.js';
import {
  type FillRecord,
  fillIdOf,
  legTradeIdOf,
  type OrderRecord,
  type RefundRecord,
  type TradeRecord,
  tradeIdOf,
} from '../records/records.js';
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
 * through that seq (`records/shown.ts`), with no row update when they land.
 */
export type SequencedTrade = { row: TradeRecord; lastFillSeq: number };

/** Rows committed before this batch, as read for it (projection-store.ts). */
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
 * The trading rows of one batch, computed in memory: each order and trade row the batch touches is read
 * once (before the batch: projection-store.ts), changed entry by entry as the events say, and written once
 * at the end (projector.ts). Each entry's changes are kept as snapshots, so realtime publishes every step
 * without reading the rows back.
 */
export class BatchProjection {
  private readonly orders = new Map<string, DirtyOrder>();
  private readonly trades = new Map<string, DirtyTrade>();
  private fills: ProjectedFill[] = [];
  private refunds: RefundRecord[] = [];
  /** Fills committed before this batch that it turned FAILED. */
  private failedFills: { seq: number; id: string; at: number }[] = [];
  /** Markets known to have had a refund (committed or in this batch), and those known not to. */
  private readonly refundedMarkets = new Map<string, boolean>();
  private entryOrders = new Map<string, DirtyOrder>();
  private entryTrades = new Map<string, DirtyTrade>();
  private entryFills: FillRecord[] = [];
  private entryRefunds: RefundRecord[] = [];
  private seq = 0;
  private ts = 0;
  /** The match being projected: whether each of its orders had a fill before it. */
  private readonly filledBefore = new Map<string, boolean>();

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

  /** Every row the batch changed, to be written. */
  dirty(): {
    orders: DirtyOrder[];
    trades: DirtyTrade[];
    fills: ProjectedFill[];
    refunds: RefundRecord[];
    failedFills: { seq: number; id: string; at: number }[];
  } {
    return {
      orders: [...this.orders.values()],
      trades: [...this.trades.values()],
      fills: this.fills,
      refunds: this.refunds,
      failedFills: this.failedFills,
    };
  }

  /** The batch's own fills (not committed yet) for which `keep` is true. */
  batchFills(keep: (fill: FillRecord) => boolean): FillRecord[] {
    return this.fills.filter(keep);
  }

  /**
   * A fill turned FAILED (a reversed match, a failed escrow): the batch's own row, or a committed one
   * (`fill`, as read), which then shows in the entry's changes.
   */
  failFill(fill: FillRecord): void {
    const failed = { ...fill, status: 'FAILED' };
    // The batch's own row is replaced, not changed: an earlier entry's changes show it as it was.
    const own = this.fills.findIndex((f) => f.id === fill.id && f.seq === fill.seq);
    if (own >= 0) this.fills[own] = failed;
    else this.failedFills.push({ seq: fill.seq, id: fill.id, at: this.ts });
    this.entryFills.push(failed);
  }

  /** A fill shown in the entry's changes as it is. */
  showFill(fill: FillRecord): void {
    this.entryFills.push(fill);
  }

  /** A trade turned FAILED unless it is SETTLED or FAILED already; it shows in the entry's changes. */
  failTrade(tradeId: string): void {
    const trade = this.trade(tradeId);
    if (!trade) return;
    if (trade.row.status !== 'SETTLED' && trade.row.status !== 'FAILED') {
      trade.row.status = 'FAILED';
      trade.row.updatedAt = this.ts;
    }
    if (!this.entryTrades.has(tradeId)) this.entryTrades.set(tradeId, trade);
  }

  /** The stored status of a trade as this batch leaves it so far (null: no such trade). */
  tradeStatus(tradeId: string): string | null {
    return this.trade(tradeId)?.row.status ?? null;
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

  /**
   * Both sides of a match: the orders' fill columns, one fill each, and each side's trade. On a quarter-line
   * market (`legs`) each side has one fill per leg, on the leg market with that leg's stakes and pot, and
   * one trade per leg (`legTradeIdOf`); the order row stays on the quarter-line market.
   */
  matched(e: OrderMatchedEvent): void {
    const potValue = e.makerStake + e.takerStake;
    this.filledBefore.clear();
    this.matchOrder(e.makerOrderId, e.makerRemainingSize, potValue);
    this.matchOrder(e.takerOrderId, e.takerRemainingSize, potValue);
    const sides = [
      ['maker', e.makerOrderId, e.makerAccount, e.makerIsBettingOutcomeOne, e.makerOdds],
      ['taker', e.takerOrderId, e.takerAccount, !e.makerIsBettingOutcomeOne, e.takerOdds],
    ] as const;
    for (const [side, orderId, account, isOne, odds] of sides) {
      const stakeOf = (part: { makerStake: bigint; takerStake: bigint }) =>
        side === 'maker' ? part.makerStake : part.takerStake;
      const base = { matchId: e.matchId, side, orderId, account, isOne, odds, eventId: e.eventId };
      if (!e.legs) {
        this.matchSide({
          ...base,
          fillId: fillIdOf(e.matchId, side),
          tradeId: tradeIdOf(orderId),
          marketHash: e.marketHash,
          stake: stakeOf(e),
          pot: potValue,
          parent: null,
        });
        continue;
      }
      e.legs.forEach((leg, i) => {
        const index = i as 0 | 1;
        this.matchSide({
          ...base,
          fillId: fillIdOf(e.matchId, side, index),
          tradeId: legTradeIdOf(orderId, index),
          marketHash: leg.marketHash,
          stake: stakeOf(leg),
          pot: leg.makerStake + leg.takerStake,
          parent: e.marketHash,
        });
      });
    }
  }

  /** An order's fill columns after a match: what is left, what is filled, the pot of its fills. */
  private matchOrder(orderId: string, remaining: bigint, potValue: bigint): void {
    const order = this.order(orderId);
    if (!order) return;
    const row = order.row;
    // Whether the order had a fill before this one: its trades are then committed or in this batch.
    this.filledBefore.set(orderId, row.filledSize !== '0');
    row.remainingSize = remaining.toString();
    row.filledSize = (BigInt(row.totalBetSize) - remaining).toString();
    row.fillPot = (BigInt(row.fillPot) + potValue).toString();
    row.updatedAt = this.ts;
  }

  /** One side's fill of a match (or of one leg of it) and the trade it adds to. */
  private matchSide(m: {
    matchId: string;
    side: 'maker' | 'taker';
    orderId: string;
    account: string;
    isOne: boolean;
    odds: bigint;
    eventId: string;
    fillId: string;
    tradeId: string;
    marketHash: string;
    stake: bigint;
    pot: bigint;
    parent: string | null;
  }): void {
    const isMaker = m.side === 'maker';
    // A trade row is written with its order's first fill: an order with nothing filled yet has none.
    const hasTrade = this.filledBefore.get(m.orderId) ?? true;
    const fill: ProjectedFill = {
      id: m.fillId,
      matchId: m.matchId,
      orderId: m.orderId,
      tradeId: m.tradeId,
      account: m.account,
      marketHash: m.marketHash,
      isBettingOutcomeOne: m.isOne,
      isMaker,
      fillAmount: m.stake.toString(),
      pot: m.pot.toString(),
      fillOdds: m.odds.toString(),
      status: 'MATCHED',
      createdAt: this.ts,
      seq: this.seq,
      ceRefundAmount: '0',
      quarterLineParentMarketHash: m.parent,
    };
    this.fills.push(fill);
    this.entryFills.push(fill);

    let trade = this.trades.get(m.tradeId);
    if (!trade) {
      const committed = hasTrade ? this.committed.trade(m.tradeId) : null;
      trade = committed
        ? { row: { ...committed.row }, lastFillSeq: committed.lastFillSeq, isNew: false }
        : {
            row: {
              id: m.tradeId,
              orderId: m.orderId,
              account: m.account,
              marketHash: m.marketHash,
              eventId: m.eventId,
              isBettingOutcomeOne: m.isOne,
              isMaker,
              stake: '0',
              pot: '0',
              status: 'MATCHED',
              outcome: null,
              payout: null,
              marketHasRefunds: false,
              quarterLineParentMarketHash: m.parent,
              createdAt: this.ts,
              updatedAt: this.ts,
            },
            lastFillSeq: this.seq,
            isNew: true,
          };
      this.trades.set(m.tradeId, trade);
    }
    const t = trade.row;
    t.stake = (BigInt(t.stake) + m.stake).toString();
    t.pot = (BigInt(t.pot) + m.pot).toString();
    t.updatedAt = this.ts;
    t.marketHasRefunds = this.marketHasRefunds(m.marketHash);
    trade.lastFillSeq = this.seq;
    if (!this.entryTrades.has(m.tradeId)) this.entryTrades.set(m.tradeId, trade);
  }

  /**
   * A capital-efficiency refund, right after its match: on the fill of the refunded side (already made
   * by this entry), as a refund row, and the market's trades touched by the entry show it has refunds.
   */
  refunded(e: CeRefundEvent): void {
    // On a quarter-line market the refund is of one leg (its market): the side's fill of that leg.
    const fill = this.entryFills.findLast(
      (f) => f.matchId === e.matchId && f.isMaker === e.maker && f.marketHash === e.marketHash,
    );
    const fillId = fill?.id ?? fillIdOf(e.matchId, e.maker ? 'maker' : 'taker');
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

  /** The batch's working row of a trade (a copy of the committed one), not marked touched. */
  private trade(tradeId: string): DirtyTrade | null {
    let trade = this.trades.get(tradeId);
    if (!trade) {
      const committed = this.committed.trade(tradeId);
      if (!committed) return null;
      trade = { row: { ...committed.row }, lastFillSeq: committed.lastFillSeq, isNew: false };
      this.trades.set(tradeId, trade);
    }
    return trade;
  }

  /** The batch's working row of an order (a copy of the committed one), marked touched by the entry. */
  private order(orderId: string): DirtyOrder | null {
    let order = this.orders.get(orderId);
    if (!order) {
      const row = this.committed.order(orderId);
      if (!row) return null;
      order = { row: { ...row }, meta: null };
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
