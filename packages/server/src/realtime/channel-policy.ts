/**
 * Who may subscribe to what, and how each namespace's streams keep history. Channel names come from
 * @oddsbook/protocol; anything its parser rejects (legacy names included) is an unknown channel.
 */
import {
  type ChannelNamespace,
  channelOwner,
  isPerUserChannel,
  type ParsedChannel,
  parseChannel,
} from '@oddsbook/protocol';
import { getAddress } from 'viem';
import type { StreamSettings } from './stream.js';

export type ChannelAccess = 'ok' | 'unknown' | 'denied';

/** Decides a request by `user` ('' for an anonymous connection) on a channel that parsed. */
export type ChannelAuthorizer = (user: string, channel: string, parsed: ParsedChannel) => ChannelAccess;

const FIVE_MINUTES = 5 * 60_000;
const MIB = 1_048_576;
const NO_HISTORY: StreamSettings = {
  historySize: 0,
  historyBytes: 0,
  historyTtlMs: 0,
  recoverable: false,
  recovery: 'stream',
};
/** Every publication kept, `historySize` of them and 4 MiB at most (each bound about twice what rows need). */
const kept = (historySize: number): StreamSettings => ({
  historySize,
  historyBytes: 4 * MIB,
  historyTtlMs: FIVE_MINUTES,
  recoverable: true,
  recovery: 'stream',
});

/**
 * History per namespace: the production sizes (anchors §1.11), retention 5 minutes. Books are whole
 * states: a book channel keeps the latest book of each market it carries (one on a market channel, one
 * per market of the event on an event channel) and recovers in cache mode; 8 MiB holds about forty books
 * of the deepest kind (1,598 levels, about 94 KB of JSON, charged 190 KB).
 */
export const DEFAULT_STREAM_SETTINGS: Readonly<Record<ChannelNamespace, StreamSettings>> = {
  account: kept(1000),
  order_book: {
    historySize: 1000,
    historyBytes: 8 * MIB,
    historyTtlMs: FIVE_MINUTES,
    recoverable: true,
    recovery: 'cache',
  },
  recent_trades: kept(2000),
  recent_trades_consolidated: kept(1000),
  markets: kept(1000),
  main_line: kept(500),
  active_orders: kept(100),
  fixtures: kept(100),
  // A burst of hedges gives a refund per fill: as deep as the account channels.
  ce_refunds: kept(1000),
  best_odds: NO_HISTORY,
  parlay_markets: NO_HISTORY,
};

/**
 * Default rule: a channel with an owner (`#` account channels, `active_orders:{maker}`,
 * `ce_refunds:{bettor}`) is for that user only; `account:fills_v3` is for any signed-in user (each
 * gets its own stream); everything else is public.
 */
export const defaultAuthorize: ChannelAuthorizer = (user, _channel, parsed) => {
  const owner = channelOwner(parsed);
  if (owner !== undefined) return owner === user ? 'ok' : 'denied';
  if (isPerUserChannel(parsed)) return user === '' ? 'denied' : 'ok';
  return 'ok';
};

export type ChannelPolicyOptions = {
  authorize?: ChannelAuthorizer;
  /** Classifies a name (default `parseChannel`: the v3 names); an exchange serving legacy names adds them. */
  parse?: (channel: string) => ParsedChannel | undefined;
  streams?: Partial<Record<ChannelNamespace, StreamSettings>>;
};

/** A channel resolved to the stream behind it. `key` differs from `channel` for per-user channels. */
export type ChannelTarget = {
  readonly channel: string;
  readonly key: string;
  readonly settings: StreamSettings;
};

export type ChannelDecision =
  | { type: 'ok'; target: ChannelTarget }
  | { type: 'unknown' }
  | { type: 'denied' };

export type ChannelPolicy = {
  /** For a client's subscribe, history or presence_stats request. */
  resolve(user: string, channel: string): ChannelDecision;
  /** For a server publication; `user` is required for per-user channels. Throws on an unknown channel. */
  publishTarget(channel: string, user?: string): ChannelTarget;
};

function streamKey(channel: string, parsed: ParsedChannel, user: string): string {
  // `#` cannot occur in a per-user channel's name, so the key cannot collide with another channel.
  return isPerUserChannel(parsed) ? `${channel}#${user}` : channel;
}

/** Publish targets remembered; past this many the memo starts over (busy channels come back at once). */
const PUBLISH_TARGET_LIMIT = 100_000;

export function createChannelPolicy(options: ChannelPolicyOptions = {}): ChannelPolicy {
  const authorize = options.authorize ?? defaultAuthorize;
  const parse = options.parse ?? parseChannel;
  const settings = { ...DEFAULT_STREAM_SETTINGS, ...options.streams };
  const target = (channel: string, parsed: ParsedChannel, user: string): ChannelTarget => ({
    channel,
    key: streamKey(channel, parsed, user),
    settings: settings[parsed.namespace],
  });
  // Parsing a channel checksums its address (a keccak hash) and every publication names one: memoized,
  // by channel for shared streams, by channel and user (as given) for per-user ones.
  const sharedTargets = new Map<string, ChannelTarget>();
  const perUserTargets = new Map<string, Map<string, ChannelTarget>>();
  let remembered = 0;
  const remember = (): void => {
    if (++remembered <= PUBLISH_TARGET_LIMIT) return;
    sharedTargets.clear();
    perUserTargets.clear();
    remembered = 1;
  };
  return {
    resolve(user, channel) {
      const parsed = parse(channel);
      if (parsed === undefined) return { type: 'unknown' };
      const access = authorize(user, channel, parsed);
      return access === 'ok' ? { type: 'ok', target: target(channel, parsed, user) } : { type: access };
    },
    publishTarget(channel, user) {
      const shared = sharedTargets.get(channel);
      if (shared !== undefined) return shared;
      let byUser = perUserTargets.get(channel);
      if (byUser !== undefined && user) {
        const known = byUser.get(user);
        if (known !== undefined) return known;
      }
      const parsed = parse(channel);
      if (parsed === undefined) throw new TypeError(`not a realtime channel: ${JSON.stringify(channel)}`);
      if (!isPerUserChannel(parsed)) {
        const found = target(channel, parsed, '');
        remember();
        sharedTargets.set(channel, found);
        return found;
      }
      if (!user) throw new TypeError(`${channel} needs the user it is for`);
      const found = target(channel, parsed, getAddress(user));
      remember();
      if (byUser === undefined) {
        byUser = new Map();
        perUserTargets.set(channel, byUser);
      }
      byUser.set(user, found);
      return found;
    },
  };
}
