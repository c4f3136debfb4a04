import type { Database } from 'better-sqlite3';
import type { CatalogService } from '../catalog/catalog-service.js';
import { FIXTURE_STATUS } from '../catalog/fixture-status.js';
import type { Engine } from '../engine/index.js';
import type { Clock } from '../lib/clock.js';
import { type RecoveryReport, recoverEngine } from '../sequencer/recovery.js';
import { Sequencer } from '../sequencer/sequencer.js';
import { digestOf } from '../sequencer/state-hash.js';
import type { VerifierPool } from '../signing/verifier-pool.js';
import type { CatalogRepository } from '../store/repositories.js';
import { SqliteTradingQueries } from '../store/sqlite/sqlite-trading-queries.js';
import { SqliteTradingStore } from '../store/sqlite/sqlite-trading-store.js';
import type { TradingReads } from '../store/trading-reads.js';
import { Heartbeats } from './heartbeats.js';
import { OrderService, type ProxyWallets } from './order-service.js';

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
  readonly store: SqliteTradingStore;
  readonly queries: TradingReads;
  readonly orders: OrderService;
  readonly heartbeats: Heartbeats;
  readonly recovery: RecoveryReport;
  /** Opens the market in the engine when the catalog has it and the engine does not yet. */
  ensureMarketOpen(marketHash: string, eventId: string): Promise<void>;
  checkpoint(): void;
  close(): Promise<void>;
};

export type TradingOptions = {
  db: Database;
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
  onFatal: (error: unknown) => void;
  log: { info(o: object, msg: string): void; error(o: object, msg: string): void };
};

/**
 * Trading, assembled: recovery, the sequencer, the order service, heartbeats, the expiry sweep,
 * checkpoints, and the link from the catalog's market lifecycle to the engine.
 */
export function openTrading(o: TradingOptions): Trading {
  const store = new SqliteTradingStore(o.db);
  const queries = new SqliteTradingQueries(o.db);
  const recovery = recoverEngine(store, o.ladderSize);
  const state = store.sequencerState();
  const sequencer = new Sequencer({
    engine: recovery.engine,
    committer: store,
    clock: o.clock,
    lastSeq: state.lastSeq,
    lastTs: state.lastTs,
    onFatal: o.onFatal,
    ...(o.maxQueue ? { maxQueue: o.maxQueue } : {}),
  });
  const engine = sequencer.engine;
  const opening = new Map<string, Promise<void>>();
  const ensureMarketOpen = (marketHash: string, eventId: string): Promise<void> => {
    if (engine.market(marketHash)) return Promise.resolve();
    let pending = opening.get(marketHash);
    if (!pending) {
      pending = sequencer
        .submit({ kind: 'engine', command: { type: 'openMarket', marketHash, eventId } })
        .then(() => undefined)
        .finally(() => opening.delete(marketHash));
      opening.set(marketHash, pending);
    }
    return pending;
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
  });
  const heartbeats = new Heartbeats(o.db, o.clock, (account) =>
    orders.cancelAll(account, 'HEARTBEAT_TIMEOUT'),
  );

  const closeEventMarkets = async (eventId: string, final: boolean) => {
    for (const market of await o.catalogRepository.listMarketsOfEvent(eventId)) {
      if (!engine.market(market.marketHash)) continue;
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
      engine.market(event.market.marketHash)
    ) {
      sequencer
        .submit({ kind: 'engine', command: { type: 'closeMarket', marketHash: event.market.marketHash } })
        .catch((error) => o.log.error({ err: error }, 'closing a market failed'));
    }
  });

  let lastCheckpointSeq = store.latestCheckpoint()?.seq ?? 0;
  const checkpoint = () => {
    if (sequencer.lastSeq === lastCheckpointSeq) return;
    const snapshot = engine.snapshotBytes();
    store.saveCheckpoint(sequencer.lastSeq, digestOf(snapshot), snapshot, o.clock.now());
    lastCheckpointSeq = sequencer.lastSeq;
  };

  const expirySweep = setInterval(() => {
    if (!engine.hasDueExpiries(o.clock.now())) return;
    sequencer.submit({ kind: 'engine', command: { type: 'expire' } }).catch(() => {});
  }, EXPIRY_SWEEP_MS);
  expirySweep.unref();
  const checkpointTimer = setInterval(() => {
    // Between batches the engine equals the committed state, so the snapshot matches its seq.
    if (sequencer.isIdle) checkpoint();
  }, CHECKPOINT_INTERVAL_MS);
  checkpointTimer.unref();

  const resumed = orders.resumeDelayedOrders();
  heartbeats.start();
  o.log.info(
    {
      lastSeq: state.lastSeq,
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
    store,
    queries,
    orders,
    heartbeats,
    recovery,
    ensureMarketOpen,
    checkpoint,
    async close() {
      clearInterval(expirySweep);
      clearInterval(checkpointTimer);
      heartbeats.stop();
      unsubscribe();
      orders.close();
      await sequencer.close();
      checkpoint();
      store.close();
    },
  };
}
