import { ladderSize } from '@oddsbook/protocol';
import { EmbeddedChain } from '../chain/embedded-chain.js';
import type { Config } from '../config/config.js';
import { compareWithJournal } from '../sequencer/recovery.js';
import type { ReconcileReport } from '../settlement/reconcile.js';
import { reconcileStored } from '../settlement/stored-reconcile.js';
import { openReplayStorage } from './exchange-storage.js';

/** What `oddsbook replay` finds in a stopped exchange's store. */
export type ReplayCheck = {
  lastSeq: number;
  /** The projector's cursor: the replay runs through it. */
  projectedSeq: number;
  replayedCommands: number;
  elapsedMs: number;
  journalHash: string;
  projectionsHash: string;
  /** The engine against the chain's stored state; null when the hashes differ (it is not run then). */
  reconciliation: { report: ReconcileReport; unjournaledReceipts: number } | null;
};

export function replayCheckPassed(check: ReplayCheck): boolean {
  return check.journalHash === check.projectionsHash && check.reconciliation?.report.differences.length === 0;
}

/**
 * Rebuilds the engine from the journal alone and from the projections of the store `config` names (the data
 * dir's, or PostgreSQL's with DATABASE_URL), compares their state hashes, then reconciles the engine with the
 * embedded chain's stored state. Run it while the exchange is stopped.
 */
export async function runReplayCheck(config: Config): Promise<ReplayCheck> {
  const storage = await openReplayStorage(config);
  try {
    const { journal, projections, feed } = storage;
    const started = Date.now();
    const projectedSeq = await projections.cursor();
    const { journalHash, projectionsHash, replayedCommands } = await compareWithJournal(
      journal,
      projections,
      projectedSeq,
      ladderSize(),
    );
    const lastSeq = (await journal.last()).seq;
    const elapsedMs = Date.now() - started;
    const check = { lastSeq, projectedSeq, replayedCommands, elapsedMs, journalHash, projectionsHash };
    if (journalHash !== projectionsHash) return { ...check, reconciliation: null };
    // Its stored state, not started: nothing is mined.
    const chain = await EmbeddedChain.open({
      chainId: config.chainId,
      baseToken: config.baseToken,
      escrowAddress: config.verifyingContract,
      store: storage.chainStore,
    });
    const reconciliation = await reconcileStored({ journal, chain, feed, ladderSize: ladderSize() });
    return { ...check, reconciliation };
  } finally {
    await storage.close();
  }
}
