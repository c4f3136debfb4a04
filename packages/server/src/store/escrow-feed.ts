/** A projected fill the chain link has not escrowed yet. */
export type UnescrowedFill = {
  /** Its place in the feed (increasing in projection order): `escrowedThrough` takes it. */
  position: number;
  account: string;
  /** The fill's stake (its amount), in base-token units. */
  stake: bigint;
  /** The journal seq of its match. */
  seq: number;
};

/** A projected capital-efficiency refund the chain link has not released yet. */
export type UnreleasedRefund = {
  account: string;
  /** Base-token units, positive. */
  amount: bigint;
  /** The journal seq of the fill that caused it. */
  seq: number;
};

/**
 * What the chain link keeps beside the projections: the projected fills it has escrowed (a cursor on them),
 * the last seq whose chain requests (payouts, deposits) it has submitted (the outbox cursor), and the last
 * block whose escrow receipts the projections applied (written by the projector with the receipts).
 *
 * Its writes go in `atomically`, with the chain submissions they stand for: the embedded chain's mempool
 * is in the same storage, so a submission and the cursor that records it commit or roll back together.
 */
export interface EscrowFeed {
  /** The projected fills after the escrowed cursor with seq below `beforeSeq`, in feed order. */
  unescrowedFills(beforeSeq: number): UnescrowedFill[];
  /** Moves the escrowed cursor to the fill at `position` (from `unescrowedFills`). */
  escrowedThrough(position: number): void;
  /** The projected refunds after the released cursor, in seq order (every refund of an entry at once). */
  unreleasedRefunds(): UnreleasedRefund[];
  /** Moves the released cursor to `seq`: every refund through it is released. */
  releasedThrough(seq: number): void;
  /** The last seq whose chain requests are submitted. */
  outboxSeq(): number;
  /** Moves the outbox cursor forward to `seq` (never back). */
  setOutboxSeq(seq: number): void;
  /** The last block whose escrow receipts the projections applied (0: none). */
  projectedBlock(): number;
  /**
   * Runs `write` (synchronous) as one write, its submissions to the embedded chain included: all of it
   * commits, or none (it throws). The commit does not wait for the disk: what a power cut takes of it, a
   * start submits again (the cursors go back with the submissions).
   */
  atomically<T>(write: () => T): T;
  /**
   * Runs `write` (synchronous) once a write would not wait on the event loop for another connection (the
   * WAL checkpointer's restart): at once, or later (a promise of its result).
   */
  whenWritable<T>(write: () => T): T | Promise<T>;
}
