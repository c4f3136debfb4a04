/**
 * The realtime hub: a Centrifugo client-protocol (JSON) server over `ws`, sharing the HTTP server's
 * port at `/connection/websocket`. Publications are synchronous in-process calls, so offsets follow
 * the order of publish calls (the sequencer calls after its commit). Output to a connection is
 * queued and flushed once per event-loop turn: one WebSocket frame per client per turn, however
 * many publications it carries; a frame shared by several clients is encoded once.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import { type ChannelTarget, createChannelPolicy } from './channel-policy.js';
import { DISCONNECTS } from './codes.js';
import { Connection, type HubContext } from './connection.js';
import { HistoryBudget } from './history-budget.js';
import {
  DEFAULT_MAX_HISTORY_PUBLICATIONS,
  DEFAULT_MAX_STREAMS,
  defaultMaxHistoryBytes,
  type RealtimeHubOptions,
  type ResolvedOptions,
  silentLogger,
} from './options.js';
import type { StampedPublication } from './stamped.js';
import { ChannelStream, encodeData, isPlainObject, type StreamPublication } from './stream.js';
import type { Topic } from './topic.js';
import { PUB_PUSH_SUFFIX, pubPushPrefix } from './wire.js';

export type PublishInput = {
  channel: string;
  /**
   * Any JSON value. An object gets `messageId` added when it has none. Encoded once, when published to a
   * channel with a stream (the same object published again in one `publishMany` with the same messageId,
   * a book to its market and event channels, is encoded once).
   */
  data: unknown;
  /** Required for per-user channels (`account:fills_v3`): the checksummed EOA the publication is for. */
  user?: string;
  /** Identity for deduplication; default data.messageId, else a random UUID. */
  messageId?: string;
  /**
   * The state this publication replaces on a channel that recovers in cache mode (`order_book`: the
   * market's hash); without one, the channel's single state. Ignored by other channels; never sent.
   */
  key?: string;
};

export type PublishResult = {
  /** Stream offset; 0 on a channel without history, and on one nobody follows (see `observed`). */
  offset: number;
  epoch: string;
  messageId: string;
};

export type RealtimeHubStats = {
  connections: number;
  subscriptions: number;
  topics: number;
  /** Topics kept without a subscriber, for the recovery of the followers that left (at most maxIdleStreams). */
  idleTopics: number;
  /** Publications to channels with a stream (a followed channel); the others are dropped uncounted. */
  publications: number;
  /** Publications kept for recovery and history, over all channels. */
  historyKept: number;
  /** Bytes charged for them (at most `maxHistoryBytes`; see `keptBytes`). */
  historyBytes: number;
  /** Publications dropped from a history to keep the totals within `maxHistoryPublications` and `maxHistoryBytes`. */
  historyEvicted: number;
  /** Subscribes refused because `maxStreams` streams all had followers. */
  streamsRefused: number;
  /**
   * Stamped hubs: publications to a channel with history that could not be kept because `maxStreams`
   * streams all had followers, and streams begun again because a publication's epoch or offset did not
   * follow what the stream held (their subscribers were told to subscribe again).
   */
  stampedDropped: number;
  streamsRestarted: number;
  /** WebSocket frames written. */
  frames: number;
  /** Replies and pushes written (several share a frame). */
  messages: number;
  commands: number;
  pongs: number;
};

export type RealtimeHub = {
  /** Serves the WebSocket endpoint on this server's `upgrade` event; other upgrade paths are destroyed. */
  attach(server: Server): void;
  publish(
    channel: string,
    data: unknown,
    options?: { user?: string; messageId?: string; key?: string },
  ): PublishResult;
  /** Publishes in order; all of them go out in the same frames. */
  publishMany(inputs: readonly PublishInput[]): PublishResult[];
  /**
   * A stamped hub's publications (`numbering: 'stamped'`), in the order of their numbering. Each channel
   * with history gets a stream whether or not it is followed (within `maxStreams`, `maxIdleStreams` and
   * the history budget), so that a client coming from another node recovers here. A publication already
   * held is ignored; one whose epoch differs from its stream's, or whose offset is not the next, begins the
   * stream again at that position (what came before is not held) and its subscribers subscribe again.
   */
  publishStamped(inputs: readonly StampedPublication[]): void;
  /**
   * Whether a publication to this channel now goes anywhere: the channel has a stream, because a client
   * subscribed (or its position was asked) since the stream was last forgotten. A channel without one
   * has no subscriber and no client holding a position in it, so a publication there is dropped, not
   * kept: publishers may skip making it.
   */
  observed(channel: string, user?: string): boolean;
  /**
   * The stream position of a channel now, e.g. to send along with a REST snapshot taken in the same
   * turn: a client subscribing with that position (centrifuge-js `getState` or `since`) gets exactly the
   * publications after the snapshot. `user` for per-user channels. Offset 0 for channels without history;
   * offset 0 and epoch '' (any stream: one opened later holds only later publications) when `maxStreams`
   * streams all have followers.
   */
  position(channel: string, user?: string): { offset: number; epoch: string };
  /**
   * Closes with 3500 "invalid token" every connection whose token was issued for this API key (it was
   * revoked: the client stops, and its next token request fails); returns how many.
   */
  disconnectKey(keyId: string): number;
  /** Closes every connection with 3001 "shutdown" (clients reconnect and recover) and detaches. */
  close(): void;
  stats(): RealtimeHubStats;
};

const TEXT_FRAME = { binary: false } as const;
const MIB = 1_048_576;

function resolveOptions(options: RealtimeHubOptions): ResolvedOptions {
  const pingIntervalMs = options.pingIntervalMs ?? 30_000;
  const pongTimeoutMs = options.pongTimeoutMs ?? 8_000;
  if (pingIntervalMs > 0 && pongTimeoutMs >= pingIntervalMs) {
    throw new RangeError('pongTimeoutMs must be shorter than pingIntervalMs');
  }
  const maxReplyBytes = options.maxReplyBytes ?? 16 * MIB;
  const maxUnsentBytes = options.maxUnsentBytes ?? 64 * MIB;
  // One connection's output of a turn becomes one string: far below V8's limit (about 512 MiB).
  if (!(maxReplyBytes > 0 && maxReplyBytes < maxUnsentBytes && maxUnsentBytes <= 256 * MIB)) {
    throw new RangeError('need 0 < maxReplyBytes < maxUnsentBytes <= 256 MiB');
  }
  return {
    verifyToken: options.verifyToken,
    channelPolicy: options.channelPolicy ?? createChannelPolicy(),
    path: options.path ?? '/connection/websocket',
    pingIntervalMs,
    pongTimeoutMs,
    maxChannelsPerConnection: options.maxChannelsPerConnection ?? 512,
    maxMessageBytes: options.maxMessageBytes ?? 262_144,
    maxQueueBytes: options.maxQueueBytes ?? MIB,
    maxReplyBytes,
    maxUnsentBytes,
    maxCommandsPerFrame: options.maxCommandsPerFrame ?? 1024,
    slowGraceMs: options.slowGraceMs ?? 3000,
    staleCloseDelayMs: options.staleCloseDelayMs ?? 10_000,
    expiredCloseDelayMs: options.expiredCloseDelayMs ?? 25_000,
    recoveryMaxPublications: options.recoveryMaxPublications ?? 1000,
    historyMaxPublications: options.historyMaxPublications ?? 1000,
    maxHistoryPublications: options.maxHistoryPublications ?? DEFAULT_MAX_HISTORY_PUBLICATIONS,
    maxHistoryBytes: options.maxHistoryBytes ?? defaultMaxHistoryBytes(),
    maxStreams: options.maxStreams ?? DEFAULT_MAX_STREAMS,
    numbering: options.numbering ?? 'hub',
    maxIdleStreams:
      options.maxIdleStreams ??
      Math.ceil((options.maxHistoryPublications ?? DEFAULT_MAX_HISTORY_PUBLICATIONS) / 4),
    streamMetaTtlMs: options.streamMetaTtlMs ?? 24 * 3_600_000,
    sweepIntervalMs: options.sweepIntervalMs ?? 60_000,
    allowAnonymous: options.allowAnonymous ?? false,
    channelExists: options.channelExists ?? (() => true),
    version: options.version ?? '0.1.0',
    logger: options.logger ?? silentLogger,
    clock: options.clock ?? { now: () => Date.now() },
  };
}

/** The publication's messageId: the explicit one, else `data.messageId` (a string), else a random UUID. */
export function messageIdOf(data: unknown, explicitId: string | undefined): string {
  const inData = isPlainObject(data) && typeof data.messageId === 'string' ? data.messageId : undefined;
  if (explicitId !== undefined && inData !== undefined && explicitId !== inData) {
    throw new TypeError(`messageId ${explicitId} differs from data.messageId ${inData}`);
  }
  return explicitId ?? inData ?? randomUUID();
}

export function createRealtimeHub(hubOptions: RealtimeHubOptions): RealtimeHub {
  const options = resolveOptions(hubOptions);
  const { logger, clock, channelPolicy } = options;
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: options.maxMessageBytes,
    perMessageDeflate: false,
    clientTracking: false,
    // JSON only: no sub-protocol, or `centrifuge-json` if asked; a client asking only for Protobuf gets none and fails fast.
    handleProtocols: (protocols) => (protocols.has('centrifuge-json') ? 'centrifuge-json' : false),
  });
  const connections = new Set<Connection>();
  const topics = new Map<string, Topic>();
  /** Topics without a subscriber, in the order their last subscriber left (oldest first). */
  const idle = new Map<string, Topic>();
  const servers = new Set<Server>();
  let dirty: Connection[] = [];
  let flushScheduled = false;
  let closed = false;
  const counters = {
    pongs: 0,
    commands: 0,
    publications: 0,
    frames: 0,
    messages: 0,
    streamsRefused: 0,
    stampedDropped: 0,
    streamsRestarted: 0,
  };
  const stamped = options.numbering === 'stamped';
  const historyBudget = new HistoryBudget(options.maxHistoryPublications, options.maxHistoryBytes);

  // Clients with identical output this turn (typically every subscriber of one busy channel) share one encoded frame.
  let memoLines: string[] | undefined;
  let memoFrame: Buffer | undefined;

  function write(conn: Connection): void {
    const lines = conn.pending;
    const count = lines.length;
    if (count === 0) return;
    let frame: Buffer;
    if (memoLines !== undefined && memoLines.length === count && sameLines(memoLines, lines)) {
      frame = memoFrame!;
      lines.length = 0;
    } else {
      frame = Buffer.from(count === 1 ? lines[0]! : lines.join('\n'));
      // The memo keeps this array, so the connection gets a new one.
      memoLines = lines;
      memoFrame = frame;
      conn.pending = [];
    }
    conn.pendingBytes = 0;
    if (conn.isClosed || conn.ws.readyState !== conn.ws.OPEN) return;
    counters.frames++;
    counters.messages += count;
    conn.ws.send(frame, TEXT_FRAME);
    const buffered = conn.ws.bufferedAmount;
    if (buffered <= options.maxQueueBytes) conn.overQueueSince = 0;
    else if (buffered > options.maxUnsentBytes) conn.close(DISCONNECTS.slow);
    else if (conn.overQueueSince === 0) conn.overQueueSince = performance.now();
    else if (performance.now() - conn.overQueueSince > options.slowGraceMs) conn.close(DISCONNECTS.slow);
  }

  function sameLines(a: string[], b: string[]): boolean {
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }

  function flush(): void {
    flushScheduled = false;
    const batch = dirty;
    dirty = [];
    for (const conn of batch) {
      try {
        write(conn);
      } catch (err) {
        // Whatever goes wrong with one connection's output ends that connection, not the process.
        logger.error({ client: conn.id, err }, 'realtime write failed');
        conn.abort(DISCONNECTS.internal);
      }
    }
    memoLines = undefined;
    memoFrame = undefined;
  }

  function forget(topic: Topic): void {
    topic.stream.clear();
    topics.delete(topic.key);
    idle.delete(topic.key);
  }

  /**
   * Frees expired history, and forgets a stream without subscribers once it has been so for its history
   * TTL (its recovery window) and either never published or not for streamMetaTtlMs.
   */
  function sweep(): void {
    const now = clock.now();
    const cutoff = now - options.streamMetaTtlMs;
    for (const topic of topics.values()) {
      const stream = topic.stream;
      if (
        topic.subscribers.size === 0 &&
        now - topic.idleSince >= stream.settings.historyTtlMs &&
        (stream.top === 0 || stream.lastPublishAt < cutoff)
      ) {
        forget(topic);
      } else stream.expire(now);
    }
  }
  const sweepTimer = setInterval(sweep, options.sweepIntervalMs);
  sweepTimer.unref();

  /** A new topic, when `maxStreams` leaves room (the stream whose last follower left first makes it). */
  function newTopic(target: ChannelTarget, stream: ChannelStream): Topic | undefined {
    if (topics.size >= options.maxStreams) {
      const oldestIdle = idle.values().next().value;
      if (oldestIdle === undefined) return undefined;
      forget(oldestIdle);
    }
    const topic: Topic = {
      key: target.key,
      channel: target.channel,
      stream,
      pushPrefix: pubPushPrefix(target.channel),
      subscribers: new Set(),
      idleSince: 0,
    };
    topics.set(target.key, topic);
    return topic;
  }

  /** A topic without subscribers joins the idle ones (the newest), within `maxIdleStreams`. */
  function makeIdle(topic: Topic, now: number): void {
    topic.idleSince = now;
    idle.delete(topic.key);
    idle.set(topic.key, topic);
    while (idle.size > options.maxIdleStreams) forget(idle.values().next().value!);
  }

  const context: HubContext = {
    options,
    counters,
    openTopic(target: ChannelTarget): Topic | undefined {
      let topic = topics.get(target.key);
      if (topic === undefined) {
        // A stamped hub that has not seen the channel yet does not know its numbering: the stream opens
        // with an epoch of its own, and the first stamped publication begins it again (ADR 0018).
        topic = newTopic(target, new ChannelStream(target.settings, clock.now(), undefined, historyBudget));
        if (topic === undefined) {
          counters.streamsRefused++;
          return undefined;
        }
      } else if (idle.delete(topic.key)) topic.idleSince = 0;
      return topic;
    },
    hasStream(key: string): boolean {
      return topics.has(key);
    },
    releaseTopic(topic: Topic): void {
      if (topic.subscribers.size > 0) return;
      // Nothing to recover from a stream without history.
      if (!topic.stream.hasHistory) {
        forget(topic);
        return;
      }
      // Kept (and so still observed: publications go on being kept) for the recovery of the followers
      // that left, even if it never published: a client holds its epoch and offset 0.
      makeIdle(topic, clock.now());
    },
    markDirty(conn: Connection): void {
      dirty.push(conn);
      if (!flushScheduled) {
        flushScheduled = true;
        setImmediate(flush);
      }
    },
    flushNow(conn: Connection): void {
      write(conn);
    },
    forget(conn: Connection): void {
      connections.delete(conn);
    },
  };

  function onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = req.url ?? '';
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    if (path !== options.path || closed) {
      socket.destroy();
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws: WebSocket) => {
      if (closed) {
        ws.close(DISCONNECTS.shutdown.code, DISCONNECTS.shutdown.reason);
        return;
      }
      connections.add(new Connection(ws, context));
    });
  }

  // The last encoding, for the same data published again at once under the same id (a book to its
  // market and event channels).
  let encodedData: unknown;
  let encodedId: string | undefined;
  let encodedJson = '';

  function publishOne(
    channel: string,
    data: unknown,
    user: string | undefined,
    explicitId: string | undefined,
    key: string | undefined,
    now: number,
  ): PublishResult {
    const target = channelPolicy.publishTarget(channel, user);
    const messageId = messageIdOf(data, explicitId);
    const topic = topics.get(target.key);
    // No stream: nobody subscribed since it was last forgotten, so no client holds a position in it that
    // this publication could complete (a stream's epoch is drawn when it opens). Nothing to send or keep.
    if (topic === undefined) return { offset: 0, epoch: '', messageId };
    // Encoded before it counts: data JSON refuses throws here, with nothing appended.
    if (data !== encodedData || messageId !== encodedId || encodedData === undefined) {
      encodedJson = encodeData(data, messageId);
      encodedData = data;
      encodedId = messageId;
    }
    const pub = append(topic, encodedJson, now, messageId, key);
    return { offset: pub.offset, epoch: topic.stream.epoch, messageId };
  }

  /** Appends to the topic's stream and queues the publication for its subscribers. */
  function append(
    topic: Topic,
    dataJson: string,
    now: number,
    messageId: string,
    key: string | undefined,
  ): StreamPublication {
    counters.publications++;
    const pub = topic.stream.appendJson(dataJson, now, messageId, key);
    if (topic.subscribers.size > 0) {
      const line = topic.pushPrefix + pub.json + PUB_PUSH_SUFFIX;
      for (const sub of topic.subscribers) {
        if (pub.offset > 0) {
          if (pub.offset <= sub.offset) continue;
          sub.offset = pub.offset;
        }
        sub.subscriber.enqueue(line);
      }
    }
    return pub;
  }

  /**
   * The stream of a stamped publication's channel, begun again at its position when the numbering moved
   * under it (a new epoch: a new leader, or a channel the leader forgot; or a gap: a publication that
   * never arrived). Its subscribers hold positions it no longer serves: they subscribe again.
   */
  function stampedTopic(target: ChannelTarget, input: StampedPublication, now: number): Topic | undefined {
    const topic = topics.get(target.key);
    const begin = () => new ChannelStream(target.settings, now, input.epoch, historyBudget, input.offset - 1);
    if (topic === undefined) {
      const opened = newTopic(target, begin());
      if (opened !== undefined) makeIdle(opened, now);
      return opened;
    }
    const stream = topic.stream;
    if (stream.epoch === input.epoch && input.offset === stream.top + 1) return topic;
    counters.streamsRestarted++;
    stream.clear();
    topic.stream = begin();
    if (topic.subscribers.size > 0) {
      for (const sub of topic.subscribers) sub.subscriber.resubscribe(sub);
      topic.subscribers.clear();
      makeIdle(topic, now);
    }
    return topic;
  }

  function publishStampedOne(input: StampedPublication, now: number): void {
    let target: ChannelTarget;
    try {
      target = channelPolicy.publishTarget(input.channel, input.user);
    } catch {
      // A channel this node does not serve (the legacy names once shut down here): nobody can follow it.
      counters.stampedDropped++;
      return;
    }
    if (target.settings.historySize === 0 || input.offset === 0) {
      // No numbering to follow: as a local publication, to followers only.
      const topic = topics.get(target.key);
      if (topic !== undefined) append(topic, input.dataJson, now, input.messageId, input.key);
      return;
    }
    const known = topics.get(target.key)?.stream;
    // Held already (a message delivered again): nothing to do.
    if (known !== undefined && known.epoch === input.epoch && input.offset <= known.top) return;
    const topic = stampedTopic(target, input, now);
    if (topic === undefined) {
      counters.stampedDropped++;
      return;
    }
    append(topic, input.dataJson, now, input.messageId, input.key);
    // Streams nobody follows are forgotten in the order they last published.
    if (topic.subscribers.size === 0) makeIdle(topic, now);
  }

  return {
    attach(server: Server): void {
      if (servers.has(server)) return;
      servers.add(server);
      server.on('upgrade', onUpgrade);
    },
    publish(channel, data, publishOptions) {
      if (stamped) throw new TypeError('a stamped hub takes stamped publications only (publishStamped)');
      try {
        return publishOne(
          channel,
          data,
          publishOptions?.user,
          publishOptions?.messageId,
          publishOptions?.key,
          clock.now(),
        );
      } finally {
        encodedData = undefined;
      }
    },
    publishMany(inputs) {
      if (stamped) throw new TypeError('a stamped hub takes stamped publications only (publishStamped)');
      const now = clock.now();
      const results: PublishResult[] = new Array(inputs.length);
      try {
        for (let i = 0; i < inputs.length; i++) {
          const input = inputs[i]!;
          results[i] = publishOne(input.channel, input.data, input.user, input.messageId, input.key, now);
        }
      } finally {
        // Not kept past the call: the data may be changed once published.
        encodedData = undefined;
      }
      return results;
    },
    publishStamped(inputs) {
      if (!stamped) throw new TypeError('a hub that numbers its publications takes no stamped ones');
      const now = clock.now();
      for (const input of inputs) publishStampedOne(input, now);
    },
    observed(channel, user) {
      return topics.has(channelPolicy.publishTarget(channel, user).key);
    },
    position(channel, user) {
      const target = channelPolicy.publishTarget(channel, user);
      if (target.settings.historySize === 0) return { offset: 0, epoch: '' };
      const topic = context.openTopic(target);
      if (topic === undefined) return { offset: 0, epoch: '' };
      const position = topic.stream.position;
      context.releaseTopic(topic);
      return position;
    },
    disconnectKey(keyId) {
      let count = 0;
      for (const conn of [...connections]) {
        if (conn.keyId !== keyId) continue;
        conn.close(DISCONNECTS.invalidToken);
        count++;
      }
      if (count > 0) logger.info({ keyId, connections: count }, 'realtime sessions of a revoked key closed');
      return count;
    },
    close(): void {
      if (closed) return;
      closed = true;
      clearInterval(sweepTimer);
      for (const server of servers) server.off('upgrade', onUpgrade);
      servers.clear();
      for (const conn of [...connections]) conn.close(DISCONNECTS.shutdown);
      wss.close();
      logger.info({}, 'realtime hub closed');
    },
    stats(): RealtimeHubStats {
      let subscriptions = 0;
      for (const conn of connections) subscriptions += conn.subscriptionCount;
      return {
        connections: connections.size,
        subscriptions,
        topics: topics.size,
        idleTopics: idle.size,
        publications: counters.publications,
        historyKept: historyBudget.kept,
        historyBytes: historyBudget.bytes,
        historyEvicted: historyBudget.evicted,
        streamsRefused: counters.streamsRefused,
        stampedDropped: counters.stampedDropped,
        streamsRestarted: counters.streamsRestarted,
        frames: counters.frames,
        messages: counters.messages,
        commands: counters.commands,
        pongs: counters.pongs,
      };
    },
  };
}
