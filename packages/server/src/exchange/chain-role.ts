import { openEmbeddedChain } from '../chain/open-embedded-chain.js';
import { shareCatalogChanges } from '../cluster/catalog-changes.js';
import { clusterNames } from '../cluster/cluster-names.js';
import { LeaderServices } from '../cluster/leader-services.js';
import { projectionsReached } from '../cluster/projections-reached.js';
import type { Config } from '../config/config.js';
import { systemClock } from '../lib/clock.js';
import type { CommittedBatch } from '../sequencer/committed-batch.js';
import { committedBatch } from '../sequencer/committed-batch.js';
import type { AppliedEntry, SequencerInput } from '../sequencer/inputs.js';
import { Reconciliation } from '../settlement/reconciliation.js';
import { ReceiptsJournaled, SettlementDriver } from '../settlement/settlement-driver.js';
import { LeaseFenced } from '../store/postgres/lease-fence.js';
import { PostgresChainStore } from '../store/postgres/postgres-chain-store.js';
import { PostgresJournal } from '../store/postgres/postgres-journal.js';
import { PostgresMultisigStore } from '../store/postgres/postgres-multisig-store.js';
import { PostgresSettlementFeed } from '../store/postgres/postgres-settlement-feed.js';
import type { ChainSubmitter } from '../trading/pipeline.js';
import { ProjectedAtOnce, resolveOnceSettled } from '../trading/trading.js';
import { Wallets } from '../wallets/wallets.js';
import { newestCheckpointSeq, projectorCursor } from './exchange-storage.js';
import { type LeasedRoleNode, type LeasedRoleOptions, startLeasedRole } from './leased-role.js';
import { openReplicaNode } from './replica-node.js';

export type ChainRoleOptions = LeasedRoleOptions & {
  /** How long a resolution waits for its market's fills to settle (default 15 s; tests). */
  settleWaitMs?: number;
};

/**
 * `oddsbook serve --role chain` (ADR 0018): the embedded chain on PostgreSQL (it mines), the settlement
 * driver, reconciliation and the leader's services (`<cluster>.leader.rpc`: the chain, multisig,
 * resolutions, reconciliation, the backlog), run by one node at a time under the chain lease. Leading, it
 * follows the journal with a replica (`replica-node.ts`) whose committed batches feed the driver from the
 * chain's outbox cursor (`settlementSubmittedThrough`); the receipts go to the leading sequencer as inputs
 * over NATS. Settlement items are applied on the chain once by their id, so a successor resubmitting what
 * its predecessor had under way moves nothing twice.
 *
 * Fenced by the lease's epoch: every write of the chain and multisig stores begins with the fence
 * (lease-fence.ts), and the receipts go to the sequencer as `fenced` intents under the epoch, which it
 * refuses once a newer epoch is journaled. Leading, the node first journals its epoch (a fenced intent of
 * no inputs) and starts from projections that include it: whatever its predecessor journaled is in them,
 * and whatever it sends later is refused. A node deposed by either fence stops at once.
 */
export function startChainRole(config: Config, o: ChainRoleOptions): Promise<LeasedRoleNode> {
  const names = clusterNames(config.cluster);
  const clock = systemClock;
  return startLeasedRole(config, 'chain', o, async ({ nc, database, epoch, deposed }) => {
    const log = o.log;
    const journal = await PostgresJournal.open(database.pool);
    const fence = { role: 'chain', epoch, onFenced: deposed };
    const embedded = await openEmbeddedChain({
      store: await PostgresChainStore.open(database, { fence }),
      multisigStore: new PostgresMultisigStore(database.pool, { fence }),
      chainId: config.chainId,
      baseToken: config.baseToken,
      escrowAddress: config.verifyingContract,
      blockTimeMs: config.blockTimeMs,
      clock,
    });
    const wallets = new Wallets(embedded.chain);
    // The chain's word, journaled by the leading sequencer under this lease's epoch (over NATS, as any
    // input of a replica); refused once a successor's epoch is journaled.
    const submitFenced = async (
      inputs: readonly SequencerInput[],
      blocks?: { after: number; through: number },
    ): Promise<AppliedEntry[]> => {
      const lease = { role: 'chain' as const, epoch };
      const [result] = await Promise.all(
        replica.trading.sequencer.decideAll([
          { kind: 'fenced', lease, inputs, ...(blocks ? { blocks } : {}) },
        ]),
      );
      if (result!.fenced) {
        const error = new LeaseFenced('chain', epoch, {
          cause: new Error(`the journal holds the chain lease's epoch ${result!.fenced.epoch}`),
        });
        deposed(error);
        throw error;
      }
      if (result!.journaled) throw new ReceiptsJournaled(result!.journaled.through);
      return result!.entries;
    };
    const driver = new SettlementDriver({
      chain: embedded.chain,
      feed: new PostgresSettlementFeed(database.pool),
      walletOf: (account) => wallets.proxyAddress(account as `0x${string}`),
      since: journal.features.chainSettlement,
      submit: submitFenced,
      onError: (error) => log.error({ err: error }, 'a settlement transaction or receipt was not handed on'),
    });
    // The replica's batches wait here until the driver has started (it reads the projections then).
    const gate = new HeldUntilOpen(driver);
    let replica: Awaited<ReturnType<typeof openReplicaNode>>;
    try {
      replica = await openReplicaNode(config, {
        database,
        nc,
        names,
        chain: embedded.chain,
        projections: () => new ProjectedAtOnce(),
        recovery: {
          after: driver.outboxSeq(),
          onEntries: (entries) => driver.submitForBatch(committedBatch(entries)),
        },
        resolveMarket: (trading) =>
          resolveOnceSettled({
            sequencer: trading.sequencer,
            submit: async (input) => (await submitFenced([input])).at(-1)!,
            chain: driver,
            catalog: replica.catalog,
            settleWaitMs: o.settleWaitMs,
          }),
        log,
        onFatal: deposed,
      });
    } catch (error) {
      await embedded.stop();
      throw error;
    }
    const sequencer = replica.trading.sequencer;
    replica.trading.pipeline.setChain(gate);
    let stopSettlement = () => {};
    let stopCheckpointWatch = () => {};
    let stopReconciliation = () => {};
    let services: LeaderServices | null = null;
    let stopCatalog = () => {};
    const stopAll = async (now: boolean) => {
      await services?.stop();
      stopCheckpointWatch();
      stopCatalog();
      stopReconciliation();
      if (!now) {
        // As a single process stops: what the chain settles within a few blocks is journaled now.
        await replica.trading.idle();
        await driver.idle(4 * config.blockTimeMs + 1_000);
      }
      stopSettlement();
      // No block is mined after this: a successor's chain starts from what is stored.
      await embedded.stop();
      await replica.close();
    };
    try {
      // This lease's epoch journaled first: what a former chain node sends from now on is refused, and what
      // it sent before is in the journal up to here.
      const leaseEntry = (await submitFenced([])).at(-1);
      // The driver starts from what the projections recorded of the journaled receipts (the items to submit
      // again, the last block handed on, every account's money): at least where it takes up the journal,
      // and past the epoch's entry.
      const from = Math.max(replica.follower.recovery.lastSeq, driver.outboxSeq(), leaseEntry?.seq ?? 0);
      await projectionsReached({
        readCursor: () => projectorCursor(database),
        seq: from,
        onWaiting: (projectedSeq) =>
          log.info({ projectedSeq, seq: from }, 'the chain waits for the projector to reach the journal'),
      });
      stopSettlement = await driver.start({ journalEnded: false });
      gate.open();
      stopCheckpointWatch = watchCheckpoints({
        newest: () => newestCheckpointSeq(database),
        driver,
        everyMs: Math.min(config.checkpointIntervalMs, CHECKPOINT_WATCH_MS),
        onError: (error) => log.error({ err: error }, 'the newest checkpoint was not read'),
      });
      stopCatalog = await shareCatalogChanges({
        nc,
        subject: names.catalog,
        catalog: replica.catalog,
        onError: (error) => log.error({ err: error }, 'a catalog change from another node was not read'),
      });
      await replica.trading.reconcileResolutions();
      const reconciliation = new Reconciliation({
        reconcile: () => driver.reconcile(),
        intervalMs: config.reconcileIntervalMs,
        waitMs: 10 * config.blockTimeMs + 5_000,
        now: () => clock.now(),
        log,
      });
      await reconciliation.run();
      stopReconciliation = reconciliation.start();
      services = new LeaderServices({
        nc,
        subject: names.leader,
        chain: embedded.chain,
        multisig: embedded.multisig,
        resolveMarket: (marketHash, outcome) => replica.trading.resolveMarket(marketHash, outcome),
        reconciliation,
        settlement: driver,
      });
      await services.start();
    } catch (error) {
      await stopAll(true);
      throw error;
    }
    return {
      lastSeq: () => sequencer.lastSeq,
      stop: ({ deposed: now }) => stopAll(now),
    };
  });
}

/** How often, at most, the chain node reads which checkpoint the leader stored last. */
const CHECKPOINT_WATCH_MS = 30_000;

/**
 * The leader's checkpoints told to the driver (`submittedThrough`), as the single process's checkpointer tells
 * its own: the chain's cursor, which moves only with a transaction, then reaches each one even while no money
 * moves, so that a start of this role finds one at or before its cursor (the journal keeps two) instead of
 * replaying the whole journal.
 */
function watchCheckpoints(o: {
  newest: () => Promise<number>;
  driver: Pick<SettlementDriver, 'submittedThrough'>;
  everyMs: number;
  onError: (error: unknown) => void;
}): () => void {
  let told = 0;
  let stopped = false;
  let reading = false;
  const read = () => {
    if (reading) return;
    reading = true;
    o.newest()
      .then((seq) => {
        if (stopped || seq <= told) return;
        told = seq;
        o.driver.submittedThrough(seq);
      }, o.onError)
      .finally(() => {
        reading = false;
      });
  };
  read();
  const timer = setInterval(read, o.everyMs);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}

/** Batches handed on to the driver once it is open; those before, held in order until then. */
class HeldUntilOpen implements ChainSubmitter {
  #held: CommittedBatch[] | null = [];
  constructor(private readonly driver: ChainSubmitter) {}
  submitForBatch(batch: CommittedBatch): void {
    if (this.#held) this.#held.push(batch);
    else this.driver.submitForBatch(batch);
  }
  open(): void {
    const held = this.#held ?? [];
    this.#held = null;
    for (const batch of held) this.driver.submitForBatch(batch);
  }
}
