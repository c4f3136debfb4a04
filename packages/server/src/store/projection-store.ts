import type { EngineSnapshot } from '../engine/index.js';
import type { FillRecord, RefundRecord } from '../records/records.js';
import type { EscrowFills } from '../sequencer/inputs.js';
import type { DirtyOrder, DirtyTrade, ProjectedOrder, SequencedTrade } from './batch-projection.js';
import type { MarketChange, PositionRow } from './state-mirror.js';

/** An account's position in a market, by the two together. */
export type PositionKey = { marketHash: string; account: string };

/** A settlement item that did not land, kept to be submitted again (its JSON, amounts as strings). */
export type OutstandingItem = { id: string; item: string };

/**
 * What a batch's projection reads of the committed projections, found from its entries before it is
 * computed (projector.ts): each row at most once, in one read.
 */
export type ProjectionReads = {
  orders: readonly string[];
  trades: readonly string[];
  positions: readonly PositionKey[];
  /** Markets whose refunds matter: has any bettor had one? */
  refundMarkets: readonly string[];
  /** Settlement receipts: every outstanding item, and per transaction window its accounts and payouts. */
  outstanding: boolean;
  windows: readonly { firstSeq: number; lastSeq: number }[];
  /** Reversed fills: each match's fills and their trades. */
  matches: readonly { seq: number; matchId: string }[];
  /** Receipts of escrows (journals from before settlement transactions): their fills and trades. */
  escrows: readonly EscrowFills[];
};

/** The rows an escrow covers, with what decides whether it may still lock or fail them. */
export type EscrowCoverage = {
  fills: FillRecord[];
  trades: SequencedTrade[];
  /** The account's chain watermark (null: none yet). */
  lockThroughSeq: number | null;
  /** The markets of those fills that are resolved. */
  resolvedMarkets: readonly string[];
};

/** What `ProjectionReads` found: absent rows are simply not there. */
export type CommittedState = {
  orders: Map<string, ProjectedOrder>;
  trades: Map<string, SequencedTrade>;
  /** By `marketHash|account` (`positionKey`). */
  positions: Map<string, PositionRow>;
  /** The markets of `refundMarkets` that have had a refund. */
  refundedMarkets: Set<string>;
  outstanding: OutstandingItem[];
  /** Per window (same order): the accounts with a fill there, and the payouts recorded there still unpaid. */
  windows: { accounts: string[]; unpaid: PositionKey[] }[];
  /** Per match (same order). */
  matches: { fills: FillRecord[]; trades: SequencedTrade[] }[];
  /** Per escrow (same order). */
  escrows: EscrowCoverage[];
};

/** Everything one batch changes, written at once with the new cursor. */
export type ProjectionWrites = {
  /** The batch's last seq. */
  cursor: number;
  /** The batch's last entry time: when balances changed. */
  at: number;
  orders: readonly DirtyOrder[];
  trades: readonly DirtyTrade[];
  fills: readonly FillRecord[];
  refunds: readonly RefundRecord[];
  /** Committed fills turned FAILED (a reversed or failed settlement). */
  failedFills: readonly { seq: number; id: string; at: number }[];
  balances: ReadonlyMap<string, { available: bigint; escrowed: bigint }>;
  owed: ReadonlyMap<string, bigint>;
  /** Null: the position ended. */
  positions: readonly (PositionKey & { row: PositionRow | null })[];
  markets: ReadonlyMap<string, MarketChange>;
  resolutions: readonly { marketHash: string; outcome: 0 | 1 | 2; at: number }[];
  /** Payouts the chain is to pay (recorded once), and those it paid (once). */
  payouts: readonly (PositionKey & { seq: number })[];
  paid: readonly (PositionKey & { at: number })[];
  /** Chain watermarks: an account's moves only forward. */
  locks: readonly { account: string; throughSeq: number; at: number }[];
  /** Items not landed to keep (once), and those that landed since, in order. */
  outstanding: readonly ({ add: OutstandingItem } | { remove: string })[];
  /** The last block whose receipts the batch applied (only forward); null: none. */
  block: number | null;
};

/**
 * Where the trading projections are kept: the rows a batch reads, read at once before it is computed,
 * and what it changed, written at once (atomically, with the cursor). The rules of what a batch changes
 * are the projector's (projector.ts); a store only keeps rows.
 */
export interface ProjectionStore {
  /** The last seq projected. */
  cursor(): Promise<number>;
  read(reads: ProjectionReads): Promise<CommittedState>;
  write(writes: ProjectionWrites): Promise<void>;
  /** The engine state the projections mirror (`oddsbook replay` compares it with the journal's). */
  engineSnapshot(ladderSize: number, engineLastSeq: number): Promise<EngineSnapshot>;
}

export const positionKey = (marketHash: string, account: string) => `${marketHash}|${account}`;
