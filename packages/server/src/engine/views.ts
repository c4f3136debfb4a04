import type { MarketOutcome } from './commands.js';
import type { MarketStatus } from './market-book.js';
import type { ParlaySnapshot } from './parlays.js';

/** A resting order as the engine sees it. */
export interface OrderView {
  readonly orderId: string;
  readonly account: string;
  readonly marketHash: string;
  readonly eventId: string;
  readonly isBettingOutcomeOne: boolean;
  readonly tick: number;
  readonly percentageOdds: bigint;
  readonly totalBetSize: bigint;
  readonly filledSize: bigint;
  readonly remainingSize: bigint;
  /** Unix seconds. */
  readonly expiry: number;
  /** Seq of the place command; orders at one level are in this order. */
  readonly placedSeq: number;
}

/** One aggregated price level in the maker frame. */
export interface LevelView {
  readonly tick: number;
  readonly percentageOdds: bigint;
  /** Total remaining maker stake. */
  readonly size: bigint;
  readonly orders: number;
}

/** Both sides of a market, best (highest maker odds) first. */
export interface BookLevels {
  readonly marketHash: string;
  readonly eventId: string;
  readonly outcomeOne: readonly LevelView[];
  readonly outcomeTwo: readonly LevelView[];
  readonly version: number;
}

export interface AccountBalance {
  readonly available: bigint;
  readonly escrowed: bigint;
}

export interface MarketView {
  readonly marketHash: string;
  readonly eventId: string;
  readonly status: MarketStatus;
  readonly version: number;
  readonly restingOrders: number;
  /** A parlay market's rules and its legs' results so far; its outcome once resolved. */
  readonly parlay?: ParlaySnapshot & { readonly outcome: MarketOutcome | null };
}

/**
 * An account's matched stakes in an unresolved market and what it is paid for each outcome (before
 * capital efficiency: the resolution credits that minus `refunded`).
 */
export interface PositionView {
  readonly stakeOnOutcomeOne: bigint;
  readonly stakeOnOutcomeTwo: bigint;
  readonly payoutIfOutcomeOne: bigint;
  readonly payoutIfOutcomeTwo: bigint;
  /**
   * What capital efficiency has refunded so far: the guaranteed receipt (the least of the two payouts and
   * the stakes) when the position last filled. The position's escrow is its stakes minus this.
   */
  readonly refunded: bigint;
}
