import type { ProjectionWriter } from './projection.js';
import type { TradingReads } from './trading-reads.js';

/**
 * Where trading's projections are written and read: what the trading core needs of its storage besides
 * the journal (store/sqlite/sqlite-trading-storage.ts).
 */
export interface TradingStorage {
  readonly reads: TradingReads;
  /** The projector a start catches up with the journal through, before anything is served. */
  readonly catchUp: ProjectionWriter;
  /**
   * The projector of the committed batches, from the catch-up's cursor on: opened at the first call (once
   * the catch-up is done); the storage may run it elsewhere (SQLite: on a thread of its own).
   */
  projector(): ProjectionWriter;
  /** Waits for the batches handed to the projector, then stops it (the storage stays open). */
  close(): Promise<void>;
}
