import type { Channel, ChannelPayload } from '@oddsbook/protocol';
import {
  type ConnectResult,
  decodeFrame,
  isTerminalClose,
  type Reply,
  type StreamPosition,
  type SubscribeResult,
  TEMPORARY_ERRORS,
  TOKEN_EXPIRED,
  type WireError,
  type WirePublication,
} from './wire.js';

/** The part of a WebSocket the connection uses (the browser's, Node 22's, or the `ws` package's). */
export type WebSocketLike = {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
};
export type WebSocketConstructor = new (url: string) => WebSocketLike;

const OPEN = 1;

/** A refusal by the realtime server: a reply error (1xx) or a close code (3xxx). */
export class RealtimeError extends Error {
  override name = 'RealtimeError';
  constructor(
    readonly code: number,
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super(`${code}: ${message}`, options);
  }
}

/**
 * What a subscription reports, in order:
 * - `subscribed`: (re)subscribed; `recovered: false` means publications may have been missed (the first
 *   subscribe, history gone, a server restart): reseed what you hold from REST.
 * - `publication`: one publication, typed by the channel's name (`ChannelPayload<C>`).
 * - `gap`: publications were missed while subscribed (an offset jumped, or an iterator fell too far
 *   behind): reseed from REST.
 * - `interrupted`: the connection dropped; the subscription is sent again (recovering) once it is back.
 * - `unsubscribed`: the server refused the subscription for good (e.g. 103 permission denied), or the
 *   connection was closed for good (a revoked key: 3500). Nothing follows.
 */
export type ChannelEvent<C extends Channel> =
  | { type: 'subscribed'; recovered: boolean; wasRecovering: boolean; position: StreamPosition | null }
  | {
      type: 'publication';
      data: ChannelPayload<C>;
      offset: number | undefined;
      messageId: string | undefined;
    }
  | { type: 'gap'; reason: 'offset' | 'overflow' }
  | { type: 'interrupted' }
  | { type: 'unsubscribed'; error: RealtimeError };

export type RealtimeState = 'disconnected' | 'connecting' | 'connected' | 'closed';

export type RealtimeOptions = {
  /** ws(s)://host:port/connection/websocket */
  url: string;
  /** A connection token (`GET /user/realtime-token-v3/api-key`); a 401/403 stops the connection for good. */
  getToken: () => Promise<string>;
  WebSocket?: WebSocketConstructor | undefined;
  /** Reconnect backoff (full jitter): min and max wait. Defaults 500 ms and 20 s. */
  minReconnectDelayMs?: number;
  maxReconnectDelayMs?: number;
  /** A command without a reply after this long drops the connection (it reconnects). Default 10 s. */
  commandTimeoutMs?: number;
  /** Events an iterator may hold unread before it drops them for a `gap` (default 10,000). */
  maxBufferedEvents?: number;
};

type Listener<C extends Channel> = (event: ChannelEvent<C>) => void;

/** Whether a failure to get a token is for good (the API key is refused). */
function isRefusal(error: unknown): boolean {
  const status = (error as { status?: unknown })?.status;
  return status === 401 || status === 403;
}

/** One channel followed over the connection: its stream position, its listeners and iterators. */
export class ChannelSubscription<C extends Channel> implements AsyncIterable<ChannelEvent<C>> {
  state: 'subscribing' | 'subscribed' | 'unsubscribed' = 'subscribing';
  /** The last offset and epoch processed, for recovery; null for a channel without positions. */
  position: StreamPosition | null = null;
  private recoverable = false;
  /** How many `subscribe` calls hold it: the channel is left when the last lets go. */
  refs = 1;
  private readonly listeners = new Set<Listener<C>>();
  private readonly iterators = new Set<{
    queue: ChannelEvent<C>[];
    wake: (() => void) | null;
    done: boolean;
  }>();

  constructor(
    readonly channel: C,
    private readonly connection: RealtimeConnection,
    private readonly maxBuffered: number,
  ) {}

  /** Calls `listener` with every later event; returns the function that stops it. */
  on(listener: Listener<C>): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Lets go of the channel; the last holder's call leaves it (and ends its iterators). */
  unsubscribe(): void {
    if (this.state === 'unsubscribed') return;
    if (--this.refs > 0) return;
    this.state = 'unsubscribed';
    this.connection.forget(this);
    this.end();
  }

  /** The subscribe command, recovering from the held position when the channel has one. */
  command(): Record<string, unknown> {
    const subscribe: Record<string, unknown> = { channel: this.channel, positioned: true, recoverable: true };
    if (this.recoverable && this.position) {
      subscribe.recover = true;
      if (this.position.offset > 0) subscribe.offset = this.position.offset;
      if (this.position.epoch) subscribe.epoch = this.position.epoch;
    }
    return { subscribe };
  }

  subscribed(result: SubscribeResult): void {
    if (this.state === 'unsubscribed') return;
    this.state = 'subscribed';
    this.recoverable = result.recoverable === true;
    this.position =
      result.recoverable || result.positioned
        ? { offset: result.offset ?? 0, epoch: result.epoch ?? '' }
        : null;
    this.emit({
      type: 'subscribed',
      recovered: result.recovered === true,
      wasRecovering: result.was_recovering === true,
      position: this.position && { ...this.position },
    });
    for (const pub of result.publications ?? []) {
      if (this.position && pub.offset) this.position.offset = pub.offset;
      this.deliver(pub);
    }
  }

  /** A live publication: a duplicate is dropped, a jump in offsets is reported as a gap first. */
  published(pub: WirePublication): void {
    if (this.state !== 'subscribed') return;
    if (this.position && pub.offset) {
      if (pub.offset <= this.position.offset) return;
      if (pub.offset > this.position.offset + 1) this.emit({ type: 'gap', reason: 'offset' });
      this.position.offset = pub.offset;
    }
    this.deliver(pub);
  }

  /** The connection dropped: the subscription waits to be sent again, with its position. */
  interrupted(): void {
    if (this.state !== 'subscribed') return;
    this.state = 'subscribing';
    this.emit({ type: 'interrupted' });
  }

  failed(error: RealtimeError): void {
    if (this.state === 'unsubscribed') return;
    this.state = 'unsubscribed';
    this.connection.forget(this);
    this.emit({ type: 'unsubscribed', error });
    this.end();
  }

  private deliver(pub: WirePublication): void {
    const data = pub.data as ChannelPayload<C>;
    const messageId =
      pub.tags?.messageId ??
      (data && typeof data === 'object' && 'messageId' in data ? String(data.messageId) : undefined);
    this.emit({ type: 'publication', data, offset: pub.offset, messageId });
  }

  private emit(event: ChannelEvent<C>): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        // A listener's failure is its own: the others and the connection go on.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
    for (const it of this.iterators) {
      if (it.queue.length >= this.maxBuffered)
        it.queue.splice(0, it.queue.length, { type: 'gap', reason: 'overflow' });
      it.queue.push(event);
      it.wake?.();
    }
  }

  private end(): void {
    for (const it of this.iterators) {
      it.done = true;
      it.wake?.();
    }
  }

  /** Every later event, in order; a reader too far behind gets a `gap` in place of what it missed. */
  [Symbol.asyncIterator](): AsyncIterator<ChannelEvent<C>> {
    const it = {
      queue: [] as ChannelEvent<C>[],
      wake: null as (() => void) | null,
      done: this.state === 'unsubscribed',
    };
    this.iterators.add(it);
    const finish = (): IteratorReturnResult<undefined> => {
      this.iterators.delete(it);
      return { done: true, value: undefined };
    };
    return {
      next: async () => {
        for (;;) {
          const event = it.queue.shift();
          if (event) return { done: false, value: event };
          if (it.done) return finish();
          await new Promise<void>((resolve) => {
            it.wake = resolve;
          });
          it.wake = null;
        }
      },
      return: async () => finish(),
    };
  }
}

/**
 * A realtime connection to the exchange (Centrifugo protocol v2, JSON): connects on the first subscription,
 * refreshes its token before it expires, answers pings, reconnects with backoff and resubscribes each
 * channel from the position it reached (recovering what it missed when the server still has it).
 */
export class RealtimeConnection {
  private ws: WebSocketLike | undefined;
  private stateValue: RealtimeState = 'disconnected';
  private nextId = 1;
  private readonly pending = new Map<
    number,
    { onReply: (reply: Reply) => void; timer: ReturnType<typeof setTimeout> }
  >();
  private readonly subs = new Map<string, ChannelSubscription<Channel>>();
  private readonly stateListeners = new Set<(state: RealtimeState, error?: unknown) => void>();
  private attempt = 0;
  private reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  private refreshTimer: ReturnType<typeof setTimeout> | undefined;
  private livenessTimer: ReturnType<typeof setTimeout> | undefined;
  private livenessMs = 0;
  private pong = false;
  private connected = false;
  /** Why the connection stopped for good, once it has. */
  error: unknown;

  constructor(private readonly options: RealtimeOptions) {}

  get state(): RealtimeState {
    return this.stateValue;
  }

  /** Calls `listener` on each state change (with the error when it stops for good). */
  onState(listener: (state: RealtimeState, error?: unknown) => void): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }

  /**
   * Follows `channel` (connecting if needed). One subscription per channel name: a second call shares the
   * first's (each `unsubscribe()` lets go of one).
   */
  subscribe<C extends Channel>(channel: C): ChannelSubscription<C> {
    if (this.stateValue === 'closed') throw new RealtimeError(0, 'the realtime connection is closed');
    const existing = this.subs.get(channel);
    if (existing && existing.state !== 'unsubscribed') {
      existing.refs++;
      return existing as unknown as ChannelSubscription<C>;
    }
    const sub = new ChannelSubscription(channel, this, this.options.maxBufferedEvents ?? 10_000);
    this.subs.set(channel, sub as unknown as ChannelSubscription<Channel>);
    if (this.stateValue === 'disconnected' && !this.reconnectTimer) void this.open();
    // Once the socket is open (the connect sent), a subscribe goes at once: the server handles it after.
    else if (this.ws?.readyState === OPEN) this.sendSubscribe(sub as unknown as ChannelSubscription<Channel>);
    return sub;
  }

  /** Called by a subscription that ends: the server stops sending it. */
  forget(sub: ChannelSubscription<Channel> | ChannelSubscription<never>): void {
    const s = sub as unknown as ChannelSubscription<Channel>;
    if (this.subs.get(s.channel) !== s) return;
    this.subs.delete(s.channel);
    if (this.ws?.readyState === OPEN) this.send([{ id: this.id(), unsubscribe: { channel: s.channel } }]);
  }

  /** Closes the connection for good; every subscription ends. */
  close(): void {
    if (this.stateValue === 'closed') return;
    this.setState('closed');
    clearTimeout(this.reconnectTimer);
    const ws = this.ws;
    this.teardown();
    if (ws) this.detach(ws, 1000, 'client closed');
    for (const sub of [...this.subs.values()]) {
      sub.refs = 1;
      sub.unsubscribe();
    }
  }

  private setState(state: RealtimeState, error?: unknown): void {
    if (this.stateValue === state) return;
    this.stateValue = state;
    for (const listener of this.stateListeners) listener(state, error);
  }

  private id(): number {
    return this.nextId++;
  }

  private async webSocketClass(): Promise<WebSocketConstructor> {
    if (this.options.WebSocket) return this.options.WebSocket;
    const global = (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    if (typeof global === 'function') return global;
    const module = (await import('ws')) as unknown as {
      default?: WebSocketConstructor;
      WebSocket?: WebSocketConstructor;
    };
    return (module.default ?? module.WebSocket)!;
  }

  private async open(): Promise<void> {
    this.reconnectTimer = undefined;
    if (this.stateValue === 'closed') return;
    this.setState('connecting');
    let token: string;
    let WS: WebSocketConstructor;
    try {
      [token, WS] = await Promise.all([this.options.getToken(), this.webSocketClass()]);
    } catch (error) {
      // A refused key, or none at all (a TypeError from the client): nothing to retry.
      if (isRefusal(error) || error instanceof TypeError) return this.fail(error);
      return this.scheduleReconnect();
    }
    // close() may have run while the token was fetched.
    if ((this.stateValue as RealtimeState) === 'closed') return;
    let ws: WebSocketLike;
    try {
      ws = new WS(this.options.url);
    } catch (error) {
      return this.fail(error);
    }
    this.ws = ws;
    ws.onopen = () => {
      if (ws !== this.ws) return;
      const connectId = this.id();
      const frame: Record<string, unknown>[] = [
        { id: connectId, connect: { token, name: 'oddsbook-client' } },
      ];
      this.expect(connectId, (reply) => this.connectReply(ws, reply));
      // The server handles a frame's commands in order: the subscribes go with the connect.
      for (const sub of this.subs.values()) frame.push(this.subscribeCommand(sub));
      this.send(frame);
    };
    ws.onmessage = (event) => {
      if (ws !== this.ws) return;
      this.alive();
      let replies: Reply[];
      try {
        replies = decodeFrame(typeof event.data === 'string' ? event.data : String(event.data));
      } catch {
        return this.drop(ws);
      }
      for (const reply of replies) this.dispatch(reply);
    };
    ws.onclose = (event) => {
      if (ws !== this.ws) return;
      this.closed(event.code, event.reason);
    };
    ws.onerror = () => undefined;
  }

  private connectReply(ws: WebSocketLike, reply: Reply): void {
    if (reply.error) {
      const { code, message } = reply.error;
      this.detach(ws, 1000, 'connect refused');
      this.teardown();
      if (code === TOKEN_EXPIRED || code < 100 || reply.error.temporary || TEMPORARY_ERRORS.has(code))
        this.scheduleReconnect();
      else this.fail(new RealtimeError(code, message));
      return;
    }
    const result: ConnectResult = reply.connect ?? {};
    this.connected = true;
    this.attempt = 0;
    this.pong = result.pong === true;
    this.livenessMs = result.ping ? result.ping * 1000 + 10_000 : 0;
    this.alive();
    if (result.expires && result.ttl) this.scheduleRefresh(result.ttl);
    this.setState('connected');
  }

  private subscribeCommand(sub: ChannelSubscription<Channel>): Record<string, unknown> {
    const id = this.id();
    this.expect(id, (reply) => this.subscribeReply(sub, reply));
    return { id, ...sub.command() };
  }

  private sendSubscribe(sub: ChannelSubscription<Channel>): void {
    this.send([this.subscribeCommand(sub)]);
  }

  private subscribeReply(sub: ChannelSubscription<Channel>, reply: Reply): void {
    if (this.subs.get(sub.channel) !== sub) return;
    if (!reply.error) {
      sub.subscribed(reply.subscribe ?? {});
      return;
    }
    const error: WireError = reply.error;
    if (error.code < 100 || error.temporary || TEMPORARY_ERRORS.has(error.code)) {
      const delay = this.backoff(2);
      setTimeout(() => {
        if (this.connected && this.subs.get(sub.channel) === sub) this.sendSubscribe(sub);
      }, delay);
      return;
    }
    sub.failed(new RealtimeError(error.code, error.message));
  }

  private dispatch(reply: Reply): void {
    if (reply.id) {
      const pending = this.pending.get(reply.id);
      if (!pending) return;
      this.pending.delete(reply.id);
      clearTimeout(pending.timer);
      pending.onReply(reply);
      return;
    }
    const push = reply.push;
    if (!push) {
      // A server ping: answered with an empty command when the server asked for pongs.
      if (this.pong) this.send([{}]);
      return;
    }
    if (push.disconnect) {
      this.closed(push.disconnect.code, push.disconnect.reason ?? '');
      return;
    }
    const sub = push.channel ? this.subs.get(push.channel) : undefined;
    if (!sub) return;
    if (push.pub) {
      sub.published(push.pub);
      return;
    }
    if (push.unsubscribe) {
      // 2500 and above: resubscribe from the held position (insufficient state); below: for good.
      if (push.unsubscribe.code >= 2500) {
        sub.interrupted();
        if (this.connected) this.sendSubscribe(sub);
      } else sub.failed(new RealtimeError(push.unsubscribe.code, push.unsubscribe.reason ?? 'unsubscribed'));
    }
  }

  private expect(id: number, onReply: (reply: Reply) => void): void {
    const timer = setTimeout(() => {
      this.pending.delete(id);
      if (this.ws) this.drop(this.ws);
    }, this.options.commandTimeoutMs ?? 10_000);
    this.pending.set(id, { onReply, timer });
  }

  private send(commands: Record<string, unknown>[]): void {
    const ws = this.ws;
    if (!ws || ws.readyState !== OPEN) return;
    try {
      ws.send(commands.map((c) => JSON.stringify(c)).join('\n'));
    } catch {
      this.drop(ws);
    }
  }

  private scheduleRefresh(ttlSeconds: number): void {
    clearTimeout(this.refreshTimer);
    this.refreshTimer = setTimeout(async () => {
      try {
        const token = await this.options.getToken();
        const id = this.id();
        this.expect(id, (reply) => {
          if (reply.error) return this.scheduleRefresh(5 + Math.random() * 5);
          if (reply.refresh?.expires && reply.refresh.ttl) this.scheduleRefresh(reply.refresh.ttl);
        });
        this.send([{ id, refresh: { token } }]);
      } catch (error) {
        if (isRefusal(error)) return this.fail(error);
        this.scheduleRefresh(5 + Math.random() * 5);
      }
    }, ttlSeconds * 1000);
  }

  /** Something arrived: the server is alive; past `ping` + 10 s of silence the connection is dropped. */
  private alive(): void {
    clearTimeout(this.livenessTimer);
    if (!this.livenessMs) return;
    const ws = this.ws;
    this.livenessTimer = setTimeout(() => {
      if (ws && ws === this.ws) this.drop(ws);
    }, this.livenessMs);
  }

  /** Stops using `ws` and reconnects (a silent or broken connection). */
  private drop(ws: WebSocketLike): void {
    if (ws !== this.ws) return;
    this.detach(ws, 3000, 'reconnecting');
    this.closed(3000, 'dropped by the client');
  }

  private detach(ws: WebSocketLike, code: number, reason: string): void {
    ws.onopen = ws.onmessage = ws.onclose = null;
    ws.onerror = () => undefined;
    try {
      ws.close(code === 3000 ? 1000 : code, reason);
    } catch {
      // already closed
    }
  }

  private teardown(): void {
    this.ws = undefined;
    this.connected = false;
    clearTimeout(this.refreshTimer);
    clearTimeout(this.livenessTimer);
    for (const { timer } of this.pending.values()) clearTimeout(timer);
    this.pending.clear();
    for (const sub of this.subs.values()) sub.interrupted();
  }

  private closed(code: number, reason: string): void {
    const ws = this.ws;
    this.teardown();
    if (ws) this.detach(ws, 1000, 'closed');
    if (this.stateValue === 'closed') return;
    if (isTerminalClose(code)) {
      this.fail(new RealtimeError(code, reason || 'closed by the server'));
      return;
    }
    this.scheduleReconnect();
  }

  private backoff(attempt: number): number {
    const min = this.options.minReconnectDelayMs ?? 500;
    const max = this.options.maxReconnectDelayMs ?? 20_000;
    const cap = Math.min(max, min * 2 ** Math.min(attempt, 16));
    return Math.round(min / 2 + Math.random() * (cap - min / 2));
  }

  private scheduleReconnect(): void {
    if (this.stateValue === 'closed' || this.reconnectTimer) return;
    this.setState('disconnected');
    this.reconnectTimer = setTimeout(() => void this.open(), this.backoff(this.attempt++));
  }

  private fail(error: unknown): void {
    this.error = error;
    const ws = this.ws;
    this.teardown();
    if (ws) this.detach(ws, 1000, 'closed');
    const realtimeError =
      error instanceof RealtimeError
        ? error
        : new RealtimeError(0, (error as Error)?.message ?? String(error), { cause: error });
    for (const sub of [...this.subs.values()]) sub.failed(realtimeError);
    this.setState('closed', error);
  }
}
