import { legacyChannelsOf } from '@oddsbook/protocol';
import type { RealtimeLogger } from '../realtime/options.js';
import type { Publication } from '../realtime/publication.js';
import { catalogPublications } from '../trading/catalog-publications.js';
import type { ProjectedBatch } from '../trading/pipeline.js';
import { type BatchRows, TradingPublisher } from '../trading/trading-publications.js';
import type { Exchange } from './exchange.js';

/** What the publications are made from: a whole exchange, or a projector node's replica (ADR 0018). */
export type PublishingExchange = Pick<
  Exchange,
  'config' | 'trading' | 'catalog' | 'wallets' | 'legacy' | 'clock'
>;

/** Where an exchange's publications go: the hub of the single process, or the leader's stamper (ADR 0018). */
export type PublicationSink = {
  /** Whether a publication to the channel would go anywhere (a v3 name); not asked: every one is made. */
  observed?(channel: string, user?: string): boolean;
  /** A list in order (one batch's, the books due, a catalog change's), legacy names included. */
  publish(list: Publication[]): void;
};

export type ExchangePublicationsOptions = {
  logger?: RealtimeLogger;
  /** Shortest time between two publications of one market's book, ms. Default: the config's. */
  bookIntervalMs?: number;
};

const SPORT_INFO_LIMIT = 100_000;

/** A cluster role's log (info and error) as the realtime parts log. */
export function realtimeLoggerOf(log: {
  info(o: object, msg: string): void;
  error(o: object, msg: string): void;
}): RealtimeLogger {
  return {
    debug() {},
    info: (o, msg) => log.info(o, msg ?? ''),
    warn: (o, msg) => log.error(o, msg ?? ''),
    error: (o, msg) => log.error(o, msg ?? ''),
  };
}

/**
 * The realtime publications of a running exchange, from its two sources: each committed batch once
 * projected (one list per batch, in seq order; the chain's escrow receipts are batches' entries too), and
 * catalog changes. Until LEGACY_WS_SHUTDOWN_AT each publication goes to its legacy names too. Never throws
 * into a source: a failure is logged and skipped. Returns the function that stops it.
 */
export function followExchangePublications(
  exchange: PublishingExchange,
  sink: PublicationSink,
  options: ExchangePublicationsOptions = {},
): () => void {
  const { trading, catalog, wallets, legacy } = exchange;
  const logger = options.logger;
  const baseToken = exchange.config.baseToken;
  // Sport and league never change for a market: remembered from the catalog as it is seen.
  const sportInfo = new Map<string, { sportId: number; leagueId: number }>();
  const rememberMarket = (marketHash: string, fixture: { sportId: number; leagueId: number }) => {
    if (sportInfo.size >= SPORT_INFO_LIMIT) sportInfo.clear();
    sportInfo.set(marketHash, { sportId: fixture.sportId, leagueId: fixture.leagueId });
  };
  const observed = sink.observed;
  const publisher = new TradingPublisher({
    walletOf: (account) => wallets.proxyAddress(account),
    books: trading.sequencer.books(),
    marketInfo(marketHash) {
      const known = sportInfo.get(marketHash);
      if (known) return known;
      const market = catalog.cachedTradingState(marketHash)?.market;
      if (!market) return undefined;
      rememberMarket(marketHash, market.fixture);
      return sportInfo.get(marketHash);
    },
    ladderSize: trading.sequencer.ladderSize,
    baseToken,
    reads: trading.queries,
    ...(observed ? { observed: (channel: string, user?: string) => observed(channel, user) } : {}),
    bookIntervalMs: options.bookIntervalMs ?? exchange.config.realtimeBookIntervalMs,
    quoteWindowEndsAt: (marketHash) => trading.sequencer.market(marketHash)?.parlay?.quoteWindowEndsAt,
    wallNow: () => exchange.clock.now(),
  });

  let open = true;
  const publications = (source: string, map: () => Publication[]): Publication[] => {
    try {
      return map();
    } catch (error) {
      logger?.error({ err: error, source }, 'realtime publications failed; clients reseed from REST');
      return [];
    }
  };
  const withLegacyNames = (list: Publication[]): Publication[] => {
    if (!legacy.channelsOpen) return list;
    const out: Publication[] = [];
    for (const publication of list) {
      out.push(publication);
      for (const channel of legacyChannelsOf(publication.channel, publication.data, baseToken))
        out.push({ ...publication, channel });
    }
    return out;
  };
  const publish = (list: Publication[]) => {
    if (open && list.length > 0) sink.publish(withLegacyNames(list));
  };
  // Books held back by the interval, or sealed by a parlay's quote window, go when it ends, as the
  // published batches left them. A book due sooner than the timer set moves it earlier.
  let bookTimer: NodeJS.Timeout | undefined;
  let bookTimerAt = Number.POSITIVE_INFINITY;
  const scheduleBooks = () => {
    if (!open) return;
    const wait = publisher.nextBookInMs();
    if (wait === undefined) return;
    const at = performance.now() + wait;
    if (bookTimer !== undefined) {
      if (at >= bookTimerAt) return;
      clearTimeout(bookTimer);
    }
    bookTimerAt = at;
    bookTimer = setTimeout(() => {
      bookTimer = undefined;
      bookTimerAt = Number.POSITIVE_INFINITY;
      publish(publications('books', () => publisher.dueBooks()));
      scheduleBooks();
    }, Math.ceil(wait));
    bookTimer.unref();
  };
  const publishBatch = (projected: ProjectedBatch, rows?: BatchRows) => {
    publish(publications('sequencer', () => publisher.batch(projected, rows)));
    scheduleBooks();
  };
  // Each committed batch once it is projected, in seq order (trading/pipeline.ts). A batch whose receipts
  // or resolutions read rows back waits for them, and the batches after it wait their turn.
  let reading: Promise<void> | undefined;
  trading.pipeline.setPublisher((projected) => {
    const rows = reading ? undefined : publisher.rowsOf(projected);
    if (!reading && !rows) return publishBatch(projected);
    const read = async () => {
      try {
        return await (rows ?? publisher.rowsOf(projected));
      } catch (error) {
        logger?.error({ err: error, source: 'sequencer' }, 'realtime reads failed; clients reseed from REST');
        return undefined;
      }
    };
    const turn: Promise<void> = (reading ?? Promise.resolve()).then(async () => {
      publishBatch(projected, await read());
      if (reading === turn) reading = undefined;
    });
    reading = turn;
  });
  const stopCatalog = catalog.onChange((event) => {
    if (event.type === 'market') rememberMarket(event.market.marketHash, event.market.fixture);
    publish(publications('catalog', () => catalogPublications(event)));
  });

  return () => {
    if (!open) return;
    open = false;
    clearTimeout(bookTimer);
    trading.pipeline.setPublisher(null);
    stopCatalog();
  };
}
