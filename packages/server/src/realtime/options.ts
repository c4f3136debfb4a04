import { getHeapStatistics } from 'node:v8';
import type { ChannelPolicy } from './channel-policy.js';
import type { RealtimeIdentity } from './token.js';

type LogFn = (obj: object, msg?: string) => void;
/** The part of a pino logger the hub uses. */
export type RealtimeLogger = { debug: LogFn; info: LogFn; warn: LogFn; error: LogFn };

/** Returns the identity of a token, or throws RealtimeTokenError (`expired` or `invalid`). May be async. */
export type TokenVerifier = (token: string) => RealtimeIdentity | Promise<RealtimeIdentity>;

/** The count bound of the history over all channels (the byte bound below is the one memory needs). */
export const DEFAULT_MAX_HISTORY_PUBLICATIONS = 250_000;

/** The share of V8's heap limit the history may be charged by default. */
export const HISTORY_HEAP_SHARE = 8;

/**
 * The default byte bound of the history over all channels: an eighth of this process's V8 heap limit
 * (`--max-old-space-size`, else what Node derives from the machine's memory), in whole MiB. Charged as
 * `keptBytes` (2 bytes per JSON character plus the entry), so ASCII payloads use about half of it.
 */
export function defaultMaxHistoryBytes(): number {
  const MIB = 1_048_576;
  return Math.max(1, Math.floor(getHeapStatistics().heap_size_limit / HISTORY_HEAP_SHARE / MIB)) * MIB;
}

/** Streams at most, with or without subscribers (each about 1 KB without history). */
export const DEFAULT_MAX_STREAMS = 200_000;

export type RealtimeHubOptions = {
  verifyToken: TokenVerifier;
  /** Default: createChannelPolicy() (production history sizes, owner-only account channels). */
  channelPolicy?: ChannelPolicy;
  /** WebSocket path. Default `/connection/websocket`. */
  path?: string;
  /** Server ping interval; 0 turns pings off. Default 30 s (the production counterpart's setting). */
  pingIntervalMs?: number;
  /** Close with 3012 when a ping is not answered within this; 0 asks for no pongs. Default 8 s; below the ping interval. */
  pongTimeoutMs?: number;
  /** Default 512: the 513th subscribe gets 106 "limit exceeded". */
  maxChannelsPerConnection?: number;
  /**
   * Largest inbound WebSocket message; a bigger one closes with 1009. Default 256 KiB, not Centrifugo's
   * 64 KiB: centrifuge-js sends connect and every subscribe in one message, and 512 book subscribes
   * with recovery positions take about 110 KB.
   */
  maxMessageBytes?: number;
  /**
   * A client whose unsent output stays above this for slowGraceMs (it does not read) is closed with 3008.
   * Default 1 MiB.
   */
  maxQueueBytes?: number;
  /**
   * Default 3 s. The grace lets a healthy client take a burst bigger than maxQueueBytes (a reconnect
   * recovering hundreds of channels at once) without being taken for a slow one.
   */
  slowGraceMs?: number;
  /** A socket that sends no connect within this is closed with 3502. Default 10 s. */
  staleCloseDelayMs?: number;
  /** Grace after the token's exp before an unrefreshed connection is closed with 3005. Default 25 s. */
  expiredCloseDelayMs?: number;
  /**
   * Most output a connection may have unsent (queued this turn plus buffered in its socket) for a
   * history reply or recovered publications to be given: past it a history call gets 111 "too many
   * requests" (106 "limit exceeded" when the reply alone is bigger) and a resubscribe `recovered: false`
   * (the client reseeds from REST). Bounds what one command and one frame of commands can make the
   * hub hold. Default 16 MiB.
   */
  maxReplyBytes?: number;
  /**
   * A connection whose unsent output goes past this (a client that sends commands or follows busy
   * channels faster than it reads) is closed at once with 3008 "slow", whatever slowGraceMs says.
   * Default 64 MiB; above maxReplyBytes, at most 256 MiB (a frame is one string).
   */
  maxUnsentBytes?: number;
  /** Most commands in one WebSocket message; more close the connection with 3501 "bad request". Default 1024. */
  maxCommandsPerFrame?: number;
  /** Most publications a resubscribe recovers; more missed means recovered: false. Default 1000. */
  recoveryMaxPublications?: number;
  /** Most publications one history call returns. Default 1000. */
  historyMaxPublications?: number;
  /**
   * Most publications kept for recovery and history over all channels together; past it the oldest go
   * first, whichever channel holds them. Default 250,000 (each channel's own size and 5-minute age apply too).
   */
  maxHistoryPublications?: number;
  /**
   * Most bytes kept for recovery and history over all channels together, each publication charged
   * `keptBytes` (2 bytes per JSON character plus 320); past it the oldest go first, whichever channel
   * holds them. Default `defaultMaxHistoryBytes()`: an eighth of the V8 heap limit.
   */
  maxHistoryBytes?: number;
  /**
   * Most streams (channels with a stream, followed or kept for recovery); a subscribe that needs a new one
   * past it first forgets the stream whose last follower left first, and gets 111 "too many requests"
   * (temporary: the client retries) when every stream has a follower. Default 200,000.
   */
  maxStreams?: number;
  /**
   * Most streams kept without a subscriber (for a recovery of their followers that left); past it the
   * one whose last subscriber left first is forgotten. Default maxHistoryPublications / 4: an empty
   * stream costs about 800 bytes, so 62,500 of them (the default) about 50 MB.
   */
  maxIdleStreams?: number;
  /**
   * `hub` (default): the hub numbers the publications it is given (`publish`, `publishMany`), each stream
   * under an epoch of its own. `stamped`: publications arrive numbered (`publishStamped`, a realtime node
   * of a cluster fed by the leading sequencer, ADR 0018) and every channel with history keeps a stream,
   * followed or not, within the same bounds.
   */
  numbering?: 'hub' | 'stamped';
  /** How long a stream's position outlives its last publication once nobody is subscribed. Default 24 h. */
  streamMetaTtlMs?: number;
  /** How often expired history is freed and streams past their windows are forgotten. Default 60 s. */
  sweepIntervalMs?: number;
  /**
   * Whether a channel the policy accepts names something that exists (a market's book channel: a market of
   * the catalog), asked when a subscribe would open a new stream for it; false: error 102 "unknown channel".
   * May be async (the connection's next commands wait). Bounds the streams to real channels: without it,
   * made-up market hashes open as many as `maxStreams` lets them. Default: every channel exists.
   */
  channelExists?: (channel: string) => boolean | Promise<boolean>;
  /** Accept connect without a token (user ''): public channels only. Default false. */
  allowAnonymous?: boolean;
  /** Reported as `version` in the connect reply. */
  version?: string;
  logger?: RealtimeLogger;
  /** Milliseconds; for history TTLs and expiry checks. Default Date.now. */
  clock?: { now(): number };
};

export type ResolvedOptions = Required<Omit<RealtimeHubOptions, 'channelPolicy' | 'logger'>> & {
  channelPolicy: ChannelPolicy;
  logger: RealtimeLogger;
};

const noop = () => {};
export const silentLogger: RealtimeLogger = { debug: noop, info: noop, warn: noop, error: noop };
