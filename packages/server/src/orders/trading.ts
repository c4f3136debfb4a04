import type { CatalogService } from '../catalog/catalog-service.js';
import { FIXTURE_STATUS } from '../catalog/fixture-status.js';
import { isMarketActive } from '../catalog/market-trading.js';
import { type BookLevels, type Engine, MarketStatus } from '../engine/index.js';
import { unavailable } from '../errors/app-error.js';
import type { Clock } from '../lib/clock.js';
import { committedBatch } from '../sequencer/committed-batch.js';
import type { AppliedEntry } from '../sequencer/inputs.js';
import { RecoveryError, type RecoveryReport, recoverEngine } from '../sequencer/recovery.js';
import { Sequencer } from '../sequencer/sequencer.js';
import { digestOf } from '../sequencer/state-hash.js';
import type { VerifierPool } from '../signing/verifier-pool.js';
import type { Journal } from '../store/journal.js';
import type { ProjectionWriter } from '../store/projection.js';
import type { CatalogRepository } from '../store/repositories.js';
import type { TradingReads } from '../store/trading-reads.js';
import type { TradingStorage } from '../store/trading-storage.js';
import { type ChainSubmitter, TradingPipeline } from '../trading/pipeline.js';
import { Heartbeats } from './heartbeats.js';
import { type MarketToOpen, OrderService, type ProxyWallets } from './order-service.js';

/** How often the expiry sweep looks for expired resting orders (an `expire` runs only when one is due). */
export const EXPIRY_SWEEP_MS = 250;
/** A checkpoint (engine snapshot + hash) at most this often while trading, and at every clean stop. */
export const CHECKPOINT_INTERVAL_MS = 5 * 60_000;

/** Fixture statuses after which a market never trades again: its engine market closes. */
const FINAL_FIXTURE_STATUSES: readonly number[] = [
  FIXTURE_STATUS.finished,
  FIXTURE_STATUS.cancelled,
  FIXTURE_STATUS.postponed,
];
/** Statuses that suspend trading: resting orders are cancelled, the market may trade again later. */
const SUSPENDED_FIXTURE_STATUSES: readonly number[] = [
  FIXTURE_STATUS.interrupted,
  FIXTURE_STATUS.abandoned,
  FIXTURE_STATUS.coverageLost,
];

export type Trading = {
  readonly sequencer: Sequencer;
  readonly engine: Engine;
  /** Where each committed batch goes: projector, publisher, chain link. */
  readonly pipeline: TradingPipeline;
  readonly queries: TradingReads;
  readonly orders: OrderService;
  readonly heartbeats: Heartbeats;
  readonly recovery: RecoveryReport;
  /** Every market's book now (for a publisher starting to follow them: call it while idle). */
  books(): BookLevels[];
  /** Resolves once every input queued so far is committed, projected and published. */
  idle(): Promise<void>;
  /**
   * Opens a catalog market in the engine when the engine does not have it yet: a quarter-line market after
   * its legs. False when it could not be opened (a leg no longer trades): its orders are refused.
   */
  ensureMarketOpen(market: MarketToOpen): Promise<boolean>;
  /** Credits an account (the faucet): an engine input, so matching sees the funds in order. */
  deposit(account: `0x${string}`, amount: bigint): Promise<void>;
  /**
   * A market's result: one journaled input that cancels its open orders, pays every position and records
   * the result (the projections' settlement); the catalog follows it (and is brought back to it at a start).
   */
  resolveMarket(marketHash: string, outcome: 0 | 1 | 2): Promise<void>;
  /** The catalog's results brought in line with the journal's (after a crash between the two), quarter lines included. */
  reconcileResolutions(): Promise<void>;
  checkpoint(): void;
  close(): Promise<void>;
};

export type TradingOptions = {
  /** The projections: written from the committed batches, read by the order path and the routes. */
  storage: TradingStorage;
  catalog: CatalogService;
  catalogRepository: CatalogRepository;
  wallets: ProxyWallets;
  verifier: VerifierPool;
  clock: Clock;
  baseToken: `0x${string}`;
  ladderSize: number;
  maxQueue?: number;
  /** Orders from their signature check to their commit at most (503 past it); default unbounded. */
  maxPendingOrders?: number;
  /**
   * The settlement driver (`settlement/`): its cursor, to hand it again the batches after it that a stop cut
   * off; it follows every committed batch; a resolution waits until it has settled the market's fills.
   */
  chain: ChainSubmitter & {
    outboxSeq(): number;
    submittedThrough(seq: number): void;
    whenSettled(seq: number): Promise<void>;
  };
  /** The journal (its own database file: store/sqlite/open-journal.ts). */
  journal: Journal;
  onFatal: (error: unknown) => void;
  log: { info(o: object, msg: string): void; error(o: object, msg: string): void };
  /** How long a resolution waits for its market's fills to settle (default SETTLE_WAIT_MS). */
  settleWaitMs?: number;
};

/**
 * Trading, assembled: recovery, the sequencer, the order service, heartbeats, the expiry sweep,
 * checkpoints, and the link from the catalog's market lifecycle to the engine.
 */
export function openTrading(o: TradingOptions): Trading {
  const journal = o.journal;
  const queries = o.storage.reads;
  const recovery = recoverTrading(journal, o.storage.catchUp, o.chain, o.ladderSize);
  const projector = o.storage.projector();
  const last = journal.last();
  const sequencer = new Sequencer({
    engine: recovery.engine,
    journal,
    clock: o.clock,
    lastSeq: last.seq,
    lastTs: last.ts,
    onFatal: o.onFatal,
    ...(o.maxQueue ? { maxQueue: o.maxQueue } : {}),
  });
  const pipeline = new TradingPipeline({ sequencer, projector, onFatal: o.onFatal });
  pipeline.setChain(o.chain);
  const engine = sequencer.engine;
  const opening = new Map<string, Promise<boolean>>();
  /** One openMarket per market at a time; true when the engine has the market afterwards. */
  const openInEngine = (
    marketHash: string,
    eventId: string,
    legs?: readonly [string, string],
  ): Promise<boolean> => {
    if (engine.market(marketHash)) return Promise.resolve(true);
    let pending = opening.get(marketHash);
    if (!pending) {
      pending = sequencer
        .submit({
          kind: 'engine',
          command: { type: 'openMarket', marketHash, eventId, ...(legs ? { legs } : {}) },
        })
        .then(() => engine.market(marketHash) !== undefined)
        .finally(() => opening.delete(marketHash));
      opening.set(marketHash, pending);
    }
    return pending;
  };
  const ensureMarketOpen = async (market: MarketToOpen): Promise<boolean> => {
    if (engine.market(market.marketHash)) return true;
    const legs = market.quarterLineLegs;
    if (legs === null) return openInEngine(market.marketHash, market.eventId);
    // A leg resolved before any order reached it was never in the engine: opening it now would trade it again.
    const legViews = await o.catalog.findMarkets(legs);
    if (legViews.length !== 2 || !legViews.every(isMarketActive)) return false;
    for (const leg of legs) if (!(await openInEngine(leg, market.eventId))) return false;
    // The engine refuses legs that are closed or resolved (INVALID_LEGS): then the market stays unopened.
    return openInEngine(market.marketHash, market.eventId, legs);
  };
  const orders = new OrderService({
    sequencer,
    catalog: o.catalog,
    wallets: o.wallets,
    lookups: queries,
    verifier: o.verifier,
    clock: o.clock,
    baseToken: o.baseToken,
    ...(o.maxPendingOrders ? { maxPendingOrders: o.maxPendingOrders } : {}),
    ladderSize: o.ladderSize,
    openMarket: ensureMarketOpen,
    lookupsCaughtUp: () => pipeline.caughtUp(),
  });
  const heartbeats = new Heartbeats(
    o.clock,
    queries.heartbeatDeadlines(),
    (input) => sequencer.submit(input),
    (account) => orders.cancelAll(account, 'HEARTBEAT_TIMEOUT'),
  );

  const closeEventMarkets = async (eventId: string, final: boolean) => {
    for (const market of await o.catalogRepository.listMarketsOfEvent(eventId)) {
      const status = engine.market(market.marketHash)?.status;
      // Quarter-line markets close with their legs: one the loop has closed already is left alone.
      if (status === undefined || (final && status !== MarketStatus.OPEN)) continue;
      await sequencer.submit(
        final
          ? { kind: 'engine', command: { type: 'closeMarket', marketHash: market.marketHash } }
          : {
              kind: 'engine',
              command: { type: 'cancelMarket', marketHash: market.marketHash, reason: 'EVENT_LIFECYCLE' },
            },
      );
    }
  };
  const unsubscribe = o.catalog.onChange((event) => {
    if (event.type === 'fixture') {
      const status = event.fixture.status;
      const final = FINAL_FIXTURE_STATUSES.includes(status);
      if (final || SUSPENDED_FIXTURE_STATUSES.includes(status)) {
        closeEventMarkets(event.fixture.eventId, final).catch((error) =>
          o.log.error({ err: error, eventId: event.fixture.eventId }, 'closing markets of a fixture failed'),
        );
      }
    } else if (
      event.type === 'market' &&
      event.market.status !== 'ACTIVE' &&
      // A quarter-line market is closed by the engine itself when a leg resolves.
      engine.market(event.market.marketHash)?.status === MarketStatus.OPEN
    ) {
      sequencer
        .submit({ kind: 'engine', command: { type: 'closeMarket', marketHash: event.market.marketHash } })
        .catch((error) => o.log.error({ err: error }, 'closing a market failed'));
    }
  });

  let lastCheckpointSeq = journal.latestCheckpoint()?.seq ?? 0;
  const checkpoint = () => {
    if (sequencer.lastSeq === lastCheckpointSeq) return;
    // Every batch through lastSeq has gone through the pipeline (the caller waited for idle): a start from
    // this checkpoint has no batch before it to project or submit again.
    o.chain.submittedThrough(sequencer.lastSeq);
    const snapshot = engine.snapshotBytes();
    journal.saveCheckpoint(sequencer.lastSeq, digestOf(snapshot), snapshot, o.clock.now());
    lastCheckpointSeq = sequencer.lastSeq;
  };

  const expirySweep = setInterval(() => {
    if (!engine.hasDueExpiries(o.clock.now())) return;
    sequencer.submit({ kind: 'engine', command: { type: 'expire' } }).catch(() => {});
  }, EXPIRY_SWEEP_MS);
  expirySweep.unref();
  const checkpointTimer = setInterval(() => {
    // Between batches the engine equals the committed state, so the snapshot matches its seq.
    if (sequencer.isIdle && pipeline.isIdle) checkpoint();
  }, CHECKPOINT_INTERVAL_MS);
  checkpointTimer.unref();

  const resumed = orders.resumeDelayedOrders();
  heartbeats.start();
  o.log.info(
    {
      lastSeq: last.seq,
      restingOrders: recovery.orders,
      delayedOrders: resumed,
      checkpointSeq: recovery.checkpointSeq,
      replayedCommands: recovery.replayedCommands,
    },
    'trading state restored from the checkpoint and the journal after it',
  );

  return {
    sequencer,
    engine,
    pipeline,
    queries,
    books: () => [...engine.marketHashes()].map((marketHash) => engine.levels(marketHash)!),
    idle: () => pipeline.idle(),
    orders,
    heartbeats,
    recovery,
    ensureMarketOpen,
    async deposit(account, amount) {
      await sequencer.submit({ kind: 'engine', command: { type: 'credit', account, amount } });
    },
    async resolveMarket(marketHash, outcome) {
      const market = engine.market(marketHash);
      if (market && market.status !== MarketStatus.RESOLVED) {
        // Closed first, so that no fill comes after; then resolved once the chain has settled every fill before
        // the close: a fill reversed after its market paid out could not be taken back from the payouts.
        let closedAt = sequencer.lastSeq;
        if (market.status === MarketStatus.OPEN) {
          closedAt = (
            await sequencer.submit({ kind: 'engine', command: { type: 'closeMarket', marketHash } })
          ).seq;
        }
        await settledOrUnavailable(o.chain.whenSettled(closedAt), o.settleWaitMs ?? SETTLE_WAIT_MS);
        await sequencer.submit({ kind: 'engine', command: { type: 'resolveMarket', marketHash, outcome } });
      }
      await o.catalog.resolveMarket(marketHash, outcome);
    },
    async reconcileResolutions() {
      for (const { marketHash, outcome } of queries.settlements()) {
        const market = await o.catalog.getMarket(marketHash);
        if (market && market.outcome === null) await o.catalog.resolveMarket(marketHash, outcome);
      }
      await o.catalog.followResolvedLegs();
    },
    checkpoint,
    async close() {
      clearInterval(expirySweep);
      clearInterval(checkpointTimer);
      heartbeats.stop();
      unsubscribe();
      orders.close();
      await sequencer.close();
      await pipeline.idle();
      checkpoint();
      await o.storage.close();
    },
  };
}

/** How long a resolution waits, at most, for the chain to settle its market's fills (then 503: retry). */
export const SETTLE_WAIT_MS = 15_000;

async function settledOrUnavailable(settled: Promise<void>, waitMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () =>
        reject(unavailable('the chain has not settled the market’s last fills yet: retry the resolution')),
      waitMs,
    );
  });
  try {
    await Promise.race([settled, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Entries replayed at a start are handed on in chunks of this many (projections catching up). */
const CATCH_UP_CHUNK = 1_000;

/**
 * The engine restored from the newest checkpoint and the journal after it, and the consumers of committed
 * batches caught up with the journal: the projector (entries after its cursor) and the chain link (the
 * chain requests of entries after its outbox cursor), before anything is served.
 */
function recoverTrading(
  journal: Journal,
  projector: ProjectionWriter,
  chain: TradingOptions['chain'],
  ladderSize: number,
): RecoveryReport {
  const projectedSeq = projector.cursor();
  const journalSeq = journal.last().seq;
  // Projections of inputs the journal does not have (restored from a later backup than the journal): the
  // next inputs would reuse those seqs and the projector would skip them.
  if (projectedSeq > journalSeq) {
    throw new RecoveryError(
      `the projections (oddsbook.sqlite) are at seq ${projectedSeq}, past the journal's end (${journalSeq}): ` +
        'restore journal.sqlite from a backup taken after them, or empty the projections to rebuild them',
    );
  }
  const outboxSeq = chain.outboxSeq();
  let chunk: AppliedEntry[] = [];
  const handOn = () => {
    if (chunk.length === 0) return;
    const entries = chunk;
    chunk = [];
    if (projector.project(entries) instanceof Promise)
      throw new Error('the projections could not be written at the start (the write lock is held)');
    chain.submitForBatch(committedBatch(entries));
  };
  const recovery = recoverEngine(journal, ladderSize, {
    after: Math.min(projectedSeq, outboxSeq),
    onEntry(entry) {
      chunk.push(entry);
      if (chunk.length >= CATCH_UP_CHUNK) handOn();
    },
  });
  handOn();
  return recovery;
}
