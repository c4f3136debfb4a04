import type {
  FillRecord,
  OrderRecord,
  PositionRecord,
  RefundRecord,
  TradeRecord,
} from '../../records/records.js';
import { type SettlementState, shownFill, shownTrade } from '../../records/shown.js';

/**
 * Rows of the trading tables as records (booleans are BOOLEAN, amounts NUMERIC read as decimal strings,
 * BIGINT as numbers: postgres-database.ts).
 */
type Row = Record<string, unknown>;

export const toOrder = (r: Row): OrderRecord => ({
  id: r.id as string,
  account: r.account as `0x${string}`,
  marketHash: r.market_hash as string,
  eventId: r.event_id as string,
  isBettingOutcomeOne: r.is_outcome_one as boolean,
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

export const toFill = (r: Row): FillRecord => ({
  id: r.id as string,
  matchId: r.match_id as string,
  orderId: r.order_id as string,
  tradeId: r.trade_id as string,
  account: r.account as string,
  marketHash: r.market_hash as string,
  isBettingOutcomeOne: r.is_outcome_one as boolean,
  isMaker: r.is_maker as boolean,
  fillAmount: r.fill_amount as string,
  pot: r.pot as string,
  fillOdds: r.fill_odds as string,
  status: r.status as string,
  seq: r.seq as number,
  ceRefundAmount: r.ce_refund_amount as string,
  quarterLineParentMarketHash: (r.quarter_line_parent as string | null) ?? null,
  createdAt: r.created_at as number,
});

/** A trade row; `market_has_refunds` is read beside it where it matters (the projector knows it itself). */
export const toTrade = (r: Row): TradeRecord => ({
  id: r.id as string,
  orderId: r.order_id as string,
  account: r.account as string,
  marketHash: r.market_hash as string,
  eventId: r.event_id as string,
  isBettingOutcomeOne: r.is_outcome_one as boolean,
  isMaker: r.is_maker as boolean,
  stake: r.stake as string,
  pot: r.pot as string,
  status: r.status as string,
  outcome: (r.outcome as number | null) ?? null,
  payout: (r.payout as string | null) ?? null,
  marketHasRefunds: r.market_has_refunds === true,
  quarterLineParentMarketHash: (r.quarter_line_parent as string | null) ?? null,
  createdAt: r.created_at as number,
  updatedAt: r.updated_at as number,
});

/** A `positions` row joined with its market's `event_id`. */
export const toPosition = (r: Row): PositionRecord => ({
  account: r.account as string,
  marketHash: r.market_hash as string,
  eventId: (r.event_id as string | null) ?? '',
  stakeOne: r.stake_one as string,
  stakeTwo: r.stake_two as string,
  potOne: r.pot_one as string,
  potTwo: r.pot_two as string,
  refunded: r.refunded as string,
});

export const toRefund = (r: Row): RefundRecord => ({
  seq: r.seq as number,
  account: r.account as string,
  marketHash: r.market_hash as string,
  fillId: r.fill_id as string,
  isMaker: r.is_maker as boolean,
  amount: r.amount as string,
  refundedTotal: r.refunded_total as string,
  createdAt: r.created_at as number,
});

/**
 * Fills and trades with what decides how they show (`records/shown.ts`): their account's chain watermark,
 * their market's resolution and the account's payout in it; a trade also with whether its market has had a
 * refund. Used as a table (`AS x`): the planner pulls the conditions into the row table's indexes.
 */
const withSettlement = (table: 'fills' | 'trades', x: 'f' | 't', extra = '') =>
  `(SELECT ${x}.*, l.through_seq AS lock_seq, l.locked_at AS locked_at, s.outcome AS resolved_outcome,
      s.settled_at AS resolved_at, p.market_hash IS NOT NULL AS has_payout, p.paid_at AS paid_at${extra}
    FROM ${table} ${x} LEFT JOIN escrow_locks l ON l.account = ${x}.account
      LEFT JOIN market_settlements s ON s.market_hash = ${x}.market_hash
      LEFT JOIN settlement_payouts p ON p.market_hash = ${x}.market_hash AND p.account = ${x}.account) AS ${x}s`;
export const FILLS = withSettlement('fills', 'f');
export const TRADES = withSettlement(
  'trades',
  't',
  ', EXISTS (SELECT 1 FROM ce_refunds r WHERE r.market_hash = t.market_hash) AS market_has_refunds',
);

const settlementOf = (r: Row): SettlementState => ({
  lock: r.lock_seq === null ? null : { throughSeq: r.lock_seq as number, lockedAt: r.locked_at as number },
  resolution:
    r.resolved_outcome === null
      ? null
      : { outcome: r.resolved_outcome as 0 | 1 | 2, settledAt: r.resolved_at as number },
  payout: r.has_payout === true ? { paidAt: (r.paid_at as number | null) ?? null } : null,
});

/** A fill row read with its settlement state, as it shows. */
export const toShownFill = (r: Row): FillRecord => shownFill(toFill(r), settlementOf(r));
/** A trade row read with its settlement state, as it shows. */
export const toShownTrade = (r: Row): TradeRecord =>
  shownTrade(toTrade(r), r.last_fill_seq as number, settlementOf(r));
