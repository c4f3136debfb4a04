import type { NatsConnection } from '@nats-io/transport-node';
import type { ClusterNames } from '../cluster/cluster-names.js';
import { ProjectedElsewhere } from '../cluster/projected-elsewhere.js';
import type { Config } from '../config/config.js';
import { type Clock, systemClock } from '../lib/clock.js';
import type { Trading } from '../trading/trading.js';
import { Wallets } from '../wallets/wallets.js';
import { type Exchange, legacyApiOf, orderChecks, withAdminToken } from './exchange.js';
import { openExchangeAccess } from './exchange-access.js';
import { openApiNodeStorage } from './exchange-storage.js';
import { openFollowingTrading } from './following-trading.js';

/** What an API node asks the leader for (`cluster/remote-leader.ts`): the chain, and what follows it. */
export type LeaderSide = Pick<Exchange, 'chain' | 'multisig' | 'settlement' | 'reconciliation'> & {
  resolveMarket: Trading['resolveMarket'];
};

export type ApiExchangeOptions = {
  nc: NatsConnection;
  names: ClusterNames;
  leader: LeaderSide;
  clock?: Clock;
  verifyWorkers?: number;
  /** How long an order keeps retrying while no sequencer answers (default RemoteSequencer's 10 s). */
  sequencerDeadlineMs?: number;
  log: { info(o: object, msg: string): void; error(o: object, msg: string): void };
  /** This node's copy of the trading state broke (an entry failed to apply): it must stop. */
  onFatal: (error: unknown) => void;
};

/**
 * The exchange as an API node sees it (ADR 0018): the same `Exchange` the HTTP app is built on, with
 * trading on a replica (`trading/replica-trading.ts`: the leader's journal followed, intents sent to the
 * leader over NATS), the projections read from PostgreSQL, signature checks here, and the chain and
 * settlement asked of the leader. No data dir is locked: an API node keeps nothing of its own.
 */
export async function openApiExchange(givenConfig: Config, o: ApiExchangeOptions): Promise<Exchange> {
  const { config, stored } = withAdminToken(givenConfig);
  const clock = o.clock ?? systemClock;
  const storage = await openApiNodeStorage(config);
  const { store } = storage;
  const closing: (() => Promise<void>)[] = [() => storage.close()];
  const closeAll = async () => {
    for (const close of closing.splice(0).reverse()) await close();
  };
  try {
    const access = await openExchangeAccess({
      config,
      store,
      shared: true,
      clock,
      openRevocations: (options) => storage.openRevocations(options),
      log: o.log,
    });
    closing.push(() => access.close());
    const { catalog } = access;
    const wallets = new Wallets(o.leader.chain);
    const { orderDomain, verifier } = orderChecks(config, o.verifyWorkers);
    closing.push(() => verifier.close());

    let projections: ProjectedElsewhere | undefined;
    const { trading } = await openFollowingTrading({
      config,
      database: storage.database,
      journal: storage.journal,
      nc: o.nc,
      submit: o.names.submit,
      reads: storage.reads,
      catalog,
      catalogRepository: store.catalog,
      wallets,
      verifier,
      clock,
      onFatal: o.onFatal,
      log: o.log,
      projections: (startSeq) => {
        projections = new ProjectedElsewhere({
          readCursor: () => storage.projectedSeq(),
          startSeq,
          onError: (error) => o.log.error({ err: error }, 'reading the projector cursor failed (retried)'),
        });
        return projections;
      },
      resolveMarket: o.leader.resolveMarket,
      ...(o.sequencerDeadlineMs ? { sequencerDeadlineMs: o.sequencerDeadlineMs } : {}),
      closing,
    });
    // First: a batch waiting for a leader that is gone would hold the pipeline's close.
    closing.push(async () => projections?.stop());
    access.setInEngine((marketHash) => trading.sequencer.marketStatus(marketHash) !== undefined);
    const legacy = legacyApiOf(config, trading, catalog, clock);
    return {
      config,
      storedAdminToken:
        stored && 'file' in stored ? { file: stored.file, created: stored.created } : undefined,
      clock,
      db: null,
      store,
      storeKind: 'postgres',
      apiKeys: access.apiKeys,
      webSessions: access.webSessions,
      catalog,
      realtimeSecret: access.realtimeSecret,
      chain: o.leader.chain,
      multisig: o.leader.multisig,
      wallets,
      verifier,
      trading,
      settlement: o.leader.settlement,
      reconciliation: o.leader.reconciliation,
      legacy,
      orderDomain,
      close: closeAll,
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}
