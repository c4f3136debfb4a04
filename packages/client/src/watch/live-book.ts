import { type BookSnapshot, isNewerBook, type OrderBookMarketChannel, takerBook } from '@oddsbook/protocol';
import type { ChannelSubscription } from '../realtime/connection.js';
import { Follower } from './follower.js';
import { Listeners } from './listeners.js';

export type LiveBookDeps = {
  subscription: ChannelSubscription<OrderBookMarketChannel>;
  getOrderBook: (marketHash: string) => Promise<BookSnapshot>;
  ladderStepSize: number;
  onError?: ((error: unknown) => void) | undefined;
};

/**
 * A market's order book kept live: seeded from `GET /orderbook-v3/snapshot`, then every publication of
 * `order_book:market_{hash}` (whole books) that is newer than what it holds; reseeded from REST whenever the
 * subscription could not recover what it missed or an offset jumped. `maker` is the book as published
 * (resting orders per outcome), `taker` what a taker can take (as `showTakerPerspective`).
 */
export class LiveBook implements AsyncIterable<BookSnapshot> {
  private current: BookSnapshot | null = null;
  private readonly changes = new Listeners<BookSnapshot>();
  private readonly follower: Follower<OrderBookMarketChannel>;
  private resolveReady!: (book: BookSnapshot) => void;
  private rejectReady!: (error: unknown) => void;
  /** Resolves with the first book held (from REST or the channel). */
  readonly ready: Promise<BookSnapshot>;
  /** Whether the channel is subscribed now (false while reconnecting). */
  live = false;
  readonly marketHash: `0x${string}`;

  constructor(
    marketHash: string,
    private readonly deps: LiveBookDeps,
  ) {
    this.marketHash = marketHash.toLowerCase() as `0x${string}`;
    this.ready = new Promise((resolve, reject) => {
      this.resolveReady = resolve;
      this.rejectReady = reject;
    });
    this.ready.catch(() => undefined);
    this.follower = new Follower(deps.subscription, {
      reseed: async () => this.apply(await deps.getOrderBook(this.marketHash)),
      apply: (data) => this.apply(data),
      onLive: (live) => {
        this.live = live;
      },
      onError: (error) => {
        if (error && (error as { name?: string }).name === 'RealtimeError') this.rejectReady(error);
        deps.onError?.(error);
      },
    });
  }

  private apply(next: BookSnapshot & { messageId?: string }): void {
    if (next.marketHash.toLowerCase() !== this.marketHash || !isNewerBook(this.current, next)) return;
    const { messageId: _id, ...book } = next;
    this.current = book;
    this.resolveReady(book);
    this.changes.emit(book);
  }

  /** The book as published (maker frame): each outcome's resting orders, best first; null before the first. */
  get maker(): BookSnapshot | null {
    return this.current;
  }

  /** What a taker betting each outcome can take, best first (the exchange's `showTakerPerspective`). */
  get taker(): BookSnapshot | null {
    return this.current && takerBook(this.current, this.deps.ladderStepSize);
  }

  /** Completed reseeds from REST (the first seed included). */
  get reseeds(): number {
    return this.follower.reseeds;
  }

  /** Calls `listener` with each newer book; returns the function that stops it. */
  on(listener: (book: BookSnapshot) => void): () => void {
    return this.changes.on(listener);
  }

  /** Every newer book from now on (maker frame). */
  [Symbol.asyncIterator](): AsyncIterator<BookSnapshot> {
    return this.changes.iterate();
  }

  /** Reloads from REST now (the channel keeps it live by itself; this is for a caller that knows better). */
  reseed(): Promise<void> {
    return this.follower.reseed();
  }

  close(): void {
    this.follower.stop();
    this.deps.subscription.unsubscribe();
    this.changes.end();
  }
}
