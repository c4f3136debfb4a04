import type { Address } from './chain-types.js';

/**
 * One movement of base-token units in a settlement item. `escrow` takes from a wallet into the escrow pool,
 * `release` pays from the pool to a wallet, `mint` creates units in a wallet (a deposit from the faucet).
 */
export type SettlementMove =
  | { readonly kind: 'escrow'; readonly from: Address; readonly amount: bigint }
  | { readonly kind: 'release'; readonly to: Address; readonly amount: bigint }
  | { readonly kind: 'mint'; readonly to: Address; readonly amount: bigint };

/**
 * What an item settles, which is also the class a fault injection targets:
 * - `fill`: the two parties' net movements of one fill (each its stake less its capital-efficiency refund at
 *   that fill: an escrow when positive, a release when negative). A failed fill is reversed by the engine.
 * - `payout`: a resolved market's payout to one account (a release).
 * - `deposit`: a credit from the faucet (a mint).
 * - `adjustment`: what a fill's reversal moves for one party besides the fill itself (a refund given back,
 *   an escrow or a release).
 * Payouts, deposits and adjustments are never reversed: a failed one is submitted again until it lands.
 */
export type SettlementItemKind = 'fill' | 'payout' | 'deposit' | 'adjustment';

/**
 * An item: its moves are applied in order, all of them or none (the item fails when one cannot be paid, and
 * then nothing of it moves). `id` is unique for ever: the chain applies an id once, and reports a second
 * item with an id that already landed as `duplicate` without moving anything (a resubmission after a crash,
 * or a retry whose earlier attempt landed after all).
 */
export type SettlementItem = {
  readonly id: string;
  readonly kind: SettlementItemKind;
  readonly moves: readonly SettlementMove[];
  /**
   * A `fill` item's fill as the engine made it (calldata: the chain stores it with the transaction and does
   * not read it). When the item fails, the engine reverses the fill from it.
   */
  readonly fill?: SettledFill;
};

/** What a fill did to positions and balances: its `orderMatched` event and the `ceRefund`s of its match. */
export type SettledFill = {
  readonly matchId: string;
  readonly seq: number;
  readonly marketHash: string;
  readonly makerAccount: string;
  readonly takerAccount: string;
  readonly makerIsBettingOutcomeOne: boolean;
  /** Base-token units, as decimal strings (the item is stored as JSON). */
  readonly makerStake: string;
  readonly takerStake: string;
  /** A quarter-line fill's legs (whole line, half line): the positions are on them. */
  readonly legs?: readonly {
    readonly marketHash: string;
    readonly makerStake: string;
    readonly takerStake: string;
  }[];
  /** The capital-efficiency refunds of this match, per account and position market. */
  readonly refunds: readonly {
    readonly account: string;
    readonly marketHash: string;
    readonly amount: string;
  }[];
};

/**
 * One settlement transaction: the items of the journal entries with seq in [firstSeq, lastSeq] (in journal
 * order), and retries of earlier items that failed (`retries`, applied first). The chain keeps the highest
 * `lastSeq` submitted in the same write as the transaction (`Settlements.submittedThrough`), so a driver
 * that restarts knows where to go on from, whether the transaction is pending or mined.
 */
export type SettlementBatch = {
  readonly firstSeq: number;
  readonly lastSeq: number;
  readonly retries: readonly SettlementItem[];
  readonly items: readonly SettlementItem[];
};

/**
 * A transaction that only moves the settlement cursor (a checkpoint's, over entries without money moves): its
 * receipt settles nothing, so it is never journaled.
 */
export function movesNothing(batch: SettlementBatch): boolean {
  return batch.retries.length === 0 && batch.items.length === 0;
}

/**
 * `failed`: the item moved nothing. A failed `fill` is final (the engine reverses the fill); any other failed
 * item stops the transaction there: every item after it is `skipped` (nothing moves), so that none of them
 * runs ahead of money it may depend on. The driver submits the failed item again, then the skipped ones.
 */
export type SettlementItemStatus = 'success' | 'failed' | 'duplicate' | 'skipped';

/** An item's result, in the receipt of its settlement transaction. */
export type SettlementItemResult = {
  readonly id: string;
  readonly kind: SettlementItemKind;
  readonly status: SettlementItemStatus;
  /** Why it failed: INSUFFICIENT_BALANCE (a wallet), INSUFFICIENT_ESCROW (the pool), or INJECTED_FAULT. */
  readonly error: string | null;
};

/** Faults the embedded chain can inject, for tests and operators' drills (`POST /admin/faults`). */
export const SETTLEMENT_FAULT_CLASSES = ['escrow', 'release', 'payout', 'deposit'] as const;
export type SettlementFaultClass = (typeof SETTLEMENT_FAULT_CLASSES)[number];
