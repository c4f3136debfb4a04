import type {
  FillRecord,
  OrderRecord,
  PositionRecord,
  RefundRecord,
  TradeRecord,
} from '../records/records.js';
import { type SettlementState, shownFill, shownTrade } from '../records/shown.js';

/**
 * Rows of the trading tables as records, for every store: amounts are decimal strings, times and seqs
 * numbers; a boolean is SQLite's 1 or PostgreSQL's true.
 */
export const isTrue = (v: unknown): boolean => v === true || v === 1;

/** Column mapping of an `orders` row. */
export const toOrder = (r: Record<string, unknown>): OrderRecord => ({
  id: r.id as string,
  account: r.account as `0x${string}`,
  marketHash: r.market_hash as string,
  eventId: r.event_id as string,
  isBettingOutcomeOne: isTrue(r.is_outcome_one),
  percentageOdds: r.percentage_odds as string,
  totalBetSize: r.total_bet_size as string,
  remainingSize: r.remaining_size as string,
  filledSize: r.filled_size as string,
  expiry: r.expiry as number,
  timeInForce: r.time_in_force as string,
  status: r.status as OrderRecord['status'],
  inactiveReason: (r.inactive_reason as string | null) ?? null,
  clientOrderId: (r.client_order_id as string | null) ?? null,
  createdAt: r.created_at as number,
  updatedAt: r.updated_at as number,
});

/** Column mapping of a `fills` row. */
export const toFill = (r: Record<string, unknown>): FillRecord => ({
  id: r.id as string,
  matchId: r.match_id as string,
  orderId: r.order_id as string,
  tradeId: r.trade_id as string,
  account: r.account as string,
  marketHash: r.market_hash as string,
  isBettingOutcomeOne: isTrue(r.is_outcome_one),
  isMaker: isTrue(r.is_maker),
  fillAmount: r.fill_amount as string,
  pot: r.pot as string,
  fillOdds: r.fill_odds as string,
  status: r.status as string,
  seq: r.seq as number,
  ceRefundAmount: (r.ce_refund_amount as string | undefined) ?? '0',
  quarterLineParentMarketHash: (r.quarter_line_parent as string | null | undefined) ?? null,
  createdAt: r.created_at as number,
});

/** Column mapping of a `trades` row. */
export const toTrade = (r: Record<string, unknown>): TradeRecord => ({
  id: r.id as string,
  orderId: r.order_id as string,
  account: r.account as string,
  marketHash: r.market_hash as string,
  eventId: r.event_id as string,
  isBettingOutcomeOne: isTrue(r.is_outcome_one),
  isMaker: isTrue(r.is_maker),
  stake: r.stake as string,
  pot: r.pot as string,
  status: r.status as string,
  outcome: (r.outcome as number | null) ?? null,
  payout: (r.payout as string | null) ?? null,
  // A view's column; the projector's reads of the table set it from the refunds it knows of.
  marketHasRefunds: isTrue(r.market_has_refunds),
  quarterLineParentMarketHash: (r.quarter_line_parent as string | null | undefined) ?? null,
  createdAt: r.created_at as number,
  updatedAt: r.updated_at as number,
});

/** Column mapping of a `positions` row joined with its market's `event_id`. */
export const toPosition = (r: Record<string, unknown>): PositionRecord => ({
  account: r.account as string,
  marketHash: r.market_hash as string,
  eventId: (r.event_id as string | null) ?? '',
  stakeOne: r.stake_one as string,
  stakeTwo: r.stake_two as string,
  potOne: r.pot_one as string,
  potTwo: r.pot_two as string,
  refunded: r.refunded as string,
});

/** Column mapping of a `ce_refunds` row. */
export const toRefund = (r: Record<string, unknown>): RefundRecord => ({
  seq: r.seq as number,
  account: r.account as string,
  marketHash: r.market_hash as string,
  fillId: r.fill_id as string,
  isMaker: isTrue(r.is_maker),
  amount: r.amount as string,
  refundedTotal: r.refunded_total as string,
  createdAt: r.created_at as number,
});

const settlementOf = (r: Record<string, unknown>): SettlementState => ({
  lock: r.lock_seq === null ? null : { throughSeq: r.lock_seq as number, lockedAt: r.locked_at as number },
  resolution:
    r.resolved_outcome === null
      ? null
      : { outcome: r.resolved_outcome as 0 | 1 | 2, settledAt: r.resolved_at as number },
  payout: isTrue(r.has_payout) ? { paidAt: (r.paid_at as number | null) ?? null } : null,
});

/** A fill row read with its settlement state, as it shows. */
export const toShownFill = (r: Record<string, unknown>): FillRecord => shownFill(toFill(r), settlementOf(r));
/** A trade row read with its settlement state, as it shows. */
export const toShownTrade = (r: Record<string, unknown>): TradeRecord =>
  shownTrade(toTrade(r), r.last_fill_seq as number, settlementOf(r));
