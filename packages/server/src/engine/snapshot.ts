import type { MarketStatus } from './market-book.js';
import type { ParlaySnapshot } from './parlays.js';

/**
 * The whole engine state in a canonical, JSON-safe form (amounts as decimal strings). Two engines with
 * equal state give equal snapshots, whatever their internal handles: orders are listed by placement
 * seq, accounts and positions by name, markets in opening order.
 */
export interface EngineSnapshot {
  /** 2 since capital efficiency (positions carry what was refunded); 1 is read with nothing refunded. */
  readonly format: 1 | 2;
  readonly ladderSize: number;
  readonly lastSeq: number;
  readonly netDeposits: string;
  /**
   * [account, available, escrowed, owed?], accounts with a non-zero balance; `owed` only when it is not 0
   * (what a reversed fill left the account owing, issue 33).
   */
  readonly accounts: readonly (readonly [string, string, string, string?])[];
  readonly markets: readonly MarketSnapshot[];
  readonly orders: readonly OrderSnapshot[];
}

export interface MarketSnapshot {
  readonly marketHash: string;
  readonly eventId: string;
  readonly status: MarketStatus;
  readonly version: number;
  /**
   * [account, stakeOne, stakeTwo, potOne, potTwo, refunded]: `refunded` is what capital efficiency gave back
   * of the position so far (format 2; absent in format 1, read as 0).
   */
  readonly positions: readonly (readonly [string, string, string, string, string, string?])[];
  /** A quarter-line market's leg markets (whole line, half line), when it is one. */
  readonly legs?: readonly [string, string];
  /** A parlay market's rules and its legs' results so far, when it is one. */
  readonly parlay?: ParlaySnapshot;
}

/** [orderId, account, marketHash, isBettingOutcomeOne, tick, totalBetSize, remainingSize, expiry, placedSeq]. */
export type OrderSnapshot = readonly [
  string,
  string,
  string,
  boolean,
  number,
  string,
  string,
  number,
  number,
];
