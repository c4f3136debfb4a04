import type { ChannelPayload, GLOBAL_CHANNELS } from '@oddsbook/protocol';
import type { ChannelSubscription, RealtimeError } from '../realtime/connection.js';
import { Listeners } from './listeners.js';

type ParlayChannel = typeof GLOBAL_CHANNELS.parlay_markets;
/** One request for quotes on `parlay_markets:global`: the parlay market to quote, its token, size and legs. */
export type ParlayRequest = Omit<ChannelPayload<ParlayChannel>, 'messageId'>;

export type ParlayRequestsDeps = {
  subscription: ChannelSubscription<ParlayChannel>;
  /** Only the requests in this token (default: every one). */
  baseToken?: string | undefined;
  /**
   * The subscription was (re)established after a drop: requests published meanwhile are lost for good (the
   * channel keeps no history, and a request is only worth quoting within its few seconds anyway).
   */
  onMissed?: (() => void) | undefined;
  onError?: ((error: unknown) => void) | undefined;
};

/** How many recent market hashes are remembered to drop a request delivered twice. */
const REMEMBERED = 1000;

/**
 * Parlay requests as they are published on `parlay_markets:global`, for makers to quote: by listener
 * (`on`) or as an async iterator. The channel is NOT recoverable: it keeps no history, so nothing is
 * replayed after a reconnect and there is no REST listing to reseed from. A request published while the
 * connection was down is missed (`onMissed` says when that may have happened); `live` says whether the
 * subscription stands now.
 */
export class ParlayRequests implements AsyncIterable<ParlayRequest> {
  private readonly requests = new Listeners<ParlayRequest>();
  private readonly seen = new Set<string>();
  private resolveReady!: () => void;
  private rejectReady!: (error: unknown) => void;
  private readonly off: () => void;
  private wasLive = false;
  /** Resolves once subscribed (requests published from then on are delivered); rejects if refused. */
  readonly ready: Promise<void>;
  live = false;
  /** How many requests were delivered. */
  received = 0;

  constructor(private readonly deps: ParlayRequestsDeps) {
    this.ready = new Promise((resolve, reject) => {
      this.resolveReady = resolve;
      this.rejectReady = reject;
    });
    this.ready.catch(() => undefined);
    const sub = deps.subscription;
    this.off = sub.on((event) => {
      switch (event.type) {
        case 'subscribed':
          this.live = true;
          if (this.wasLive) deps.onMissed?.();
          this.wasLive = true;
          this.resolveReady();
          break;
        case 'gap':
          deps.onMissed?.();
          break;
        case 'interrupted':
          this.live = false;
          break;
        case 'publication':
          this.deliver(event.data);
          break;
        case 'unsubscribed':
          this.live = false;
          this.fail(event.error);
          break;
      }
    });
    // A subscription already live (shared with another holder) reports no new `subscribed`.
    if (sub.state === 'subscribed') {
      this.live = this.wasLive = true;
      this.resolveReady();
    }
  }

  private deliver({ messageId: _id, ...request }: ChannelPayload<ParlayChannel>): void {
    if (this.deps.baseToken && request.baseToken.toLowerCase() !== this.deps.baseToken.toLowerCase()) return;
    const hash = request.marketHash.toLowerCase();
    if (this.seen.has(hash)) return;
    this.seen.add(hash);
    if (this.seen.size > REMEMBERED) this.seen.delete(this.seen.values().next().value!);
    this.received++;
    this.requests.emit(request);
  }

  private fail(error: RealtimeError): void {
    this.rejectReady(error);
    this.deps.onError?.(error);
    this.requests.end();
  }

  /** Calls `listener` with each request from now on; returns the function that stops it. */
  on(listener: (request: ParlayRequest) => void): () => void {
    return this.requests.on(listener);
  }

  /** Every request from now on, until `close()` (or the subscription is refused). */
  [Symbol.asyncIterator](): AsyncIterator<ParlayRequest> {
    return this.requests.iterate();
  }

  close(): void {
    this.off();
    this.deps.subscription.unsubscribe();
    this.requests.end();
  }
}
