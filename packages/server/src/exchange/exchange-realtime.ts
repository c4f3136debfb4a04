import { legacyChannelsOf, parseChannel, parseLegacyChannel } from '@oddsbook/protocol';
import type { ApiKeys } from '../auth/api-keys.js';
import type { CatalogService } from '../catalog/catalog-service.js';
import type { Config } from '../config/config.js';
import type { Clock } from '../lib/clock.js';
import { type ChannelPolicy, createChannelPolicy } from '../realtime/channel-policy.js';
import { createRealtimeHub, type RealtimeHub } from '../realtime/hub.js';
import type { RealtimeHubOptions, RealtimeLogger } from '../realtime/options.js';
import { createRealtimeTokenVerifier, RealtimeTokenError } from '../realtime/token.js';
import type { Exchange } from './exchange.js';
import { followExchangePublications } from './exchange-publications.js';

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

/** What a hub of the exchange's checks its tokens and channels against (the exchange, or a realtime node's store). */
export type RealtimeAccess = {
  readonly realtimeSecret: string;
  readonly clock: Clock;
  readonly apiKeys: Pick<ApiKeys, 'isActive'>;
  readonly catalog: Pick<CatalogService, 'getMarket' | 'fixtureStatuses'>;
  readonly config: Pick<Config, 'baseToken' | 'realtimeHistoryMax' | 'realtimeHistoryBytes'>;
  /** Whether the legacy channel names are still served (before LEGACY_WS_SHUTDOWN_AT). */
  legacyChannelsOpen(): boolean;
};

/** The channel names an exchange serves: the v3 names, and the legacy ones until LEGACY_WS_SHUTDOWN_AT (docs/legacy.md). */
export function exchangeChannelPolicy(
  access: Pick<RealtimeAccess, 'config' | 'legacyChannelsOpen'>,
): ChannelPolicy {
  const baseToken = access.config.baseToken;
  const parse = (channel: string) =>
    parseChannel(channel) ??
    (access.legacyChannelsOpen() ? parseLegacyChannel(channel, baseToken) : undefined);
  return createChannelPolicy({ parse });
}

/**
 * The hub settings of an exchange: its channel policy and history bounds, book channels only for the
 * catalog's markets and events, tokens signed with its secret for an API key still active.
 */
export function exchangeHubOptions(
  access: RealtimeAccess,
  options: Pick<ExchangeRealtimeOptions, 'hub' | 'logger'> = {},
): RealtimeHubOptions {
  const { catalog, apiKeys } = access;
  const verifySignature = createRealtimeTokenVerifier(access.realtimeSecret, access.clock);
  const channelPolicy = exchangeChannelPolicy(access);
  const baseToken = access.config.baseToken;
  const parse = (channel: string) =>
    parseChannel(channel) ??
    (access.legacyChannelsOpen() ? parseLegacyChannel(channel, baseToken) : undefined);
  return {
    channelPolicy,
    maxHistoryPublications: access.config.realtimeHistoryMax,
    maxHistoryBytes: access.config.realtimeHistoryBytes,
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
    ...(options.logger ? { logger: options.logger } : {}),
  };
}

/**
 * The realtime hub of a running exchange, fed from its two sources: each committed batch once projected
 * (one `publishMany` per batch, in seq order; the chain's escrow receipts are batches' entries too), and
 * catalog changes. Publishing is synchronous and never throws into a source: a failure is logged and skipped.
 */
export async function startExchangeRealtime(
  exchange: Exchange,
  options: ExchangeRealtimeOptions = {},
): Promise<ExchangeRealtime> {
  const { apiKeys, legacy, stampedPublications } = exchange;
  const logger = options.logger;
  const baseToken = exchange.config.baseToken;
  const hub = createRealtimeHub({
    ...exchangeHubOptions({ ...exchange, legacyChannelsOpen: () => legacy.channelsOpen }, options),
    ...(stampedPublications ? { numbering: 'stamped' as const } : {}),
  });
  // Whoever revokes a key (operator route, account page), its open sessions end.
  const stopRevocations = apiKeys.onRevoke((record) => hub.disconnectKey(record.id));
  let open = true;

  // An API node of a cluster: the leader's publications, numbered there (every node holds the same offsets).
  if (stampedPublications) {
    const stopFeed = await stampedPublications((publications) => {
      if (open) hub.publishStamped(publications);
    });
    return {
      hub,
      close() {
        if (!open) return;
        open = false;
        void stopFeed();
        stopRevocations();
        hub.close();
      },
    };
  }

  const stopPublications = followExchangePublications(
    exchange,
    {
      // A channel is followed under its v3 name, or (until the shutdown) under a legacy name of it.
      observed: (channel, user) =>
        hub.observed(channel, user) ||
        (legacy.channelsOpen &&
          legacyChannelsOf(channel, null, baseToken).some((name) => hub.observed(name))),
      publish: (list) => {
        if (open) hub.publishMany(list);
      },
    },
    {
      ...(logger ? { logger } : {}),
      ...(options.bookIntervalMs !== undefined ? { bookIntervalMs: options.bookIntervalMs } : {}),
    },
  );

  return {
    hub,
    close() {
      if (!open) return;
      open = false;
      stopPublications();
      stopRevocations();
      hub.close();
    },
  };
}
