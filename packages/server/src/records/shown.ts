import { parlayFee } from '../engine/parlay-rule.js';
import { parlayFeeBpsOf } from './parlay-event-id.js';
import type { FillRecord, TradeRecord } from './records.js';

/**
 * Where the chain and the resolution of its market have taken a MATCHED fill or trade: what a store keeps
 * beside the rows, so that a row is never rewritten when they move.
 */
export type SettlementState = {
  /** The account's fills through `throughSeq` have landed on the chain (since `lockedAt`). */
  lock: { throughSeq: number; lockedAt: number } | null;
  /** The market's resolution. */
  resolution: { outcome: 0 | 1 | 2; settledAt: number } | null;
  /**
   * The account's payout in the resolved market, when the chain pays one (settlement era, more than 0):
   * `paidAt` is null until its item lands. Null when there is none to wait for.
   */
  payout: { paidAt: number | null } | null;
};

/** When a row of the account in the market shows SETTLED (the resolution, or its payout landing), or null. */
function settledAt(state: SettlementState): number | null {
  if (state.resolution === null) return null;
  if (state.payout === null) return state.resolution.settledAt;
  return state.payout.paidAt;
}

type PaidTrade = Pick<TradeRecord, 'stake' | 'pot' | 'isBettingOutcomeOne' | 'eventId'>;

/**
 * What a trade pays once its market is resolved: its stake back on a void, its pot on a win (less a parlay's
 * fee), else nothing.
 */
export function tradePayout(trade: PaidTrade, outcome: 0 | 1 | 2): string {
  if (outcome === 0) return trade.stake;
  if (trade.isBettingOutcomeOne !== (outcome === 1)) return '0';
  return (BigInt(trade.pot) - tradeFee(trade, outcome)).toString();
}

/** The parlay fee a trade pays at its market's resolution: its rate of the trade's profit, if it won. */
export function tradeFee(trade: PaidTrade, outcome: 0 | 1 | 2): bigint {
  const bps = parlayFeeBpsOf(trade.eventId);
  if (bps === null || outcome === 0 || trade.isBettingOutcomeOne !== (outcome === 1)) return 0n;
  return parlayFee(BigInt(trade.pot) - BigInt(trade.stake), bps);
}

/**
 * A fill as it shows: a MATCHED fill is SETTLED once its market is resolved and its account's payout (if
 * any) has landed, else LOCKED once its account's fills through its seq have landed. FAILED and SETTLED
 * rows are kept as stored.
 */
export function shownFill(fill: FillRecord, state: SettlementState): FillRecord {
  if (fill.status !== 'MATCHED') return fill;
  if (settledAt(state) !== null) return { ...fill, status: 'SETTLED' };
  if (state.lock !== null && fill.seq <= state.lock.throughSeq) return { ...fill, status: 'LOCKED' };
  return fill;
}

/**
 * A trade as it shows (`lastFillSeq`: the seq of its last fill): SETTLED with the market's outcome and
 * its payout, as of the resolution or its payout's landing; else LOCKED once its last fill has landed.
 */
export function shownTrade(trade: TradeRecord, lastFillSeq: number, state: SettlementState): TradeRecord {
  if (trade.status !== 'MATCHED') return trade;
  const at = settledAt(state);
  if (at !== null) {
    const outcome = state.resolution!.outcome;
    return { ...trade, status: 'SETTLED', outcome, payout: tradePayout(trade, outcome), updatedAt: at };
  }
  if (state.lock !== null && lastFillSeq <= state.lock.throughSeq) {
    return { ...trade, status: 'LOCKED', updatedAt: state.lock.lockedAt };
  }
  return trade;
}
