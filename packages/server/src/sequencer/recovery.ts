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

export type JournalComparison = {
  /** The engine rebuilt from the projections. */
  engine: Engine;
  projectionsHash: string;
  journalHash: string;
  /** Journal seq the replay started after (0: the whole journal). */
  fromSeq: number;
  replayedCommands: number;
};

/**
 * Rebuilds the engine from the projections (the open orders, balances and positions) and, separately,
 * from the journal: after the latest checkpoint when `fromCheckpoint`, else from nothing.
 */
export function compareWithJournal(
  store: SqliteTradingStore,
  ladderSize: number,
  options: { fromCheckpoint: boolean },
): JournalComparison {
  const engine = Engine.restore(store.engineSnapshotFromProjections(ladderSize));
  const checkpoint = options.fromCheckpoint ? store.latestCheckpoint() : null;
  const replayed = checkpoint ? Engine.restore(checkpoint.snapshot) : new Engine({ ladderSize });
  if (checkpoint && replayed.stateHash() !== checkpoint.stateHash) {
    throw new RecoveryError(`checkpoint at seq ${checkpoint.seq} does not match its recorded state hash`);
  }
  const fromSeq = checkpoint?.seq ?? 0;
  const replayedCommands = replayJournal(replayed, store, fromSeq);
  return {
    engine,
    projectionsHash: engine.stateHash(),
    journalHash: replayed.stateHash(),
    fromSeq,
    replayedCommands,
  };
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
 * Start-up: the engine rebuilt from the projections (fast), proven against the latest checkpoint plus the
 * journal after it. A mismatch stops the start with an explanation instead of trading on a state nobody
 * can vouch for.
 */
export function recoverEngine(store: SqliteTradingStore, ladderSize: number): RecoveryReport {
  const c = compareWithJournal(store, ladderSize, { fromCheckpoint: true });
  if (c.journalHash !== c.projectionsHash) {
    throw new RecoveryError(
      `the projections (state ${c.projectionsHash}) disagree with the journal replayed from seq ${c.fromSeq} ` +
        `(state ${c.journalHash}); run "oddsbook replay" to inspect, and restore the data dir from a backup`,
    );
  }
  return {
    engine: c.engine,
    stateHash: c.projectionsHash,
    orders: c.engine.restingOrderCount,
    verifiedFromSeq: c.fromSeq,
    replayedCommands: c.replayedCommands,
  };
}
