import { randomBytes } from 'node:crypto';
import { ladderSize } from '@oddsbook/protocol';
import { type StoredAdminToken, storedAdminToken } from '../auth/admin-token-file.js';
import type { ApiKeys } from '../auth/api-keys.js';
import type { WebSessions } from '../auth/web-sessions.js';
import type { CatalogService } from '../catalog/catalog-service.js';
import { seedDemoCatalog } from '../catalog/demo-seed.js';
import type { Chain } from '../chain/chain.js';
import type { MultisigService } from '../chain/multisig.js';
import { openEmbeddedChain } from '../chain/open-embedded-chain.js';
import { projectionsReached } from '../cluster/projections-reached.js';
import type { Config } from '../config/config.js';
import { EXCHANGE_LIMITS } from '../config/limits.js';
import { LegacyApi } from '../legacy/legacy-api.js';
import { type Clock, systemClock } from '../lib/clock.js';
import type { StampedPublication } from '../realtime/stamped.js';
import type { Journal } from '../sequencer/journal.js';
import { type Reconciler, Reconciliation } from '../settlement/reconciliation.js';
import { SettlementDriver, type SettlementStatus } from '../settlement/settlement-driver.js';
import { createVerifierPool, type VerifierPool } from '../signing/verifier-pool.js';
import { lockDataDir } from '../store/sqlite/data-dir-lock.js';
import type { ExchangeDatabase } from '../store/sqlite/open-database.js';
import type { Store } from '../store/store.js';
import { type HotState, openTrading, type Trading } from '../trading/trading.js';
import { Wallets } from '../wallets/wallets.js';
import { type ExchangeAccess, openExchangeAccess } from './exchange-access.js';
import { openExchangeStorage } from './exchange-storage.js';

/** Follows stamped publications with `handler`; resolves, once the recent history is handed over, to the stop. */
export type StampedPublications = (
  handler: (publications: StampedPublication[]) => void,
) => Promise<() => Promise<void>>;

/** The EIP-712 domain name of orders. */
export const EIP712_DOMAIN_NAME = 'oddsbook';

/** Signature-check worker threads unless `verifyWorkers` says otherwise. */
export const DEFAULT_VERIFY_WORKERS = 1;
/** A one-order request finding the verifier pool idle is checked in-thread (lower latency at low load). */
export const VERIFY_INLINE_WHEN_IDLE = 1;

/** Everything the exchange runs on, opened once and shared by the HTTP app, the CLI and the tests. */
export type Exchange = {
  /** As given, with the operator token in `adminToken` whether it was given or kept in the data dir. */
  readonly config: Config;
  /** The data dir's operator token file, when ADMIN_TOKEN was not set (and the data dir is one). */
  readonly storedAdminToken: Omit<StoredAdminToken, 'token'> | undefined;
  readonly clock: Clock;
  /**
   * The data dir's SQLite database, which every storage port runs on unless `DATABASE_URL` puts them all on
   * PostgreSQL (then null: the data dir holds only its lock); nothing else reads it but tests.
   */
  readonly db: ExchangeDatabase | null;
  readonly store: Store;
  /** Where the store's ports are: `sqlite` (the data dir) or `postgres` (`DATABASE_URL`). */
  readonly storeKind: 'sqlite' | 'postgres';
  readonly apiKeys: ApiKeys;
  /** Sign-in with a wallet and the browser sessions it opens (kept in the store across restarts). */
  readonly webSessions: WebSessions;
  /** Sports, leagues, fixtures, markets and live scores; market lookups for the order path. */
  readonly catalog: CatalogService;
  /** HMAC key of realtime connection tokens, kept in the store. */
  readonly realtimeSecret: string;
  /** The embedded chain (on an API node the leader's, over NATS): proxy wallets, base token, escrow, Safe multisig. */
  readonly chain: Chain;
  /** The add-signer flow (the leader's coordinator; on an API node its remote client). */
  readonly multisig: MultisigService;
  readonly wallets: Wallets;
  /** Order signature checks, off the main thread. */
  readonly verifier: VerifierPool;
  /** Engine, sequencer, order path, heartbeats. */
  readonly trading: Trading;
  /** The chain side of trading: every committed money move, settled on the chain in journal order. */
  readonly settlement: SettlementStatus;
  /** The engine's money compared with the chain's: at the start, every RECONCILE_INTERVAL_MS, on demand. */
  readonly reconciliation: Reconciler;
  /** The legacy v2 API on the same intake and books, until the cut-over dates (docs/legacy.md). */
  readonly legacy: LegacyApi;
  /**
   * A cluster API node's realtime source (ADR 0018): the leader's stamped publications, followed from the
   * stream's recent history on (resolves once that is handed over); absent in one process, whose hub is
   * fed by its own pipeline.
   */
  readonly stampedPublications?: StampedPublications;
  /** The EIP-712 domain orders are signed for. */
  readonly orderDomain: { name: string; version: '1'; chainId: number; verifyingContract: `0x${string}` };
  close(): Promise<void>;
};

export type OpenExchangeOptions = {
  clock?: Clock;
  /** Signature-check worker threads; 0 checks in-thread. */
  verifyWorkers?: number;
  /** Called once when a commit fails and the exchange can no longer accept commands. */
  onFatal?: (error: unknown) => void;
  log?: { info(o: object, msg: string): void; error(o: object, msg: string): void };
  maxQueue?: number;
  /** How long a resolution waits for its market's fills to settle on the chain (default 15 s; tests). */
  settleWaitMs?: number;
  /**
   * The journal trading appends to instead of the store's: a leading cluster sequencer's, fenced by its
   * epoch (ADR 0018). The store's own journal is still opened and closed with the storage.
   */
  journal?: Journal;
  /** A cluster standby's state, taken over instead of a recovery when it can be (trading.ts `HotState`). */
  hot?: HotState;
  /**
   * What other nodes of a cluster do for this leading sequencer (ADR 0018; the single process does all):
   * `projector`: a projector node writes the projections (and stamps the realtime publications), so
   * nothing is projected here and recovery catches up no projector; `chain`: a chain node runs the
   * embedded chain, the settlement driver and reconciliation, whose parts (over NATS) are given here, so
   * no chain is opened here and recovery catches up no chain outbox.
   */
  elsewhere?: { projector?: boolean; chain?: ChainElsewhere };
};

/** The chain's parts as another node serves them (the chain node's, over NATS: cluster/remote-leader.ts). */
export type ChainElsewhere = Pick<Exchange, 'chain' | 'multisig' | 'settlement' | 'reconciliation'> & {
  resolveMarket: Trading['resolveMarket'];
};

const silentLog = { info() {}, error() {} };

/** The EIP-712 domain orders are signed for, and the pool that checks their signatures. */
export function orderChecks(config: Config, verifyWorkers = DEFAULT_VERIFY_WORKERS) {
  const orderDomain = {
    name: EIP712_DOMAIN_NAME,
    version: '1' as const,
    chainId: config.chainId,
    verifyingContract: config.verifyingContract,
  };
  const verifier = createVerifierPool({
    domain: orderDomain,
    size: verifyWorkers,
    inlineWhenIdle: VERIFY_INLINE_WHEN_IDLE,
    maxPending: config.maxPendingOrders,
  });
  return { orderDomain, verifier };
}

/** The legacy v2 API on trading's intake and books, until the cut-over dates. */
export function legacyApiOf(
  config: Config,
  trading: Trading,
  catalog: CatalogService,
  clock: Clock,
): LegacyApi {
  return new LegacyApi({
    trading,
    catalog,
    clock,
    chainId: config.chainId,
    verifyingContract: config.verifyingContract,
    baseToken: config.baseToken,
    minimumOrder: EXCHANGE_LIMITS.orderSizeMinimumBaseUnits,
    dates: config,
  });
}

/** Opens the exchange on its data dir, which no other process may hold meanwhile (DataDirInUse). */
export async function openExchange(config: Config, options: OpenExchangeOptions = {}): Promise<Exchange> {
  const releaseDataDir = config.dataDir === ':memory:' ? () => {} : lockDataDir(config.dataDir);
  try {
    return await openLockedExchange(config, options, releaseDataDir);
  } catch (error) {
    releaseDataDir();
    throw error;
  }
}

/** The config with its operator token: ADMIN_TOKEN, or the data dir's token file (made at the first start). */
export function withAdminToken(given: Config): {
  config: Config;
  stored: ReturnType<typeof storedAdminToken> | { token: string } | undefined;
} {
  // Never an empty token: the admin routes would accept an empty header.
  const stored = given.adminToken
    ? undefined
    : given.dataDir === ':memory:'
      ? { token: randomBytes(24).toString('base64url') }
      : storedAdminToken(given.dataDir);
  return { config: stored ? { ...given, adminToken: stored.token } : given, stored };
}

async function openLockedExchange(
  givenConfig: Config,
  options: OpenExchangeOptions,
  releaseDataDir: () => void,
): Promise<Exchange> {
  const { config, stored } = withAdminToken(givenConfig);
  const clock = options.clock ?? systemClock;
  const elsewhere = options.elsewhere ?? {};
  const storage = await openExchangeStorage(config);
  const store = storage.store;
  let access: ExchangeAccess;
  let embedded: Awaited<ReturnType<typeof openEmbeddedChain>> | null = null;
  try {
    access = await openExchangeAccess({
      config,
      store,
      shared: storage.kind === 'postgres',
      clock,
      openRevocations: (o) => storage.openRevocations(o),
      ...(options.log ? { log: options.log } : {}),
    });
  } catch (error) {
    await storage.chainStore.close?.();
    await storage.closeJournal();
    await store.close();
    throw error;
  }
  const { catalog, apiKeys, webSessions, realtimeSecret } = access;
  try {
    // Trading opens after the catalog (the demo seed fills the catalog first): until then no market is in it.
    if (config.demo && (await catalog.isEmpty())) await seedDemoCatalog(catalog, { now: clock.now() });
    if (!elsewhere.chain) {
      embedded = await openEmbeddedChain({
        store: storage.chainStore,
        multisigStore: storage.multisigStore,
        chainId: config.chainId,
        baseToken: config.baseToken,
        escrowAddress: config.verifyingContract,
        blockTimeMs: config.blockTimeMs,
        clock,
      });
    }
  } catch (error) {
    await access.close();
    await storage.chainStore.close?.();
    await storage.closeJournal();
    await store.close();
    throw error;
  }
  const chain: Chain = embedded?.chain ?? elsewhere.chain!.chain;
  const multisig: MultisigService = embedded?.multisig ?? elsewhere.chain!.multisig;
  // The chain's store is closed by the chain's stop; opened but unused when the chain node has the chain.
  const stopChain = embedded ? embedded.stop : async () => void (await storage.chainStore.close?.());
  const wallets = new Wallets(chain);
  const { orderDomain, verifier } = orderChecks(config, options.verifyWorkers);
  const log = options.log ?? silentLog;
  const journal = { journal: options.journal ?? storage.journal, close: () => storage.closeJournal() };
  const settlementSince = journal.journal.features.chainSettlement;
  let trading: Trading;
  // Follows every committed batch (trading/pipeline.ts); the chain's receipts are sequencer inputs.
  const settlement = embedded
    ? new SettlementDriver({
        chain: embedded.chain,
        feed: storage.feed,
        walletOf: (account) => wallets.proxyAddress(account as `0x${string}`),
        since: settlementSince,
        submit: (inputs) => Promise.all(trading.sequencer.submitAll(inputs)),
        onError: (error) =>
          log.error({ err: error }, 'a settlement transaction or receipt was not handed on'),
      })
    : null;
  try {
    trading = await openTrading({
      storage: await storage.openTrading({ settlementSince }),
      journal: journal.journal,
      ...(settlement ? { chain: settlement } : {}),
      elsewhere: {
        ...(elsewhere.projector ? { projector: true } : {}),
        ...(elsewhere.chain ? { chain: elsewhere.chain } : {}),
      },
      catalog,
      catalogRepository: store.catalog,
      wallets,
      verifier,
      clock,
      baseToken: config.baseToken,
      ladderSize: ladderSize(),
      onFatal: (error) => {
        log.error({ err: error }, 'a sequencer commit failed: the exchange stops taking commands');
        options.onFatal?.(error);
      },
      log,
      ...(options.maxQueue ? { maxQueue: options.maxQueue } : {}),
      ...(options.settleWaitMs ? { settleWaitMs: options.settleWaitMs } : {}),
      maxPendingOrders: config.maxPendingOrders,
      v2CutoverAt: config.v2CutoverAt,
      checkpointIntervalMs: config.checkpointIntervalMs,
      ...(options.hot ? { hot: options.hot } : {}),
    });
  } catch (error) {
    // A start refused (a checkpoint or projections that cannot be trusted): nothing is left running.
    await access.close();
    await journal.close();
    await stopChain();
    await verifier.close();
    await store.close();
    throw error;
  }
  access.setInEngine((marketHash) => trading.sequencer.marketStatus(marketHash) !== undefined);
  let reconciliation: Reconciler;
  let stopSettlement = () => {};
  let stopReconciliation = () => {};
  if (settlement) {
    // The driver starts from what the projections recorded of the journaled receipts: a projector node's
    // must have reached the journal's end first (nothing is appended meanwhile: the intake is not open).
    if (elsewhere.projector) {
      const end = trading.sequencer.lastSeq;
      await projectionsReached({
        readCursor: () => storage.projectedSeq(),
        seq: end,
        onWaiting: (projectedSeq) =>
          log.info(
            { projectedSeq, journalSeq: end },
            'the chain waits for the projector to reach the journal',
          ),
      });
    }
    // Receipts of blocks mined while the exchange was down are journaled before serving.
    stopSettlement = await settlement.start();
    await trading.reconcileResolutions();
    await settlement.drained();
    await trading.idle();
    const reconciler = new Reconciliation({
      reconcile: () => settlement.reconcile(),
      intervalMs: config.reconcileIntervalMs,
      waitMs: 10 * config.blockTimeMs + 5_000,
      now: () => clock.now(),
      log,
    });
    await reconciler.run();
    stopReconciliation = reconciler.start();
    reconciliation = reconciler;
  } else {
    reconciliation = elsewhere.chain!.reconciliation;
  }
  const legacy = legacyApiOf(config, trading, catalog, clock);
  let closed = false;
  return {
    config,
    storedAdminToken: stored && 'file' in stored ? { file: stored.file, created: stored.created } : undefined,
    clock,
    db: storage.db,
    store,
    storeKind: storage.kind,
    apiKeys,
    webSessions,
    catalog,
    realtimeSecret,
    chain,
    multisig,
    wallets,
    verifier,
    trading,
    settlement: settlement ?? elsewhere.chain!.settlement,
    reconciliation,
    legacy,
    orderDomain,
    async close() {
      if (closed) return;
      closed = true;
      // What the chain settles within a few blocks is journaled now; the rest at the next start (the chain
      // keeps the transactions and their receipts, and the driver's cursor).
      await trading.idle();
      stopReconciliation();
      await settlement?.idle(4 * config.blockTimeMs + 1_000);
      stopSettlement();
      await trading.close();
      await journal.close();
      await stopChain();
      await verifier.close();
      await access.close();
      await store.close();
      releaseDataDir();
    },
  };
}
