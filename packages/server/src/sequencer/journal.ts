import type { AppliedEntry } from './inputs.js';

/** A journal row: one sequenced input, encoded (see sequencer/journal-codec.ts). */
export type JournalRow = { seq: number; ts: number; payload: string };

/**
 * Rules a journal records the start of: capital efficiency (issue 25) and honest liquidity (issue 34) in the
 * engine; settlement transactions on the chain (issue 33: the entries before are settled by the escrows of
 * older versions).
 */
export const JOURNAL_FEATURES = ['capitalEfficiency', 'honestLiquidity', 'chainSettlement'] as const;
export type JournalFeature = (typeof JOURNAL_FEATURES)[number];
export type JournalFeatures = Readonly<Record<JournalFeature, number>>;

/** An engine checkpoint: the engine's bytes at journal seq `seq`, with their recorded digest. */
export type EngineCheckpoint = { seq: number; digest: string; snapshot: Uint8Array };

/**
 * The append-only journal of sequenced inputs: the only thing the sequencer writes. `append` writes a
 * batch (at once, or once the storage lets it), calls `written` once it is written (if it can tell: the
 * next batch may then be written while this one is made durable), and resolves once it is durable.
 */
export interface Journal {
  append(entries: readonly AppliedEntry[], written?: () => void): Promise<void>;
  /** Seq and time of the last journaled input (0 and 0 for an empty journal). */
  last(): Promise<{ seq: number; ts: number }>;
  /** Rows after `seq`, in order, a page at a time. */
  after(seq: number): AsyncIterable<readonly JournalRow[]>;
  /** The newest checkpoint stored, or the newest at or before `atOrBefore` (of the two kept). */
  latestCheckpoint(atOrBefore?: number): Promise<EngineCheckpoint | null>;
  /**
   * The first seq of each engine rule added after journals existed (`JOURNAL_FEATURES`), recorded with the
   * journal when it is first opened: 1 for an empty journal, the seq after the last for one begun before
   * the rule (its commands replay as they were applied). Every engine built for the journal takes them.
   */
  readonly features: JournalFeatures;
  /** Stores the engine's bytes taken at journal seq `seq` with their digest, durably. */
  saveCheckpoint(seq: number, digest: string, snapshot: Uint8Array, now: number): Promise<void>;
  close(): Promise<void>;
}
