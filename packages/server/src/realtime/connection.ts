/**
 * One client connection: handles its commands strictly in order (a frame may hold connect and the
 * first subscribes; an async token check finishes before the next command runs), queues replies and
 * pushes for the hub to flush once per event-loop turn, and runs the ping/pong, stale and expiry timers.
 */
import { randomUUID } from 'node:crypto';
import type { WebSocket } from 'ws';
import type { ChannelTarget } from './channel-policy.js';
import { DISCONNECTS, type Disconnect, ERRORS, type ProtocolError, UNSUBSCRIBES } from './codes.js';
import type { ResolvedOptions } from './options.js';
import type { StreamPublication } from './stream.js';
import { publicationsBytes, publicationsJson, subscribeResult } from './subscribe-result.js';
import { type RealtimeIdentity, RealtimeTokenError } from './token.js';
import type { Subscriber, Subscription, Topic } from './topic.js';
import {
  type ChannelRequest,
  type Command,
  type ConnectRequest,
  decodeCommands,
  encodeError,
  encodeFields,
  encodeResult,
  encodeUnsubscribePush,
  type HistoryRequest,
  PING,
  type RefreshRequest,
  type SubscribeRequest,
} from './wire.js';

/** What a connection needs from its hub. */
export type HubContext = {
  readonly options: ResolvedOptions;
  /**
   * The topic of a channel, opened if need be, about to get a subscriber (or be released at once);
   * undefined when it has no stream and no more may be opened (`maxStreams`).
   */
  openTopic(target: ChannelTarget): Topic | undefined;
  /** Whether a channel (by stream key) has a stream now. */
  hasStream(key: string): boolean;
  /** Called after a subscriber left a topic (or none was added after openTopic). */
  releaseTopic(topic: Topic): void;
  /** The connection has queued output; flush it this turn. */
  markDirty(connection: Connection): void;
  /** Write the queued output at once (before a close). */
  flushNow(connection: Connection): void;
  /** The connection is closed; drop it. */
  forget(connection: Connection): void;
  readonly counters: { pongs: number; commands: number };
};

type State = 'connecting' | 'connected' | 'closed';

const MAX_CHANNEL_LENGTH = 255;
const MAX_QUEUED_COMMANDS = 4096;
const MAX_TIMER_MS = 2 ** 31 - 1;

function isThenable<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

export class Connection implements Subscriber {
  readonly id = randomUUID();
  readonly ws: WebSocket;
  /** Output queued this turn: encoded replies and pushes, one JSON object each. */
  pending: string[] = [];
  /** Their length in UTF-16 units (about their bytes: the JSON is mostly ASCII). */
  pendingBytes = 0;
  user = '';
  /** The API key its token was issued for, if the token names one. */
  keyId: string | undefined;
  /** When the unsent output went over maxQueueBytes (performance.now()), 0 while under it. */
  overQueueSince = 0;
  private state: State = 'connecting';
  private exp = 0;
  private readonly subs = new Map<string, Subscription>();
  private readonly queue: Command[] = [];
  private busy = false;
  private awaitingPong = false;
  private pingTimer: NodeJS.Timeout | undefined;
  private pongTimer: NodeJS.Timeout | undefined;
  private lifeTimer: NodeJS.Timeout | undefined;
  private readonly hub: HubContext;
  private readonly options: ResolvedOptions;

  constructor(ws: WebSocket, hub: HubContext) {
    this.ws = ws;
    this.hub = hub;
    this.options = hub.options;
    this.lifeTimer = setTimeout(() => this.close(DISCONNECTS.stale), this.options.staleCloseDelayMs);
    ws.on('message', (data: Buffer | ArrayBuffer | Buffer[]) => this.onMessage(data));
    ws.on('close', () => this.teardown());
    ws.on('error', (err) => this.options.logger.debug({ client: this.id, err }, 'realtime socket error'));
  }

  get isClosed(): boolean {
    return this.state === 'closed';
  }

  get subscriptionCount(): number {
    return this.subs.size;
  }

  enqueue(line: string): void {
    if (this.state === 'closed') return;
    // The socket's buffer is checked after each write (the hub's flush), this turn's queue here.
    if (this.pendingBytes + line.length > this.options.maxUnsentBytes) {
      // It does not read what it is sent: nothing more is queued for it, whatever it asks or follows.
      this.abort(DISCONNECTS.slow);
      return;
    }
    if (this.pending.length === 0) this.hub.markDirty(this);
    this.pending.push(line);
    this.pendingBytes += line.length;
  }

  resubscribe(sub: Subscription): void {
    const channel = sub.topic.channel;
    if (this.subs.get(channel) !== sub) return;
    this.subs.delete(channel);
    this.enqueue(encodeUnsubscribePush(channel, UNSUBSCRIBES.insufficientState));
  }

  /** Output not yet written to the network: queued this turn plus what its socket still buffers. */
  get unsentBytes(): number {
    return this.pendingBytes + this.ws.bufferedAmount;
  }

  /** Flushes what is queued, then closes the socket with a Centrifugo disconnect code and reason. */
  close(disconnect: Disconnect): void {
    if (this.state === 'closed') return;
    this.hub.flushNow(this);
    this.options.logger.debug({ client: this.id, user: this.user, ...disconnect }, 'realtime disconnect');
    this.teardown();
    this.ws.close(disconnect.code, disconnect.reason);
  }

  /** Closes without writing what is queued (it is too much, or could not be written). */
  abort(disconnect: Disconnect): void {
    this.pending = [];
    this.pendingBytes = 0;
    this.close(disconnect);
  }

  private teardown(): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    clearTimeout(this.pingTimer);
    clearTimeout(this.pongTimer);
    clearTimeout(this.lifeTimer);
    for (const sub of this.subs.values()) this.leave(sub);
    this.subs.clear();
    this.queue.length = 0;
    this.pending = [];
    this.pendingBytes = 0;
    this.hub.forget(this);
  }

  private onMessage(data: Buffer | ArrayBuffer | Buffer[]): void {
    if (this.state === 'closed') return;
    const text = Buffer.isBuffer(data)
      ? data.toString('utf8')
      : Array.isArray(data)
        ? Buffer.concat(data).toString('utf8')
        : Buffer.from(data).toString('utf8');
    const commands = decodeCommands(text);
    // Commands queue up only while a token check is pending; bound what a client may pile up meanwhile.
    if (
      commands === undefined ||
      commands.length > this.options.maxCommandsPerFrame ||
      (this.busy && this.queue.length + commands.length > MAX_QUEUED_COMMANDS)
    ) {
      this.close(DISCONNECTS.badRequest);
      return;
    }
    for (const command of commands) this.queue.push(command);
    this.drain();
  }

  private drain(): void {
    while (!this.busy && this.queue.length > 0 && this.state !== 'closed') {
      const command = this.queue.shift()!;
      this.hub.counters.commands++;
      let pending: Promise<void> | undefined;
      try {
        pending = this.dispatch(command);
      } catch (err) {
        this.options.logger.error(
          { client: this.id, err, method: command.method },
          'realtime command failed',
        );
        this.close(DISCONNECTS.internal);
        return;
      }
      if (pending !== undefined) {
        this.busy = true;
        pending
          .catch((err) => {
            this.options.logger.error(
              { client: this.id, err, method: command.method },
              'realtime command failed',
            );
            this.close(DISCONNECTS.internal);
          })
          .finally(() => {
            this.busy = false;
            this.drain();
          });
      }
    }
  }

  /** Handles one command; returns a promise only when it had to wait (an async token check). */
  private dispatch(command: Command): Promise<void> | undefined {
    if (command.method === 'pong') {
      // A pong nobody asked for is harmless; the Go server closes for it, a Node server can be lenient.
      if (this.state === 'connected') this.onPong();
      else this.close(DISCONNECTS.badRequest);
      return undefined;
    }
    if (command.method === 'connect') {
      if (this.state !== 'connecting') {
        this.close(DISCONNECTS.badRequest);
        return undefined;
      }
      return this.handleConnect(command.id, command.req);
    }
    if (this.state !== 'connected') {
      this.close(DISCONNECTS.badRequest);
      return undefined;
    }
    switch (command.method) {
      case 'subscribe': {
        const reply = this.handleSubscribe(command.id, command.req);
        if (typeof reply === 'string') this.enqueue(reply);
        else if (reply !== undefined)
          return reply.then((line) => {
            if (line !== undefined && this.state !== 'closed') this.enqueue(line);
          });
        return undefined;
      }
      case 'unsubscribe':
        this.handleUnsubscribe(command.id, command.req);
        return undefined;
      case 'history':
        this.enqueue(this.handleHistory(command.id, command.req));
        return undefined;
      case 'presence_stats':
        this.enqueue(this.handlePresenceStats(command.id, command.req));
        return undefined;
      case 'refresh':
        return this.handleRefresh(command.id, command.req);
      case 'publish':
        // Clients never publish: only the exchange does (Centrifugo without allow_publish answers 103).
        this.replyError(command.id, this.channelError(command.req) ?? ERRORS.permissionDenied);
        return undefined;
      case 'presence':
      case 'sub_refresh':
      case 'rpc':
      case 'ping':
        this.replyError(command.id, ERRORS.notAvailable);
        return undefined;
      case 'send':
        // No asynchronous message handler: the Go server closes with 3508 so the client learns it.
        this.close(DISCONNECTS.notAvailable);
        return undefined;
    }
  }

  private reply(id: number, method: string, resultJson: string): void {
    this.enqueue(encodeResult(id, method, resultJson));
  }

  private replyError(id: number, error: ProtocolError): void {
    this.enqueue(encodeError(id, error));
  }

  // connect / refresh

  private handleConnect(id: number, req: ConnectRequest): Promise<void> | undefined {
    const token = typeof req.token === 'string' ? req.token : '';
    if (token === '') {
      if (!this.options.allowAnonymous) {
        this.close(DISCONNECTS.badRequest);
        return undefined;
      }
      this.completeConnect(id, undefined);
      return undefined;
    }
    return this.verify(
      token,
      (identity) => this.completeConnect(id, identity),
      (reason) => {
        // Expired: an error reply makes the client fetch a new token and reconnect. Invalid: terminal.
        if (reason === 'expired') this.replyError(id, ERRORS.tokenExpired);
        else this.close(DISCONNECTS.invalidToken);
      },
    );
  }

  private completeConnect(id: number, identity: RealtimeIdentity | undefined): void {
    if (this.state !== 'connecting') return;
    this.state = 'connected';
    this.user = identity?.sub ?? '';
    this.exp = identity?.exp ?? 0;
    this.keyId = identity?.keyId;
    clearTimeout(this.lifeTimer);
    this.lifeTimer = undefined;
    const { pingIntervalMs, pongTimeoutMs, version } = this.options;
    this.reply(
      id,
      'connect',
      encodeFields({
        client: this.id,
        version,
        ...this.expiry(),
        ping: pingIntervalMs > 0 ? Math.max(1, Math.round(pingIntervalMs / 1000)) : undefined,
        pong: pingIntervalMs > 0 && pongTimeoutMs > 0,
      }),
    );
    this.armExpiry();
    if (pingIntervalMs > 0) {
      // The first ping at a random point in [interval/2, interval] spreads pings of connections made together.
      this.pingTimer = setTimeout(
        () => this.ping(),
        pingIntervalMs / 2 + Math.random() * (pingIntervalMs / 2),
      );
    }
    this.options.logger.debug({ client: this.id, user: this.user }, 'realtime connect');
  }

  private expiry(): { expires?: boolean; ttl?: number } {
    if (this.exp === 0) return {};
    return { expires: true, ttl: Math.max(1, this.exp - Math.floor(this.options.clock.now() / 1000)) };
  }

  /** Closes with 3005 once exp plus the grace has passed without a refresh. */
  private armExpiry(): void {
    clearTimeout(this.lifeTimer);
    if (this.exp === 0) return;
    const delay = Math.max(0, this.exp * 1000 - this.options.clock.now() + this.options.expiredCloseDelayMs);
    // Node fires a longer timeout at once, so a far expiry is reached in steps.
    this.lifeTimer = setTimeout(
      () => (delay > MAX_TIMER_MS ? this.armExpiry() : this.close(DISCONNECTS.expired)),
      Math.min(delay, MAX_TIMER_MS),
    );
  }

  private handleRefresh(id: number, req: RefreshRequest): Promise<void> | undefined {
    const token = typeof req.token === 'string' ? req.token : '';
    if (token === '') {
      this.close(DISCONNECTS.badRequest);
      return undefined;
    }
    return this.verify(
      token,
      (identity) => {
        if (identity.sub !== this.user) {
          this.close(DISCONNECTS.invalidToken);
          return;
        }
        this.exp = identity.exp;
        this.keyId = identity.keyId;
        this.armExpiry();
        this.reply(id, 'refresh', encodeFields(this.expiry()));
      },
      (reason) => this.close(reason === 'expired' ? DISCONNECTS.expired : DISCONNECTS.invalidToken),
    );
  }

  private verify(
    token: string,
    onValid: (identity: RealtimeIdentity) => void,
    onRejected: (reason: 'expired' | 'invalid') => void,
  ): Promise<void> | undefined {
    const rejected = (err: unknown) => {
      if (this.state === 'closed') return;
      if (err instanceof RealtimeTokenError) {
        this.options.logger.debug(
          { client: this.id, reason: err.reason, msg: err.message },
          'realtime token rejected',
        );
        onRejected(err.reason);
        return;
      }
      throw err;
    };
    let result: RealtimeIdentity | Promise<RealtimeIdentity>;
    try {
      result = this.options.verifyToken(token);
    } catch (err) {
      rejected(err);
      return undefined;
    }
    if (!isThenable(result)) {
      onValid(result);
      return undefined;
    }
    return result.then((identity) => {
      if (this.state !== 'closed') onValid(identity);
    }, rejected);
  }

  // ping / pong

  private ping(): void {
    if (this.state === 'closed') return;
    this.enqueue(PING);
    const { pingIntervalMs, pongTimeoutMs } = this.options;
    if (pongTimeoutMs > 0 && !this.awaitingPong) {
      this.awaitingPong = true;
      this.pongTimer = setTimeout(() => {
        if (this.awaitingPong) this.close(DISCONNECTS.noPong);
      }, pongTimeoutMs);
    }
    this.pingTimer = setTimeout(() => this.ping(), pingIntervalMs);
  }

  private onPong(): void {
    this.hub.counters.pongs++;
    if (!this.awaitingPong) return;
    this.awaitingPong = false;
    clearTimeout(this.pongTimer);
  }

  // subscriptions

  /** 102 / 103 for a channel the user may not use, else undefined. */
  private channelError(req: ChannelRequest): ProtocolError | undefined {
    const decision = this.options.channelPolicy.resolve(this.user, String(req.channel ?? ''));
    if (decision.type === 'unknown') return ERRORS.unknownChannel;
    if (decision.type === 'denied') return ERRORS.permissionDenied;
    return undefined;
  }

  /**
   * Returns the encoded reply, or undefined when the command closed the connection; a promise of it while
   * the hub asks whether a channel without a stream names something that exists (`channelExists`).
   */
  private handleSubscribe(
    id: number,
    req: SubscribeRequest,
  ): string | Promise<string | undefined> | undefined {
    const channel = req.channel;
    if (typeof channel !== 'string' || channel === '') {
      this.close(DISCONNECTS.badRequest);
      return undefined;
    }
    if (channel.length > MAX_CHANNEL_LENGTH) return encodeError(id, ERRORS.badRequest);
    if (this.subs.has(channel)) return encodeError(id, ERRORS.alreadySubscribed);
    if (this.subs.size >= this.options.maxChannelsPerConnection) return encodeError(id, ERRORS.limitExceeded);
    const decision = this.options.channelPolicy.resolve(this.user, channel);
    if (decision.type === 'unknown') return encodeError(id, ERRORS.unknownChannel);
    if (decision.type === 'denied') return encodeError(id, ERRORS.permissionDenied);
    const target = decision.target;
    // A new stream only for a channel that names something (a market's book, not any hash): the streams
    // made-up names could open are not the exchange's to keep.
    if (this.hub.hasStream(target.key)) return this.subscribe(id, req, channel, target);
    const exists = this.options.channelExists(channel);
    if (!isThenable(exists))
      return exists ? this.subscribe(id, req, channel, target) : encodeError(id, ERRORS.unknownChannel);
    // The connection's next commands wait (it is busy) until this one is answered.
    return exists.then((known) => {
      if (this.state === 'closed') return undefined;
      return known ? this.subscribe(id, req, channel, target) : encodeError(id, ERRORS.unknownChannel);
    });
  }

  private subscribe(id: number, req: SubscribeRequest, channel: string, target: ChannelTarget): string {
    // Everything from here to the reply is synchronous: no publication can land between reading the
    // stream's position and registering the subscriber, and the reply is queued before any later push.
    const topic = this.hub.openTopic(target);
    if (topic === undefined) return encodeError(id, ERRORS.tooManyRequests);
    const outcome = subscribeResult(
      topic.stream,
      req,
      {
        maxPublications: this.options.recoveryMaxPublications,
        maxBytes: this.options.maxReplyBytes - this.unsentBytes,
      },
      this.options.clock.now(),
    );
    if (outcome.type === 'unrecoverable') {
      this.hub.releaseTopic(topic);
      return encodeError(id, ERRORS.unrecoverablePosition);
    }
    const sub: Subscription = { subscriber: this, topic, offset: topic.stream.top };
    this.subs.set(channel, sub);
    topic.subscribers.add(sub);
    return encodeResult(id, 'subscribe', outcome.resultJson);
  }

  private leave(sub: Subscription): void {
    sub.topic.subscribers.delete(sub);
    this.hub.releaseTopic(sub.topic);
  }

  private handleUnsubscribe(id: number, req: ChannelRequest): void {
    const sub = typeof req.channel === 'string' ? this.subs.get(req.channel) : undefined;
    if (sub !== undefined) {
      this.subs.delete(req.channel as string);
      this.leave(sub);
    }
    this.reply(id, 'unsubscribe', '{}');
  }

  /** History and presence stats are for subscribers of the channel (Centrifugo's `*_for_subscriber`). */
  private subscribedTopic(id: number, req: ChannelRequest): Topic | string {
    const error = this.channelError(req);
    if (error !== undefined) return encodeError(id, error);
    const sub = this.subs.get(String(req.channel));
    return sub === undefined ? encodeError(id, ERRORS.permissionDenied) : sub.topic;
  }

  private handleHistory(id: number, req: HistoryRequest): string {
    const topic = this.subscribedTopic(id, req);
    if (typeof topic === 'string') return topic;
    const stream = topic.stream;
    if (!stream.hasHistory) return encodeError(id, ERRORS.notAvailable);
    const since = req.since;
    if (since?.epoch && since.epoch !== stream.epoch) return encodeError(id, ERRORS.unrecoverablePosition);
    const max = this.options.historyMaxPublications;
    const requested = Number(req.limit ?? 0);
    const limit = requested < 0 || requested > max ? max : Math.floor(requested);
    const sinceOffset = Number(since?.offset ?? 0);
    const now = this.options.clock.now();
    let publications: readonly StreamPublication[] = [];
    if (limit > 0) {
      publications = req.reverse
        ? stream.readBefore(sinceOffset, limit, now)
        : stream.readAfter(sinceOffset, limit, now);
    }
    // Measured before the reply is built: a reply past the budget is never made.
    const bytes = publicationsBytes(publications);
    if (bytes > this.options.maxReplyBytes) return encodeError(id, ERRORS.limitExceeded);
    if (bytes + this.unsentBytes > this.options.maxReplyBytes) return encodeError(id, ERRORS.tooManyRequests);
    return encodeResult(
      id,
      'history',
      encodeFields({ publications: publicationsJson(publications), epoch: stream.epoch, offset: stream.top }),
    );
  }

  private handlePresenceStats(id: number, req: ChannelRequest): string {
    const topic = this.subscribedTopic(id, req);
    if (typeof topic === 'string') return topic;
    const users = new Set<string>();
    for (const sub of topic.subscribers) users.add((sub.subscriber as Connection).user);
    return encodeResult(
      id,
      'presence_stats',
      encodeFields({ num_clients: topic.subscribers.size, num_users: users.size }),
    );
  }
}
