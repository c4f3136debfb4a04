import { Engine } from '../engine/index.js';
import type { SqliteTradingStore } from '../store/sqlite/sqlite-trading-store.js';
import { decodeInput } from './journal-codec.js';
import { digestOf, stateHashOf } from './state-hash.js';

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

export type JournalComparison = {
  /** The engine rebuilt from the projections. */
  engine: Engine;
  projectionsHash: string;
  journalHash: string;
  replayedCommands: number;
};

/**
 * Rebuilds the engine twice, from the projections (the open orders, balances and positions) and from the
 * whole journal, and hashes both: what `oddsbook replay` compares.
 */
export function compareWithJournal(store: SqliteTradingStore, ladderSize: number): JournalComparison {
  const engine = Engine.restore(store.engineSnapshotFromProjections(ladderSize));
  const replayed = new Engine({ ladderSize });
  const replayedCommands = replayJournal(replayed, store, 0);
  return {
    engine,
    projectionsHash: stateHashOf(engine),
    journalHash: stateHashOf(replayed),
    replayedCommands,
  };
}

export type RecoveryReport = {
  engine: Engine;
  orders: number;
  /** Journal seq of the checkpoint the engine was restored from (0: none, the whole journal replayed). */
  checkpointSeq: number;
  replayedCommands: number;
};

/**
 * Start-up: the engine restored from the newest checkpoint, once its bytes match the digest recorded with
 * them, then the journal after it replayed. A checkpoint that fails its digest stops the start with an
 * explanation instead of trading on a state nobody can vouch for. (The projections are derived from the
 * journal; `oddsbook replay` checks them against it.)
 */
export function recoverEngine(store: SqliteTradingStore, ladderSize: number): RecoveryReport {
  const checkpoint = store.latestCheckpoint();
  if (checkpoint && digestOf(checkpoint.snapshot) !== checkpoint.digest) {
    throw new RecoveryError(
      `the checkpoint at seq ${checkpoint.seq} does not match its recorded digest; delete it ` +
        `(DELETE FROM engine_checkpoints WHERE seq = ${checkpoint.seq}) to start from the journal alone`,
    );
  }
  const engine = checkpoint ? Engine.restoreBytes(checkpoint.snapshot) : new Engine({ ladderSize });
  const replayedCommands = replayJournal(engine, store, checkpoint?.seq ?? 0);
  return {
    engine,
    orders: engine.restingOrderCount,
    checkpointSeq: checkpoint?.seq ?? 0,
    replayedCommands,
  };
}
