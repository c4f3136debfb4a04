import type { NatsConnection } from '@nats-io/transport-node';
import { CatalogService } from '../catalog/catalog-service.js';
import type { Chain } from '../chain/chain.js';
import type { ClusterNames } from '../cluster/cluster-names.js';
import type { JournalFollower } from '../cluster/journal-follower.js';
import type { Config } from '../config/config.js';
import { type Clock, systemClock } from '../lib/clock.js';
import type { RecoveryOptions } from '../sequencer/recovery.js';
import type { Sequencer } from '../sequencer/sequencer.js';
import { postgresCatalogRepository } from '../store/postgres/postgres-catalog-repository.js';
import type { PostgresDatabase } from '../store/postgres/postgres-database.js';
import { PostgresJournal } from '../store/postgres/postgres-journal.js';
import { PostgresTradingQueries } from '../store/postgres/postgres-trading-queries.js';
import type { ProjectionWriter } from '../store/projection.js';
import type { Trading } from '../trading/trading.js';
import { Wallets } from '../wallets/wallets.js';
import { legacyApiOf, orderChecks } from './exchange.js';
import type { PublishingExchange } from './exchange-publications.js';
import { openFollowingTrading } from './following-trading.js';

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
    const { verifier } = orderChecks(config, 0);
    closing.push(() => verifier.close());
    let following: Trading | undefined;
    const resolveMarket: Trading['resolveMarket'] = (marketHash, outcome) => {
      if (!o.resolveMarket) return Promise.reject(new Error('markets are resolved by the chain node'));
      return o.resolveMarket(following!)(marketHash, outcome);
    };
    const { trading, follower } = await openFollowingTrading({
      config,
      database: o.database,
      journal: await PostgresJournal.open(o.database.pool),
      nc: o.nc,
      submit: o.names.submit,
      committedStream: o.names.stream,
      reads: new PostgresTradingQueries(o.database.pool),
      catalog,
      catalogRepository,
      wallets,
      verifier,
      clock,
      onFatal: o.onFatal,
      log: o.log,
      projections: () => o.projections(),
      recovery: o.recovery,
      resolveMarket,
      closing,
    });
    following = trading;
    replica = trading.sequencer;
    const legacy = legacyApiOf(config, trading, catalog, clock);
    return { config, clock, catalog, wallets, legacy, trading, follower, close: closeAll };
  } catch (error) {
    await closeAll();
    throw error;
  }
}
