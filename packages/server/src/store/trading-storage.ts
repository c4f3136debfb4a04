import type { ProjectionWriter } from './projection.js';
import type { TradingReads } from './trading-reads.js';

/**
 * Where trading's projections are written and read: what the trading core needs of its storage besides
 * the journal (store/sqlite/sqlite-trading-storage.ts).
 */
export interface TradingStorage {
  readonly reads: TradingReads;
  /**
   * Writes on the caller's thread, at once: the catch-up with the journal at a start (its `project`
   * returns a promise only when it could not write now).
   */
  readonly catchUp: ProjectionWriter;
  /**
   * The projector of the committed batches, from the catch-up's cursor on: opened at the first call (once
   * the catch-up is done), on a thread of its own where the storage allows, else the catch-up's.
   */
  projector(): ProjectionWriter;
  /** Waits for the batches handed to the projector, then lets its thread go (the storage stays open). */
  close(): Promise<void>;
}
