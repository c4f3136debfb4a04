import { Engine, type EngineRuleOptions, type EngineSnapshot } from '../engine/index.js';
import { Admission } from './admission.js';
import { applyEntry } from './apply-entry.js';
import { restoreCheckpoint } from './checkpoint.js';
import type { AppliedEntry } from './inputs.js';
import type { Journal, JournalRow } from './journal.js';
import { decodeInput } from './journal-codec.js';
import { digestOf, stateHashOf } from './state-hash.js';

/**
 * How the exchange runs its engine for a journal: with capital efficiency (issue 25) and honest liquidity
 * (issue 34), each from the seq the journal recorded for it. Every engine the exchange builds (start,
 * replay) uses it.
 */
export const exchangeEngineOptions = (journal: Pick<Journal, 'features'>): EngineRuleOptions => {
  const since = journal.features;
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
 * Applies the journal after `fromSeq` to `engine` and `admission`, a page at a time; `onEntries` sees
 * every page's entries, with the events they made, and the next page waits for it. Returns the number of
 * engine commands.
 */
export async function replayJournal(
  engine: Engine,
  journal: Pick<Journal, 'after'>,
  fromSeq: number,
  onEntries?: (entries: AppliedEntry[]) => void | Promise<void>,
  admission: Admission = new Admission(),
): Promise<number> {
  let applied = 0;
  const state = { engine, admission };
  for await (const rows of journal.after(fromSeq)) {
    const entries = rows.map((row) => {
      const input = decodeInput(row.payload);
      if (input.kind === 'engine') applied += 1;
      return applyEntry(state, input, row.seq, row.ts);
    });
    await onEntries?.(entries);
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
export async function compareWithJournal(
  journal: Pick<Journal, 'after' | 'features'>,
  projections: { engineSnapshot(ladderSize: number, engineLastSeq: number): Promise<EngineSnapshot> },
  throughSeq: number,
  ladderSize: number,
): Promise<JournalComparison> {
  const options = exchangeEngineOptions(journal);
  const replayed = new Engine({ ...options, ladderSize });
  const upTo = { after: (seq: number) => pagesThrough(journal.after(seq), throughSeq) };
  const replayedCommands = await replayJournal(replayed, upTo, 0);
  const engine = Engine.restore(
    await projections.engineSnapshot(ladderSize, replayedCommands === 0 ? -1 : replayed.lastAppliedSeq),
    options,
  );
  return {
    engine,
    projectionsHash: stateHashOf(engine),
    journalHash: stateHashOf(replayed),
    replayedCommands,
  };
}

async function* pagesThrough(
  pages: AsyncIterable<readonly JournalRow[]>,
  throughSeq: number,
): AsyncIterable<readonly JournalRow[]> {
  for await (const rows of pages) {
    const kept = rows.filter((row) => row.seq <= throughSeq);
    if (kept.length > 0) yield kept;
    if (kept.length < rows.length) return;
  }
}

export type RecoveryReport = {
  admission: Admission;
  engine: Engine;
  orders: number;
  /** Journal seq of the checkpoint the engine was restored from (0: none, the whole journal replayed). */
  checkpointSeq: number;
  replayedCommands: number;
  /** Seq of the last journal entry the state includes (the checkpoint's when nothing came after it). */
  lastSeq: number;
  /** Wall time of reading the checkpoint, checking its digest and restoring it, ms. */
  checkpointMs: number;
  /** Wall time of replaying the journal after it (and handing the entries on), ms. */
  replayMs: number;
};

export type RecoveryOptions = {
  /**
   * The entries after this seq are handed to `onEntries` with their events, a page at a time (the
   * consumers of committed batches catching up: the projector, the settlement driver). A checkpoint after
   * it is not used (its events would be missing): the newest at or before it is, else the whole journal.
   */
  after?: number;
  onEntries?: (entries: AppliedEntry[]) => void | Promise<void>;
};

/**
 * Start-up: the engine restored from the newest checkpoint, once its bytes match the digest recorded with
 * them, then the journal after it replayed. A checkpoint that fails its digest stops the start with an
 * explanation instead of trading on a state nobody can vouch for.
 */
export async function recoverEngine(
  journal: Pick<Journal, 'after' | 'latestCheckpoint' | 'features'>,
  ladderSize: number,
  options: RecoveryOptions = {},
): Promise<RecoveryReport> {
  const after = options.after ?? Number.POSITIVE_INFINITY;
  const started = performance.now();
  const latest = await journal.latestCheckpoint(Number.isFinite(after) ? after : undefined);
  // A journal may give the newest whatever `after` says (one that keeps a single checkpoint).
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
  const onEntries = options.onEntries;
  let lastSeq = fromSeq;
  const restoredAt = performance.now();
  const replayedCommands = await replayJournal(
    engine,
    journal,
    fromSeq,
    (entries) => {
      lastSeq = entries.at(-1)?.seq ?? lastSeq;
      const caughtUp = onEntries ? entries.filter((entry) => entry.seq > after) : [];
      return caughtUp.length > 0 ? onEntries!(caughtUp) : undefined;
    },
    admission,
  );
  return {
    engine,
    admission,
    orders: engine.restingOrderCount,
    checkpointSeq: fromSeq,
    replayedCommands,
    lastSeq,
    checkpointMs: restoredAt - started,
    replayMs: performance.now() - restoredAt,
  };
}
