/**
 * Realtime channel names: the one source of truth for builders (publishers) and the parser (the
 * realtime hub's gatekeeper). Names follow Centrifugo syntax: `namespace:rest`, and `#` in the
 * account channels is Centrifugo's user boundary (only the user after `#` may subscribe).
 *
 * Canonical parameter spellings, so that a publisher and a subscriber always name the same channel:
 * addresses are EIP-55 checksummed, market hashes are lowercase 0x-hex (32 bytes), event ids are
 * 1-64 characters of `[A-Za-z0-9_-]`. Any other spelling is not a channel (the hub answers 102).
 */
import { type Address, getAddress } from 'viem';

export const CHANNEL_NAMESPACES = [
  'account',
  'active_orders',
  'order_book',
  'best_odds',
  'markets',
  'parlay_markets',
  'recent_trades',
  'recent_trades_consolidated',
  'main_line',
  'fixtures',
  'ce_refunds',
] as const;
export type ChannelNamespace = (typeof CHANNEL_NAMESPACES)[number];

/** Channels with no parameter, by the kind the parser reports for them. */
export const GLOBAL_CHANNELS = {
  best_odds: 'best_odds:global',
  markets: 'markets:global',
  parlay_markets: 'parlay_markets:global',
  recent_trades: 'recent_trades:global',
  recent_trades_consolidated: 'recent_trades_consolidated:global',
  main_line: 'main_line:global',
  fixtures: 'fixtures:global',
  live_scores: 'fixtures:live_scores',
} as const;
export type GlobalChannelKind = keyof typeof GLOBAL_CHANNELS;

/** The connected user's own fills: one name for everyone, each connection only gets its own user's. */
export const ACCOUNT_FILLS_CHANNEL = 'account:fills_v3';

export type ParsedChannel =
  | { kind: 'account_orders'; namespace: 'account'; user: Address }
  | { kind: 'account_trades'; namespace: 'account'; user: Address }
  | { kind: 'account_fills'; namespace: 'account' }
  | { kind: 'active_orders'; namespace: 'active_orders'; maker: Address }
  | { kind: 'order_book_market'; namespace: 'order_book'; marketHash: `0x${string}` }
  | { kind: 'order_book_event'; namespace: 'order_book'; eventId: string }
  | { kind: 'ce_refunds'; namespace: 'ce_refunds'; bettor: Address }
  | { kind: GlobalChannelKind; namespace: ChannelNamespace };
export type ChannelKind = ParsedChannel['kind'];

/** Channel names as types: a builder's result names its payload (`ChannelPayload<C>` in schemas/realtime). */
export type AccountOrdersChannel = `account:orders_v3_#${string}`;
export type AccountTradesChannel = `account:trades_v3_#${string}`;
export type ActiveOrdersChannel = `active_orders:${string}`;
export type OrderBookMarketChannel = `order_book:market_${string}`;
export type OrderBookEventChannel = `order_book:event_${string}`;
export type CeRefundsChannel = `ce_refunds:${string}`;
export type GlobalChannel = (typeof GLOBAL_CHANNELS)[GlobalChannelKind];
/** Every channel name a client may subscribe to (parameters are checked by `parseChannel`, not by the type). */
export type Channel =
  | typeof ACCOUNT_FILLS_CHANNEL
  | AccountOrdersChannel
  | AccountTradesChannel
  | ActiveOrdersChannel
  | OrderBookMarketChannel
  | OrderBookEventChannel
  | CeRefundsChannel
  | GlobalChannel;

/** The kind `parseChannel` reports for a channel name, from its type. */
export type ChannelKindOf<C extends string> = C extends typeof ACCOUNT_FILLS_CHANNEL
  ? 'account_fills'
  : C extends AccountOrdersChannel
    ? 'account_orders'
    : C extends AccountTradesChannel
      ? 'account_trades'
      : C extends ActiveOrdersChannel
        ? 'active_orders'
        : C extends OrderBookMarketChannel
          ? 'order_book_market'
          : C extends OrderBookEventChannel
            ? 'order_book_event'
            : C extends CeRefundsChannel
              ? 'ce_refunds'
              : {
                  [K in GlobalChannelKind]: C extends (typeof GLOBAL_CHANNELS)[K] ? K : never;
                }[GlobalChannelKind];

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const MARKET_HASH = /^0x[0-9a-f]{64}$/;
const EVENT_ID = /^[A-Za-z0-9_-]{1,64}$/;

const ACCOUNT_ORDERS_PREFIX = 'account:orders_v3_#';
const ACCOUNT_TRADES_PREFIX = 'account:trades_v3_#';
const ACTIVE_ORDERS_PREFIX = 'active_orders:';
const BOOK_MARKET_PREFIX = 'order_book:market_';
const BOOK_EVENT_PREFIX = 'order_book:event_';
const CE_REFUNDS_PREFIX = 'ce_refunds:';

const GLOBAL_BY_NAME: ReadonlyMap<string, ParsedChannel> = new Map(
  (Object.entries(GLOBAL_CHANNELS) as [GlobalChannelKind, string][]).map(([kind, name]) => [
    name,
    { kind, namespace: name.slice(0, name.indexOf(':')) as ChannelNamespace },
  ]),
);

/** The checksummed form of `value`, or undefined when it is not exactly that. */
function checksummed(value: string): Address | undefined {
  if (!ADDRESS.test(value)) return undefined;
  const address = getAddress(value);
  return address === value ? address : undefined;
}

function canonicalAddress(value: string, what: string): Address {
  if (!ADDRESS.test(value)) throw new TypeError(`${what} is not an address: ${JSON.stringify(value)}`);
  return getAddress(value);
}

/** Classifies a channel name; undefined for anything that is not a current channel (legacy names included). */
export function parseChannel(channel: string): ParsedChannel | undefined {
  const global = GLOBAL_BY_NAME.get(channel);
  if (global) return global;
  if (channel === ACCOUNT_FILLS_CHANNEL) return { kind: 'account_fills', namespace: 'account' };
  if (channel.startsWith(ACCOUNT_ORDERS_PREFIX)) {
    const user = checksummed(channel.slice(ACCOUNT_ORDERS_PREFIX.length));
    return user && { kind: 'account_orders', namespace: 'account', user };
  }
  if (channel.startsWith(ACCOUNT_TRADES_PREFIX)) {
    const user = checksummed(channel.slice(ACCOUNT_TRADES_PREFIX.length));
    return user && { kind: 'account_trades', namespace: 'account', user };
  }
  if (channel.startsWith(ACTIVE_ORDERS_PREFIX)) {
    const maker = checksummed(channel.slice(ACTIVE_ORDERS_PREFIX.length));
    return maker && { kind: 'active_orders', namespace: 'active_orders', maker };
  }
  if (channel.startsWith(BOOK_MARKET_PREFIX)) {
    const marketHash = channel.slice(BOOK_MARKET_PREFIX.length);
    return MARKET_HASH.test(marketHash)
      ? { kind: 'order_book_market', namespace: 'order_book', marketHash: marketHash as `0x${string}` }
      : undefined;
  }
  if (channel.startsWith(BOOK_EVENT_PREFIX)) {
    const eventId = channel.slice(BOOK_EVENT_PREFIX.length);
    return EVENT_ID.test(eventId)
      ? { kind: 'order_book_event', namespace: 'order_book', eventId }
      : undefined;
  }
  if (channel.startsWith(CE_REFUNDS_PREFIX)) {
    const bettor = checksummed(channel.slice(CE_REFUNDS_PREFIX.length));
    return bettor && { kind: 'ce_refunds', namespace: 'ce_refunds', bettor };
  }
  return undefined;
}

/**
 * The one user a channel belongs to, if it belongs to one: the `#` account channels (Centrifugo's
 * user boundary) and the per-maker / per-bettor channels. Undefined for public channels and for
 * `account:fills_v3`, which every user subscribes to under the same name (see {@link isPerUserChannel}).
 */
export function channelOwner(parsed: ParsedChannel): Address | undefined {
  switch (parsed.kind) {
    case 'account_orders':
    case 'account_trades':
      return parsed.user;
    case 'active_orders':
      return parsed.maker;
    case 'ce_refunds':
      return parsed.bettor;
    default:
      return undefined;
  }
}

/** True for a channel whose name is shared while its stream is per user (each user sees only its own). */
export function isPerUserChannel(parsed: ParsedChannel): boolean {
  return parsed.kind === 'account_fills';
}

export function accountOrdersChannel(user: string): string {
  return `account:orders_v3_#${canonicalAddress(user, 'user')}`;
}

export function accountTradesChannel(user: string): string {
  return `account:trades_v3_#${canonicalAddress(user, 'user')}`;
}

export function activeOrdersChannel(maker: string): string {
  return `active_orders:${canonicalAddress(maker, 'maker')}`;
}

export function ceRefundsChannel(bettor: string): string {
  return `ce_refunds:${canonicalAddress(bettor, 'bettor')}`;
}

export function orderBookMarketChannel(marketHash: string): string {
  const hash = marketHash.toLowerCase();
  if (!MARKET_HASH.test(hash)) throw new TypeError(`not a market hash: ${JSON.stringify(marketHash)}`);
  return `order_book:market_${hash}`;
}

export function orderBookEventChannel(eventId: string): string {
  if (!EVENT_ID.test(eventId)) throw new TypeError(`not an event id: ${JSON.stringify(eventId)}`);
  return `order_book:event_${eventId}`;
}

/**
 * The channel builders with their names as types, so that a subscription knows its payload
 * (`ChannelPayload<typeof name>`): `channels.orderBookMarket(hash)` is an `OrderBookMarketChannel`. The
 * same names as the `...Channel` functions, which answer plain strings.
 */
export const channels = {
  accountOrders: (user: string) => accountOrdersChannel(user) as AccountOrdersChannel,
  accountTrades: (user: string) => accountTradesChannel(user) as AccountTradesChannel,
  accountFills: () => ACCOUNT_FILLS_CHANNEL as typeof ACCOUNT_FILLS_CHANNEL,
  activeOrders: (maker: string) => activeOrdersChannel(maker) as ActiveOrdersChannel,
  ceRefunds: (bettor: string) => ceRefundsChannel(bettor) as CeRefundsChannel,
  orderBookMarket: (marketHash: string) => orderBookMarketChannel(marketHash) as OrderBookMarketChannel,
  orderBookEvent: (eventId: string) => orderBookEventChannel(eventId) as OrderBookEventChannel,
  global: <K extends GlobalChannelKind>(kind: K) => GLOBAL_CHANNELS[kind],
} as const;
