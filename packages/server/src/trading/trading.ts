import type { CatalogService } from '../catalog/catalog-service.js';
import { FIXTURE_STATUS } from '../catalog/fixture-status.js';
import { type Engine, MarketStatus } from '../engine/index.js';
import { unavailable } from '../errors/app-error.js';
import type { Clock } from '../lib/clock.js';
import { OrderService, type ProxyWallets } from '../orders/order-service.js';
import { OutcomeWatch } from '../orders/outcome-watch.js';
import type { Admission } from '../sequencer/admission.js';
import { committedBatch } from '../sequencer/committed-batch.js';
import { DueWork } from '../sequencer/due-work.js';
import type { AppliedEntry, SequencerInput } from '../sequencer/inputs.js';
import type { Journal } from '../sequencer/journal.js';
import { RecoveryError, type RecoveryReport, recoverEngine } from '../sequencer/recovery.js';
import { Sequencer } from '../sequencer/sequencer.js';
import type { VerifierPool } from '../signing/verifier-pool.js';
import type { EntryChanges } from '../store/batch-projection.js';
import type { ProjectionWriter } from '../store/projection.js';
import type { CatalogRepository } from '../store/repositories.js';
import type { TradingReads } from '../store/trading-reads.js';
import type { TradingStorage } from '../store/trading-storage.js';
import { AccountSeqs } from './account-seqs.js';
import { Checkpointer } from './checkpointer.js';
import { type ChainSubmitter, TradingPipeline } from './pipeline.js';

/** How often the expiry sweep looks for expired resting orders (an `expire` runs only when one is due). */
export const EXPIRY_SWEEP_MS = 250;
/** A checkpoint (engine snapshot + hash) this often while trading, busy or not, and at every clean stop. */
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
  /** The owner of trading state: intents in, results out; typed queries (`sequencer/`). */
  readonly sequencer: Sequencer;
  /** Where each committed batch goes: projector, publisher, settlement. */
  readonly pipeline: TradingPipeline;
  readonly queries: TradingReads;
  readonly orders: OrderService;
  readonly recovery: RecoveryReport;
  /** The checkpoints this leader stores (absent on a replica: its leader stores them). */
  readonly checkpoints?: Pick<Checkpointer, 'savedSeq' | 'lastPauseMs'>;
  /**
   * Resolves once every input queued so far, and the market closings a fixture's change began, is committed,
   * projected and published.
   */
  idle(): Promise<void>;
  /**
   * Read-your-writes: null when the projections have everything answered to the account, else a promise that
   * resolves once they do (503 past the bound). Nothing else waits for the projector.
   */
  caughtUpFor(account: string): Promise<void> | null;
  /**
   * A replica's state brought to the journal's end (every entry committed before the call, wherever it
   * was answered); absent where the engine leads. For what only the engine knows and another node may have
   * just made: a parlay market (`parlays/`).
   */
  catchUp?(): Promise<void>;
  /**
   * Arms (or refreshes) the account's dead-man switch: past `timeoutSeconds` without a refresh, everything it has
   * open is cancelled (HEARTBEAT_TIMEOUT); 0 disarms it without cancelling anything.
   */
  heartbeat(
    account: `0x${string}`,
    timeoutSeconds: number,
  ): Promise<{ timeoutSeconds: number; expiresAt: number | null }>;
  /** Credits an account (the faucet): an engine input, so matching sees the funds in order. */
  deposit(account: `0x${string}`, amount: bigint): Promise<void>;
  /**
   * A market's result: one journaled input that cancels its open orders, pays every position and records
   * the result (the projections' settlement); the catalog follows it (and is brought back to it at a start).
   */
  resolveMarket(marketHash: string, outcome: 0 | 1 | 2): Promise<void>;
  /** The catalog's results brought in line with the journal's (after a crash between the two), quarter lines included. */
  reconcileResolutions(): Promise<void>;
  checkpoint(): Promise<void>;
  close(): Promise<void>;
};

/** The settlement driver as trading uses it. */
export type TradingChain = ChainSubmitter & {
  outboxSeq(): number;
  submittedThrough(seq: number): void;
  whenSettled(seq: number): Promise<void>;
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
   * Absent only when `elsewhere.chain` says another node settles.
   */
  chain?: TradingChain;
  /**
   * What other nodes of a cluster do for this leading sequencer (ADR 0018): `projector` (the projections
   * are written by a projector node: no projection here, each batch counts as projected at once) and
   * `chain` (the chain node settles: nothing here is handed to `chain`, a resolution is the chain node's).
   */
  elsewhere?: { projector?: boolean; chain?: { resolveMarket: Trading['resolveMarket'] } };
  /** The journal (its own database file: store/sqlite/open-journal.ts). */
  journal: Journal;
  onFatal: (error: unknown) => void;
  log: { info(o: object, msg: string): void; error(o: object, msg: string): void };
  /** How long a resolution waits for its market's fills to settle (default SETTLE_WAIT_MS). */
  settleWaitMs?: number;
  /** V2_CUTOVER_AT (unix ms): the v2 orders still open then are cancelled (default: never). */
  v2CutoverAt?: number;
  /** A hot standby's state, taken over instead of a recovery when it can be (`HotState`). */
  hot?: HotState;
  /** How often a checkpoint is taken (default CHECKPOINT_INTERVAL_MS; tests take them sooner). */
  checkpointIntervalMs?: number;
};

/**
 * The trading state a cluster standby holds at the journal's end (ADR 0018): its engine and admission, and
 * the entries it applied lately with their events, for the projector and the chain driver to catch up
 * from their cursors. `recent(seq)` is null when it no longer keeps every entry after `seq`.
 */
export type HotState = {
  engine: Engine;
  admission: Admission;
  lastSeq: number;
  recent(seq: number): readonly AppliedEntry[] | null;
};

/**
 * Trading, assembled: recovery, the sequencer, the order service, heartbeats, the expiry sweep,
 * checkpoints, and the link from the catalog's market lifecycle to the engine.
 */
export async function openTrading(o: TradingOptions): Promise<Trading> {
  const journal = o.journal;
  const queries = o.storage.reads;
  const elsewhere = o.elsewhere ?? {};
  const chain = elsewhere.chain ? null : o.chain;
  if (chain === undefined) throw new Error('trading needs its settlement driver, or a chain node to settle');
  const hot = o.hot ? await takeOverHot(o.hot, journal, o.storage.catchUp, chain, elsewhere) : null;
  const recovery = hot ?? (await recoverTrading(journal, o.storage.catchUp, chain, o.ladderSize, elsewhere));
  const projector = elsewhere.projector ? new ProjectedAtOnce() : o.storage.projector();
  const last = await journal.last();
  const sequencer = new Sequencer({
    engine: recovery.engine,
    admission: recovery.admission,
    journal,
    clock: o.clock,
    lastSeq: last.seq,
    lastTs: last.ts,
    onFatal: o.onFatal,
    ...(o.maxQueue ? { maxQueue: o.maxQueue } : {}),
  });
  const core = assembleTrading(o, sequencer, projector);
  const { pipeline } = core;
  if (chain) pipeline.setChain(chain);

  // Betting delays, heartbeat deadlines and expiries, from the sequencer's own state.
  const stopDueWork = new DueWork(sequencer, o.clock, undefined, o.v2CutoverAt).start();
  // From the checkpoint the engine was restored from (not read again: at 1 M resting orders its bytes are
  // some 180 MB); 0 when the whole journal was replayed, so that the next checkpoint is taken.
  const checkpointer = new Checkpointer({
    sequencer,
    pipeline,
    journal,
    chain: chain ?? null,
    clock: o.clock,
    restoredSeq: recovery.checkpointSeq,
    intervalMs: o.checkpointIntervalMs ?? CHECKPOINT_INTERVAL_MS,
    log: o.log,
  }).start();

  o.log.info(
    {
      lastSeq: last.seq,
      restingOrders: recovery.orders,
      delayedOrders: sequencer.admission.delayed.size,
      checkpointSeq: recovery.checkpointSeq,
      replayedCommands: recovery.replayedCommands,
      checkpointMs: Math.round(recovery.checkpointMs),
      replayMs: Math.round(recovery.replayMs),
    },
    hot
      ? "trading state taken over from the standby's"
      : 'trading state restored from the checkpoint and the journal after it',
  );

  return {
    ...core.shared,
    queries,
    recovery,
    checkpoints: checkpointer,
    async resolveMarket(marketHash, outcome) {
      if (!chain) return elsewhere.chain!.resolveMarket(marketHash, outcome);
      await resolveOnceSettled({ sequencer, chain, catalog: o.catalog, settleWaitMs: o.settleWaitMs })(
        marketHash,
        outcome,
      );
    },
    reconcileResolutions: () => reconcileResolutions(queries, o.catalog),
    async checkpoint() {
      await checkpointer.take();
    },
    async close() {
      stopDueWork();
      core.stop();
      await sequencer.close();
      await pipeline.idle();
      await checkpointer.stop();
      await o.storage.close();
    },
  };
}

/**
 * A market's result where the settlement driver runs (the leader, or a chain node on its replica, whose
 * submissions go to the leader): closed first, so that no fill comes after; then resolved once the chain
 * has settled every fill before the close (a fill reversed after its market paid out could not be taken
 * back from the payouts); then the catalog. `submit` journals the close and the result (a chain node's go
 * fenced by its lease: one deposed unnoticed resolves nothing after its successor took over).
 */
export function resolveOnceSettled(o: {
  sequencer: Pick<Sequencer, 'marketStatus' | 'lastSeq' | 'submit'>;
  submit?: (input: SequencerInput) => Promise<{ seq: number }>;
  chain: Pick<TradingChain, 'whenSettled'>;
  catalog: CatalogService;
  settleWaitMs?: number | undefined;
}): Trading['resolveMarket'] {
  const { sequencer } = o;
  const submit = o.submit ?? ((input: SequencerInput) => sequencer.submit(input));
  return async (marketHash, outcome) => {
    const status = sequencer.marketStatus(marketHash);
    if (status !== undefined && status !== MarketStatus.RESOLVED) {
      let closedAt = sequencer.lastSeq;
      if (status === MarketStatus.OPEN) {
        closedAt = (await submit({ kind: 'engine', command: { type: 'closeMarket', marketHash } })).seq;
      }
      await settledOrUnavailable(o.chain.whenSettled(closedAt), o.settleWaitMs ?? SETTLE_WAIT_MS);
      await submit({ kind: 'engine', command: { type: 'resolveMarket', marketHash, outcome } });
    }
    await o.catalog.resolveMarket(marketHash, outcome);
  };
}

/** The catalog's results brought in line with the projections' settlements, quarter lines included. */
export async function reconcileResolutions(queries: TradingReads, catalog: CatalogService): Promise<void> {
  for (const { marketHash, outcome } of await queries.settlements()) {
    const market = await catalog.getMarket(marketHash);
    if (market && market.outcome === null) await catalog.resolveMarket(marketHash, outcome);
  }
  await catalog.followResolvedLegs();
}

/** What the leader's trading and a replica's (`replica-trading.ts`) are assembled from alike. */
export type TradingParts = Pick<
  TradingOptions,
  | 'catalog'
  | 'catalogRepository'
  | 'wallets'
  | 'verifier'
  | 'clock'
  | 'baseToken'
  | 'ladderSize'
  | 'maxPendingOrders'
  | 'onFatal'
  | 'log'
>;

/**
 * The parts of trading around a sequencer that a leader and a replica share: the pipeline, the order path,
 * read-your-writes, heartbeats and deposits (sequencer inputs), and the link from the catalog's fixture and
 * market changes to the engine (the node that made the change submits the closing).
 */
export function assembleTrading(o: TradingParts, sequencer: Sequencer, projector: ProjectionWriter) {
  const pipeline = new TradingPipeline({ sequencer, projector, onFatal: o.onFatal });
  const accountSeqs = new AccountSeqs();
  sequencer.onAnswered((intent, result) => accountSeqs.answered(intent, result));
  const outcomes = new OutcomeWatch();
  sequencer.onCommitted((batch) => outcomes.follow(batch));
  const orders = new OrderService({
    sequencer,
    catalog: o.catalog,
    wallets: o.wallets,
    verifier: o.verifier,
    clock: o.clock,
    baseToken: o.baseToken,
    ...(o.maxPendingOrders ? { maxPendingOrders: o.maxPendingOrders } : {}),
    ladderSize: o.ladderSize,
    outcomes,
  });

  const closeEventMarkets = async (eventId: string, final: boolean) => {
    for (const market of await o.catalogRepository.listMarketsOfEvent(eventId)) {
      const status = sequencer.marketStatus(market.marketHash);
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
  // Closings under way, read from the catalog before they are submitted: `idle` waits for them too.
  const closing = new Set<Promise<void>>();
  const unsubscribe = o.catalog.onChange((event, origin) => {
    // The node that made a change closes what it closes; the others only hear of it.
    if (origin === 'elsewhere') return;
    if (event.type === 'fixture') {
      const status = event.fixture.status;
      const final = FINAL_FIXTURE_STATUSES.includes(status);
      if (final || SUSPENDED_FIXTURE_STATUSES.includes(status)) {
        const closed: Promise<void> = closeEventMarkets(event.fixture.eventId, final)
          .catch((error) =>
            o.log.error(
              { err: error, eventId: event.fixture.eventId },
              'closing markets of a fixture failed',
            ),
          )
          .finally(() => closing.delete(closed));
        closing.add(closed);
      }
    } else if (
      event.type === 'market' &&
      event.market.status !== 'ACTIVE' &&
      // A quarter-line market is closed by the engine itself when a leg resolves.
      sequencer.marketStatus(event.market.marketHash) === MarketStatus.OPEN
    ) {
      sequencer
        .submit({ kind: 'engine', command: { type: 'closeMarket', marketHash: event.market.marketHash } })
        .catch((error) => o.log.error({ err: error }, 'closing a market failed'));
    }
  });

  const shared = {
    sequencer,
    pipeline,
    orders,
    async idle() {
      while (closing.size > 0) await Promise.all(closing);
      await pipeline.idle();
    },
    caughtUpFor: (account: string) => pipeline.caughtUpTo(accountSeqs.of(account)),
    async heartbeat(account: `0x${string}`, timeoutSeconds: number) {
      const expiresAt = timeoutSeconds === 0 ? null : o.clock.now() + timeoutSeconds * 1000;
      await sequencer.submit({ kind: 'heartbeat', account, timeoutSeconds, expiresAt });
      return { timeoutSeconds, expiresAt };
    },
    async deposit(account: `0x${string}`, amount: bigint) {
      await sequencer.submit({ kind: 'engine', command: { type: 'credit', account, amount } });
    },
  } satisfies Partial<Trading>;
  return {
    pipeline,
    orders,
    shared,
    /** Stops following the catalog and taking orders. */
    stop() {
      unsubscribe();
      orders.close();
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

/** Recent entries are handed to the projector and the chain in chunks of this many. */
const HOT_CHUNK = 4_096;

/**
 * A standby's state taken over as it is: no checkpoint read, no replay. The projector and the chain driver
 * get the entries after their cursors from the standby's recent entries. Null (then a recovery) when the
 * state is not at the journal's end or those entries are no longer kept.
 */
async function takeOverHot(
  hot: HotState,
  journal: Journal,
  projector: ProjectionWriter,
  chain: TradingChain | null,
  elsewhere: NonNullable<TradingOptions['elsewhere']>,
): Promise<RecoveryReport | null> {
  const started = performance.now();
  const journalSeq = (await journal.last()).seq;
  // What other nodes catch up is not caught up here.
  const projectedSeq = elsewhere.projector ? journalSeq : projector.cursor();
  const outboxSeq = chain ? chain.outboxSeq() : journalSeq;
  if (journalSeq !== hot.lastSeq || projectedSeq > journalSeq) return null;
  const after = Math.min(projectedSeq, outboxSeq);
  const entries = after >= journalSeq ? [] : hot.recent(after);
  if (entries === null) return null;
  for (let from = 0; from < entries.length; from += HOT_CHUNK) {
    const chunk = entries.slice(from, from + HOT_CHUNK);
    if (!elsewhere.projector) await projector.project(chunk);
    chain?.submitForBatch(committedBatch(chunk));
  }
  return {
    engine: hot.engine,
    admission: hot.admission,
    orders: hot.engine.restingOrderCount,
    // No checkpoint was read: the next one is taken (at the latest at a clean stop).
    checkpointSeq: 0,
    replayedCommands: 0,
    lastSeq: hot.lastSeq,
    checkpointMs: 0,
    replayMs: performance.now() - started,
  };
}

/**
 * The engine restored from the newest checkpoint and the journal after it, and the consumers of committed
 * batches caught up with the journal: the projector (entries after its cursor) and the chain link (the
 * chain requests of entries after its outbox cursor), before anything is served.
 */
async function recoverTrading(
  journal: Journal,
  projector: ProjectionWriter,
  chain: TradingChain | null,
  ladderSize: number,
  elsewhere: NonNullable<TradingOptions['elsewhere']>,
): Promise<RecoveryReport> {
  const journalSeq = (await journal.last()).seq;
  // What other nodes catch up is not caught up here.
  const projectedSeq = elsewhere.projector ? journalSeq : projector.cursor();
  const outboxSeq = chain ? chain.outboxSeq() : journalSeq;
  // Projections of inputs the journal does not have (restored from a later backup than the journal): the
  // next inputs would reuse those seqs and the projector would skip them.
  if (projectedSeq > journalSeq) {
    throw new RecoveryError(
      `the projections (oddsbook.sqlite) are at seq ${projectedSeq}, past the journal's end (${journalSeq}): ` +
        'restore journal.sqlite from a backup taken after them, or empty the projections to rebuild them',
    );
  }
  return recoverEngine(journal, ladderSize, {
    after: Math.min(projectedSeq, outboxSeq),
    async onEntries(entries) {
      if (!elsewhere.projector) await projector.project(entries);
      chain?.submitForBatch(committedBatch(entries));
    },
  });
}

/**
 * The pipeline's projector on a leading sequencer whose projections a projector node writes (ADR 0018):
 * every batch counts as projected at once, with no rows (nothing here reads or publishes them), so that
 * nothing on this node waits for another.
 */
export class ProjectedAtOnce implements ProjectionWriter {
  readonly ordered = true;
  #seq = 0;
  cursor(): number {
    return this.#seq;
  }
  project(entries: readonly AppliedEntry[]): Promise<EntryChanges[]> {
    this.#seq = Math.max(this.#seq, entries.at(-1)?.seq ?? 0);
    return Promise.resolve([]);
  }
}
