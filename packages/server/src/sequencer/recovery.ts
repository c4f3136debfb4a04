import { Engine } from '../engine/index.js';
import type { SqliteTradingStore } from '../store/sqlite/sqlite-trading-store.js';
import { decodeInput } from './journal-codec.js';

export class RecoveryError extends Error {
  override name = 'RecoveryError';
}

/** Applies journal rows after `fromSeq` to `engine` (engine inputs only; admits and withdraws are not engine state). */
export function replayJournal(engine: Engine, store: SqliteTradingStore, fromSeq: number): number {
  let applied = 0;
  for (const row of store.journalAfter(fromSeq)) {
    const input = decodeInput(row.payload);
    if (input.kind !== 'engine') continue;
    engine.apply({ ...input.command, seq: row.seq, ts: row.ts });
    applied += 1;
  }
  return applied;
}

export type RecoveryReport = {
  engine: Engine;
  stateHash: string;
  orders: number;
  /** Journal seq of the checkpoint the verification started from (0: the whole journal). */
  verifiedFromSeq: number;
  replayedCommands: number;
};

/**
 * Start-up: rebuilds the engine from the projections (fast: the open orders, balances and positions),
 * then proves it against the journal: the latest checkpoint plus the journal after it, replayed, must
 * give the same state hash. A mismatch stops the start with an explanation instead of trading on a
 * state nobody can vouch for.
 */
export function recoverEngine(store: SqliteTradingStore, ladderSize: number): RecoveryReport {
  const engine = Engine.restore(store.engineSnapshotFromProjections(ladderSize));
  const stateHash = engine.stateHash();
  const checkpoint = store.latestCheckpoint();
  const replayed = checkpoint ? Engine.restore(checkpoint.snapshot) : new Engine({ ladderSize });
  if (checkpoint && replayed.stateHash() !== checkpoint.stateHash) {
    throw new RecoveryError(`checkpoint at seq ${checkpoint.seq} does not match its recorded state hash`);
  }
  const replayedCommands = replayJournal(replayed, store, checkpoint?.seq ?? 0);
  const replayedHash = replayed.stateHash();
  if (replayedHash !== stateHash) {
    throw new RecoveryError(
      `the projections (state ${stateHash}) disagree with the journal replayed from seq ${checkpoint?.seq ?? 0} ` +
        `(state ${replayedHash}); run "oddsbook replay" to inspect, and restore the data dir from a backup`,
    );
  }
  return {
    engine,
    stateHash,
    orders: engine.snapshot().orders.length,
    verifiedFromSeq: checkpoint?.seq ?? 0,
    replayedCommands,
  };
}
