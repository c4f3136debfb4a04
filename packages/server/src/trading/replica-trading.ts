import type { Engine } from '../engine/index.js';
import type { Admission } from '../sequencer/admission.js';
import type { RecoveryReport } from '../sequencer/recovery.js';
import { Sequencer } from '../sequencer/sequencer.js';
import type { ProjectionWriter } from '../store/projection.js';
import type { TradingReads } from '../store/trading-reads.js';
import { assembleTrading, reconcileResolutions, type Trading, type TradingParts } from './trading.js';

export type ReplicaTradingOptions = TradingParts & {
  /** The projections, written by the leader's projector and read here. */
  reads: TradingReads;
  /**
   * This node's copy of the trading state, kept at the journal's end by a journal follower (its engine
   * answers the queries), which hands the entries it applies to `Sequencer.followed`.
   */
  follower: {
    engine: Engine;
    admission: Admission;
    lastSeq: number;
    recovery: RecoveryReport;
    catchUp(): Promise<void>;
  };
  /** The leading sequencer, over NATS (`RemoteSequencer`): where intents go. */
  forward: Pick<Sequencer, 'decideAll'>;
  /** Resolves a batch once the leader's projector has written it (`ProjectedElsewhere`). */
  projections: ProjectionWriter;
  /** A market's result, decided where the settlement driver runs (the leader). */
  resolveMarket: Trading['resolveMarket'];
};

/**
 * Trading on an API node (ADR 0018): the same order path, queries and read-your-writes as the leader's, on a
 * replica. The engine and admission state are a `JournalFollower`'s (the leader's journal applied as it
 * grows); the batches it applies are handed on as committed batches (outcomes, the pipeline); intents go
 * to the leader. Nothing here appends, projects, checkpoints, sweeps expiries or settles: the leader does.
 * A read waits for what this node answered to the account to be both in this replica and in the leader's
 * projections.
 */
export function openReplicaTrading(o: ReplicaTradingOptions): Trading {
  const { follower } = o;
  const sequencer = new Sequencer({
    engine: follower.engine,
    admission: follower.admission,
    journal: {
      append: () => {
        throw new Error('a replica sequencer never appends');
      },
    },
    clock: o.clock,
    lastSeq: follower.lastSeq,
    lastTs: 0,
    forward: o.forward,
    onFatal: o.onFatal,
  });
  const core = assembleTrading(o, sequencer, o.projections);
  return {
    ...core.shared,
    queries: o.reads,
    recovery: follower.recovery,
    catchUp: () => follower.catchUp(),
    resolveMarket: o.resolveMarket,
    reconcileResolutions: () => reconcileResolutions(o.reads, o.catalog),
    // The leader checkpoints the journal; a replica restores from those at its start.
    checkpoint: async () => {},
    async close() {
      core.stop();
      await sequencer.close();
      await core.pipeline.idle();
    },
  };
}
