import { createHash } from 'node:crypto';

/**
 * The trading records as the exchange shows them (REST rows, realtime payloads) and how their ids are
 * made: the domain's, whatever store keeps them.
 */

export type OrderRecord = {
  id: string;
  account: `0x${string}`;
  marketHash: string;
  eventId: string;
  isBettingOutcomeOne: boolean;
  percentageOdds: string;
  totalBetSize: string;
  remainingSize: string;
  filledSize: string;
  expiry: number;
  timeInForce: string;
  status: 'PENDING' | 'ACTIVE' | 'INACTIVE';
  inactiveReason: string | null;
  clientOrderId: string | null;
  createdAt: number;
  updatedAt: number;
};

export type FillRecord = {
  id: string;
  matchId: string;
  orderId: string;
  tradeId: string;
  account: string;
  marketHash: string;
  isBettingOutcomeOne: boolean;
  isMaker: boolean;
  fillAmount: string;
  pot: string;
  fillOdds: string;
  status: string;
  /** The journal seq of its match: orders fills of one instant. */
  seq: number;
  /** Capital efficiency: what this fill gave back at once to its owner ('0': nothing). */
  ceRefundAmount: string;
  /**
   * A quarter-line leg's fill (`marketHash` is the leg market): the quarter-line market the order was
   * placed on. Null for an ordinary fill.
   */
  quarterLineParentMarketHash: string | null;
  createdAt: number;
};

export type TradeRecord = {
  id: string;
  orderId: string;
  account: string;
  marketHash: string;
  eventId: string;
  isBettingOutcomeOne: boolean;
  isMaker: boolean;
  stake: string;
  pot: string;
  status: string;
  outcome: number | null;
  payout: string | null;
  /** Whether any bettor of the market has had a capital-efficiency refund. */
  marketHasRefunds: boolean;
  /**
   * A quarter-line leg's trade (`marketHash` is the leg market; one per order and leg): the quarter-line
   * market the order was placed on. Null for an ordinary trade.
   */
  quarterLineParentMarketHash: string | null;
  createdAt: number;
  updatedAt: number;
};

/** A capital-efficiency refund to `account`, caused by its fill `fillId` (journal seq `seq`). */
export type RefundRecord = {
  seq: number;
  account: string;
  marketHash: string;
  fillId: string;
  isMaker: boolean;
  amount: string;
  /** What the account's position in the market has had back so far, this refund included. */
  refundedTotal: string;
  createdAt: number;
};

/** An account's open position in a market (until the market is resolved): decimal strings, base units. */
export type PositionRecord = {
  account: string;
  marketHash: string;
  eventId: string;
  stakeOne: string;
  stakeTwo: string;
  potOne: string;
  potTwo: string;
  /** What capital efficiency has given back of it so far. */
  refunded: string;
};

/** An account's refunds in one market: `totalRefunded` is the latest refund's running total. */
export type MarketRefunds = { marketHash: string; totalRefunded: string; events: RefundRecord[] };

const recentTradeIds = new Map<string, string>();

/** Trade ids are derived from the order id: one trade per bet (an order's fills together). */
export function tradeIdOf(orderId: string): string {
  let id = recentTradeIds.get(orderId);
  if (id === undefined) {
    id = `0x${createHash('sha256').update(`trade:${orderId}`).digest('hex')}`;
    // The projection, the outcome and realtime ask for the same few orders' trades in turn.
    if (recentTradeIds.size >= 4096) recentTradeIds.clear();
    recentTradeIds.set(orderId, id);
  }
  return id;
}

/**
 * Fill ids name the match and the side: one fill per order per match, or on a quarter-line market one per
 * order per match and leg (0: the whole line, 1: the half line).
 */
export const fillIdOf = (matchId: string, side: 'maker' | 'taker', leg?: 0 | 1) =>
  `${matchId}-${side === 'maker' ? 'M' : 'T'}${leg === undefined ? '' : `${leg}`}`;

/** A quarter-line order's trade on one of its legs (0: the whole line, 1: the half line). */
export const legTradeIdOf = (orderId: string, leg: 0 | 1) => tradeIdOf(`${orderId}:leg${leg}`);
