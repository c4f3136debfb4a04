import { Engine, type EngineRuleOptions, type EngineSnapshot } from '../engine/index.js';
import { Admission } from './admission.js';
import { applyEntry } from './apply-entry.js';
import { restoreCheckpoint } from './checkpoint.js';
import type { AppliedEntry } from './inputs.js';
import type { Journal } from './journal.js';
import { decodeInput } from './journal-codec.js';
import { digestOf, stateHashOf } from './state-hash.js';

/**
 * How the exchange runs its engine for a journal: with capital efficiency (issue 25) and honest liquidity
 * (issue 34), each from the seq the journal recorded for it. Every engine the exchange builds (start,
 * replay) uses it.
 */
export const exchangeEngineOptions = (journal: Pick<Journal, 'featuresSince'>): EngineRuleOptions => {
  const since = journal.featuresSince();
  return {
    capitalEfficiency: true,
    capitalEfficiencyFromSeq: since.capitalEfficiency,
    honestLiquidity: true,
    honestLiquidityFromSeq: since.honestLiquidity,
  };
};

export class RecoveryError extends Error {
  override name = 'RecoveryError';
}

/**
 * Applies the journal after `fromSeq` to `engine` (engine inputs only: admits and withdraws are not engine
 * state); `onEntry` sees every entry, with the events it made. Returns the number of engine commands.
 */
export function replayJournal(
  engine: Engine,
  journal: Pick<Journal, 'after'>,
  fromSeq: number,
  onEntry?: (entry: AppliedEntry) => void,
  admission: Admission = new Admission(),
): number {
  let applied = 0;
  const state = { engine, admission };
  for (const row of journal.after(fromSeq)) {
    const input = decodeInput(row.payload);
    const entry = applyEntry(state, input, row.seq, row.ts);
    if (input.kind === 'engine') applied += 1;
    onEntry?.(entry);
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
 * Rebuilds the engine twice, from the journal through `throughSeq` (the projector's cursor) and from the
 * projections (the open orders, balances and positions), and hashes both: what `oddsbook replay` compares.
 */
export function compareWithJournal(
  journal: Pick<Journal, 'after' | 'featuresSince'>,
  projections: { engineSnapshotFromProjections(ladderSize: number, engineLastSeq: number): EngineSnapshot },
  throughSeq: number,
  ladderSize: number,
): JournalComparison {
  const options = exchangeEngineOptions(journal);
  const replayed = new Engine({ ...options, ladderSize });
  const upTo = { after: (seq: number) => takeWhile(journal.after(seq), (row) => row.seq <= throughSeq) };
  const replayedCommands = replayJournal(replayed, upTo, 0);
  const engine = Engine.restore(
    projections.engineSnapshotFromProjections(
      ladderSize,
      replayedCommands === 0 ? -1 : replayed.lastAppliedSeq,
    ),
    options,
  );
  return {
    engine,
    projectionsHash: stateHashOf(engine),
    journalHash: stateHashOf(replayed),
    replayedCommands,
  };
}

function* takeWhile<T>(rows: Iterable<T>, keep: (row: T) => boolean): IterableIterator<T> {
  for (const row of rows) {
    if (!keep(row)) return;
    yield row;
  }
}

export type RecoveryReport = {
  admission: Admission;
  engine: Engine;
  orders: number;
  /** Journal seq of the checkpoint the engine was restored from (0: none, the whole journal replayed). */
  checkpointSeq: number;
  replayedCommands: number;
};

export type RecoveryOptions = {
  /**
   * The entries after this seq are handed to `onEntry` with their events (the consumers of committed
   * batches catching up: the projector, the chain link). A checkpoint after it is not used: its events
   * would be missing, so the engine is rebuilt from the whole journal instead.
   */
  after?: number;
  onEntry?: (entry: AppliedEntry) => void;
};

/**
 * Start-up: the engine restored from the newest checkpoint, once its bytes match the digest recorded with
 * them, then the journal after it replayed. A checkpoint that fails its digest stops the start with an
 * explanation instead of trading on a state nobody can vouch for.
 */
export function recoverEngine(
  journal: Pick<Journal, 'after' | 'latestCheckpoint' | 'featuresSince'>,
  ladderSize: number,
  options: RecoveryOptions = {},
): RecoveryReport {
  const after = options.after ?? Number.POSITIVE_INFINITY;
  const latest = journal.latestCheckpoint();
  const checkpoint = latest && latest.seq <= after ? latest : null;
  if (checkpoint && digestOf(checkpoint.snapshot) !== checkpoint.digest) {
    throw new RecoveryError(
      `the checkpoint at seq ${checkpoint.seq} does not match its recorded digest; delete it ` +
        `(DELETE FROM engine_checkpoints WHERE seq = ${checkpoint.seq}) to start from the journal alone`,
    );
  }
  const engineOptions = exchangeEngineOptions(journal);
  // A checkpoint of the engine alone (from before issue 35) lacks the admission state: the whole journal then.
  const restored = checkpoint ? restoreCheckpoint(checkpoint.snapshot, engineOptions) : null;
  const engine = restored?.engine ?? new Engine({ ...engineOptions, ladderSize });
  const admission = restored?.admission ?? new Admission();
  const fromSeq = restored ? checkpoint!.seq : 0;
  const onEntry = options.onEntry;
  const replayedCommands = replayJournal(
    engine,
    journal,
    fromSeq,
    onEntry ? (entry) => entry.seq > after && onEntry(entry) : undefined,
    admission,
  );
  return {
    engine,
    admission,
    orders: engine.restingOrderCount,
    checkpointSeq: fromSeq,
    replayedCommands,
  };
}
