/**
 * The legacy WebSocket API's channel names (spec, Events): served until LEGACY_WS_SHUTDOWN_AT, each with the
 * publications of its v3 counterpart (payloads did not change). `parseChannel` knows only the v3 names; a
 * server that still serves the legacy ones parses with `parseLegacyChannel` too, and copies each v3
 * publication to the names `legacyChannelsOf` gives.
 *
 * | Legacy name | v3 counterpart |
 * | --- | --- |
 * | `active_orders_v2:{baseToken}:{maker}` | `active_orders:{maker}` |
 * | `order_book_v2:{baseToken}:{marketHash}` | `order_book:market_{marketHash}` |
 * | `best_odds:{baseToken}` | `best_odds:global` |
 * | `markets` | `markets:global` |
 * | `recent_trades` | `recent_trades:global` |
 * | `recent_trades_consolidated` | `recent_trades_consolidated:global` |
 * | `main_line` | `main_line:global` |
 * | `fixtures:fixture_update` | `fixtures:global` |
 * | `live_scores:{eventId}` | `fixtures:live_scores`, that event's scores only |
 * | `ce_refunds:{user}` | the same name in v3 |
 * | `markets:parlay` | `parlay_markets:global` |
 */
import { GLOBAL_CHANNELS, type ParsedChannel, parseChannel } from './channels.js';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const EVENT_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The legacy names without a parameter, by the v3 channel they carry. */
const PLAIN: Readonly<Record<string, string>> = {
  markets: GLOBAL_CHANNELS.markets,
  recent_trades: GLOBAL_CHANNELS.recent_trades,
  recent_trades_consolidated: GLOBAL_CHANNELS.recent_trades_consolidated,
  main_line: GLOBAL_CHANNELS.main_line,
  'fixtures:fixture_update': GLOBAL_CHANNELS.fixtures,
  'markets:parlay': GLOBAL_CHANNELS.parlay_markets,
};
const PLAIN_OF_V3 = new Map(Object.entries(PLAIN).map(([legacy, v3]) => [v3, legacy]));

const sameAddress = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * A legacy channel name classified as its v3 counterpart (same kind, namespace and owner), or undefined
 * for anything else, a name of another base token included.
 */
export function parseLegacyChannel(channel: string, baseToken: string): ParsedChannel | undefined {
  const plain = PLAIN[channel];
  if (plain !== undefined) return parseChannel(plain);
  const [namespace, ...rest] = channel.split(':');
  if (namespace === 'active_orders_v2' && rest.length === 2) {
    const [token, maker] = rest as [string, string];
    return ADDRESS.test(token) && sameAddress(token, baseToken)
      ? parseChannel(`active_orders:${maker}`)
      : undefined;
  }
  if (namespace === 'order_book_v2' && rest.length === 2) {
    const [token, marketHash] = rest as [string, string];
    return ADDRESS.test(token) && sameAddress(token, baseToken)
      ? parseChannel(`order_book:market_${marketHash}`)
      : undefined;
  }
  if (namespace === 'best_odds' && rest.length === 1) {
    const [token] = rest as [string];
    return ADDRESS.test(token) && sameAddress(token, baseToken)
      ? parseChannel(GLOBAL_CHANNELS.best_odds)
      : undefined;
  }
  if (namespace === 'live_scores' && rest.length === 1) {
    const [eventId] = rest as [string];
    return EVENT_ID.test(eventId) ? { kind: 'live_scores', namespace: 'fixtures' } : undefined;
  }
  return undefined;
}

/**
 * The legacy names a publication on v3 channel `channel` also goes to (none for the account channels,
 * which have no legacy name, and for `ce_refunds:{user}`, whose name did not change). `baseToken` is the
 * exchange's (checksummed, as legacy clients write it).
 */
export function legacyChannelsOf(channel: string, data: unknown, baseToken: string): string[] {
  const plain = PLAIN_OF_V3.get(channel);
  if (plain !== undefined) return [plain];
  if (channel === GLOBAL_CHANNELS.best_odds) return [`best_odds:${baseToken}`];
  if (channel === GLOBAL_CHANNELS.live_scores) {
    const eventId = (data as { sportXEventId?: unknown } | null)?.sportXEventId;
    return typeof eventId === 'string' && EVENT_ID.test(eventId) ? [`live_scores:${eventId}`] : [];
  }
  if (channel.startsWith('active_orders:')) return [`active_orders_v2:${baseToken}:${channel.slice(14)}`];
  if (channel.startsWith('order_book:market_')) return [`order_book_v2:${baseToken}:${channel.slice(18)}`];
  return [];
}
