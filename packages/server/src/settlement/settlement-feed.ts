import type { SettlementItem } from '../chain/settlement-types.js';
import type { EngineMoney } from './reconcile.js';

/**
 * What the settlement driver reads back at a start, as the projections recorded it from the journaled
 * receipts (`settlement` inputs): the items that did not land and must be submitted again, and the last
 * block whose receipts are journaled (the driver reads the receipts of the blocks after it from the chain).
 */
export interface SettlementFeed {
  /**
   * Items that failed (never a fill: those are reversed) or were skipped, oldest first, as the projections keep
   * them: with payouts kept until the net item they went in lands (`via`), which are not submitted themselves
   * (`toSubmitAgain`).
   */
  outstanding(): Promise<SettlementItem[]>;
  /** The last block whose settlement receipts the projections applied (0: none). */
  projectedBlock(): Promise<number>;
  /** Every account's money as the projections mirror the engine's (to follow it from). */
  balances(): Promise<Map<string, EngineMoney>>;
}

/**
 * The outstanding items to submit again: not the payouts kept until the net item of a run of reversals that
 * took them in lands (`via`: settlement-items.ts, `SettlementItemStream`).
 */
export function toSubmitAgain(items: readonly SettlementItem[]): SettlementItem[] {
  return items.filter((item) => (item as { via?: string }).via === undefined);
}
