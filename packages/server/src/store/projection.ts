import type { AppliedEntry } from '../sequencer/inputs.js';
import type { EntryChanges } from './batch-projection.js';

/**
 * Where committed batches become the rows reads are answered from (orders, fills, trades, balances,
 * positions, markets). The projector's cursor is the last seq projected, recorded with the rows.
 */
export interface ProjectionWriter {
  /**
   * True when batches may be handed on while earlier ones are still being written (they are applied in
   * the order given); else the next batch waits for the last one's promise.
   */
  readonly ordered?: boolean;
  cursor(): number;
  /**
   * Projects the entries after the cursor in one write and moves the cursor to the last; entries at or
   * below it are skipped (projecting again changes nothing). Returns each projected entry's changes.
   */
  project(entries: readonly AppliedEntry[]): Promise<EntryChanges[]>;
}
