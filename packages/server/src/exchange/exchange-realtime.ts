import { legacyChannelsOf, parseChannel, parseLegacyChannel } from '@oddsbook/protocol';
import { createChannelPolicy } from '../realtime/channel-policy.js';
import { createRealtimeHub, type RealtimeHub } from '../realtime/hub.js';
import type { RealtimeHubOptions, RealtimeLogger } from '../realtime/options.js';
import type { Publication } from '../realtime/publication.js';
import { createRealtimeTokenVerifier, RealtimeTokenError } from '../realtime/token.js';
import { catalogPublications } from '../trading/catalog-publications.js';
import type { ProjectedBatch } from '../trading/pipeline.js';
import { type BatchRows, TradingPublisher } from '../trading/trading-publications.js';
import type { Exchange } from './exchange.js';

export type ExchangeRealtime = {
  readonly hub: RealtimeHub;
  /** Stops publishing and closes every connection (3001: clients reconnect and recover). */
  close(): void;
};

export type ExchangeRealtimeOptions = {
  logger?: RealtimeLogger;
  /** Hub settings beyond the token check (tests shorten pings, for instance). */
  hub?: Omit<RealtimeHubOptions, 'verifyToken' | 'logger'>;
  /** Shortest time between two publications of one market's book, ms. Default: the config's. */
  bookIntervalMs?: number;
};

const SPORT_INFO_LIMIT = 100_000;

/**
 * The realtime hub of a running exchange, fed from its two sources: each committed batch once projected
 * (one `publishMany` per batch, in seq order; the chain's escrow receipts are batches' entries too), and
 * catalog changes. Publishing is synchronous and never throws into a source: a failure is logged and skipped.
 */
export function startExchangeRealtime(
  exchange: Exchange,
  options: ExchangeRealtimeOptions = {},
): ExchangeRealtime {
  const { trading, catalog, wallets, apiKeys } = exchange;
  const logger = options.logger;
  const verifySignature = createRealtimeTokenVerifier(exchange.realtimeSecret, exchange.clock);
  const { legacy } = exchange;
  const baseToken = exchange.config.baseToken;
  // The legacy channel names until LEGACY_WS_SHUTDOWN_AT (docs/legacy.md): then unknown, as any other name.
  const parse = (channel: string) =>
    parseChannel(channel) ?? (legacy.channelsOpen ? parseLegacyChannel(channel, baseToken) : undefined);
  const hub = createRealtimeHub({
    channelPolicy: createChannelPolicy({ parse }),
    maxHistoryPublications: exchange.config.realtimeHistoryMax,
    maxHistoryBytes: exchange.config.realtimeHistoryBytes,
    // A book channel opens a stream only for a market or event of the catalog.
    channelExists(channel) {
      const parsed = parse(channel);
      if (parsed?.kind === 'order_book_market')
        return catalog.getMarket(parsed.marketHash).then((market) => market !== null);
      if (parsed?.kind === 'order_book_event')
        return catalog.fixtureStatuses([parsed.eventId]).then((found) => parsed.eventId in found);
      return true;
    },
    ...options.hub,
    // On connect and on refresh: a token of a revoked key is refused (3500, the client stops); one that
    // names no key predates revocation checks and is taken for expired, so the client fetches a new one.
    verifyToken(token) {
      const identity = verifySignature(token);
      if (identity.keyId === undefined) throw new RealtimeTokenError('expired', 'token names no API key');
      if (!apiKeys.isActive(identity.keyId, identity.sub)) {
        throw new RealtimeTokenError('invalid', 'API key revoked');
      }
      return identity;
    },
    ...(logger ? { logger } : {}),
  });
  // Whoever revokes a key (operator route, account page), its open sessions end.
  const stopRevocations = apiKeys.onRevoke((record) => hub.disconnectKey(record.id));

  // Sport and league never change for a market: remembered from the catalog as it is seen.
  const sportInfo = new Map<string, { sportId: number; leagueId: number }>();
  const rememberMarket = (marketHash: string, fixture: { sportId: number; leagueId: number }) => {
    if (sportInfo.size >= SPORT_INFO_LIMIT) sportInfo.clear();
    sportInfo.set(marketHash, { sportId: fixture.sportId, leagueId: fixture.leagueId });
  };
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
    baseToken: exchange.config.baseToken,
    reads: trading.queries,
    // A channel is followed under its v3 name, or (until the shutdown) under a legacy name of it.
    observed: (channel, user) =>
      hub.observed(channel, user) ||
      (legacy.channelsOpen && legacyChannelsOf(channel, null, baseToken).some((name) => hub.observed(name))),
    bookIntervalMs: options.bookIntervalMs ?? exchange.config.realtimeBookIntervalMs,
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
  // Until LEGACY_WS_SHUTDOWN_AT each publication goes to its legacy names too (same payload).
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
    if (open && list.length > 0) hub.publishMany(withLegacyNames(list));
  };
  // Books held back by the interval go when it ends, as the published batches left them.
  let bookTimer: NodeJS.Timeout | undefined;
  const scheduleBooks = () => {
    if (bookTimer !== undefined || !open) return;
    const wait = publisher.nextBookInMs();
    if (wait === undefined) return;
    bookTimer = setTimeout(() => {
      bookTimer = undefined;
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

  return {
    hub,
    close() {
      if (!open) return;
      open = false;
      clearTimeout(bookTimer);
      trading.pipeline.setPublisher(null);
      stopCatalog();
      stopRevocations();
      hub.close();
    },
  };
}
