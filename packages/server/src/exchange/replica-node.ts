import type { NatsConnection } from '@nats-io/transport-node';
import { ladderSize } from '@oddsbook/protocol';
import { CatalogService } from '../catalog/catalog-service.js';
import type { Chain } from '../chain/chain.js';
import type { ClusterNames } from '../cluster/cluster-names.js';
import { JournalFollower } from '../cluster/journal-follower.js';
import { RemoteSequencer } from '../cluster/remote-sequencer.js';
import type { Config } from '../config/config.js';
import { EXCHANGE_LIMITS } from '../config/limits.js';
import { LegacyApi } from '../legacy/legacy-api.js';
import { type Clock, systemClock } from '../lib/clock.js';
import type { RecoveryOptions } from '../sequencer/recovery.js';
import type { Sequencer } from '../sequencer/sequencer.js';
import { createVerifierPool } from '../signing/verifier-pool.js';
import { postgresCatalogRepository } from '../store/postgres/postgres-catalog-repository.js';
import type { PostgresDatabase } from '../store/postgres/postgres-database.js';
import { PostgresJournal } from '../store/postgres/postgres-journal.js';
import { PostgresTradingQueries } from '../store/postgres/postgres-trading-queries.js';
import type { ProjectionWriter } from '../store/projection.js';
import { openReplicaTrading } from '../trading/replica-trading.js';
import type { Trading } from '../trading/trading.js';
import { Wallets } from '../wallets/wallets.js';
import { EIP712_DOMAIN_NAME } from './exchange.js';
import type { PublishingExchange } from './exchange-publications.js';

/** The trading state of a projector or chain node, kept at the journal's end, and the parts around it. */
export type ReplicaNode = PublishingExchange & {
  readonly follower: JournalFollower;
  readonly clock: Clock;
  /** Stops following the journal and closes trading (the database and NATS stay open: they are the caller's). */
  close(): Promise<void>;
};

export type ReplicaNodeOptions = {
  database: PostgresDatabase;
  nc: NatsConnection;
  names: ClusterNames;
  /** The chain proxy wallets are read from: the chain node's own, or its client (`RemoteChain`). */
  chain: Chain;
  /**
   * Where the replica's committed batches are projected: the real projector, or at once (a chain node);
   * asked for once the start's catch-up (`recovery`) is done.
   */
  projections: () => ProjectionWriter;
  /** The entries replayed at the start after `after`, handed on before following (a catch-up). */
  recovery: RecoveryOptions;
  /** A market's result (the chain node's own); elsewhere it is refused: no route reaches this node. */
  resolveMarket?: (trading: Trading) => Trading['resolveMarket'];
  clock?: Clock;
  log: { info(o: object, msg: string): void; error(o: object, msg: string): void };
  onFatal: (error: unknown) => void;
};

/**
 * A replica of the trading state for the roles that follow committed batches without leading (ADR 0018):
 * a `JournalFollower` (the newest checkpoint, the journal, then kept at its end) whose entries a
 * forward-only `Sequencer` hands on as committed batches to a `TradingPipeline` (`openReplicaTrading`, as
 * on an API node); its inputs (a chain node's receipts, a resolution's close) go to the leader over NATS.
 * The catalog is read from PostgreSQL.
 */
export async function openReplicaNode(config: Config, o: ReplicaNodeOptions): Promise<ReplicaNode> {
  const clock = o.clock ?? systemClock;
  const closing: (() => Promise<void>)[] = [];
  const closeAll = async () => {
    for (const close of closing.splice(0).reverse()) await close();
  };
  try {
    const catalogRepository = postgresCatalogRepository(o.database.pool);
    let replica: Sequencer | undefined;
    const catalog = new CatalogService({
      repository: catalogRepository,
      clock,
      inEngine: (marketHash) => replica?.marketStatus(marketHash) !== undefined,
      onListenerError: (error) => o.log.error({ err: error }, 'a catalog change listener failed'),
    });
    const wallets = new Wallets(o.chain);
    // Nothing here checks signatures (no orders come in), but trading's order path is built with a pool.
    const verifier = createVerifierPool({
      domain: {
        name: EIP712_DOMAIN_NAME,
        version: '1',
        chainId: config.chainId,
        verifyingContract: config.verifyingContract,
      },
      size: 0,
      inlineWhenIdle: 1,
      maxPending: config.maxPendingOrders,
    });
    closing.push(() => verifier.close());
    const listener = await o.database.connect();
    closing.push(() => listener.end());
    const follower = await JournalFollower.start({
      journal: await PostgresJournal.open(o.database.pool),
      listener,
      ladderSize: ladderSize(),
      recovery: o.recovery,
      onEntries: (entries) => replica?.followed(entries),
      onError: (error) => o.log.error({ err: error }, 'reading the journal failed (retried)'),
    });
    closing.push(() => follower.stop());
    let trading: Trading | undefined;
    const resolveMarket: Trading['resolveMarket'] = (marketHash, outcome) => {
      if (!o.resolveMarket) return Promise.reject(new Error('markets are resolved by the chain node'));
      return o.resolveMarket(trading!)(marketHash, outcome);
    };
    trading = openReplicaTrading({
      catalog,
      catalogRepository,
      wallets,
      verifier,
      clock,
      baseToken: config.baseToken,
      ladderSize: ladderSize(),
      maxPendingOrders: config.maxPendingOrders,
      onFatal: o.onFatal,
      log: o.log,
      reads: new PostgresTradingQueries(o.database.pool),
      follower,
      forward: new RemoteSequencer({ nc: o.nc, subject: o.names.submit }),
      projections: o.projections(),
      resolveMarket,
    });
    replica = trading.sequencer;
    const opened = trading;
    closing.push(() => opened.close());
    const legacy = new LegacyApi({
      trading,
      catalog,
      clock,
      chainId: config.chainId,
      verifyingContract: config.verifyingContract,
      baseToken: config.baseToken,
      minimumOrder: EXCHANGE_LIMITS.orderSizeMinimumBaseUnits,
      dates: config,
    });
    return { config, clock, catalog, wallets, legacy, trading, follower, close: closeAll };
  } catch (error) {
    await closeAll();
    throw error;
  }
}
