import type { AppliedEntry } from './inputs.js';

/**
 * What the sequencer hands on for each durable batch: the journaled inputs in seq order, each with the
 * engine's events. Immutable; its consumers are wired, in order, in `trading/pipeline.ts`.
 */
export type CommittedBatch = {
  readonly firstSeq: number;
  readonly lastSeq: number;
  /** The batch's time (every entry of a batch has it). */
  readonly ts: number;
  readonly entries: readonly AppliedEntry[];
};

export function committedBatch(entries: readonly AppliedEntry[]): CommittedBatch {
  const first = entries[0]!;
  return { firstSeq: first.seq, lastSeq: entries[entries.length - 1]!.seq, ts: first.ts, entries };
}
