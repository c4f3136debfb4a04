import type { Exchange } from '../exchange.js';
import type { FillLockUpdate } from '../orders/chain-link.js';
import { createRealtimeHub, type RealtimeHub } from './hub.js';
import type { RealtimeHubOptions, RealtimeLogger } from './options.js';
import { catalogPublications } from './publishers/catalog-publications.js';
import type { Publication } from './publishers/publication.js';
import { TradingPublisher } from './publishers/trading-publications.js';
import { createRealtimeTokenVerifier } from './token.js';

export type ExchangeRealtime = {
  readonly hub: RealtimeHub;
  /** Stops publishing and closes every connection (3001: clients reconnect and recover). */
  close(): void;
};

export type ExchangeRealtimeOptions = {
  logger?: RealtimeLogger;
  /** Hub settings beyond the token check (tests shorten pings, for instance). */
  hub?: Omit<RealtimeHubOptions, 'verifyToken' | 'logger'>;
};

const SPORT_INFO_LIMIT = 100_000;

/**
 * The realtime hub of a running exchange, fed from its three sources: each committed sequencer batch
 * (one `publishMany` per batch, in commit order), escrow lock updates from the chain link, and catalog
 * changes. Publishing is synchronous and never throws into a source: a failure is logged and skipped.
 */
export function startExchangeRealtime(
  exchange: Exchange,
  options: ExchangeRealtimeOptions = {},
): ExchangeRealtime {
  const { trading, catalog, chainLink, wallets } = exchange;
  const logger = options.logger;
  const hub = createRealtimeHub({
    ...options.hub,
    verifyToken: createRealtimeTokenVerifier(exchange.realtimeSecret, exchange.clock),
    ...(logger ? { logger } : {}),
  });

  // Sport and league never change for a market: remembered from the catalog as it is seen.
  const sportInfo = new Map<string, { sportId: number; leagueId: number }>();
  const rememberMarket = (marketHash: string, fixture: { sportId: number; leagueId: number }) => {
    if (sportInfo.size >= SPORT_INFO_LIMIT) sportInfo.clear();
    sportInfo.set(marketHash, { sportId: fixture.sportId, leagueId: fixture.leagueId });
  };
  const publisher = new TradingPublisher({
    changes: (entry) => trading.store.changesOf(entry),
    walletOf: (account) => wallets.proxyAddress(account),
    levels: (marketHash) => trading.engine.levels(marketHash),
    marketInfo(marketHash) {
      const known = sportInfo.get(marketHash);
      if (known) return known;
      const market = catalog.cachedTradingState(marketHash)?.market;
      if (!market) return undefined;
      rememberMarket(marketHash, market.fixture);
      return sportInfo.get(marketHash);
    },
    ladderSize: trading.engine.ladder.size,
  });

  let open = true;
  const publish = (source: string, map: () => Publication[]) => {
    if (!open) return;
    try {
      const publications = map();
      if (publications.length > 0) hub.publishMany(publications);
    } catch (error) {
      logger?.error({ err: error, source }, 'realtime publications failed; clients reseed from REST');
    }
  };
  // A batch is written before it is durable and published (the commit may wait for a flush off the event
  // loop). Escrow locks of its fills can land in between: they wait, so LOCKED never precedes MATCHED.
  let unpublishedBatches = 0;
  let heldLocks: FillLockUpdate[] = [];
  trading.store.onCommitTransaction(() => {
    unpublishedBatches += 1;
  });
  trading.sequencer.onCommitted((entries) => {
    unpublishedBatches = Math.max(0, unpublishedBatches - 1);
    publish('sequencer', () => publisher.batch(entries));
    if (unpublishedBatches === 0 && heldLocks.length > 0) {
      const updates = heldLocks;
      heldLocks = [];
      publish('chain', () => publisher.lockUpdates(updates));
    }
  });
  chainLink.onLockUpdates((updates) => {
    if (unpublishedBatches > 0) heldLocks.push(...updates);
    else publish('chain', () => publisher.lockUpdates(updates));
  });
  const stopCatalog = catalog.onChange((event) => {
    if (event.type === 'market') rememberMarket(event.market.marketHash, event.market.fixture);
    publish('catalog', () => catalogPublications(event));
  });

  return {
    hub,
    close() {
      if (!open) return;
      open = false;
      stopCatalog();
      hub.close();
    },
  };
}
